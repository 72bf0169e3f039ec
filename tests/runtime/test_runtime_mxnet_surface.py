"""The MXNet surface real libraries import beyond the operators: ``gluon.data``, ``metric``,
``lr_scheduler``, recurrent cells, ``model_zoo.vision``, name scopes, and the parts the runtime names as
unsupported. Each behavioural test runs on the runtime and (``-m mxnet``) on real MXNet 1.9.1, so every
expectation is itself checked against MXNet."""
import numpy as np
import pytest

from hylint.runtime import runtime_modules
from hylint.runtime.base import RuntimeUnsupported

RUNTIME_MX = runtime_modules()["mxnet"]


@pytest.fixture(params=["runtime", pytest.param("mxnet", marks=pytest.mark.mxnet)])
def mx(request):
    if request.param == "runtime":
        return RUNTIME_MX
    from runtime_harness import real_mx
    real = real_mx()
    if real is None:
        pytest.skip("MXNet does not import here")
    return real


# --- gluon.data ------------------------------------------------------------------------------------
def test_array_dataset_and_dataloader_batches(mx):
    data = np.arange(20, dtype=np.float32).reshape(10, 2)
    labels = np.arange(10, dtype=np.float32)
    dataset = mx.gluon.data.ArrayDataset(data, labels)
    assert len(dataset) == 10
    x, y = dataset[3]
    assert list(x) == [6.0, 7.0] and y == 3.0
    loader = mx.gluon.data.DataLoader(dataset, batch_size=4, last_batch="keep")
    batches = list(loader)
    assert len(loader) == 3 and len(batches) == 3
    assert [b[0].shape for b in batches] == [(4, 2), (4, 2), (2, 2)]
    np.testing.assert_array_equal(batches[1][1].asnumpy(), [4, 5, 6, 7])
    assert len(mx.gluon.data.DataLoader(dataset, batch_size=4, last_batch="discard")) == 2


def test_dataset_transform_first_filter_shard(mx):
    dataset = mx.gluon.data.SimpleDataset([(i, -i) for i in range(7)])
    doubled = dataset.transform_first(lambda v: v * 2)
    assert doubled[3] == (6, -3)
    assert [s for s in dataset.filter(lambda s: s[0] % 2 == 0)] == [(0, 0), (2, -2), (4, -4), (6, -6)]
    assert [len(dataset.shard(3, i)) for i in range(3)] == [3, 2, 2]
    assert list(dataset.take(2)) == [(0, 0), (1, -1)]


def test_samplers(mx):
    data = mx.gluon.data
    assert list(data.SequentialSampler(4)) == [0, 1, 2, 3]
    assert sorted(data.RandomSampler(5)) == [0, 1, 2, 3, 4]
    batches = data.BatchSampler(data.SequentialSampler(7), 3, "rollover")
    assert list(batches) == [[0, 1, 2], [3, 4, 5]]
    assert list(batches) == [[6, 0, 1], [2, 3, 4]]  # the rolled-over sample starts the next epoch


def test_vision_transforms_to_tensor_and_normalize(mx):
    transforms = mx.gluon.data.vision.transforms
    image = mx.nd.array(np.arange(2 * 3 * 3).reshape(2, 3, 3) * 10, dtype="uint8")
    pipeline = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5, 0.25, 0.0), (2.0, 1.0, 0.5))])
    out = pipeline(image).asnumpy()
    expected = (np.moveaxis(image.asnumpy(), -1, 0) / 255.0 - np.array([0.5, 0.25, 0.0]).reshape(3, 1, 1)) \
        / np.array([2.0, 1.0, 0.5]).reshape(3, 1, 1)
    assert out.shape == (3, 2, 3) and out.dtype == np.float32
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)


# --- metric and lr_scheduler -------------------------------------------------------------------------
def test_metrics(mx):
    preds = [mx.nd.array([[0.3, 0.7], [0.0, 1.0], [0.4, 0.6]])]
    labels = [mx.nd.array([0, 1, 1])]
    acc = mx.metric.create("acc")
    acc.update(labels, preds)
    assert acc.get() == ("accuracy", 2.0 / 3.0)
    composite = mx.metric.create(["acc", "mae"])
    composite.update([mx.nd.array([1.0, 2.0])], [mx.nd.array([1.5, 1.0])])
    names, values = composite.get()
    assert names == ["accuracy", "mae"] and values[1] == pytest.approx(0.75)
    loss = mx.metric.Loss()
    loss.update(None, [mx.nd.array([1.0, 2.0, 3.0])])
    assert loss.get() == ("loss", 2.0)
    ce = mx.metric.CrossEntropy()
    ce.update([mx.nd.array([1, 0])], [mx.nd.array([[0.25, 0.75], [0.5, 0.5]])])
    assert ce.get()[1] == pytest.approx(-(np.log(0.75) + np.log(0.5)) / 2)
    custom = mx.metric.np(lambda label, pred: float(np.abs(label - pred).max()))
    custom.update([mx.nd.array([1.0, 2.0])], [mx.nd.array([1.0, 5.0])])
    assert custom.get()[1] == 3.0


def test_lr_schedulers(mx):
    s = mx.lr_scheduler
    factor = s.FactorScheduler(step=10, factor=0.5, base_lr=1.0, warmup_steps=4, warmup_begin_lr=0.2)
    assert [factor(n) for n in (0, 2, 4, 11, 21, 25)] == pytest.approx([0.2, 0.6, 1.0, 0.5, 0.25, 0.25])
    multi = s.MultiFactorScheduler(step=[3, 6], factor=0.1, base_lr=1.0)
    assert [multi(n) for n in (1, 4, 7)] == pytest.approx([1.0, 0.1, 0.01])
    poly = s.PolyScheduler(max_update=10, base_lr=1.0, pwr=2, final_lr=0.0)
    assert poly(5) == pytest.approx(0.25)
    cosine = s.CosineScheduler(max_update=10, base_lr=1.0, final_lr=0.0, warmup_steps=2)
    assert cosine(1) == pytest.approx(0.5) and cosine(6) == pytest.approx(0.5)


# --- recurrent cells ------------------------------------------------------------------------------------
def _pattern_params(block):
    for name, param in sorted(block.collect_params().items()):
        size = int(np.prod(param.shape))
        param.set_data(np.sin(np.arange(size) + len(name)).reshape(param.shape).astype(np.float32) * 0.5)


@pytest.mark.parametrize("kind", ["rnn", "lstm", "gru", "stack", "bidirectional", "lstmp"])
def test_recurrent_cells_unroll_eagerly_and_hybridized(mx, kind):
    rnn = mx.gluon.rnn
    builders = {
        "rnn": lambda: rnn.RNNCell(5, input_size=3),
        "lstm": lambda: rnn.LSTMCell(5, input_size=3),
        "gru": lambda: rnn.GRUCell(5, input_size=3),
        "lstmp": lambda: mx.gluon.contrib.rnn.LSTMPCell(5, 2, input_size=3),
    }

    def build():
        if kind == "stack":
            cell = rnn.HybridSequentialRNNCell()
            cell.add(rnn.LSTMCell(4, input_size=3))
            cell.add(rnn.DropoutCell(0.5))
            cell.add(rnn.GRUCell(5, input_size=4))
            return cell
        if kind == "bidirectional":
            return rnn.BidirectionalCell(rnn.LSTMCell(4, input_size=3), rnn.GRUCell(2, input_size=3))
        return builders[kind]()

    x = mx.nd.array(np.cos(np.arange(2 * 4 * 3)).reshape(2, 4, 3))
    cell = build()
    cell.initialize()
    _pattern_params(cell)
    outputs, states = cell.unroll(4, x, layout="NTC", merge_outputs=True)
    reference = {"rnn": (2, 4, 5), "lstm": (2, 4, 5), "gru": (2, 4, 5), "stack": (2, 4, 5),
                 "bidirectional": (2, 4, 6), "lstmp": (2, 4, 2)}[kind]
    assert outputs.shape == reference
    step_out, step_states = build_and_step(mx, build, x)
    if kind != "bidirectional":
        np.testing.assert_allclose(outputs.asnumpy()[:, 0], step_out, rtol=1e-5, atol=1e-6)
    assert [s.shape for s in states] == [s.shape for s in cell.begin_state(batch_size=2)]
    # the same cell traced symbolically (what a hybridized model does) gives the same numbers; the begin
    # states are given as inputs (the runtime cannot infer a batch size of 0 backwards through FullyConnected)
    data = mx.sym.var("data")
    infos = cell.state_info(2)
    begin = [mx.sym.var("begin%d" % i) for i in range(len(infos))]
    sym_out, sym_states = cell.unroll(4, data, begin_state=begin, layout="NTC", merge_outputs=True)
    args = {p.name: p.data() for p in cell.collect_params().values()}
    args.update({"begin%d" % i: mx.nd.zeros(info["shape"]) for i, info in enumerate(infos)})
    args["data"] = x
    graph = mx.sym.Group([sym_out] + list(sym_states))
    results = graph.bind(mx.cpu(), {k: v for k, v in args.items() if k in graph.list_arguments()}).forward()
    np.testing.assert_allclose(results[0].asnumpy(), outputs.asnumpy(), rtol=1e-5, atol=1e-6)
    assert kind == "bidirectional" or len(step_states) == len(infos)


def build_and_step(mx, build, x):
    """One step of a freshly built cell (same parameters) on the first time step."""
    cell = build()
    cell.initialize()
    _pattern_params(cell)
    if isinstance(cell, mx.gluon.rnn.BidirectionalCell):
        return None, None
    out, states = cell(x[:, 0, :], cell.begin_state(batch_size=2))
    return out.asnumpy(), states


def test_residual_cell_adds_the_input(mx):
    base = mx.gluon.rnn.GRUCell(3, input_size=3)
    cell = mx.gluon.rnn.ResidualCell(base)
    cell.initialize()
    _pattern_params(cell)
    x = mx.nd.array(np.cos(np.arange(2 * 4 * 3)).reshape(2, 4, 3))
    outputs, _ = cell.unroll(4, x, layout="NTC", merge_outputs=True)
    plain = mx.gluon.rnn.GRUCell(3, input_size=3)
    plain.initialize()
    for mine, theirs in zip(plain.collect_params().values(), base.collect_params().values()):
        mine.set_data(theirs.data())
    base_out, _ = plain.unroll(4, x, layout="NTC", merge_outputs=True)
    np.testing.assert_allclose(outputs.asnumpy(), base_out.asnumpy() + x.asnumpy(), rtol=1e-5, atol=1e-6)


def test_recurrent_cell_parameter_names(mx):
    cell = mx.gluon.rnn.LSTMCell(4, prefix="l0_")
    assert sorted(cell.collect_params().keys()) == ["l0_h2h_bias", "l0_h2h_weight", "l0_i2h_bias", "l0_i2h_weight"]
    assert cell.state_info(3) == [{"shape": (3, 4), "__layout__": "NC"}] * 2


# --- the vision model zoo: MXNet's structure ----------------------------------------------------------
@pytest.mark.parametrize("name", ["resnet18_v1", "resnet50_v2", "densenet121", "inceptionv3", "mobilenetv2_0.25",
                                  "squeezenet1.0", "vgg11_bn", "alexnet"])
def test_model_zoo_structure(mx, name):
    net = mx.gluon.model_zoo.vision.get_model(name, classes=7)
    params = net.collect_params()
    summary = sorted((k[len(net.prefix):], tuple(v.shape)) for k, v in params.items())
    structural = sorted(net._collect_params_with_prefix())
    assert len(summary) == len(structural)
    from hashlib import sha1
    fingerprint = sha1(repr((summary, structural)).encode()).hexdigest()
    assert fingerprint == ZOO_FINGERPRINTS[name], "parameter names or shapes differ from MXNet 1.9.1's"


#: sha1 of (sorted parameter names without the model prefix, with their declared shapes; structural names),
#: recorded from MXNet 1.9.1 (``-m mxnet`` re-checks them there)
ZOO_FINGERPRINTS = {
    "resnet18_v1": "1bc5590b18c265d1ecda33c773409c0d250ce9be", "resnet50_v2": "7f028ba2479e80e174ded5e2f235837626a581f3",
    "densenet121": "5e9a0663b8a31092bd1df411b0ce55d75714e24c", "inceptionv3": "8b65e10e23f7bc128ab09500831e278b674f92b2",
    "mobilenetv2_0.25": "c41c2721311abf8910c1e35890ec3493de7d233e",
    "squeezenet1.0": "f2f38d459760aaebf6f8d3a759aff9ddc5a927b8", "vgg11_bn": "dd0b7350556c5a63f489f2766c08b391051bd7c7",
    "alexnet": "c298bceb497f8044e7a4b7cd63ea612580cc1113",
}


def test_model_zoo_refuses_pretrained_weights():
    with pytest.raises(RuntimeUnsupported, match="model_store.get_model_file"):
        RUNTIME_MX.gluon.model_zoo.vision.resnet18_v1(pretrained=True)
    with pytest.raises(ValueError, match="Model nope is not supported"):
        RUNTIME_MX.gluon.model_zoo.vision.get_model("nope")


# --- operators without a parameter struct ------------------------------------------------------------------
def test_ops_without_parameters_ignore_unknown_attributes(mx):
    x = mx.nd.ones((2, 3))
    assert mx.nd.zeros_like(x, dtype="int64").dtype == np.float32   # MXNet ignores dtype here
    assert mx.nd.relu(x, foo=1).shape == (2, 3)
    with pytest.raises(mx.base.MXNetError, match="Cannot find argument 'foo'"):
        mx.nd.broadcast_like(x, x, foo=1)


def test_topk_orders_equal_values_as_mxnet_cpu(mx):
    """MXNet's CPU topk partially sorts (a heap) when 8k <= n: ties come out in the heap's order."""
    x = mx.nd.array((np.arange(200) % 3).astype(np.float32).reshape(1, -1))
    assert mx.nd.topk(x, k=7).asnumpy().astype(int).tolist() == [[14, 8, 17, 20, 5, 11, 2]]
    assert mx.nd.topk(x, k=9, is_ascend=True).asnumpy().astype(int).tolist() == [[3, 12, 21, 15, 0, 18, 24, 9, 6]]
    y = mx.nd.array((np.arange(64).reshape(2, 32) % 2).astype(np.float32))
    assert mx.nd.topk(y, k=4, axis=1, ret_typ="both")[1].asnumpy().astype(int).tolist() == [[1, 3, 7, 5]] * 2
    small = mx.nd.array(np.ones((1, 10), np.float32))  # 8k > n: a full sort, ties in index order
    assert mx.nd.topk(small, k=4).asnumpy().astype(int).tolist() == [[0, 1, 2, 3]]


def test_topk_with_a_large_k_orders_equal_values_as_mxnet_cpu(mx):
    """When 8k > n MXNet's CPU topk runs std::sort (introsort, not stable) over the indices: past 16 values
    ties come out in its partitions' order, as measured on MXNet 1.9.1."""
    x = mx.nd.array((np.arange(40) % 3).astype(np.float32).reshape(1, -1))
    assert mx.nd.topk(x, k=10).asnumpy().astype(int).tolist() == [[29, 20, 17, 23, 14, 26, 11, 8, 32, 5]]
    assert mx.nd.topk(x, k=12, is_ascend=True).asnumpy().astype(int).tolist() == [
        [0, 21, 18, 24, 15, 27, 12, 30, 9, 33, 6, 36]]
    ones = mx.nd.array(np.ones((2, 50), np.float32))
    assert mx.nd.topk(ones, k=20).asnumpy().astype(int).tolist() == [
        [38, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 25, 39, 40, 41, 42, 43, 44]] * 2


def test_pad_is_a_fluent_method(mx):
    x = mx.nd.array(np.arange(8, dtype=np.float32).reshape(1, 2, 2, 2))
    widths = (0, 0, 0, 0, 1, 0, 0, 1)
    np.testing.assert_array_equal(x.pad(mode="constant", pad_width=widths, constant_value=-1).asnumpy(),
                                  mx.nd.pad(x, mode="constant", pad_width=widths, constant_value=-1).asnumpy())
    assert mx.sym.var("x").pad(mode="edge", pad_width=widths).infer_shape(x=(1, 2, 2, 2))[1] == [(1, 2, 3, 3)]


def test_symbol_block_structural_names_drop_the_common_prefix(mx):
    x = mx.sym.var("data")
    graph = mx.sym.BatchNorm(mx.sym.FullyConnected(x, num_hidden=3, name="feat_fc0"), name="feat_bn0")
    block = mx.gluon.SymbolBlock(graph, x)
    assert sorted(block._collect_params_with_prefix("features")) == [
        "features.bn0_beta", "features.bn0_gamma", "features.bn0_moving_mean", "features.bn0_moving_var",
        "features.fc0_bias", "features.fc0_weight"]


def test_block_apply_visits_children_first(mx):
    net = mx.gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(2, prefix="a_"), mx.gluon.nn.Dense(3, prefix="b_"))
    seen = []
    assert net.apply(lambda block: seen.append(block.prefix)) is net
    assert seen == ["net_a_", "net_b_", "net_"]


def test_autograd_function_runs_once(mx):
    class Double(mx.autograd.Function):
        def forward(self, x):
            return x * 2

        def backward(self, dy):
            return dy * 2

    f = Double()
    np.testing.assert_array_equal(f(mx.nd.ones((2,))).asnumpy(), [2, 2])
    with pytest.raises(AssertionError, match="can only be called once"):
        f(mx.nd.ones((2,)))


# --- the parts no forward pass needs: importable, and named when used ----------------------------------
@pytest.mark.parametrize("call, name", [
    (lambda mx: mx.image.imdecode(b""), "mxnet.image.imdecode"),
    (lambda mx: mx.image.ImageIter(1, (3, 2, 2)), "mxnet.image.ImageIter"),
    (lambda mx: mx.recordio.MXRecordIO("x.rec", "r"), "mxnet.recordio.MXRecordIO"),
    (lambda mx: mx.gluon.utils.download("http://example.invalid/x"), "mxnet.gluon.utils.download"),
    (lambda mx: mx.gluon.data.vision.CIFAR10(), "mxnet.gluon.data.vision.CIFAR10"),
    (lambda mx: mx.gluon.data.vision.transforms.Resize(4)(mx.nd.zeros((4, 4, 3))), "transforms.Resize"),
    (lambda mx: mx.optimizer.create("sgd").update(0, None, None, None), "mxnet.optimizer.SGD.update"),
    (lambda mx: mx.contrib.amp.init(), "mxnet.contrib.amp.init"),
])
def test_unsupported_parts_name_themselves(call, name):
    with pytest.raises(RuntimeUnsupported) as info:
        call(RUNTIME_MX)
    assert name in str(info.value) and "run verify with --backend mxnet" in str(info.value)
    assert isinstance(info.value, NotImplementedError)


def test_the_submodules_gluonfr_imports_resolve_as_in_mxnet():
    """MXNet's `mx.nd.ndarray` is a module of its own (gluonfr tests `F is nd.ndarray`), and its vision zoo is
    a package of one module per family (`from mxnet.gluon.model_zoo.vision.resnet import BottleneckV2`)."""
    from hylint.runtime import activate
    with activate():
        import mxnet
        from mxnet.gluon.model_zoo.vision.resnet import BottleneckV2, _conv3x3
        from mxnet.ndarray.ndarray import NDArray
        from mxnet.metric import ndarray  # gluonts
        assert ndarray is mxnet.nd
        assert mxnet.nd.ndarray is not mxnet.nd and NDArray is mxnet.nd.NDArray
        assert mxnet.nd.ndarray.NDArray is mxnet.nd.NDArray
        assert BottleneckV2 is mxnet.gluon.model_zoo.vision.BottleneckV2 and callable(_conv3x3)
