"""Positions computed per method (a module holding one method inside its class's header, moved to the
row CPython's ``ast`` gives), and per statement of a function's body (the function holding just that
statement), equal the positions of the whole top-level statement moved by the lines
generated before it, for every node of every method, on awkward sources, the rule examples and the
fixtures."""
from pathlib import Path

import libcst as cst
import pytest

from hylint.lint.engine import Positions, _first_rows
from hylint.selection import all_rules
from hylint.syntax.nodes import parent_map
from hylint.syntax.walk import iter_nodes

ROOT = Path(__file__).resolve().parents[2]

AWKWARD = {
    "decorators-and-comments": (
        "# header\n\nimport mxnet as mx  # trailing\n\n\n# before\n@register  # one\n# between\n@other(\n    1)\n"
        "class A(mx.gluon.HybridBlock):\n    '''Doc\n    string.'''\n    x = 1; y = [1,\n        2]\n\n"
        "    # before method\n    @staticmethod\n    # between decorators\n    @deco(a=1,\n          b=2)\n"
        "    def f(x):\n        return (x +\n                1)\n    # class footer\n\n# module comment\n"
        "def g(F, x):\n    s = '''multi\nline'''\n    return F.relu(x) \\\n        + 1\n"),
    "semicolons-and-one-line-bodies": (
        "import a; import b\nclass A: x = 1; y = 2\nclass B(HybridBlock):\n    def f(self): return 1\n"
        "    def hybrid_forward(self, F, x): y = x; return y\nclass C:\n    pass\n"),
    "nested-classes-and-functions": (
        "class A(HybridBlock):\n    class Inner(HybridBlock):\n        def hybrid_forward(self, F, x):\n"
        "            return x\n    def hybrid_forward(self, F, x):\n        def helper(y):\n            return y * 2\n"
        "        return helper(x)\n\ndef make():\n    class Local(HybridBlock):\n        def hybrid_forward(self, F, x):\n"
        "            return x[0]\n    return Local()\n"),
    "crlf-tabs-form-feeds": (
        "class A(HybridBlock):\r\n\tdef hybrid_forward(self, F, x):\r\n\t\treturn x\r\n\x0c\r\n"
        "\tdef other(self):\r\n\t\treturn 1\r\n"),
    "if-try-with-at-top": (
        "try:\n    import mxnet\nexcept ImportError:\n    mxnet = None\nif True:\n    class A(HybridBlock):\n"
        "        def hybrid_forward(self, F, x):\n            return x\nwith ctx:\n    pass\n"),
    "no-final-newline": "class A(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.shape",
}


def _sources():
    for name, source in AWKWARD.items():
        yield pytest.param(source, id=name)
    for code, rule in sorted(all_rules().items()):
        for index, example in enumerate(rule.INVALID):
            if code != "HY000":
                yield pytest.param(example.code, id=f"{code}-{index}")
    for path in sorted((ROOT / "fixtures").glob("*/before.py")):
        yield pytest.param(path.read_text(), id=path.parent.name)


def _units(module):
    """(top-level statement index, its function or method or None, that function's parents, its nodes)."""
    for index, stmt in enumerate(module.body):
        functions = [stmt] if isinstance(stmt, cst.FunctionDef) else \
            [m for m in stmt.body.body if isinstance(m, cst.FunctionDef)] \
            if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock) else [None]
        for function in functions:
            parents = parent_map(function) if function is not None else None
            yield index, function, parents, list(iter_nodes(function if function is not None else stmt))


@pytest.mark.parametrize("source", list(_sources()))
def test_positions_per_method_equal_positions_per_statement(source):
    module = cst.parse_module(source)
    per_unit, per_statement = Positions(module, source), Positions(module)
    compared = 0
    for index, function, parents, nodes in _units(module):
        for node in nodes:
            expected = per_statement.span(node, index)
            assert per_unit.span(node, index, function) == expected, node
            # per statement of the function's body (hybrid contexts give their parents)
            assert per_unit.span(node, index, function, parents) == expected, node
            compared += 1
    assert compared > 0


@pytest.mark.parametrize("source", list(_sources()))
def test_recording_only_the_wanted_nodes_gives_the_same_spans(source):
    """The engine names the nodes it will ask spans of (reports and fix edits); the code generation then
    records only those. Every other node, then every third, is wanted; each gives the span it has when
    every node is recorded, and a node that was not announced still gets its span."""
    module = cst.parse_module(source)
    every = Positions(module, source)
    for step, offset in ((2, 0), (2, 1), (3, 2)):
        asked = [(node, index, function, parents) for index, function, parents, nodes in _units(module)
                 for node in nodes[offset::step]]
        wanted = Positions(module, source, wanted=[node for node, *_ in asked])
        for node, index, function, parents in asked:
            assert wanted.span(node, index, function, parents) == every.span(node, index, function, parents), node
        assert wanted._wanted is not None  # each span came from the recording of the wanted nodes
        node, index, function, parents = asked[0]
        unannounced = Positions(module, source, wanted=[])
        assert unannounced.span(node, index, function, parents) == every.span(node, index, function, parents)


def test_the_awkward_sources_pair_with_ast():
    """The per-method way is taken on all of them (else the test above compares the fallback to itself)."""
    for name, source in AWKWARD.items():
        module = cst.parse_module(source)
        rows = _first_rows(module, source)
        assert all(stmt in rows for stmt in module.body), name


def test_without_ast_the_statement_way_is_used():
    source = "class A(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x\n"
    module = cst.parse_module(source)
    assert _first_rows(module, "class A(:\n") == {}
    node = module.body[0].body.body[0].body.body[0]
    assert Positions(module, "class A(:\n").span(node, 0, module.body[0].body.body[0]) == ((3, 8), (3, 16))


@pytest.mark.slow
def test_positions_on_the_corpus():
    """Every node of every hybrid_forward of the benchmark corpus's files (whole files)."""
    import realcode

    files = 0
    for path in realcode.corpus_files(realcode.ensure_corpus()):
        source = path.read_text(encoding="utf-8", errors="replace")
        if "hybrid_forward" not in source:
            continue
        module = cst.parse_module(source)
        per_unit, per_statement = Positions(module, source), Positions(module)
        assert all(stmt in _first_rows(module, source) for stmt in module.body), path
        files += 1
        for index, stmt in enumerate(module.body):
            if isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
                for method in stmt.body.body:
                    if isinstance(method, cst.FunctionDef) and method.name.value == "hybrid_forward":
                        parents = parent_map(method)
                        for node in iter_nodes(method):
                            expected = per_statement.span(node, index)
                            assert per_unit.span(node, index, method) == expected, path
                            assert per_unit.span(node, index, method, parents) == expected, path
    assert files > 100
