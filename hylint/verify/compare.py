"""Output comparison: flattening a block's outputs, the tolerance rule, and the summary of several calls."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from hylint.verify.outcomes import DIFFERENT, ERROR, OK, Outcome, TRAIN_PHASE


# eager vs hybridized outputs are equal when max|d| <= ATOL + RTOL * max|eager|, per output: deep networks
# reorder float32 sums once traced (measured on MXNet 1.9.1: resnet152_v2 2.3e-4, preresnet110 1.5e-3 on
# outputs of their scale), while the silent changes verify exists for (a broadcast, a frozen branch) move
# outputs by a sizable part of their scale; the zoo labeller (benchmarks/zoo/label.py) uses the same rule
ATOL, RTOL = 1e-4, 1e-3


def flatten_outputs(value: Any) -> List[np.ndarray]:
    if isinstance(value, (list, tuple)):
        return [array for item in value for array in flatten_outputs(item)]
    if hasattr(value, "asnumpy"):
        return [value.asnumpy()]
    raise TypeError(f"output of type {type(value).__name__} is not an NDArray")


def compare(expected: Sequence[np.ndarray], got: Sequence[np.ndarray]) -> Tuple[Optional[str], Optional[float]]:
    """``(why they differ, max |difference|)``; ``(None, max |d|)`` when equal within tolerance; the
    difference is None when counts or shapes differ."""
    if len(expected) != len(got):
        return f"{len(got)} outputs instead of {len(expected)}", None
    gap = 0.0
    for index, (a, b) in enumerate(zip(expected, got)):
        if a.shape != b.shape:
            return f"output {index}: shape {b.shape} instead of {a.shape}", None
        if not a.size:
            continue
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(invalid="ignore"):
            both_nan = np.isnan(a64) & np.isnan(b64)
            here = np.where(both_nan | (a64 == b64), 0.0, np.abs(a64 - b64))  # NaN/inf only where they differ
        here_max = float(np.max(here)) if here.size else 0.0
        finite = np.abs(a64[np.isfinite(a64)])
        scale = float(finite.max()) if finite.size else 0.0
        if not here_max <= ATOL + RTOL * scale:
            return f"output {index}: values differ (max |d| = {here_max:.3g})", here_max
        gap = max(gap, here_max)
    return None, gap


def difference(expected: Sequence[np.ndarray], got: Sequence[np.ndarray]) -> Optional[str]:
    """Why two output lists differ, or None when equal (same count, shapes, values within tolerance)."""
    return compare(expected, got)[0]


def judge(outcome: Outcome, expected: Sequence[np.ndarray]) -> Outcome:
    """An OK outcome compared with ``expected``: DIFFERENT (with the gap and both shapes) when it differs."""
    if outcome.status != OK:
        return outcome
    why, gap = compare(expected, outcome.outputs)
    if why is None:
        outcome.max_abs_diff = gap
        return outcome
    return Outcome(DIFFERENT, message=why, outputs=outcome.outputs, phase=outcome.phase, max_abs_diff=gap,
                   expected_shapes=[tuple(a.shape) for a in expected])


def summarize(outcomes: Sequence[Outcome]) -> Outcome:
    """The first error of the hybridized calls, else the first difference, else the last (ok) predict-mode
    call (a train-mode call's outputs are not the eager output's counterpart)."""
    for status in (ERROR, DIFFERENT):
        for outcome in outcomes:
            if outcome.status == status:
                return outcome
    predict = [outcome for outcome in outcomes if outcome.phase != TRAIN_PHASE]
    return (predict or list(outcomes))[-1]

