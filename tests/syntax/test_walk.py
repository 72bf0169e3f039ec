"""hylint/syntax/walk.py visits the same nodes in the same order as libcst's own traversal, and the engine's
pass over hybrid contexts only reports what a pass over the whole module reports."""
from pathlib import Path

import libcst as cst
import pytest

from hylint.lint.engine import Linter
from hylint.selection import all_rules, select_rules
from hylint.rule import LintRule
from hylint.syntax.nodes import literal_int
from hylint.syntax.walk import TRIVIA, iter_nodes, parents, walk

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = '''# a comment
import mxnet as mx  # trailing


@decorator(arg=1)
class N(nn.HybridBlock, metaclass=M):
    """Doc."""

    def __init__(self, *args, k: int = 2, **kw) -> None:
        super().__init__(); self.items = [nn.Dense(3) for _ in range(k)]

    async def other(self, x, /, y=None):
        async with a as b:
            return [i async for i in y if i] or {**kw, "k": (yield)}

    def hybrid_forward(self, F, x, *states):
        if F is mx.nd:
            pass
        elif x:
            y = x[1:2, ::-1] @ x if x else lambda q=1: q
        try:
            z = f"{x!r:>{y}}" + "b" "c"
        except (ValueError, TypeError) as e:
            raise RuntimeError() from e
        finally:
            del z
        while True:
            break
        match x:
            case [1, *rest] if rest:
                pass
        return (x, *states)
'''


def _sources():
    yield pytest.param(SAMPLE, id="sample")
    for code, rule in all_rules().items():
        for index, example in enumerate(rule.INVALID):
            if code != "HY000":  # does not parse
                yield pytest.param(example.code, id=f"{code}-{index}")
    for path in sorted((ROOT / "fixtures").glob("*/before.py")):
        yield pytest.param(path.read_text(), id=path.parent.name)


class _Recorder(cst.CSTVisitor):
    def __init__(self):
        self.seen = []

    def on_visit(self, node):
        self.seen.append(("visit", id(node)))
        return not isinstance(node, cst.Lambda)  # a subtree left out

    def on_leave(self, node):
        self.seen.append(("leave", id(node)))


class _Typed(cst.CSTVisitor):
    def __init__(self):
        self.seen = []

    def visit_Name(self, node):
        self.seen.append(node.value)

    def visit_Comment(self, node):
        self.seen.append(node.value)

    def leave_Call(self, node):
        self.seen.append("call")


class _TypedNoLeaves(cst.CSTVisitor):
    """Callbacks on no leaf type: the traversal skips Name, Integer, the operators (nothing but trivia below)."""

    def __init__(self):
        self.seen = []

    def visit_Attribute(self, node):
        self.seen.append(("attribute", id(node)))

    def visit_Lambda(self, node):
        self.seen.append(("lambda", id(node)))
        return False  # a subtree left out

    def leave_Call(self, node):
        self.seen.append(("call", id(node)))


@pytest.mark.parametrize("source", list(_sources()))
def test_walk_order_equals_libcst(source):
    module = cst.parse_module(source)
    seen = {}
    for visitor in (_Recorder, _Typed, _TypedNoLeaves):  # every node; by type; by type, leaves skipped
        expected, got = visitor(), visitor()
        module.visit(expected)
        walk(module, got)
        assert got.seen == expected.seen
        seen[visitor] = got.seen
    assert any(s.startswith("#") for s in seen[_Typed]) == ("#" in source)


def test_iter_nodes_skips_trivia_only():
    module = cst.parse_module(SAMPLE)
    everything = list(iter_nodes(module, skip=frozenset()))
    some = list(iter_nodes(module))
    assert [n for n in everything if type(n) not in TRIVIA] == some
    assert len(some) < len(everything)


class _Everywhere(LintRule):
    """Forces the engine's whole-module pass (HYBRID_ONLY = False with handlers)."""

    CODE = "HY998"
    NAME = "everywhere"
    MESSAGE = "m"
    HYBRID_ONLY = False

    def visit_Pass(self, node, ctx):
        pass


@pytest.mark.parametrize("source", list(_sources()))
def test_context_pass_equals_whole_module_pass(source):
    rules = select_rules(select=["ALL"])
    hybrid_rules = [r for r in rules if r.HYBRID_ONLY]
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return
    contexts_only = Linter(hybrid_rules)
    whole = Linter(hybrid_rules + [_Everywhere])
    a = contexts_only._lint_module(module, source, "m.py")
    b = whole._lint_module(module, source, "m.py")
    assert a == b


@pytest.mark.parametrize("source", list(_sources()))
def test_method_pass_equals_whole_module_pass(source):
    """Structure rules that name their METHODS are visited in those methods only; with a rule that looks
    everywhere the engine makes one pass over the whole module: the same diagnostics either way."""
    rules = select_rules(select=["ALL"])
    assert sum(1 for r in rules if not r.HYBRID_ONLY and r.METHODS) >= 4
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return
    scoped = Linter(rules)._lint_module(module, source, "m.py")
    whole = Linter(rules + [_Everywhere])._lint_module(module, source, "m.py")
    assert scoped == whole


def test_a_visitor_class_made_per_call_is_not_kept_alive():
    """Rules define visitor classes inside functions; walk() must not keep them (their closures hold
    nodes of the tree being linted: every tree of a run stayed alive, 1M objects on the corpus)."""
    import gc
    import weakref

    module = cst.parse_module("def f(x):\n    return g(x) + 1\n")

    def names_called():
        found = []

        class _Calls(cst.CSTVisitor):
            def visit_Call(self, node):
                found.append(node)

        walk(module, _Calls())
        return found, weakref.ref(_Calls)

    found, visitor_class = names_called()
    assert len(found) == 1
    gc.collect()
    assert visitor_class() is None


def test_statement_visitors_may_skip_expressions():
    from hylint.syntax.walk import EXPRESSIONS

    module = cst.parse_module("import a\nx = [lambda: b for _ in c]\nif y:\n    from d import e\n")
    seen = []

    class _Imports(cst.CSTVisitor):
        def on_visit(self, node):
            seen.append(type(node).__name__)
            return True

    walk(module, _Imports(), TRIVIA | EXPRESSIONS)
    assert {"Import", "ImportFrom", "Assign", "If"} <= set(seen)
    assert not {"Lambda", "ListComp", "Name"} & set(seen)


def test_parse_without_validation_gives_the_same_tree_and_restores_validation():
    from hylint.lint.engine import parse_module

    source = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x * 2  # c\n"
    assert parse_module(source).code == source
    assert parse_module(source).deep_equals(cst.parse_module(source))
    with pytest.raises(cst.ParserSyntaxError):
        parse_module("def f(:\n")
    with pytest.raises(cst.CSTValidationError):  # nodes built elsewhere (fixes) are still validated
        cst.Name("not a name")


@pytest.mark.parametrize("source", list(_sources()))
def test_parents_equal_a_visitor_stack(source):
    module = cst.parse_module(source)
    expected = {}
    stack = []

    class _Stack(cst.CSTVisitor):
        def on_visit(self, node):
            if stack:
                expected[node] = stack[-1]
            stack.append(node)
            return True

        def on_leave(self, original_node):
            stack.pop()

    walk(module, _Stack(), TRIVIA)
    assert list(parents(module).items()) == list(expected.items())


@pytest.mark.parametrize("source", list(_sources()))
def test_hooks_called_by_type_equal_every_node_counted(source, monkeypatch):
    """Without eager-only regions the engine calls the rules' hooks by node type; counting every node (as
    it does where `if F is nd:` regions are) gives the same diagnostics."""
    from hylint.lint import dispatch

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return
    rules = select_rules(select=["ALL"])
    by_type = Linter(rules)._lint_module(module, source, "m.py")
    init = dispatch._FileLinter.__init__

    def counted(self, *args):
        init(self, *args)
        self.eager_free = False

    monkeypatch.setattr(dispatch._FileLinter, "__init__", counted)
    assert Linter(rules)._lint_module(module, source, "m.py") == by_type


@pytest.mark.parametrize("text", ["0", "00", "7", "1_000", "0x1F", "0X1f", "0o17", "0b101", "0B1_0",
                                  "99999999999999999999"])
def test_literal_int_reads_every_integer_form(text):
    node = cst.parse_expression(text)
    assert literal_int(node) == node.evaluated_value
    assert literal_int(cst.parse_expression("-" + text)) == -node.evaluated_value
