"""Conformance of hylint.runtime with MXNet 1.9.1.

Every pattern row of mxnet-truth (plus its candidate rewrites and the measured fluent methods) runs on
the runtime and must end the same way as on MXNet: same outcome class per step (construction,
imperative call, first and second hybridized call: ok / error while tracing / error at graph time),
the same exception type, and equal numbers (atol 1e-5) where both succeed (shapes only for random ops).

The MXNet side comes from ``runtime_truth.json`` (recorded with ``python tests/runtime/runtime_harness.py
--record``) and, where MXNet imports, from a live run (``-m mxnet``).
"""
import glob
import importlib.util
import json
import os
import sys

import numpy as np
import pytest

import runtime_harness as harness

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRUTH = json.load(open(harness.TRUTH_FILE))["variants"]
VARIANTS = harness.variants()

#: rows the runtime does not cover, and why
OUT_OF_SCOPE = {}
#: rows whose measured behaviour comes from numpy < 1.24 (MXNet's own requirement): numpy turns an NDArray, a
#: nested sequence without ``__array__``, into a 32-dim object array; newer numpy refuses such input
NUMPY_1X_ROWS = {"ns_np_exp", "ns_np_maximum", "ns_np_sqrt", "ns_np_tanh", "ns_np_concat"}
OLD_NUMPY = tuple(int(v) for v in np.__version__.split(".")[:2]) < (1, 24)
if not OLD_NUMPY:
    OUT_OF_SCOPE.update({rid: "needs numpy < 1.24 (numpy %s here)" % np.__version__ for rid in NUMPY_1X_ROWS})

#: measured MXNet behaviour the runtime deliberately does not reproduce (listed in docs/runtime.md)
KNOWN_DISAGREEMENTS = {
    "cf_where_bcast": "MXNet's hybridized `where` reads a (1,3) condition out of bounds and returns garbage "
                      "values; the runtime accepts the shape like MXNet but broadcasts the condition",
}


#: rows whose message names "the first" unknown graph input, which MXNet picks from a Python set (hash order)
SET_ORDER_MESSAGES = {"child_list", "child_list_selfinit", "child_dict"}


def _scope_of(vid, rid):
    if rid in OUT_OF_SCOPE:
        return "out"
    return "known" if vid in KNOWN_DISAGREEMENTS else "in"


def _params():
    out = []
    for vid, rid, spec in VARIANTS:
        scope = _scope_of(vid, rid)
        marks = []
        if scope == "out":
            marks.append(pytest.mark.skip(reason=OUT_OF_SCOPE[rid]))
        elif scope == "known":
            marks.append(pytest.mark.xfail(reason=KNOWN_DISAGREEMENTS[vid], strict=True))
        out.append(pytest.param(vid, spec, id=vid, marks=marks))
    return out


@pytest.fixture(scope="module")
def rt():
    return harness.runtime_mx()


@pytest.mark.parametrize("vid, spec", _params())
def test_variant_matches_recorded_mxnet(rt, vid, spec):
    outcome = harness.run_spec(rt, spec)
    diffs = harness.differences(outcome, TRUTH[vid], spec["compare"])
    assert not diffs, "\n".join(diffs)
    if vid not in SET_ORDER_MESSAGES:
        messages = harness.message_differences(outcome, TRUTH[vid])
        assert not messages, "\n".join(messages)


@pytest.mark.slow
@pytest.mark.mxnet
@pytest.mark.parametrize("vid, spec", _params())
def test_variant_matches_live_mxnet(rt, vid, spec):
    mx = harness.real_mx()
    if mx is None:
        pytest.skip("MXNet does not import here")
    truth = harness.run_spec(mx, spec)
    diffs = harness.differences(harness.run_spec(rt, spec), truth, spec["compare"])
    assert not diffs, "\n".join(diffs)


def agreement(rt):
    """(agreeing rows, in-scope rows, disagreeing row ids) over mxnet-truth's pattern rows."""
    rows = [(vid, spec) for vid, rid, spec in VARIANTS if spec["kind"] == "row" and rid not in OUT_OF_SCOPE]
    bad = [vid for vid, spec in rows
           if harness.differences(harness.run_spec(rt, spec), TRUTH[vid], spec["compare"])]
    return len(rows) - len(bad), len(rows), bad


def test_agreement_rate_on_truth_rows(rt):
    agree, total, bad = agreement(rt)
    assert agree / total >= 0.95, bad
    assert set(bad) <= set(KNOWN_DISAGREEMENTS), "unlisted disagreements: %s" % sorted(set(bad) - set(KNOWN_DISAGREEMENTS))


def test_every_truth_row_is_run_or_named_out_of_scope():
    from runtime_case_table import ROWS
    ids = {vid for vid, _, _ in VARIANTS}
    assert {row["id"] for row in ROWS} <= ids
    assert set(OUT_OF_SCOPE) <= {row["id"] for row in ROWS}


# ------------------------------------------------------------------------------------------------
# whole models: the seed tutorial Net and the d2l MLP, with identical parameters on both sides
# ------------------------------------------------------------------------------------------------
SEED_NET = '''
class Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            self.conv1 = nn.Conv2D(6, kernel_size=5)
            self.pool1 = nn.MaxPool2D(pool_size=2)
            self.conv2 = nn.Conv2D(16, kernel_size=5)
            self.pool2 = nn.MaxPool2D(pool_size=2)
            self.fc1 = nn.Dense(120)
            self.fc2 = nn.Dense(84)
            self.fc3_weight = self.params.get('fc3_weight', shape=(10, 84))

    def hybrid_forward(self, F, x, fc3_weight):
        print(x)
        x = self.pool1(F.relu(self.conv1(x)))
        x = self.pool2(F.relu(self.conv2(x)))
        x = x.reshape((0, -1))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = F.dot(x, fc3_weight, transpose_b=True)
        return x
'''

RECURRENT = '''
class Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            self.lstm = rnn.LSTM(5, num_layers=2, bidirectional=True, input_size=28)
            self.gru = rnn.GRU(4, layout='NTC', input_size=10)
            self.rnn = rnn.RNN(3, activation='tanh', input_size=4)
            self.out = nn.Dense(2, flatten=False)

    def hybrid_forward(self, F, x):
        h = self.lstm(x.reshape((0, 0, -1)))        # (T=4, N, 10)
        h = self.gru(F.swapaxes(h, dim1=0, dim2=1))  # NTC
        h = F.swapaxes(h, dim1=0, dim2=1)
        start = F.ones_like(h.slice_axis(axis=2, begin=0, end=3).sum(axis=0, keepdims=True)) * 0.1  # (1, N, 3)
        h, states = self.rnn(h, [start])
        return F.broadcast_add(self.out(h), states[0].sum().reshape((1, 1, 1)))
'''

LAYERS = '''
class Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.PReLU(), nn.ReflectionPad2D(1),
                          nn.Conv2DTranspose(3, 3, strides=2, padding=1, output_padding=1), nn.ELU(), nn.SELU(),
                          nn.GELU(), nn.Swish(), nn.AvgPool2D(2), nn.Conv2D(2, 1), nn.LeakyReLU(0.1),
                          nn.GlobalMaxPool2D(), nn.Flatten(), nn.Dropout(0.3), nn.Dense(3))
            self.branches = gluon.contrib.nn.HybridConcurrent(axis=1)
            self.branches.add(gluon.contrib.nn.Identity(), nn.Conv2D(2, 1))
            self.seq = nn.HybridSequential()
            self.seq.add(nn.Embedding(10, 6), nn.Conv1D(4, 2), nn.MaxPool1D(2), nn.InstanceNorm(),
                         nn.Conv1DTranspose(2, 2), nn.GlobalAvgPool1D(), nn.Flatten(), nn.Dense(2))

    def hybrid_forward(self, F, x):
        tokens = F.clip(F.floor(F.abs(x.slice_axis(axis=2, begin=0, end=1).reshape((0, -1))) * 3), 0, 9)
        return F.concat(self.body(self.branches(x)), self.seq(tokens).reshape((0, -1)), dim=1)
'''

D2L_MLP = '''
def Net():
    net = nn.HybridSequential()
    net.add(nn.Dense(256, activation='relu'),
            nn.Dense(128, activation='relu'),
            nn.Dense(2))
    return net
'''


def build(mx, source, name="Net"):
    env = harness.case_globals(mx)
    exec(compile(source, "<model>", "exec"), env)
    return env[name]


def seed_input(shape):
    return (np.sin(np.arange(int(np.prod(shape)), dtype=np.float64) * 0.13) * 2.0).reshape(shape).astype(np.float32)


def run_model(mx, source, x, calls=2):
    """Eager output, hybridized outputs, parameters, and what was printed per call."""
    import contextlib
    import io
    net = build(mx, source)()
    net.initialize(harness.pattern_initializer(mx))
    printed = []
    outs = []
    for step in range(calls + 1):
        if step == 1:
            net.hybridize()
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            outs.append(net(mx.nd.array(x)).asnumpy())
        printed.append(buf.getvalue())
    params = {k: v.data().asnumpy() for k, v in net._collect_params_with_prefix().items()}  # structural names
    return outs, printed, params


def test_seed_net_eager_equals_hybridized_on_runtime(rt):
    x = seed_input((4, 1, 28, 28))
    outs, printed, params = run_model(rt, SEED_NET, x)
    assert outs[0].shape == (4, 10)
    np.testing.assert_allclose(outs[0], outs[1], atol=1e-5)
    np.testing.assert_allclose(outs[1], outs[2], atol=1e-5)
    # eager prints the array every call; hybridize traces once (prints the Symbol), then replays silently
    assert "NDArray 4x1x28x28" in printed[0]
    assert printed[1].strip() == "<Symbol data>"
    assert printed[2] == ""
    assert params["conv1.weight"].shape == (6, 1, 5, 5)  # deferred init inferred in_channels
    assert params["fc1.weight"].shape == (120, 256)


def test_seed_net_equals_numpy_reference(rt):
    """The seed Net computed by hand in NumPy, from the runtime's own parameters."""
    x = seed_input((2, 1, 28, 28))
    outs, _, p = run_model(rt, SEED_NET, x, calls=1)

    def conv(a, w, b):
        n, c, h, wd = a.shape
        f, _, k, _ = w.shape
        out = np.zeros((n, f, h - k + 1, wd - k + 1))
        for i in range(h - k + 1):
            for j in range(wd - k + 1):
                out[:, :, i, j] = np.einsum("nchw,fchw->nf", a[:, :, i:i + k, j:j + k], w)
        return out + b[None, :, None, None]

    def pool(a):
        n, c, h, w = a.shape
        return a[:, :, :h // 2 * 2, :w // 2 * 2].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))

    relu = lambda a: np.maximum(a, 0)  # noqa: E731
    h = pool(relu(conv(x, p["conv1.weight"], p["conv1.bias"])))
    h = pool(relu(conv(h, p["conv2.weight"], p["conv2.bias"])))
    h = h.reshape(h.shape[0], -1)
    h = relu(h @ p["fc1.weight"].T + p["fc1.bias"])
    h = relu(h @ p["fc2.weight"].T + p["fc2.bias"])
    ref = h @ p["fc3_weight"].T
    np.testing.assert_allclose(outs[0], ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(outs[1], ref, rtol=1e-4, atol=1e-4)


@pytest.mark.mxnet
@pytest.mark.parametrize("source, shape", [(SEED_NET, (4, 1, 28, 28)), (D2L_MLP, (3, 20)), (RECURRENT, (4, 4, 28)),
                                           (LAYERS, (2, 3, 8, 8))],
                         ids=["seed-Net", "d2l-MLP", "LSTM-GRU-RNN", "layer-zoo"])
def test_model_equals_mxnet(rt, source, shape):
    mx = pytest.importorskip("mxnet")
    if getattr(mx, "__hylint_runtime__", False):
        pytest.skip("mxnet resolves to the runtime")
    x = seed_input(shape)
    ours, our_printed, our_params = run_model(rt, source, x)
    theirs, their_printed, their_params = run_model(mx, source, x)
    assert sorted(our_params) == sorted(their_params)
    for key in our_params:
        np.testing.assert_allclose(our_params[key], their_params[key], atol=1e-6)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, atol=1e-5, rtol=1e-5)
    assert [bool(p) for p in our_printed] == [bool(p) for p in their_printed]


# ------------------------------------------------------------------------------------------------
# fixtures written by the rule authors: every block in EXAMPLES, on both implementations
# ------------------------------------------------------------------------------------------------
FIXTURE_FILES = sorted(glob.glob(os.path.join(ROOT, "fixtures", "*", "before.py")) +
                       glob.glob(os.path.join(ROOT, "fixtures", "*", "after.py")))


def load_module(path, runtime):
    """Import a fixture file with ``mxnet`` resolving to the runtime (or to real MXNet)."""
    from hylint.runtime import activate
    name = "hylint_fixture_%s_%d" % (os.path.relpath(path, ROOT).replace(os.sep, "_").replace(".", "_"), runtime)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    if runtime:
        with activate():
            spec.loader.exec_module(module)
    else:
        spec.loader.exec_module(module)
    return module


def fixture_outcomes(module, mx):
    results = {}
    for block_name, shapes in getattr(module, "EXAMPLES", {}).items():
        inputs = [_example_input(s) for s in shapes]
        cls = getattr(module, block_name)
        results[block_name] = run_block(mx, cls, inputs)
    return results


def _example_input(spec):
    """An EXAMPLES entry as make_inputs takes it: a shape, {"shape", "dtype"}, or a list of those."""
    if isinstance(spec, list):
        return [_example_input(part) for part in spec]
    if isinstance(spec, dict):
        dtype = spec.get("dtype", "float32")
        return seed_input(tuple(spec["shape"])).astype(dtype).tolist(), dtype
    return seed_input(tuple(spec)).tolist(), "float32"


def run_block(mx, cls, inputs):
    """Like harness.run_pattern, for an existing block class."""
    outcome = {}
    with harness.quiet():
        try:
            net = cls()
            net.initialize(harness.pattern_initializer(mx))
        except Exception as err:  # noqa: BLE001
            outcome["construct"] = {"kind": "error", "etype": harness.exc_name(err), "message": harness.exc_head(err)}
            return outcome
    outcome["construct"] = {"kind": "ok"}
    steps = []
    for step in ("imp", "hyb", "hyb2"):
        if step == "hyb":
            net.hybridize()
        res = harness._call(lambda: net(*harness.make_inputs(mx, inputs)), mx)
        if res["kind"] == "error" and step != "imp":
            res["kind"] = "graph_error" if getattr(net, "_cached_graph", None) else "trace_error"
        if res["kind"] == "ok":
            res.pop("out")
            leaves = res.pop("numpy")
            res["leaves"] = [leaf.tolist() if isinstance(leaf, np.ndarray) else leaf for leaf in leaves]
            res["shapes"] = [list(np.shape(leaf)) if isinstance(leaf, np.ndarray) else None for leaf in leaves]
        steps.append(res)
        outcome[step] = res
    return outcome


def test_fixture_loader_runs_a_block_on_the_runtime(tmp_path):
    """The fixture path works even before any fixture exists."""
    path = tmp_path / "before.py"
    path.write_text("import mxnet as mx\nfrom mxnet import gluon\n\n"
                    "class Net(gluon.HybridBlock):\n"
                    "    def hybrid_forward(self, F, x):\n"
                    "        return x[0]\n\n"
                    "EXAMPLES = {'Net': [(3, 4)]}\n")
    module = load_module(str(path), runtime=True)
    outcome = fixture_outcomes(module, harness.runtime_mx())["Net"]
    assert outcome["imp"]["shapes"] == [[4]]
    assert outcome["hyb"]["shapes"] == [[3, 4]]  # the silent x[0] bug, reproduced
    assert "mxnet" not in sys.modules or not getattr(sys.modules["mxnet"], "__hylint_runtime__", False)


@pytest.mark.mxnet
@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[os.path.relpath(p, ROOT) for p in FIXTURE_FILES])
def test_fixture_matches_mxnet(rt, path):
    mx = harness.real_mx()
    if mx is None:
        pytest.skip("MXNet does not import here")
    module = load_module(path, runtime=True)
    rt.random.seed(1)
    ours = fixture_outcomes(module, rt)
    rt.random.seed(2)
    reseeded = fixture_outcomes(module, rt)
    theirs = fixture_outcomes(load_module(path, runtime=False), mx)
    assert ours.keys() == theirs.keys()
    for block in ours:
        # a block declared RANDOM (docs/architecture.md) or whose output changes with the seed draws random
        # numbers: compare shapes only
        random = block in getattr(module, "RANDOM", ()) or harness.differences(ours[block], reseeded[block])
        diffs = harness.differences(ours[block], theirs[block], "shape" if random else "allclose")
        assert not diffs, "%s: %s" % (block, "\n".join(diffs))


# ------------------------------------------------------------------------------------------------
# gluon.loss
# ------------------------------------------------------------------------------------------------
LOSS_CASES = [("L2Loss", {}, "dense"), ("L1Loss", {}, "dense"), ("SoftmaxCrossEntropyLoss", {}, "sparse"),
              ("SoftmaxCrossEntropyLoss", {"sparse_label": False}, "dense"),
              ("SigmoidBinaryCrossEntropyLoss", {}, "binary"),
              ("SigmoidBinaryCrossEntropyLoss", {"from_sigmoid": True}, "binary")]


def loss_outputs(mx, name, kwargs, label_kind):
    rs = np.random.RandomState(0)
    pred = rs.normal(size=(4, 5)).astype(np.float32)
    dense = rs.uniform(size=(4, 5)).astype(np.float32)
    label = {"dense": dense, "sparse": np.array([0, 3, 1, 4], dtype=np.float32),
             "binary": (dense > 0.5).astype(np.float32)}[label_kind]
    if kwargs.get("from_sigmoid"):
        pred = 1 / (1 + np.exp(-pred))
    loss = getattr(mx.gluon.loss, name)(**kwargs)
    eager = loss(mx.nd.array(pred), mx.nd.array(label)).asnumpy()
    loss.hybridize()
    return eager, loss(mx.nd.array(pred), mx.nd.array(label)).asnumpy()


@pytest.mark.mxnet
@pytest.mark.parametrize("name, kwargs, label_kind", LOSS_CASES)
def test_loss_equals_mxnet(rt, name, kwargs, label_kind):
    mx = harness.real_mx()
    if mx is None:
        pytest.skip("MXNet does not import here")
    for ours, theirs in zip(loss_outputs(rt, name, kwargs, label_kind), loss_outputs(mx, name, kwargs, label_kind)):
        np.testing.assert_allclose(ours, theirs, atol=1e-5)


@pytest.mark.parametrize("source, shape", [(D2L_MLP, (3, 20)), (RECURRENT, (4, 4, 28)), (LAYERS, (2, 3, 8, 8))],
                         ids=["d2l-MLP", "LSTM-GRU-RNN", "layer-zoo"])
def test_model_eager_equals_hybridized_on_runtime(rt, source, shape):
    outs, _, params = run_model(rt, source, seed_input(shape))
    assert params and all(np.isfinite(v).all() for v in params.values())
    np.testing.assert_allclose(outs[0], outs[1], atol=1e-5)
    np.testing.assert_allclose(outs[1], outs[2], atol=1e-5)


@pytest.mark.mxnet
@pytest.mark.parametrize("source", [SEED_NET, RECURRENT, LAYERS], ids=["seed-Net", "LSTM-GRU-RNN", "layer-zoo"])
def test_parameter_names_equal_mxnet(rt, source):
    mx = harness.real_mx()
    if mx is None:
        pytest.skip("MXNet does not import here")
    names = []
    for impl in (rt, mx):
        net = build(impl, source)(prefix="model_")
        with harness.quiet():
            net.initialize(harness.pattern_initializer(impl))
            net(impl.nd.array(seed_input({SEED_NET: (1, 1, 28, 28), RECURRENT: (4, 4, 28)}.get(source, (2, 3, 8, 8)))))
        names.append({k: v.shape for k, v in net.collect_params().items()})
    assert names[0] == names[1]
