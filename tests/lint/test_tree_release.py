"""A lint leaves no cycle that holds the libcst tree: the tree is freed as soon as the lint drops it, not
by a run of the cyclic garbage collector (which traverses every object of the tree first: a tenth of
the time of a check of a 500-line file, docs/performance.md)."""
import gc
from pathlib import Path

import libcst as cst
import pytest

from hylint.lint.engine import Linter
from hylint.selection import select_rules

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["examples/tutorial_net.py", "fixtures/HY807/before.py", "fixtures/HY808/before.py"])
def test_no_cycle_keeps_the_tree_after_a_lint(name):
    source = (ROOT / name).read_text()
    linter = Linter(select_rules(select=["ALL"]))
    linter.lint_source(source, name)  # imports and caches of a first run
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        assert linter.lint_source(source, name).diagnostics
        gc.collect()
        kept = [o for o in gc.garbage if isinstance(o, cst.CSTNode)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert not kept
