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
