"""Fused recurrent layers: ``RNN``, ``LSTM``, ``GRU`` (layouts TNC / NTC), on the table's ``RNN`` operator."""
import re

from ... import ndarray as _nd
from ... import symbol as _sym
from ..block import HybridBlock

__all__ = ["RNN", "LSTM", "GRU"]

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


class _RNNLayer(HybridBlock):
    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size, i2h_weight_initializer,
                 h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, mode, dtype, **kwargs):
        super().__init__(**kwargs)
        assert layout in ("TNC", "NTC"), "Invalid layout %s; must be one of ['TNC' or 'NTC']" % layout
        self._hidden_size, self._num_layers, self._mode, self._layout = hidden_size, num_layers, mode, layout
        self._dropout, self._dir, self._input_size, self._dtype = dropout, 2 if bidirectional else 1, input_size, dtype
        self._gates = _GATES[mode]
        self.skip_states = None
        rows, n_in = self._gates * hidden_size, input_size
        for layer in range(num_layers):
            for direction in "lr"[:self._dir]:
                prefix = "%s%d_" % (direction, layer)
                self._register(prefix + "i2h_weight", (rows, n_in), i2h_weight_initializer)
                self._register(prefix + "h2h_weight", (rows, hidden_size), h2h_weight_initializer)
                self._register(prefix + "i2h_bias", (rows,), i2h_bias_initializer)
                self._register(prefix + "h2h_bias", (rows,), h2h_bias_initializer)
            n_in = hidden_size * self._dir

    def _register(self, name, shape, init):
        setattr(self, name, self.params.get(name, shape=shape, init=init, allow_deferred_init=True,
                                            dtype=self._dtype))

    def __repr__(self):
        shape = self.l0_i2h_weight.shape
        extra = "".join([", num_layers=%d" % self._num_layers if self._num_layers != 1 else "",
                         ", dropout=%s" % self._dropout if self._dropout else "",
                         ", bidirectional" if self._dir == 2 else ""])
        return "%s(%s -> %s, %s%s)" % (self.__class__.__name__, shape[1] if shape[1] else None,
                                       shape[0] // self._gates, self._layout, extra)

    def _collect_params_with_prefix(self, prefix=""):
        # structural names of MXNet's unfused cells, so saved files match MXNet's
        if prefix:
            prefix += "."
        pattern = re.compile(r"(l|r)(\d)_(i2h|h2h)_(weight|bias)\Z")
        bidirectional = self._dir == 2
        ret = {}
        for key, value in self._reg_params.items():
            d, layer, group, kind = pattern.match(key).groups()
            name = ("_unfused.%s.%s_cell.%s_%s" % (layer, d, group, kind) if bidirectional
                    else "_unfused.%s.%s_%s" % (layer, group, kind))
            ret[prefix + name] = value
        return ret

    def state_info(self, batch_size=0):
        shape = (self._num_layers * self._dir, batch_size, self._hidden_size)
        infos = [{"shape": shape, "__layout__": "LNC", "dtype": self._dtype}]
        return infos * 2 if self._mode == "lstm" else infos

    def begin_state(self, batch_size=0, func=_nd.zeros, **kwargs):
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info = dict(info, **kwargs)
            states.append(func(name="%sh0_%d" % (self.prefix, i), **info))
        return states

    def __call__(self, inputs, states=None, **kwargs):
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, _nd.NDArray):
                batch_size = inputs.shape[self._layout.find("N")]
                states = self.begin_state(batch_size, dtype=inputs.dtype)
            else:
                states = self.begin_state(0, func=_sym.zeros)
        if isinstance(states, (_nd.NDArray, _sym.Symbol)):
            states = [states]
        return super().__call__(inputs, states, **kwargs)

    def hybrid_forward(self, F, inputs, states, **params):
        if F is _nd:
            batch_size = inputs.shape[self._layout.find("N")]
            for state, info in zip(states, self.state_info(batch_size)):
                if state.shape != info["shape"]:
                    raise ValueError("Invalid recurrent state shape. Expecting %s, got %s."
                                     % (str(info["shape"]), str(state.shape)))
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        order = ["%s%d_%s_%s" % (d, layer, group, kind) for kind in ("weight", "bias")
                 for layer in range(self._num_layers) for d in "lr"[:self._dir] for group in ("i2h", "h2h")]
        packed = F.concat(*[params[name].reshape((-1,)) for name in order], dim=0)
        rnn = F.RNN(inputs, packed, *states, state_size=self._hidden_size, num_layers=self._num_layers,
                    bidirectional=self._dir == 2, p=self._dropout, state_outputs=True, mode=self._mode)
        outputs, new_states = rnn[0], [rnn[1], rnn[2]] if self._mode == "lstm" else [rnn[1]]
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs if self.skip_states else (outputs, new_states)


class RNN(_RNNLayer):
    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0, bidirectional=False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, "rnn_" + activation,
                         dtype, **kwargs)


class LSTM(_RNNLayer):
    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, "lstm", dtype, **kwargs)


class GRU(_RNNLayer):
    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, "gru", dtype, **kwargs)


for _cls in (RNN, LSTM, GRU):
    _cls.__module__ = "mxnet.gluon.rnn.rnn_layer"
