"""The import graph of hylint/, computed from the source (ast): no circle, and no import up a layer.

Every import counts, at module level or inside a function (a lazy import is still a dependency),
except those under ``if TYPE_CHECKING:`` (annotations only, never run).
"""
import ast
from pathlib import Path
from typing import Dict, Set

from importgraph import circles  # noqa: E402  (tests/, on sys.path under pytest)


PACKAGE = Path(__file__).resolve().parent.parent / "hylint"

# highest first; an import may go down, or sideways inside a layer, never up
LAYERS = [
    {"__main__", "cli"},
    {"check"},
    {"lint", "selection", "config", "batch", "report", "server", "verify"},
    {"rules"},
    {"analysis"},
    {"syntax", "facts", "rule", "diagnostic", "__init__"},
]
RUNTIME_MAY_IMPORT = {"facts", "runtime"}  # the reference runtime never imports the linter


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _top(module: str) -> str:
    """The first part under hylint: its layer's name (``hylint`` itself: "__init__")."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _layer(module: str) -> int:
    top = _top(module)
    for index, names in enumerate(LAYERS):
        if top in names:
            return index
    raise AssertionError(f"{module}: no layer for `{top}` (add it to LAYERS)")


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(path: Path, module: str, modules: Set[str]) -> Set[str]:
    """The hylint modules ``path`` imports (a name imported from a package that is a module counts as it)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: Set[str] = set()

    def resolve(name: str) -> None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.add(name)

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "hylint":
                    resolve(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] == "hylint":
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    resolve(full if full in modules else source)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _graph() -> Dict[str, Set[str]]:
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {module: _imports(path, module, modules) for module, path in sorted(paths.items())}


GRAPH = _graph()


def _is_runtime(module: str) -> bool:
    return _top(module) == "runtime"


def test_the_graph_is_read():
    assert "hylint.lint.engine" in GRAPH["hylint.selection"]  # a lazy import counts
    assert "hylint.rule" in GRAPH["hylint.lint.regions"]
    assert "hylint.config" not in GRAPH["hylint.selection"]  # only under TYPE_CHECKING there
    assert "hylint.cli.guard" in GRAPH["hylint.cli.check_command"]


def test_no_circle_outside_the_runtime():
    outside = [cycle for cycle in circles(GRAPH) if not all(_is_runtime(module) for module in cycle)]
    assert outside == []


def test_no_circle_in_the_runtime():
    assert [cycle for cycle in circles(GRAPH) if all(_is_runtime(module) for module in cycle)] == []


def test_no_import_up_a_layer():
    upward = sorted(f"{module} -> {target}" for module, targets in GRAPH.items() if not _is_runtime(module)
                    for target in targets if not _is_runtime(target) and _layer(target) < _layer(module))
    assert upward == []


def test_the_linter_does_not_import_the_runtime():
    assert sorted(f"{module} -> {target}" for module, targets in GRAPH.items() if not _is_runtime(module)
                  and _top(module) != "verify" for target in targets if _is_runtime(target)) == []


def test_the_runtime_imports_only_facts():
    outside = sorted(f"{module} -> {target}" for module, targets in GRAPH.items() if _is_runtime(module)
                     for target in targets if _top(target) not in RUNTIME_MAY_IMPORT)
    assert outside == []
