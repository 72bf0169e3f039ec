"""The runtime's imports, computed from the source: no circle, and nothing from the linter.

Every ``import`` counts, also one inside a function (a lazy import hides a circle, it does not remove it).
The runtime may read ``hylint.facts`` (the MXNet facts it shares with the analysis) and nothing else of hylint.
"""
import ast
import pathlib

from importgraph import circles  # noqa: E402  (tests/, on sys.path under pytest)

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "hylint" / "runtime"


def _modules():
    mods = {}
    for path in RUNTIME.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = path
    return mods


def _imported(name, path, node, mods):
    """The modules one import statement names: ``from . import x`` names the submodule x if there is one,
    and ``from .m import f`` (f a function or class) names m."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    if node.level:
        package = package[:len(package) - (node.level - 1)]
        base = ".".join(package + ([node.module] if node.module else []))
    else:
        base = node.module
    return ["%s.%s" % (base, alias.name) if "%s.%s" % (base, alias.name) in mods else base for alias in node.names]


def _graph():
    mods = _modules()
    edges, outside = {m: set() for m in mods}, set()
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _imported(name, path, node, mods):
                    if target.startswith("hylint.") and not target.startswith("hylint.runtime"):
                        outside.add((name, target))
                    if target in mods and target != name:
                        edges[name].add(target)
    return edges, outside


def test_the_runtime_has_no_import_circle():
    edges, _ = _graph()
    assert circles(edges) == []


def test_the_circle_finder_finds_a_lazy_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_runtime_imports_nothing_of_the_linter():
    _, outside = _graph()
    assert sorted(t for _, t in outside if not t.startswith("hylint.facts")) == []


def test_the_op_table_does_not_import_the_layers_above_it():
    edges, _ = _graph()
    above = {"hylint.runtime.%s" % m for m in ("executor", "graph", "control_flow", "ndarray", "symbol", "gluon")}
    table = [m for m in edges if m.startswith("hylint.runtime.ops")]
    assert table and sorted((m, t) for m in table for t in edges[m] if t in above) == []
