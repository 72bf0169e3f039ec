"""``mxnet.gluon.contrib.rnn``: ``LSTMPCell`` (LSTM with a projected hidden state) and
``VariationalDropoutCell`` (one dropout mask per sequence). The convolutional recurrent cells are not
provided."""
from ...rnn.rnn_cell import HybridRecurrentCell, ModifierCell, _steps, _begin

__all__ = ["LSTMPCell", "VariationalDropoutCell"]


class LSTMPCell(HybridRecurrentCell):
    """An LSTM step whose output and recurrent state is ``h2r_weight @ hidden`` (``projection_size`` wide)."""

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 h2r_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 input_size=0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size, self._input_size, self._projection_size = hidden_size, input_size, projection_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(4 * hidden_size, input_size),
                                          init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(4 * hidden_size, projection_size),
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.h2r_weight = self.params.get("h2r_weight", shape=(projection_size, hidden_size),
                                          init=h2r_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(4 * hidden_size,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(4 * hidden_size,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "lstmp"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        rows = self._hidden_size * 4
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=rows, name=prefix + "i2h")
        h2h = F.FullyConnected(data=states[0], weight=h2h_weight, bias=h2h_bias, num_hidden=rows, name=prefix + "h2h")
        gates = F.SliceChannel(i2h + h2h, num_outputs=4, name=prefix + "slice")
        in_gate = F.Activation(gates[0], act_type="sigmoid", name=prefix + "i")
        forget_gate = F.Activation(gates[1], act_type="sigmoid", name=prefix + "f")
        in_transform = F.Activation(gates[2], act_type="tanh", name=prefix + "c")
        out_gate = F.Activation(gates[3], act_type="sigmoid", name=prefix + "o")
        next_c = F.elemwise_add(forget_gate * states[1], in_gate * in_transform, name=prefix + "state")
        hidden = F.elemwise_mul(out_gate, F.Activation(next_c, act_type="tanh"), name=prefix + "hidden")
        next_r = F.FullyConnected(data=hidden, num_hidden=self._projection_size, weight=h2r_weight, no_bias=True,
                                  name=prefix + "out")
        return next_r, [next_r, next_c]


class VariationalDropoutCell(ModifierCell):
    """Dropout on inputs, first state and outputs with masks drawn once per sequence (identity in inference)."""

    def __init__(self, base_cell, drop_inputs=0.0, drop_states=0.0, drop_outputs=0.0):
        super().__init__(base_cell)
        self.drop_inputs, self.drop_states, self.drop_outputs = drop_inputs, drop_states, drop_outputs
        self.drop_inputs_mask = self.drop_states_mask = self.drop_outputs_mask = None

    def _alias(self):
        return "vardrop"

    def reset(self):
        super().reset()
        self.drop_inputs_mask = self.drop_states_mask = self.drop_outputs_mask = None

    def hybrid_forward(self, F, inputs, states):
        if self.drop_states and self.drop_states_mask is None:
            self.drop_states_mask = F.Dropout(F.ones_like(states[0]), p=self.drop_states)
        if self.drop_inputs and self.drop_inputs_mask is None:
            self.drop_inputs_mask = F.Dropout(F.ones_like(inputs), p=self.drop_inputs)
        if self.drop_states:
            states = [states[0] * self.drop_states_mask] + list(states[1:])
        if self.drop_inputs:
            inputs = inputs * self.drop_inputs_mask
        output, states = self.base_cell(inputs, states)
        if self.drop_outputs and self.drop_outputs_mask is None:
            self.drop_outputs_mask = F.Dropout(F.ones_like(output), p=self.drop_outputs)
        if self.drop_outputs:
            output = output * self.drop_outputs_mask
        return output, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        if self.drop_states:
            return super().unroll(length, inputs, begin_state, layout, merge_outputs, valid_length=valid_length)
        self.reset()
        inputs, axis, F, batch = _steps(length, inputs, layout, True)
        states = _begin(self, F, begin_state, batch)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        outputs, states = self.base_cell.unroll(length, inputs, states, layout, merge_outputs=True,
                                                valid_length=valid_length)
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        merge = isinstance(outputs, (type(inputs),)) if merge_outputs is None else merge_outputs
        outputs, _, _, _ = _steps(length, outputs, layout, merge)
        return outputs, states


for _name in __all__:
    globals()[_name].__module__ = "mxnet.gluon.contrib.rnn.rnn_cell"
