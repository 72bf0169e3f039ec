"""The fused recurrent layer (MXNet's ``RNN`` operator)."""
import numpy as np

from .table import Op, ShapeCheck, register
from .attrs import P
from .common import _assign


# ----------------------------------------------------------------------------------------------
# fused recurrent layers (MXNet's RNN operator: all weights, then all biases, packed in one vector)
# ----------------------------------------------------------------------------------------------
_RNN_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def _rnn_layout(attrs, input_size):
    """[(layer, direction, i2h shape, h2h shape)] in MXNet's packing order."""
    g, h, dirs = _RNN_GATES[attrs["mode"]], attrs["state_size"], 2 if attrs["bidirectional"] else 1
    out, ni = [], input_size
    for layer in range(attrs["num_layers"]):
        for d in range(dirs):
            out.append((layer, d, (g * h, ni), (g * h, h)))
        ni = h * dirs
    return out


def _rnn_param_size(attrs, input_size):
    g, h = _RNN_GATES[attrs["mode"]], attrs["state_size"]
    return sum(int(np.prod(a)) + int(np.prod(b)) + 2 * g * h for _, _, a, b in _rnn_layout(attrs, input_size))


def _rnn_outputs(attrs):
    if not attrs["state_outputs"]:
        return 1
    return 3 if attrs["mode"] == "lstm" else 2


def _rnn_shape(in_shapes, attrs):
    shapes = list(in_shapes)
    data = shapes[0]
    n_out = _rnn_outputs(attrs)
    if data is None:
        return shapes, [None] * n_out
    if len(data) != 3:
        raise ShapeCheck("Check failed: dshape.ndim() == 3U (%d vs. 3) : Input data should be rank-3 tensor of dim "
                         "[sequence length, batch size, input size]" % len(data))
    t, n, c = data
    dirs = 2 if attrs["bidirectional"] else 1
    state = (attrs["num_layers"] * dirs, n, attrs["state_size"])
    _assign(shapes, 1, (_rnn_param_size(attrs, c),))
    for i in range(2, len(shapes)):
        _assign(shapes, i, state)
    outs = [(t, n, dirs * attrs["state_size"])] + [state] * (n_out - 1)
    return shapes, outs


def _rnn_cell_step(mode, x_proj, h, c, w_h, b_h):
    hidden = h @ w_h.T + b_h
    if mode == "lstm":
        i, f, g, o = np.split(x_proj + hidden, 4, axis=-1)
        sig = lambda v: 1.0 / (1.0 + np.exp(-v))  # noqa: E731
        c = sig(f) * c + sig(i) * np.tanh(g)
        return sig(o) * np.tanh(c), c
    if mode == "gru":
        xr, xz, xn = np.split(x_proj, 3, axis=-1)
        hr, hz, hn = np.split(hidden, 3, axis=-1)
        r = 1.0 / (1.0 + np.exp(-(xr + hr)))
        z = 1.0 / (1.0 + np.exp(-(xz + hz)))
        cand = np.tanh(xn + r * hn)
        return (1 - z) * cand + z * h, c
    act = np.tanh if mode == "rnn_tanh" else (lambda v: np.maximum(v, 0))
    return act(x_proj + hidden), c


def _rnn_kernel(inputs, attrs):
    data, params = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    h0 = inputs[2].astype(np.float64)
    c0 = inputs[3].astype(np.float64) if attrs["mode"] == "lstm" else np.zeros_like(h0)
    layout = _rnn_layout(attrs, data.shape[2])
    dirs = 2 if attrs["bidirectional"] else 1
    weights, pos = {}, 0
    for layer, d, i2h, h2h in layout:
        for key, shape in (("i2h", i2h), ("h2h", h2h)):
            size = int(np.prod(shape))
            weights[(layer, d, key)] = params[pos:pos + size].reshape(shape)
            pos += size
    for layer, d, i2h, _ in layout:
        for key in ("i2h", "h2h"):
            weights[(layer, d, key + "_b")] = params[pos:pos + i2h[0]]
            pos += i2h[0]
    x = data
    h_out, c_out = [], []
    for layer in range(attrs["num_layers"]):
        outs = []
        for d in range(dirs):
            idx = layer * dirs + d
            h, c = h0[idx], c0[idx]
            seq = x if d == 0 else x[::-1]
            proj = seq @ weights[(layer, d, "i2h")].T + weights[(layer, d, "i2h_b")]
            steps = []
            for t in range(seq.shape[0]):
                h, c = _rnn_cell_step(attrs["mode"], proj[t], h, c, weights[(layer, d, "h2h")],
                                      weights[(layer, d, "h2h_b")])
                steps.append(h)
            out = np.stack(steps)
            outs.append(out if d == 0 else out[::-1])
            h_out.append(h)
            c_out.append(c)
        x = np.concatenate(outs, axis=-1)
    dtype = inputs[0].dtype
    results = [x.astype(dtype)]
    if attrs["state_outputs"]:
        results.append(np.stack(h_out).astype(dtype))
        if attrs["mode"] == "lstm":
            results.append(np.stack(c_out).astype(dtype))
    return tuple(results) if len(results) > 1 else results[0]


register(Op("RNN", _rnn_kernel, _rnn_shape, inputs=("data", "parameters", "state", "state_cell"),
            optional_inputs=("state_cell",), num_outputs=_rnn_outputs,
            params=(P("state_size", "int"), P("num_layers", "int"), P("bidirectional", "bool", False),
                    P("mode", ("gru", "lstm", "rnn_relu", "rnn_tanh")), P("p", "float", 0.0), P("state_outputs", "bool", False),
                    P("projection_size", "any", None), P("lstm_state_clip_min", "any", None),
                    P("lstm_state_clip_max", "any", None), P("lstm_state_clip_nan", "bool", False),
                    P("use_sequence_length", "bool", False))))
