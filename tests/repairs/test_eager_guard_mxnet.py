"""HY201's eager-only assert guard on MXNet 1.9.1: what the unsafe fix gives up.

fixtures/HY201_3 proves the values (before eager == after eager == after hybridized). Here the reason
the fix is unsafe, measured: the guarded assert still refuses a bad input eagerly, and the hybridized
block accepts it silently."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

mx = pytest.importorskip("mxnet")
pytestmark = pytest.mark.mxnet

AFTER = Path(__file__).resolve().parents[2] / "fixtures" / "HY201_3" / "after_unsafe.py"


def _block():
    spec = importlib.util.spec_from_file_location("hy201_3_after_unsafe", AFTER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    block = module.ChannelCheck(channels=3)
    block.initialize()
    return block


def test_guarded_assert_checks_eagerly_and_is_dropped_hybridized():
    good, bad = mx.nd.ones((2, 3, 4)), mx.nd.ones((2, 5, 4))
    eager = _block()
    assert (eager(good) == 2).asnumpy().all()
    with pytest.raises(AssertionError, match="channels"):
        eager(bad)
    hybrid = _block()
    hybrid.hybridize()
    assert (hybrid(good) == 2).asnumpy().all()
    assert hybrid(bad).shape == (2, 5, 4)  # the check is gone once traced
