"""Recurrent cells (``mxnet.gluon.rnn``): one time step per call, ``unroll`` over a sequence.

As in MXNet 1.9.1: ``RNNCell``/``LSTMCell``/``GRUCell`` compute a step from ``FullyConnected`` i2h and h2h
projections (gates in MXNet's order: LSTM i, f, c, o; GRU r, z, n), states come from ``begin_state``
(zeros by default), containers chain cells and split the flat state list between them, and modifier
cells (``ResidualCell``, ``ZoneoutCell``) wrap a base cell and share its parameters. Variable-length
unrolling (``valid_length``) is not provided: it raises :class:`RuntimeUnsupported`.
"""
from ... import ndarray as _nd
from ... import symbol as _sym
from ...base import RuntimeUnsupported, numeric_types
from ..block import Block, HybridBlock
from ..nn import LeakyReLU

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell", "SequentialRNNCell",
           "HybridSequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
           "BidirectionalCell"]

_MODIFIED = ("After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be called directly. "
             "Call the modifier cell instead.")


def _namespace(inputs):
    first = inputs if isinstance(inputs, (_nd.NDArray, _sym.Symbol)) else inputs[0]
    return _sym if isinstance(first, _sym.Symbol) else _nd


def _steps(length, inputs, layout, merge, in_layout=None):
    """``inputs`` as a list of per-step tensors (``merge=False``), one stacked tensor (``merge=True``) or
    as given (``None``); also the time axis, the namespace and the batch size (0 for symbols)."""
    assert inputs is not None, ("unroll(inputs=None) has been deprecated. Please create input variables outside "
                                "unroll.")
    axis, batch_axis = layout.find("T"), layout.find("N")
    in_axis = in_layout.find("T") if in_layout is not None else axis
    F = _namespace(inputs)
    batch = 0
    if isinstance(inputs, (_nd.NDArray, _sym.Symbol)):
        if F is _nd:
            batch = inputs.shape[batch_axis]
        if merge is False:
            count = inputs.shape[in_axis] if F is _nd else length
            assert F is _sym or length is None or length == count
            parts = F.split(inputs, axis=in_axis, num_outputs=count, squeeze_axis=1)
            inputs = [parts] if count == 1 and F is _nd else list(parts)
    else:
        assert length is None or len(inputs) == length
        if F is _nd:
            batch = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, (_nd.NDArray, _sym.Symbol)) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch


def _begin(cell, F, begin_state, batch):
    return begin_state if begin_state is not None else cell.begin_state(func=F.zeros, batch_size=batch)


def _no_valid_length(valid_length):
    if valid_length is not None:
        raise RuntimeUnsupported("unroll(valid_length=...) of the recurrent cells")


class RecurrentCell(Block):
    """Base of the cells: a step counter (node names ``t0_``, ``t1_``...) and ``begin_state``/``unroll``."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size=0):
        raise NotImplementedError()

    def begin_state(self, batch_size=0, func=_nd.zeros, **kwargs):
        assert not self._modified, _MODIFIED
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info, **kwargs) if info is not None else dict(kwargs)
            states.append(func(name="%sbegin_state_%d" % (self._prefix, self._init_counter), **info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        _no_valid_length(valid_length)
        self.reset()
        inputs, _, F, batch = _steps(length, inputs, layout, False)
        states = _begin(self, F, begin_state, batch)
        outputs = []
        for step in range(length):
            output, states = self(inputs[step], states)
            outputs.append(output)
        outputs, _, _, _ = _steps(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        named = {"tanh": F.tanh, "relu": F.relu, "sigmoid": F.sigmoid, "softsign": F.softsign}.get(activation)
        if named:
            return named(inputs, **kwargs)
        if isinstance(activation, str):
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class _ProjectionCell(HybridRecurrentCell):
    """The i2h/h2h weights and biases shared by RNN, LSTM and GRU cells (``gates`` blocks of rows)."""

    _gates = 1

    def __init__(self, hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size, self._input_size = hidden_size, input_size
        rows = self._gates * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, input_size), init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, hidden_size), init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _projections(self, F, inputs, hidden, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix):
        rows = self._hidden_size * self._gates
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=rows, name=prefix + "i2h")
        h2h = F.FullyConnected(data=hidden, weight=h2h_weight, bias=h2h_bias, num_hidden=rows, name=prefix + "h2h")
        return i2h, h2h

    def __repr__(self):
        shape = self.i2h_weight.shape
        return "{name}({mapping})".format(name=self.__class__.__name__,
                                          mapping="{0} -> {1}".format(shape[1] if shape[1] else None, shape[0]))


class RNNCell(_ProjectionCell):
    def __init__(self, hidden_size, activation="tanh", i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def _alias(self):
        return "rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        output = self._get_activation(F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"), self._activation,
                                      name=prefix + "out")
        return output, [output]


class LSTMCell(_ProjectionCell):
    _gates = 4

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None,
                 activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation, self._recurrent_activation = activation, recurrent_activation

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}] * 2

    def _alias(self):
        return "lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        gates = F.SliceChannel(F.elemwise_add(i2h, h2h, name=prefix + "plus0"), num_outputs=4, name=prefix + "slice")
        act = self._get_activation
        in_gate = act(F, gates[0], self._recurrent_activation, name=prefix + "i")
        forget_gate = act(F, gates[1], self._recurrent_activation, name=prefix + "f")
        in_transform = act(F, gates[2], self._activation, name=prefix + "c")
        out_gate = act(F, gates[3], self._recurrent_activation, name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, in_transform, name=prefix + "mul1"), name=prefix + "state")
        next_h = F.elemwise_mul(out_gate, F.Activation(next_c, act_type=self._activation,
                                                       name=prefix + "activation0"), name=prefix + "out")
        return next_h, [next_h, next_c]


class GRUCell(_ProjectionCell):
    _gates = 3

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)

    def _alias(self):
        return "gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        prev = states[0]
        i2h, h2h = self._projections(F, inputs, prev, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice")
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice")
        reset_gate = F.Activation(F.elemwise_add(i2h_r, h2h_r, name=prefix + "plus0"), act_type="sigmoid",
                                  name=prefix + "r_act")
        update_gate = F.Activation(F.elemwise_add(i2h_z, h2h_z, name=prefix + "plus1"), act_type="sigmoid",
                                   name=prefix + "z_act")
        candidate = F.Activation(F.elemwise_add(i2h, F.elemwise_mul(reset_gate, h2h, name=prefix + "mul0"),
                                                name=prefix + "plus2"), act_type="tanh", name=prefix + "h_act")
        ones = F.ones_like(update_gate, name=prefix + "ones_like0")
        next_h = F.elemwise_add(F.elemwise_mul(F.elemwise_sub(ones, update_gate, name=prefix + "minus0"), candidate,
                                               name=prefix + "mul1"),
                                F.elemwise_mul(update_gate, prev, name=prefix + "mul20"), name=prefix + "out")
        return next_h, [next_h]


class _CellChain:
    """What SequentialRNNCell and HybridSequentialRNNCell share: children run in order, each taking its
    slice of the flat state list."""

    def add(self, cell):
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return sum([c.state_info(batch_size) for c in self._children.values()], [])

    def begin_state(self, **kwargs):
        assert not self._modified, _MODIFIED
        return sum([c.begin_state(**kwargs) for c in self._children.values()], [])

    def __call__(self, inputs, states):
        self._counter += 1
        next_states, p = [], 0
        for cell in self._children.values():
            assert not isinstance(cell, BidirectionalCell)
            n = len(cell.state_info())
            inputs, state = cell(inputs, states[p:p + n])
            p += n
            next_states.append(state)
        return inputs, sum(next_states, [])

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        _no_valid_length(valid_length)
        self.reset()
        inputs, _, F, batch = _steps(length, inputs, layout, None)
        begin_state = _begin(self, F, begin_state, batch)
        cells = list(self._children.values())
        next_states, p = [], 0
        for i, cell in enumerate(cells):
            n = len(cell.state_info())
            inputs, states = cell.unroll(length, inputs=inputs, begin_state=begin_state[p:p + n], layout=layout,
                                         merge_outputs=None if i < len(cells) - 1 else merge_outputs)
            p += n
            next_states.extend(states)
        return inputs, next_states

    def __getitem__(self, i):
        return self._children[str(i)]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_CellChain, RecurrentCell):
    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, *args, **kwargs):
        raise NotImplementedError


class HybridSequentialRNNCell(_CellChain, HybridRecurrentCell):
    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, inputs, states):
        return self.__call__(inputs, states)


class DropoutCell(HybridRecurrentCell):
    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        assert isinstance(rate, numeric_types), "rate must be a number"
        self._rate, self._axes = rate, axes

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return "dropout"

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes, name="t%d_fwd" % self._counter)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        inputs, _, F, _ = _steps(length, inputs, layout, merge_outputs)
        if isinstance(inputs, (_nd.NDArray, _sym.Symbol)):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout, merge_outputs=merge_outputs,
                              valid_length=valid_length)


class ModifierCell(HybridRecurrentCell):
    """Wraps ``base_cell`` (sharing its parameters); the base cell can then only be run through it."""

    def __init__(self, base_cell):
        assert not base_cell._modified, "Cell %s is already modified. One cell cannot be modified twice" % (
            base_cell.name)
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=_sym.zeros, **kwargs):
        assert not self._modified, _MODIFIED
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError


class ZoneoutCell(ModifierCell):
    """Keeps each output / state unit from the previous step with probability ``zoneout_*`` (training only;
    in inference the ``Dropout`` masks are all ones, so the new values pass)."""

    def __init__(self, base_cell, zoneout_outputs=0.0, zoneout_states=0.0):
        assert not isinstance(base_cell, BidirectionalCell), (
            "BidirectionalCell doesn't support zoneout since it doesn't support step. Please add ZoneoutCell to "
            "the cells underneath instead.")
        super().__init__(base_cell)
        self.zoneout_outputs, self.zoneout_states = zoneout_outputs, zoneout_states
        self._prev_output = None

    def _alias(self):
        return "zoneout"

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def keep(p, like):
            return F.Dropout(F.ones_like(like), p=p)
        prev = self._prev_output if self._prev_output is not None else F.zeros_like(next_output)
        output = (F.where(keep(self.zoneout_outputs, next_output), next_output, prev)
                  if self.zoneout_outputs != 0.0 else next_output)
        if self.zoneout_states != 0.0:
            next_states = [F.where(keep(self.zoneout_states, new), new, old) for new, old in zip(next_states, states)]
        self._prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """Adds the step's input to the base cell's output."""

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        return F.elemwise_add(output, inputs, name="t%d_fwd" % self._counter), states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        _no_valid_length(valid_length)
        self.reset()
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state, layout=layout,
                                                merge_outputs=merge_outputs)
        self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, (_nd.NDArray, _sym.Symbol))
        inputs, _, F, _ = _steps(length, inputs, layout, merge_outputs)
        if merge_outputs:
            return F.elemwise_add(outputs, inputs), states
        return [F.elemwise_add(o, i) for o, i in zip(outputs, inputs)], states


class BidirectionalCell(HybridRecurrentCell):
    """Runs ``l_cell`` forward and ``r_cell`` over the reversed sequence; outputs concatenated per step."""

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def state_info(self, batch_size=0):
        return sum([c.state_info(batch_size) for c in self._children.values()], [])

    def begin_state(self, **kwargs):
        assert not self._modified, _MODIFIED
        return sum([c.begin_state(**kwargs) for c in self._children.values()], [])

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        _no_valid_length(valid_length)
        self.reset()
        inputs, axis, F, batch = _steps(length, inputs, layout, False)
        states = _begin(self, F, begin_state, batch)
        l_cell, r_cell = self._children.values()
        n_left = len(l_cell.state_info(batch))
        l_out, l_states = l_cell.unroll(length, inputs=inputs, begin_state=states[:n_left], layout=layout,
                                        merge_outputs=merge_outputs)
        r_out, r_states = r_cell.unroll(length, inputs=list(reversed(inputs)), begin_state=states[n_left:],
                                        layout=layout, merge_outputs=False)
        r_out = list(reversed(r_out))
        if merge_outputs is None:
            merge_outputs = isinstance(l_out, (_nd.NDArray, _sym.Symbol))
            l_out, _, _, _ = _steps(None, l_out, layout, merge_outputs)
            r_out, _, _, _ = _steps(None, r_out, layout, merge_outputs)
        if merge_outputs:
            if not isinstance(r_out, (_nd.NDArray, _sym.Symbol)):
                r_out = F.stack(*r_out, axis=axis)
            outputs = F.concat(l_out, r_out, dim=2, name="%sout" % self._output_prefix)
        else:
            outputs = [F.concat(a, b, dim=1, name="%st%d" % (self._output_prefix, i))
                       for i, (a, b) in enumerate(zip(l_out, r_out))]
        return outputs, l_states + r_states


for _name in __all__:
    globals()[_name].__module__ = "mxnet.gluon.rnn.rnn_cell"
