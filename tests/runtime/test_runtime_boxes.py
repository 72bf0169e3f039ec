"""``contrib.box_nms`` and ``contrib.box_iou`` (gluoncv's detection heads) on the runtime, against MXNet 1.9.1
on seeded random boxes with every option, eagerly and through a hybridized block."""
import numpy as np
import pytest

from verifyrun import mxnet_available

NMS_CASES = [
    {},
    {"overlap_thresh": 0.1, "id_index": 0, "force_suppress": True},
    {"overlap_thresh": 0.3, "id_index": 0},
    {"overlap_thresh": 0.3, "id_index": 0, "background_id": 1, "valid_thresh": 0.2, "topk": 7},
    {"overlap_thresh": 0.5, "id_index": 0, "in_format": "center", "out_format": "corner"},
    {"overlap_thresh": 0.5, "id_index": 0, "in_format": "corner", "out_format": "center"},
    {"overlap_thresh": 0.7, "coord_start": 1, "score_index": 0, "topk": 3},
]


def _records(seed, shape=(2, 3, 24, 6), coord_start=2, score_index=1):
    rng = np.random.RandomState(seed)
    data = rng.uniform(0, 1, size=shape).astype(np.float32)
    data[..., 0] = rng.randint(0, 3, size=shape[:-1])  # class ids
    # crowded boxes (centres in [0.3, 0.7), sides in [0.1, 0.5)), so that many overlap and get suppressed
    centres, sides = rng.uniform(0.3, 0.7, size=shape[:-1] + (2,)), rng.uniform(0.1, 0.5, size=shape[:-1] + (2,))
    data[..., coord_start:coord_start + 4] = np.concatenate([centres - sides / 2, centres + sides / 2], axis=-1)
    data[..., score_index] = rng.uniform(0, 1, size=shape[:-1])
    return data


def _nms_outputs(mx, case, data):
    eager = mx.nd.contrib.box_nms(mx.nd.array(data), **case).asnumpy()

    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.contrib.box_nms(x, **case)

    net = Net()
    net.hybridize()
    return eager, net(mx.nd.array(data)).asnumpy()


def _iou_outputs(mx, data):
    lhs, rhs = mx.nd.array(data[0, 0, :5, 2:6]), mx.nd.array(data[1, :2, :3, 2:6])
    return [mx.nd.contrib.box_iou(lhs, rhs, format=fmt).asnumpy() for fmt in ("corner", "center")]


@pytest.fixture(scope="module")
def runtime_mx():
    from hylint.runtime import runtime_modules
    return runtime_modules()["mxnet"]


@pytest.fixture(scope="module")
def real_mx():
    if not mxnet_available():
        pytest.skip("MXNet 1.x is not importable")
    import mxnet
    return mxnet


def test_box_nms_documented_example(runtime_mx):
    """MXNet's docstring example of box_nms."""
    x = runtime_mx.nd.array([[0, 0.5, 0.1, 0.1, 0.2, 0.2], [1, 0.4, 0.1, 0.1, 0.2, 0.2],
                             [0, 0.3, 0.1, 0.1, 0.14, 0.14], [2, 0.6, 0.5, 0.5, 0.7, 0.8]])
    out = runtime_mx.nd.contrib.box_nms(x, overlap_thresh=0.1, coord_start=2, score_index=1, id_index=0,
                                        force_suppress=True).asnumpy()
    np.testing.assert_allclose(out, [[2, 0.6, 0.5, 0.5, 0.7, 0.8], [0, 0.5, 0.1, 0.1, 0.2, 0.2],
                                     [-1] * 6, [-1] * 6], rtol=1e-6)
    assert runtime_mx.nd.contrib.box_non_maximum_suppression is not None


@pytest.mark.mxnet
@pytest.mark.parametrize("case", NMS_CASES, ids=lambda case: ",".join(f"{k}={v}" for k, v in case.items()) or "defaults")
@pytest.mark.parametrize("seed", [0, 1])
def test_box_nms_equals_mxnet(runtime_mx, real_mx, case, seed):
    data = _records(seed, coord_start=case.get("coord_start", 2), score_index=case.get("score_index", 1))
    ours, theirs = _nms_outputs(runtime_mx, case, data), _nms_outputs(real_mx, case, data)
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine, reference, rtol=1e-6, atol=1e-6)


@pytest.mark.mxnet
@pytest.mark.parametrize("seed", [0, 1])
def test_box_iou_equals_mxnet(runtime_mx, real_mx, seed):
    data = _records(seed)
    for mine, reference in zip(_iou_outputs(runtime_mx, data), _iou_outputs(real_mx, data)):
        assert mine.shape == reference.shape == (5, 2, 3)
        np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-6)


# --- ROIAlign of a region with batch index -1 (gluoncv's FPN masks the regions of the other pyramid levels so) --
_FEATURES = np.arange(2 * 1 * 8 * 8, dtype=np.float32).reshape(2, 1, 8, 8)
_ROIS = np.array([[0, 1, 1, 5, 5], [-1, -1, -1, -1, -1], [1, 0, 0, 3, 3], [-1, 2, 2, 6, 6]], np.float32)


def _roi_align(mx, out=None):
    result = mx.nd.contrib.ROIAlign(mx.nd.array(_FEATURES), mx.nd.array(_ROIS), pooled_size=(2, 2), spatial_scale=1.0,
                                    sample_ratio=2, out=out)
    return result.asnumpy().reshape(4, -1)


def test_roi_align_of_a_region_of_batch_index_minus_one_zeroes_the_value_at_its_index(runtime_mx):
    """As MXNet 1.9.1 (measured, one thread): region r of batch index -1 zeroes the r-th value of the output
    (values 1 and 3 of region 0 here) and leaves its own block unwritten (zeros on the runtime)."""
    out = _roi_align(runtime_mx)
    assert out[0].tolist() == [18, 0, 34, 0] and (out[[1, 3]] == 0).all()
    assert out[2].tolist() == [70.75, 72.25, 82.75, 84.25]


@pytest.mark.mxnet
def test_roi_align_of_regions_of_batch_index_minus_one_is_mxnets(runtime_mx, real_mx):
    """Why the hybridized FPN Faster R-CNNs differ from their eager call on MXNet (benchmarks/zoo/verify): the
    blocks of the masked regions keep what the output memory held (here 7; in a hybridized graph, a reused
    buffer's values). The runtime writes zeros there (what MXNet's eager call, into fresh memory, had); every
    other value is MXNet's, the zeroed r-th values included."""
    theirs = _roi_align(real_mx, out=real_mx.nd.full((4, 1, 2, 2), 7.0))
    assert (theirs[[1, 3]] == 7).all()
    ours = _roi_align(runtime_mx)
    np.testing.assert_array_equal(ours[[0, 2]], theirs[[0, 2]])


# --- box_decode and box_encode: gluoncv's box coders take them when F.contrib has them (and its FPN heads then
# mask regions to batch index -1), so the runtime must have them to run the branch MXNet runs -------------------
def _coder_inputs(seed, batch=2, n=300, m=7):
    rng = np.random.RandomState(seed)
    deltas = rng.normal(0, 2, size=(batch, n, 4)).astype(np.float32)
    centres, sides = rng.uniform(0, 100, size=(1, n, 2)), rng.uniform(1, 50, size=(1, n, 2))
    corner = np.concatenate([centres - sides / 2, centres + sides / 2], -1).astype(np.float32)
    center = np.concatenate([centres, sides], -1).astype(np.float32)
    samples = rng.choice([-1.0, 0.0, 1.0], size=(batch, n)).astype(np.float32)
    matches = rng.randint(0, m, size=(batch, n)).astype(np.float32)
    matches[samples < 0.5] = -1
    ref_centres, ref_sides = rng.uniform(0, 100, size=(batch, m, 2)), rng.uniform(1, 50, size=(batch, m, 2))
    refs = np.concatenate([ref_centres - ref_sides / 2, ref_centres + ref_sides / 2], -1).astype(np.float32)
    return deltas, corner, center, samples, matches, np.repeat(corner, batch, 0), refs


DECODE_CASES = [{"format": "corner"}, {"format": "center"}, {"format": "corner", "clip": 4.135166556742356},
                {"format": "center", "clip": 0.5, "std0": 0.1, "std1": 0.1, "std2": 0.2, "std3": 0.2}]


def _decoded(mx, case, deltas, anchors):
    eager = mx.nd.contrib.box_decode(mx.nd.array(deltas), mx.nd.array(anchors), **case).asnumpy()

    class Decoder(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, a):
            x, a = F.amp_multicast(x, a, num_outputs=2, cast_narrow=True)  # as gluoncv's decoder calls it
            return F.contrib.box_decode(x, a, **case)

    net = Decoder()
    net.hybridize()
    return eager, net(mx.nd.array(deltas), mx.nd.array(anchors)).asnumpy()


def _encoded(mx, samples, matches, anchors, refs, means, stds):
    out = mx.nd.contrib.box_encode(*[mx.nd.array(v) for v in (samples, matches, anchors, refs, means, stds)])
    return [o.asnumpy() for o in out]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", DECODE_CASES, ids=lambda case: ",".join(f"{k}={v}" for k, v in case.items()))
@pytest.mark.parametrize("seed", [0, 1])
def test_box_decode_is_mxnets_bit_for_bit(runtime_mx, real_mx, case, seed):
    deltas, corner, center = _coder_inputs(seed)[:3]
    anchors = corner if case["format"] == "corner" else center
    for mine, theirs in zip(_decoded(runtime_mx, case, deltas, anchors), _decoded(real_mx, case, deltas, anchors)):
        assert mine.dtype == theirs.dtype == np.float32
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.mxnet
@pytest.mark.parametrize("seed", [0, 1])
def test_box_encode_is_mxnets_bit_for_bit(runtime_mx, real_mx, seed):
    samples, matches, anchors, refs = _coder_inputs(seed)[3:]
    means, stds = np.array([0.1, -0.2, 0.3, 0.05], np.float32), np.array([0.1, 0.1, 0.2, 0.2], np.float32)
    for mine, theirs in zip(_encoded(runtime_mx, samples, matches, anchors, refs, means, stds),
                            _encoded(real_mx, samples, matches, anchors, refs, means, stds)):
        np.testing.assert_array_equal(mine, theirs)


def test_box_decode_rejects_what_mxnet_rejects(runtime_mx):
    """MXNet 1.9.1's messages (measured): data of rank 3 with 4 coordinates, anchors of rank 3 or more, and
    anchors holding one box per data box (read as (1, n, 4))."""
    deltas, corner = _coder_inputs(0, n=5)[:2]
    cases = [((deltas[0], corner), "Check failed: dshape.ndim() == 3 (2 vs. 3) : data shape must have dim == 3"),
             ((deltas, corner[0]), "Check failed: ashape.ndim() >= 3 (2 vs. 3) : anchors shape must have dim == 3"),
             ((deltas[..., :3], corner), "Check failed: ldim == 4 (3 vs. 4) : last dimension of data must be 4"),
             ((deltas, np.concatenate([corner, corner])), "(40 vs. 20) : new and old shape do not match")]
    for (data, anchors), message in cases:
        with pytest.raises(runtime_mx.base.MXNetError, match=message.replace("(", r"\(").replace(")", r"\)")):
            runtime_mx.nd.contrib.box_decode(runtime_mx.nd.array(data), runtime_mx.nd.array(anchors)).asnumpy()


def test_amp_multicast_takes_mxnets_types(runtime_mx):
    """MXNet 1.9.1's amp_multicast types, measured: float32 wins unless cast_narrow; only float32 and float16
    inputs are cast, to input 0's type when no input is float32 (so an int32 first input turns a float16 into
    int32)."""
    nd, sym = runtime_mx.nd, runtime_mx.sym
    cases = [(("int32", "float32"), {}, ["int32", "float32"]), (("float32", "float16"), {}, ["float32", "float32"]),
             (("float32", "float16"), {"cast_narrow": True}, ["float16", "float16"]),
             (("float64", "float32"), {}, ["float64", "float32"]),
             (("float64", "float32", "float16"), {"cast_narrow": True}, ["float64", "float16", "float16"]),
             (("int32", "float16"), {}, ["int32", "int32"]), (("float64", "float16"), {}, ["float64", "float64"])]
    for kinds, kwargs, types in cases:
        names = ["in%d" % k for k in range(len(kinds))]
        node = sym.amp_multicast(*[sym.var(name) for name in names], num_outputs=len(kinds), **kwargs)
        assert [np.dtype(t).name for t in node.infer_type(**dict(zip(names, kinds)))[1]] == types
    i32, f32 = nd.array([1, 2], dtype="int32"), nd.array([1.5])
    f16, f64 = nd.array([1.5], dtype="float16"), nd.array([2.5], dtype="float64")
    assert [o.dtype.__name__ for o in nd.amp_multicast(i32, f32, num_outputs=2)] == ["int32", "float32"]
    with pytest.raises(runtime_mx.base.MXNetError, match="Operator amp_multicast expects 3 inputs, but got 2 instead"):
        nd.amp_multicast(f32, f64, num_outputs=3)
    # the types are inferred, but MXNet's CPU kernel (oneDNN) then fails on the first float16, float64 or int64
    # input or output, in order: (float32, float16) narrowed fails on output 0, float16
    for arrays, kwargs, code in [((f32, f16), {"cast_narrow": True}, 2), ((f64, f16), {}, 1), ((i32, f16), {}, 2),
                                 ((f32, nd.array([1], dtype="int64")), {}, 6)]:
        with pytest.raises(runtime_mx.base.MXNetError, match="unknown type for MKLDNN :%d" % code):
            [o.asnumpy() for o in nd.amp_multicast(*arrays, num_outputs=len(arrays), **kwargs)]


@pytest.mark.mxnet
def test_amp_multicast_fails_where_mxnet_fails(runtime_mx, real_mx):
    """The failure above is MXNet 1.9.1's own (each case in its own process: the failed copy can corrupt MXNet's
    heap, "corrupted double-linked list"); float32 and int32 run."""
    import subprocess
    import sys
    script = ("import mxnet as mx, sys\n"
              "a = [mx.nd.ones((2, 3), dtype=t) for t in sys.argv[1].split(',')]\n"
              "try:\n    [o.asnumpy() for o in mx.nd.amp_multicast(*a, num_outputs=len(a), cast_narrow=sys.argv[2] == '1')]\n"
              "    print('ran')\nexcept mx.base.MXNetError as e:\n    print(str(e).strip().splitlines()[-1])\n")
    for kinds, narrow, expected in [("float32,float16", "1", "unknown type for MKLDNN :2"),
                                    ("float64,float16", "0", "unknown type for MKLDNN :1"),
                                    ("float32,int64", "0", "unknown type for MKLDNN :6"), ("float32,int32", "0", "ran")]:
        run = subprocess.run([sys.executable, "-c", script, kinds, narrow], capture_output=True, text=True, timeout=120,
                             env=dict(__import__("os").environ, OMP_NUM_THREADS="1"))
        assert expected in run.stdout, (kinds, run.stdout, run.stderr[-500:])


# --- the operators the runtime lacks are there by name (hylint/facts/mxnet_names.json, "operators") ----------
def test_every_operator_mxnet_generates_is_there_by_name(runtime_mx):
    """A library's test for an operator (gluoncv: `'box_decode' in F.contrib.__dict__`) sees what it sees on
    MXNet 1.9.1, so the runtime runs MXNet's branch; an operator it lacks stops the call naming it."""
    from hylint.facts.names import mxnet_operators
    from hylint.runtime.base import RuntimeUnsupported
    operators = mxnet_operators()
    assert len(operators["mxnet.ndarray.contrib"]) > 50 and "box_decode" in operators["mxnet.symbol.contrib"]
    for public, names in operators.items():
        module = runtime_mx
        for part in public.split(".")[1:]:
            module = getattr(module, {"ndarray": "nd", "symbol": "sym"}.get(part, part))
        assert [name for name in names if name not in vars(module)] == [], public
    with pytest.raises(RuntimeUnsupported, match="does not provide mxnet.ndarray.contrib.Proposal"):
        runtime_mx.nd.contrib.Proposal(runtime_mx.nd.ones((1, 2)))
    with pytest.raises(AttributeError, match="has no attribute 'no_such_operator'"):  # MXNet has none either
        runtime_mx.nd.contrib.no_such_operator


def test_box_encode_rejects_what_mxnet_rejects(runtime_mx):
    """MXNet 1.9.1's messages, measured, the refs one printing the anchors' rank as MXNet does."""
    def zeros(*shape):
        return runtime_mx.nd.zeros(shape)
    good = [zeros(2, 3), zeros(2, 3), zeros(2, 3, 4), zeros(2, 5, 4), zeros(4), zeros(4)]
    cases = [(0, zeros(2), "sshape.ndim() == 2 (1 vs. 2) : samples shape must have dim == 2, 1 provided"),
             (1, zeros(3), "mshape.ndim() >= 2 (1 vs. 2) : matches shape must have dim == 2, 1 provided"),
             (2, zeros(2, 3), "ashape.ndim() >= 3 (2 vs. 3) : matches shape must have dim == 3, 2 provided"),
             (2, zeros(2, 3, 3), "ldim == 4 (3 vs. 4) : last dimension of anchors must be 4, 3 provided"),
             (3, zeros(2, 5), "rshape.ndim() >= 3 (2 vs. 3) : refs shape must have dim == 3, 3 provided"),
             (4, zeros(3), "Shape inconsistent, Provided = [3], inferred shape=(4,)")]
    for slot, bad, message in cases:
        args = list(good)
        args[slot] = bad
        with pytest.raises(runtime_mx.base.MXNetError) as caught:
            runtime_mx.nd.contrib.box_encode(*args)
        assert message in str(caught.value)
