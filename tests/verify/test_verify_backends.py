"""`hylint verify` gives the same verdicts on the reference runtime as on real MXNet, for every fixture block.

Compared per block of every ``fixtures/*/before.py`` (inputs from its EXAMPLES, default rules): the verdict,
and for the eager run, the hybridized run and the fixed source's hybridized run: the status, the exception
type, the phase (trace / graph / cached graph) and the user line the failure is traced to; and the fixes
applied (code, line, whether applied on HY102 evidence)."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hylint import verify as v  # noqa: E402
from hylint.lint.engine import Linter  # noqa: E402
from hylint.selection import select_rules  # noqa: E402

BEFORE = sorted((ROOT / "fixtures").glob("*/before.py"))


def _blocks(path: Path):
    with v.backend("numpy"), v.user_import_scope(path.parent), v.quiet():
        return v.examples(v.load_module(path))


def _summary(report: v.TargetReport):
    def outcome(o):
        if o is None:
            return None
        return (o.status, o.error_type, o.phase if o.status != v.OK else "",
                o.location.line if o.location else None)
    return {"verdict": report.verdict, "eager": outcome(report.eager), "hybridized": outcome(report.hybridized),
            "fixed": outcome(report.fixed), "fixes": [(f.code, f.line, f.evidence) for f in report.fixes]}


def _hermetic(run, *args):
    """``run(*args)`` with Python's and numpy's global generators seeded first: a block that draws from them
    (HY808's fixture) gets the same draws on both backends, whatever earlier tests of the process drew (in
    a full run, RandomScale's two np.random.randint draws came out equal on one backend only)."""
    import random

    import numpy as np

    random.seed(0)
    np.random.seed(0)
    return run(*args)


@pytest.mark.slow
@pytest.mark.mxnet
@pytest.mark.parametrize("path", BEFORE, ids=[p.parent.name for p in BEFORE])
def test_numpy_verdicts_equal_mxnet_verdicts(path):
    pytest.importorskip("mxnet")
    linter = Linter(select_rules())
    mismatches = []
    for name, specs in _blocks(path).items():
        got = {backend: _summary(_hermetic(v.verify_target, v.Target(path, name, specs, backend=backend), linter))
               for backend in ("numpy", "mxnet")}
        if got["numpy"] != got["mxnet"]:
            mismatches.append(f"{name}:\n  numpy {got['numpy']}\n  mxnet {got['mxnet']}")
        # the mapping from a failure to the user's line works on both backends
        for backend in ("numpy", "mxnet"):
            hybrid = got[backend]["hybridized"]
            if hybrid and hybrid[0] == v.ERROR and hybrid[2] == "graph":
                assert hybrid[3] is not None, f"{name} ({backend}): graph error not traced to a line"
    assert not mismatches, "\n".join(mismatches)
