"""Parsing only the regions that can hold a diagnostic (hylint/lint/regions.py) changes nothing.

Every check runs the same source two ways: the default (a reduced source handed to libcst) and the
whole file (``linter.regions = False``, what ``HYLINT_WHOLE_FILE=1`` does), and compares the
diagnostics (codes, positions, messages, fixes) and, where it says so, the ``--diff`` output, byte
for byte. The slow test does so for every file of the benchmark corpus (and of gluoncv2 when it is
installed) that the prefilter keeps, with the default rules and with every rule.
"""
import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hylint.lint.engine import Linter
from hylint.batch.files import SourceFile
from hylint.lint.prefilter import might_hold_hybrid_code
from hylint.lint.regions import WHOLE_FILE_ENV, applies, reads_of, reduce_source as reduce_for
from hylint.rule import BLOCK_CALLS, SELF_ATTRIBUTE_METHODS, Invalid, LintRule
from hylint.selection import all_rules, select_rules
from hylint.batch.runner import DIFF, process_source

ROOT = Path(__file__).resolve().parents[2]
SELECTIONS = {"default": select_rules(), "ALL": select_rules(select=["ALL"])}
_LINTERS = {}
ALL_READS = reads_of(SELECTIONS["ALL"])


def reduce_source(source: str):
    """The reduction for every rule (what each rule reads kept)."""
    return reduce_for(source, ALL_READS)


def _linters(selection: str):
    if selection not in _LINTERS:
        reduced, whole = Linter(SELECTIONS[selection]), Linter(SELECTIONS[selection])
        assert reduced.regions, "regions are on by default"
        whole.regions = False
        _LINTERS[selection] = reduced, whole
    return _LINTERS[selection]


def _same(source: str, selection: str = "ALL", diff: bool = False, filename: str = "m.py", reach=None):
    """``reach``: what a trace of the file's package reaches in it (a plain summary, as the batch layer passes it)."""
    reduced, whole = _linters(selection)
    expected = whole.lint_source(source, filename, reach).diagnostics
    assert reduced.lint_source(source, filename, reach).diagnostics == expected
    # the fix loop only calls lint_source: with no fix in sight, both ways do the same thing
    if diff and any(d.fix is not None for d in expected):
        outcomes = []
        for linter in (reduced, whole):
            item = SourceFile(Path(filename), source, "utf-8", source.encode("utf-8"))
            outcome = process_source(item, filename, linter, DIFF, unsafe=True, write=False, reach=reach)
            outcomes.append((outcome.diff, outcome.diagnostics, outcome.messages, outcome.failed))
        assert outcomes[0] == outcomes[1]
    return expected


# what a module-level function kept only as a builder of block classes becomes (regions._stub)
_STUB_ROW = re.compile(r"(?:_\.add\(\w+\(\)\)|\w+\(\))(?:; (?:_\.add\(\w+\(\)\)|\w+\(\)))*")


def _rows_kept_or_emptied(source: str, reduced: str) -> None:
    """Same number of lines, same line endings; each line either kept as it was or emptied, or the first
    row of a module-level function (its `def` or first decorator) replaced by the constructions it holds."""
    original, new = source.splitlines(keepends=True), reduced.splitlines(keepends=True)
    assert len(original) == len(new)
    for before, after in zip(original, new):
        ending = before[len(before.rstrip("\r\n")):]
        assert after == before or after == ending or (
            before.startswith(("def ", "async def ", "@")) and after.endswith(ending)
            and _STUB_ROW.fullmatch(after[:len(after) - len(ending)])), (before, after)


BLOCKS = '''"""Module docstring."""
import numpy as np
from mxnet.gluon import nn, HybridBlock

SCALE = 2


def _helper(F, x):
    return x.asnumpy()


def unrelated(a):
    return [a] * 3


class Net(HybridBlock):
    """A net.

    With a long docstring.
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.layers = [nn.Dense(4), nn.Dense(2)]
        self.calls = 0

    def set_scale(self, s):
        self.scale = s

    def describe(self):
        return "net"

    def _inner(self, F, x):
        return x.asnumpy()

    def hybrid_forward(self, F, x):
        y = _helper(F, x)
        z = self._inner(F, x)
        print(x.shape)
        return x * self.scale + len(x)


class Config(object):
    def __init__(self):
        self.value = 1


def get_net(**kwargs):
    return Net(**kwargs)
'''


def test_the_reduced_source_keeps_rows_and_columns():
    reduced = reduce_source(BLOCKS)
    assert reduced is not None
    _rows_kept_or_emptied(BLOCKS, reduced)
    kept = {line.strip() for line in reduced.splitlines() if line.strip()}
    # the block class, its __init__, hybrid_forward, helper methods and the helper it calls stay; so do
    # a method reading or writing an attribute of `self` that the hybrid code names (HY807 reads them) and,
    # of a function that builds the block class, the construction (HY907/HY908 judge where it is built)
    for line in ("class Net(HybridBlock):", "def _helper(F, x):", "def _inner(self, F, x):",
                 "def set_scale(self, s):", "def hybrid_forward(self, F, x):", "Net()"):
        assert line in kept
    # the rest goes: docstrings, unrelated functions and classes, a method that names no attribute of
    # the hybrid code, imports and assignments of names that no kept code names
    for line in ('"""Module docstring."""', "def unrelated(a):", "class Config(object):",
                 "def describe(self):", '"""A net.', "import numpy as np", "SCALE = 2", "def get_net(**kwargs):"):
        assert line not in kept
    ast.parse(reduced)


FACTORIES = BLOCKS + '''

def resnet(depth, **kwargs):
    body = nn.HybridSequential()
    body.add(Net(), _helper_block(depth))
    return Wrapper(body, **kwargs)


@register
def stage(n):
    return [Unit() for _ in range(n)]


def tiny(): return Unit()


class Unit(HybridBlock):
    def hybrid_forward(self, F, x):
        return x


class Wrapper(HybridBlock):
    def __init__(self, body):
        super().__init__()
        self.body = body

    def hybrid_forward(self, F, x):
        return self.body(x)


def _helper_block(depth):
    return nn.Dense(depth)
'''


def test_a_factory_is_handed_to_libcst_as_its_constructions():
    """A module-level function kept only because it is the first to build a block class (as a child, or
    otherwise) becomes one line of those constructions: what it names (here `_helper_block`) is not kept
    for it, and child-only-classes (HY907/HY908) still sees each class built where it was."""
    reduced = reduce_source(FACTORIES)
    _rows_kept_or_emptied(FACTORIES, reduced)
    rows = reduced.splitlines()
    assert rows[FACTORIES.splitlines().index("def resnet(depth, **kwargs):")] == "_.add(Net()); Wrapper()"
    assert rows[FACTORIES.splitlines().index("@register")] == "Unit()"
    assert "def _helper_block(depth):" not in rows and "def tiny(): return Unit()" not in rows
    assert _same(FACTORIES, "ALL", diff=True)
    assert _same(FACTORIES.replace("body.add(Net(), ", "body.add(Wrapper(Net()), "), "ALL", diff=True)


BLOCK_CALLS_SOURCE = """import mxnet as mx
from mxnet import nd
from mxnet.gluon import HybridBlock


class Norm(HybridBlock):
    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        self.gamma = self.params.get('gamma', shape=(units,))

    def hybrid_forward(self, F, x, gamma):
        return F.broadcast_sub(x, F.mean(x, axis=-1, keepdims=True)) * gamma


def build():
    return Norm()


def main():
    net = Norm()
    x = mx.nd.random.uniform(shape={shape})
    return net(x)


X = nd.arange(4)
NET = Norm()


OUT = NET(X)


def other():
    return Norm()(X)


def unrelated():
    return nd.ones((2, 3))
"""


def test_the_calls_of_a_block_on_literals_are_kept():
    """Region block-calls (HY101): the calls of a block class on NDArray literals outside hybrid code, and the
    module-level bindings they read, settle a parameter's missing batch axis (analysis/callsites.py)."""
    source = BLOCK_CALLS_SOURCE.format(shape="(4,)")
    reduced = reduce_for(source, frozenset({BLOCK_CALLS}))
    _rows_kept_or_emptied(source, reduced)
    kept = {line.strip() for line in reduced.splitlines() if line.strip()}
    assert {"def main():", "def other():", "X = nd.arange(4)", "NET = Norm()", "OUT = NET(X)"} <= kept
    assert "def unrelated():" not in kept and "def build():" not in kept
    assert "def main():" not in reduce_for(source, frozenset())
    for selection in ("default", "ALL"):
        assert _same(source, selection, diff=True) == []  # every call passes a vector: no batch axis
        confirmed = _same(BLOCK_CALLS_SOURCE.format(shape="(2, 5, 4)"), selection, diff=True)
        assert [d.code for d in confirmed] == ["HY101"] and "of rank 3 in `net(x)`" in confirmed[0].help


def test_what_the_kept_code_names_stays():
    source = BLOCKS.replace("print(x.shape)", "print(np.random.uniform() * SCALE)").replace(
        "    def describe(self):\n        return \"net\"", "    def describe(self):\n        return self.calls")
    kept = {line.strip() for line in reduce_source(source).splitlines() if line.strip()}
    # imports and assignments binding a name of kept code (HY808 resolves `np`, `RNG = ...`)
    assert {"import numpy as np", "SCALE = 2"} <= kept
    # `self.calls` is set in __init__ only, which hybrid code does not name: describe() still goes
    assert "def describe(self):" not in kept
    assert _same(source, diff=True)


@pytest.mark.parametrize("selection", ["default", "ALL"])
def test_same_diagnostics_and_fixes(selection):
    assert _same(BLOCKS, selection, diff=True)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_line_endings_and_no_final_newline(newline):
    source = BLOCKS.replace("\n", newline)
    _rows_kept_or_emptied(source, reduce_source(source))
    assert _same(source, diff=True)
    assert _same(source.rstrip(), diff=True)
    assert _same(source.rstrip() + newline + "x = 1", diff=True)


SHAPES = {
    "semicolons": "import mxnet as mx; x = [1,\n  2]; y = 3\n" + BLOCKS + "a = 1; b = Net()\n",
    "decorators": "@register\n@other(\n    1)\n" + BLOCKS.replace("    def describe", "    @property\n    def describe")
    + "\n@register\nclass Other(Net):\n    @staticmethod\n    def hybrid_forward(F, x):\n        return x.asnumpy()\n",
    "continuations": "x = 1 + \\\n    2\ns = '''\nclass Fake(HybridBlock):\n'''\n" + BLOCKS,
    "type-checking": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mxnet import nd\n"
    "try:\n    import mxnet\nexcept ImportError:\n    mxnet = None\n__all__ = ['Net']\n" + BLOCKS,
    "same-name-defined-twice": "class Net(object):\n    def hybrid_forward(self, F, x):\n        return x\n\n\n"
    + BLOCKS + "\n\nclass Config(HybridBlock):\n    def forward(self, x):\n        return x\n",
    "helper-defined-in-if": "if True:\n    def _helper(F, x):\n        return x.asnumpy()\n" + BLOCKS,
    "nested-class": "class Outer(object):\n    class Inner(HybridBlock):\n        def hybrid_forward(self, F, x):\n"
    "            return x.asnumpy()\n" + BLOCKS,
    "one-line-body": "class Tiny(HybridBlock): pass\n" + BLOCKS + "class Small(Net): x = 1\n",
    "only-droppable-members": "class Base(HybridBlock):\n    '''doc'''\n    def helper(self):\n        return 1\n"
    + BLOCKS.replace("class Net(HybridBlock)", "class Net(Base)"),
    "base-chain": "class A(HybridBlock):\n    pass\n\n\nclass B(A):\n    def forward(self, x):\n        return x\n",
    "plain-block": "class P(nn.Block):\n    def hybrid_forward(self, F, x):\n        return x\n",
    "tabs-and-form-feed": "\x0c\nclass T(HybridBlock):\n\tdef hybrid_forward(self, F, x):\n\t\treturn x.asnumpy()\n"
    "\x0c\ndef unrelated():\n\treturn 1\n",
    "coding-cookie": "# -*- coding: latin-1 -*-\n" + BLOCKS,
    "noqa-everywhere": "import os  # noqa: F401\nX = 1  # noqa: HY301\n" + BLOCKS.replace(
        "print(x.shape)", "print(x.shape)  # noqa: HY801, HY999").replace("def unrelated(a):", "def unrelated(a):  # noqa"),
    "no-block-at-all": "def hybrid_forward(self, F, x):\n    return x.asnumpy()\n",
    "nothing-dropped": "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x.asnumpy()\n",
    "syntax-error-in-dropped-code": BLOCKS + "\ndef broken(:\n    pass\n",
    "libcst-only-syntax-error": BLOCKS + "\nprint 'hello'\n",
    "python-3.10-match": BLOCKS + "\nmatch SCALE:\n    case 2:\n        pass\n",
    "lone-carriage-return": BLOCKS.replace("SCALE = 2\n", "SCALE = 2\rOTHER = 3\n"),
    "import-inside-dropped-function": "def unrelated():\n    from numpy import random\n    import os as np\n"
    + BLOCKS.replace("print(x.shape)", "print(random.uniform(), np.random.rand())"),
    "import-inside-dropped-method": BLOCKS.replace("print(x.shape)", "print(npr.rand())").replace(
        "    def describe(self):\n        return \"net\"",
        "    def describe(self):\n        import numpy.random as npr\n        return \"net\""),
    "module-level-generator": "import numpy as np\nRNG = np.random.RandomState(0)\n"
    + BLOCKS.replace("print(x.shape)", "print(RNG.uniform())"),
    "methods-reading-and-writing-hybrid-state": BLOCKS.replace("self.calls = 0", "self.calls = 0\n        self.other = 1")
    .replace("print(x.shape)", "self.last = x\n        self.count += 1").replace(
        "    def describe(self):\n        return \"net\"",
        "    def describe(self):\n        return self.last\n\n    def bump(self):\n        self.count = 0\n\n"
        "    def other(self):\n        self.other = 2\n\n    def by_name(self):\n        setattr(self, 'count', 3)\n\n"
        "    def generator(self):\n        self.rng = np.random.RandomState(0)"),
    "method-building-children": BLOCKS.replace(
        "    def describe(self):\n        return \"net\"",
        "    def describe(self):\n        return Net()\n\n    def local(self):\n        class Inner(HybridBlock):\n"
        "            def hybrid_forward(self, F, x):\n                return x.asnumpy()\n        return Inner()")
    + "\n\nclass Child(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x\n\n"
    "    def make(self):\n        return Child()\n",
    "init-helpers": "def _conv(channels):\n    return nn.Conv2D(channels, 3)\n\n\n" + BLOCKS.replace(
        "self.calls = 0", "self.calls = 0\n        self.conv = _conv(4)\n        self.body = self._make()").replace(
        "    def describe(self):\n        return \"net\"",
        "    def _make(self):\n        body = nn.HybridSequential()\n        body.add(Config())\n        return body")
    .replace("print(x.shape)", "print(self.conv(x), self.body(x))"),
    "construction-methods": BLOCKS.replace("self.calls = 0", "self.calls = 0\n        self._build()").replace(
        "    def describe(self):\n        return \"net\"",
        "    def _build(self):\n        self._make_layers(4)\n\n    def _make_layers(self, n):\n"
        "        self.body = nn.Dense(n)\n\n    def grow(self):\n        self._make_layers(8)\n\n"
        "    def unrelated(self):\n        return 1").replace("print(x.shape)", "print(self.body(x))"),
    "autograd-function-kept-in-init": "import os\nimport mxnet as mx\nfrom mxnet import autograd as ag\n\n\n"
    "class Pool(mx.autograd.Function):\n    def forward(self, x):\n        return x.sum() / x.shape[1]\n\n\n"
    "class Sign(ag.Function):\n    def forward(self, x):\n        return x.sign()\n\n\n"
    + BLOCKS.replace("self.calls = 0", "self.calls = 0\n        self.pool = Pool()").replace(
        "print(x.shape)", "print(self.pool(x), Sign()(x))"),
    "empty": "",
    "comment-only": "# hybrid_forward\n",
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_shapes(name):
    source = SHAPES[name]
    reduced = reduce_source(source)
    if reduced is not None:
        _rows_kept_or_emptied(source, reduced)
    _same(source, "ALL", diff=True)
    _same(source, "default")


def test_what_is_not_reduced():
    assert reduce_source(SHAPES["syntax-error-in-dropped-code"]) is None  # CPython reports it: whole file
    assert reduce_source(SHAPES["lone-carriage-return"]) is None
    assert reduce_source(SHAPES["nothing-dropped"]) is None
    assert reduce_source("") is None


def test_rules_with_their_own_prefilter_turn_it_off():
    class Anywhere:
        PREFILTER = ("print",)

        def visit_Call(self, node, ctx):
            pass

    rules = list(all_rules().values())
    assert applies(rules)
    assert not applies(rules + [Anywhere])


def test_the_switch(monkeypatch):
    monkeypatch.setenv(WHOLE_FILE_ENV, "1")
    assert not Linter(select_rules()).regions
    monkeypatch.setenv(WHOLE_FILE_ENV, "0")
    assert Linter(select_rules()).regions


def test_the_switch_on_the_command_line(tmp_path):
    (tmp_path / "m.py").write_text(SHAPES["decorators"], encoding="utf-8")
    outputs = []
    for value in ("0", "1"):
        env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", **{WHOLE_FILE_ENV: value})
        done = subprocess.run([sys.executable, "-m", "hylint", "check", "--no-cache", "--select", "ALL",
                               "--output-format", "json", "m.py"], cwd=tmp_path, env=env, capture_output=True, text=True)
        outputs.append((done.returncode, done.stdout))
    assert outputs[0] == outputs[1]
    assert outputs[0][0] == 1 and '"code"' in outputs[0][1]


def _corpus_files():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import corpus
    finally:
        sys.path.pop(0)
    files = corpus.corpus_files(corpus.ensure_corpus())
    try:
        import importlib.util

        spec = importlib.util.find_spec("gluoncv2")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        files += sorted(p for location in spec.submodule_search_locations for p in Path(location).rglob("*.py"))
    return files


@pytest.mark.slow
@pytest.mark.parametrize("selection", ["default", "ALL"])
def test_corpus(selection):
    """Every corpus file the prefilter keeps or a trace of its package reaches (with that reach, as a run
    passes it): identical diagnostics and (where something is fixable) identical ``--diff`` output."""
    from hylint.analysis.reach import FileReach
    from hylint.batch.reach import ReachIndex

    reduced, _ = _linters(selection)
    index = ReachIndex(None)
    compared = reduced_files = reached_files = 0
    for path in _corpus_files():
        source = path.read_text(encoding="utf-8", errors="replace")
        reach = index.for_file(path)
        if reach is None and not might_hold_hybrid_code(source, reduced.prefilter_keys):
            continue
        compared += 1
        qualnames = [function.qualname for function in FileReach.from_plain(reach or ()).functions]
        reached_files += bool(qualnames)
        reduced_files += reduce_for(source, ALL_READS, None, qualnames) is not None
        try:
            _same(source, selection, diff=True, filename=str(path), reach=reach)
        except AssertionError as error:
            raise AssertionError(f"{path}: the reduced and the whole-file runs differ") from error
    assert compared > 130 and reduced_files > 100 and reached_files >= 25


def test_the_diff_comparison_is_exercised():
    """Some shapes carry fixes, so their --diff output is compared (and the whole-file rerun runs)."""
    fixable = [name for name, source in SHAPES.items() if any(d.fix is not None for d in _same(source))]
    assert len(fixable) >= 3, fixable


# -- the regions come from what the selected rules declare they read ---------------------------------
COUNTER = """\
from mxnet.gluon import nn


class Counted(nn.HybridBlock):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def reset(self):
        self.calls = 0

    def hybrid_forward(self, F, x):
        return x * self.calls
"""


class _ResetAnywhere(LintRule):
    """A rule written for this test only: it reads the other methods of a block class (a `reset` that
    writes an attribute the hybrid code reads), so it declares that region and nothing else."""

    CODE = "HY990"
    NAME = "test-reset-elsewhere"
    MESSAGE = "attribute reset outside the hybrid code"
    READS = frozenset({SELF_ATTRIBUTE_METHODS})
    INVALID = (Invalid(COUNTER),)

    def visit_Attribute(self, node, ctx):
        if ctx.hybrid is None or node.attr.value != "calls":
            return
        reset = ctx.cls.methods.get("reset") if ctx.cls is not None else None
        if reset is not None:
            ctx.report(node)


def test_a_rule_declares_what_it_reads_and_needs_no_other_edit():
    whole = Linter([_ResetAnywhere])
    whole.regions = False
    expected = whole.lint_source(COUNTER, "m.py").diagnostics
    assert [d.code for d in expected] == ["HY990"]
    declared = Linter([_ResetAnywhere])
    assert declared.regions and declared.reads == {SELF_ATTRIBUTE_METHODS}
    assert reduce_for(COUNTER, declared.reads) is not None  # a reduced source is what it lints
    assert declared.lint_source(COUNTER, "m.py").diagnostics == expected

    class Undeclared(_ResetAnywhere):
        READS = frozenset()

    # the proof that the declaration is what keeps `reset`: without it the region is dropped
    assert "def reset" not in reduce_for(COUNTER, frozenset())
    assert Linter([Undeclared]).lint_source(COUNTER, "m.py").diagnostics == []


def _examples_and_fixtures():
    sources = [example.code for rule in all_rules().values() for example in (*rule.VALID, *rule.INVALID)]
    sources += [path.read_text(encoding="utf-8") for path in sorted((ROOT / "fixtures").glob("*/*.py"))]
    return sources


@pytest.mark.slow
@pytest.mark.parametrize("code", sorted(all_rules()))
def test_each_rule_alone_reads_what_it_declares(code):
    """Selected alone, each rule gets only the regions it declares: its diagnostics are those of the
    whole file on every rule example and fixture."""
    reduced, whole = Linter([all_rules()[code]]), Linter([all_rules()[code]])
    whole.regions = False
    for source in _examples_and_fixtures():
        assert reduced.lint_source(source, "m.py").diagnostics == whole.lint_source(source, "m.py").diagnostics


# -- fixes of rules that read nothing beyond the node they report (LintRule.LOCAL_FIX) ---------------------
LOCAL_FIX_SOURCE = BLOCKS.replace("print(x.shape)", "y = F.relu(x) + F.ones((1, 4))")  # HY101: -> F.broadcast_add
# HY402's fix names a fresh constant and inserts a statement into __init__: it reads the module's names
MODULE_FIX_SOURCE = BLOCKS.replace("print(x.shape)", "c = nd.array([1.0, 2.0])")


def _parses(monkeypatch, source: str, selection: str = "ALL"):
    """The diagnostics of the default (reduced) run, and how many times it called libcst."""
    from hylint.lint import engine
    calls = []
    real = engine.parse_module

    def counting(text):
        calls.append(len(text))
        return real(text)

    monkeypatch.setattr(engine, "parse_module", counting)
    reduced, _ = _linters(selection)
    return reduced.lint_source(source, "m.py").diagnostics, len(calls)


def test_a_local_fix_found_on_the_reduced_source_is_kept(monkeypatch):
    expected = _same(LOCAL_FIX_SOURCE, diff=True)
    assert any(d.code == "HY101" and d.fix is not None for d in expected)
    diagnostics, parses = _parses(monkeypatch, LOCAL_FIX_SOURCE)
    assert diagnostics == expected and parses == 1  # no second, whole-file lint


def test_a_fix_that_reads_the_module_is_found_on_the_whole_file(monkeypatch):
    expected = _same(MODULE_FIX_SOURCE, diff=True)
    assert any(d.code == "HY402" and d.fix is not None for d in expected)
    diagnostics, parses = _parses(monkeypatch, MODULE_FIX_SOURCE)
    assert diagnostics == expected and parses == 2


def test_a_reduction_that_changes_the_default_indentation_lints_the_whole_file(monkeypatch):
    """The first indented block of the file is in a dropped function, indented by two spaces: the reduced
    module's default indentation (the class's four) is not the file's, and a fix's new blocks would differ."""
    source = "def unrelated(a):\n  return [a] * 3\n\n\n" + LOCAL_FIX_SOURCE
    expected = _same(source, diff=True)
    assert any(d.fix is not None for d in expected)
    diagnostics, parses = _parses(monkeypatch, source)
    assert diagnostics == expected and parses == 2


@pytest.mark.parametrize("source", [
    "", "x = 1", "x = 1\r\ny = 2\n", "\n\nx = 1\r\n", "if a: pass\nclass A:\n   x = 1\n",
    "x = (\n  1)\ndef f():\n    pass\n", "'''doc\n   more'''\nclass A:\n  def f(self):\n      pass\n",
    "class A:\n\n        # c\n  x = 1\n", "\x0c\nclass T:\n\tdef f(self):\n\t\treturn 1\n",
    "x = 1 + \\\n    2\nclass A:\n     pass\n",
    "if a: b = 1\nelse:\n      b = 2\n", "try: import x\nexcept ImportError:\n x = None\n",
])
def test_the_layout_check_agrees_with_libcst(source):
    """``_same_layout`` of a module parsed from the whole source: its own default newline and indentation,
    as libcst detects them, are what the check computes from the text."""
    import libcst as cst
    from hylint.lint.engine import _same_layout
    assert _same_layout(cst.parse_module(source), source)


# a plain class whose method a trace of the package reaches from another module (analysis/reach/): nothing in this
# file names `log_prob`, so only the reach summary keeps it
REACHED = '''from mxnet.gluon import nn


class Dist:
    """A distribution built in another module's trace."""

    def __init__(self, F, mean):
        self.F = F
        self.mean = mean

    def log_prob(self, x):
        F = self.F
        return F.sum(x) * x.shape[0]

    def sample(self):
        return self.mean


def unrelated(data):
    return [d * 2 for d in data]


class Net(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.relu(x)
'''
REACHED_SUMMARY = (("Dist.log_prob", (), ("x",), ("F",), "reached from Model.hybrid_forward via distr.log_prob",
                    False, ("F",), ("mean",)),)


def test_the_functions_a_trace_reaches_are_kept():
    log_prob = REACHED.splitlines().index("    def log_prob(self, x):")
    kept = reduce_source(REACHED).splitlines()
    assert kept[log_prob] == ""  # nothing in the file names it: dropped without the reach
    kept = reduce_for(REACHED, ALL_READS, None, ["Dist.log_prob"]).splitlines()
    assert kept[log_prob:log_prob + 3] == REACHED.splitlines()[log_prob:log_prob + 3]
    assert kept[REACHED.splitlines().index("def unrelated(data):")] == ""
    for selection in SELECTIONS:
        diagnostics = _same(REACHED, selection, diff=True, reach=REACHED_SUMMARY)
        assert any(d.start[0] == log_prob + 3 for d in diagnostics), diagnostics


LAMBDA_IN_INIT = '''from mxnet.gluon import HybridBlock, nn


class Lam(HybridBlock):
    def __init__(self, k):
        super().__init__()
        self.scale = nn.HybridLambda(lambda F, x: x * k)
        self.act = nn.HybridLambda(lambda F, x: F.reshape(x, (x.shape[0], -1)))


def unrelated(data):
    return data.shape
'''
# the second lambda of Lam.__init__, reached from a trace in another module (the block is built elsewhere)
LAMBDA_SUMMARY = (("Lam.__init__.<lambda#1>", ("F",), ("x",), ("F",), "reached from Model.hybrid_forward via self.lam",
                   False, (), ()),)


def test_a_reached_lambda_is_checked_reduced_and_whole():
    line = "        self.act = nn.HybridLambda(lambda F, x: F.reshape(x, (x.shape[0], -1)))"
    row = LAMBDA_IN_INIT.splitlines().index(line)
    for selection in SELECTIONS:
        diagnostics = _same(LAMBDA_IN_INIT, selection, diff=True, reach=LAMBDA_SUMMARY)
        assert [(d.code, d.start) for d in diagnostics if d.start[0] == row + 1] == \
            [("HY201", (row + 1, line.index("x.shape") + 1))]
    # a summary naming a lambda that is not there (another text) is skipped, not guessed
    for missing in ("Lam.__init__.<lambda#2>", "Lam.forward.<lambda#0>"):
        summary = ((missing,) + LAMBDA_SUMMARY[0][1:],)
        assert not any(d.start[0] == row + 1 for d in _same(LAMBDA_IN_INIT, "ALL", reach=summary))
