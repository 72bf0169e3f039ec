"""Fast by default, exact on request: the one switch of the runtime's bit-for-bit replays of MXNet's kernels.

``HYLINT_RUNTIME_EXACT=1`` in the environment (read here, once, when the runtime is imported) turns on the
replays that cost time and change only the last bits of a result:

* Deconvolution in oneDNN's direct-kernel order (``kernels.onednn_transposed_convolution``: each block of 16
  input channels summed from zero, tap by tap, one fused multiply-add per term), where MXNet 1.9.1 runs that
  kernel (AVX-512, float32, 2-D, one group, 16k channels); 16x the plain GEMM's time;
* BatchNorm's fused rounding of oneDNN's blocked layout after such a deconvolution or a convolution that
  leaves it (``ops.common.mark_blocked``: the note itself is kept only while the switch is on).

Without it (the default) those operators compute plainly, within float32 rounding of MXNet (the deconvolution
by the runtime's GEMM, BatchNorm as ``(x - mean) * scale + beta`` rounded step by step, MXNet's rounding of a
plain array). ``exactly()`` sets the switch for a scope (tests)."""
import contextlib
import os

_state = {"on": os.environ.get("HYLINT_RUNTIME_EXACT", "").strip() == "1"}


def enabled():
    """Whether the bit-for-bit replays run (``HYLINT_RUNTIME_EXACT=1``)."""
    return _state["on"]


@contextlib.contextmanager
def exactly(on=True):
    """Run a scope with the replays on (or off), whatever the environment says."""
    saved = _state["on"]
    _state["on"] = bool(on)
    try:
        yield
    finally:
        _state["on"] = saved
