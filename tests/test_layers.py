"""The import graph of hylint/, computed from the source (ast): no circle, and no import up a layer (the
layers: ``LAYERS`` in tests/hylint_layers.py).

Every import counts (tests/importgraph.py): at module level, inside a function (a lazy import is still a
dependency) and under ``if TYPE_CHECKING:`` (a circle of annotations is a circle of designs).
"""
import textwrap
from pathlib import Path

from hylint_layers import RUNTIME_MAY_IMPORT, is_runtime, repair_imports_outside, top, upward  # noqa: E402
from importgraph import circles, read_graph  # noqa: E402  (tests/, on sys.path under pytest)


PACKAGE = Path(__file__).resolve().parent.parent / "hylint"
GRAPH = read_graph(PACKAGE)


def test_the_graph_is_read():
    assert "hylint.lint.engine" in GRAPH["hylint.selection"]  # a lazy import counts
    assert "hylint.rule" in GRAPH["hylint.lint.regions"]
    assert "hylint.config" in GRAPH["hylint.selection"]  # an import under TYPE_CHECKING counts too
    assert "hylint.cli.guard" in GRAPH["hylint.cli.check_command"]
    assert "hylint.analysis.reach.atoms" in GRAPH["hylint.analysis.reach.body"]  # inside a package


def test_a_circle_made_on_purpose_is_found(tmp_path):
    """A temporary package whose modules import each other three ways: at module level, inside a function
    and under TYPE_CHECKING; each closes a circle the graph finds."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from pkg import b\n",
        "b.py": "def f():\n    from pkg.sub import c\n",
        "sub/__init__.py": "",
        "sub/c.py": """
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from ..a import thing
        """,
        "d.py": "import pkg.a\n",  # outside the circle: it only imports into it
    }
    for name, text in files.items():
        (package / name).write_text(textwrap.dedent(text))
    graph = read_graph(package)
    assert graph["pkg.sub.c"] == {"pkg.a"}
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c"]]
    (package / "sub/c.py").write_text("import typing\n")  # the circle opened: none is left
    assert circles(read_graph(package)) == []


def test_no_circle_outside_the_runtime():
    outside = [cycle for cycle in circles(GRAPH) if not all(is_runtime(module) for module in cycle)]
    assert outside == []


def test_no_circle_in_the_runtime():
    assert [cycle for cycle in circles(GRAPH) if all(is_runtime(module) for module in cycle)] == []


def test_no_import_up_a_layer():
    assert upward(GRAPH) == []


def test_rules_import_repairs_and_repairs_import_no_rule():
    """The repairs room: rules use it; a repair reads the code (analysis, syntax, facts) and builds a fix
    (rule.py, diagnostic.py), never a rule nor the machinery above."""
    assert any(top(target) == "repairs" for module, targets in GRAPH.items() if top(module) == "rules"
               for target in targets)
    assert repair_imports_outside(GRAPH) == []


def test_an_upward_import_made_on_purpose_is_found(tmp_path):
    """A repair importing a rule, lazily inside a function, in a temporary package laid out like hylint/:
    the check that guards the real graph reports it; a rule importing the repair is fine."""
    package = tmp_path / "hylint"
    files = {
        "__init__.py": "",
        "rules/__init__.py": "",
        "rules/a_rule.py": "from hylint.repairs.an_idiom import rewrite\n",
        "repairs/__init__.py": "",
        "repairs/an_idiom.py": "def rewrite():\n    from hylint.rules import a_rule\n",
    }
    for name, text in files.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    graph = read_graph(package)
    assert upward(graph) == ["hylint.repairs.an_idiom -> hylint.rules.a_rule"]
    assert repair_imports_outside(graph) == ["hylint.repairs.an_idiom -> hylint.rules.a_rule"]
    (package / "repairs/an_idiom.py").write_text("def rewrite():\n    return None\n")
    assert upward(read_graph(package)) == [] and repair_imports_outside(read_graph(package)) == []


def test_the_linter_does_not_import_the_runtime():
    assert sorted(f"{module} -> {target}" for module, targets in GRAPH.items() if not is_runtime(module)
                  and top(module) != "verify" for target in targets if is_runtime(target)) == []


def test_the_runtime_imports_only_facts():
    outside = sorted(f"{module} -> {target}" for module, targets in GRAPH.items() if is_runtime(module)
                     for target in targets if top(target) not in RUNTIME_MAY_IMPORT)
    assert outside == []
