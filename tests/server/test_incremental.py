"""The server's group-by-group checking (hylint/server/incremental.py) reports exactly what a whole check
of the buffer reports (``hylint.check.check_source``), edit after edit: diagnostics, positions, fixes
and their offsets, in the same order."""
from pathlib import Path

import pytest

from hylint.check import check_source
from hylint.server.incremental import _Buffer, _shift, lint_alone, plan
from hylint.server.linting import Checker

ROOT = Path(__file__).resolve().parents[2]

HEADER = '''"""Models."""
from mxnet import gluon, nd
from mxnet.gluon import nn
'''

NET = '''

class Net{n}(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Net{n}, self).__init__(**kwargs)
        self.fc = nn.Dense(10)

    def hybrid_forward(self, F, x):
        x = x.reshape((x.shape[0], -1))
        x = x - x.mean(axis=1, keepdims=True)
        return self.fc(x)
'''


def _exact(diagnostics):
    """Everything of the diagnostics, the edits' offsets too (``Edit`` leaves them out of ``==``)."""
    return [(d, tuple((e.start_offset, e.end_offset) for e in d.fix.edits) if d.fix else ()) for d in diagnostics]


def _edits(text: str):
    """A sequence of buffers, each an edit of the one before (as an editor would send them)."""
    steps = [text]

    def edit(old: str, new: str, count: int = 1) -> None:
        assert old in steps[-1], old
        steps.append(steps[-1].replace(old, new, count))

    edit("x = x - x.mean(axis=1, keepdims=True)", "x = x - x.mean(axis=1, keepdims=True)  # edit")  # one class
    edit("x = x - x.mean(axis=1, keepdims=True)  # edit", "x = F.broadcast_sub(x, x.mean(axis=1, keepdims=True))")
    edit("        self.fc = nn.Dense(10)\n", "        self.fc = nn.Dense(10)\n\n\n\n")  # rows below move
    edit("from mxnet.gluon import nn\n", "from mxnet.gluon import nn\nimport numpy as np\n")  # an import
    edit("return self.fc(x)", "return self.fc(x) + np.random.uniform()")  # reads the new import
    edit("import numpy as np\n", "")  # the import goes: the same code now names nothing
    edit('"""Models."""\n', '"""Models."""\nSCALE = 2.0\n')  # a module-level name
    edit("x = x.reshape((x.shape[0], -1))", "x = x.reshape((x.shape[0], -1)) * SCALE")
    edit("class Net2(gluon.HybridBlock):", "class Net2(Net1):")  # a base of the file: one group
    edit("return self.fc(x)\n", "return helper(F, self.fc(x))\n")  # a helper not yet defined
    steps.append(steps[-1] + "\n\ndef helper(F, y):\n    return y.asnumpy()\n")  # now defined
    edit("def hybrid_forward(self, F, x):", "def hybrid_forward(self, F, x:", 1)  # unparsable
    edit("def hybrid_forward(self, F, x:", "def hybrid_forward(self, F, x):", 1)  # parsable again
    edit("        return self.fc(x)\n", "        return self.fc(x)  # noqa: HY301\n")
    edit("x = x.reshape((x.shape[0], -1))", "x = x.reshape((x.shape[0], -1))  # noqa")
    edit("class Net3(gluon.HybridBlock):", "class Net1(gluon.HybridBlock):")  # a name defined twice
    edit("class Net1(gluon.HybridBlock):", "class Net3(gluon.HybridBlock):", 2)
    steps.append(steps[-1].rstrip("\n"))  # no final newline
    steps.append(steps[-1] + "\n")
    return steps


def _check_edits(tmp_path, steps, warm=True):
    """Check each buffer as the server does (``warm``: with the idle time the server has between edits)
    and as ``hylint check`` does; how many were checked group by group."""
    path = tmp_path / "model.py"
    checker = Checker(tmp_path)
    grouped = 0
    for number, text in enumerate(steps):
        cache = checker._groups.get(str(path))
        before = dict(cache.stored) if cache is not None else {}
        outcome = checker.check(text, path)
        assert outcome.error is None
        expected = check_source(text, str(path))
        assert _exact(outcome.diagnostics) == _exact(expected), f"edit {number}"
        cache = checker._groups.get(str(path))
        grouped += bool(cache is not None and before and set(before) & set(cache.stored))
        while warm and checker.warm(path):
            pass
    return grouped


@pytest.mark.parametrize("warm", [True, False])
def test_edits_give_what_a_whole_check_gives(tmp_path, warm):
    text = HEADER + "".join(NET.format(n=n) for n in range(6))
    grouped = _check_edits(tmp_path, _edits(text), warm)
    if warm:
        assert grouped >= 10  # most edits reused the groups they did not change


def test_a_fix_naming_what_another_group_takes_is_checked_whole(tmp_path):
    """HY302's unsafe fix names a new constant parameter `c`, or `c1` when the module takes `c`: a group
    linted without the other definitions would choose `c`."""
    constant = NET.replace("return self.fc(x)", "return self.fc(x) + nd.array([[1, 2, 3]])")
    text = HEADER + constant.format(n=0) + NET.format(n=1)
    # the second class (not the one with the constant) takes `c`, then gives it up
    taken = text.replace("super(Net1, self).__init__(**kwargs)", "super(Net1, self).__init__(**kwargs)\n        c = 1")
    steps = [text, taken, text]
    _check_edits(tmp_path, steps)
    fixes = [e.content for d in check_source(steps[1], str(tmp_path / "model.py")) if d.fix
             for e in d.fix.edits]
    assert any("c1" in content for content in fixes)  # the case is the one meant


def test_another_default_indentation_is_checked_whole(tmp_path):
    """A fix copies the module's default indentation, libcst's first indented block's: here the first
    class is indented by two spaces, the others by four."""
    constant = NET.replace("return self.fc(x)", "return self.fc(x) + nd.array([[1, 2, 3]])")
    first = NET.format(n=0).replace("    ", "  ")
    text = HEADER + first + constant.format(n=1) + NET.format(n=2)
    steps = [text, text.replace("x = x.reshape((x.shape[0], -1))", "x = x.reshape((x.shape[0], -1))  # e")]
    _check_edits(tmp_path, steps)


RANDOM = '''

class Noisy(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x * random.random()
'''


def _import_edits(text: str):
    """Edits of the statements outside the definitions, each followed by its undoing."""
    steps = [text]

    def edit(old: str, new: str) -> None:
        assert old in steps[-1], old
        steps.append(steps[-1].replace(old, new, 1))

    edit("import random\n", "import random  # the standard library's\n")  # a comment: no run changes
    edit("import random  # the standard library's\n", "from mxnet import random\n")  # HY808 goes
    edit("from mxnet import random\n", "import random\n")  # and comes back
    edit("import mxnet.ndarray as F\n", "import mxnet.symbol as F\n")
    edit("import mxnet.symbol as F\n", "")  # an import removed
    edit("from mxnet import gluon, nd\n", "from mxnet import gluon\n")  # one name of an import removed
    edit("from mxnet import gluon\n", "from mxnet import gluon\nfrom mxnet import nd\n")  # an import added
    edit("from mxnet import nd\n", "from mxnet import nd\nimport numpy as random\n")  # rebinds a name in use
    edit("import numpy as random\n", "SCALE = 2.0\n")  # a module-level name no definition reads
    edit("SCALE = 2.0\n", "SCALE = 2.0  # noqa: HY301\n")  # a directive outside the definitions
    edit("SCALE = 2.0  # noqa: HY301\n", "SCALE = 2.0\nnet = Net1()\ny = net(nd.ones((2, 5)))\n")  # a call site
    return steps


def _import_buffer() -> str:
    header = HEADER.replace("from mxnet.gluon import nn\n", "from mxnet.gluon import nn\nimport random\n"
                            "import mxnet.ndarray as F\n")
    return header + "".join(NET.format(n=n) for n in range(4)) + RANDOM


@pytest.mark.parametrize("selection", ["default", "ALL"])
def test_edits_outside_the_definitions_give_what_a_whole_check_gives(tmp_path, selection):
    if selection == "ALL":  # HY090 (unused noqa) judges the directive outside the definitions
        (tmp_path / "pyproject.toml").write_text('[tool.hylint]\nselect = ["ALL"]\n')
    steps = _import_edits(_import_buffer())
    _check_edits(tmp_path, steps)
    noisy = [sum(d.code == "HY808" for d in check_source(step, str(tmp_path / "model.py"))) for step in steps[:4]]
    assert noisy == [1, 1, 0, 1]  # the edits meant: an import decides what is reported


def test_an_import_edit_relints_only_the_groups_that_use_a_name_it_changed(tmp_path, monkeypatch):
    from hylint.lint.engine import Linter

    runs = []
    lint_source = Linter.lint_source

    def counted(self, source, *args, **kwargs):
        runs.append(source)
        return lint_source(self, source, *args, **kwargs)

    path = tmp_path / "model.py"
    checker = Checker(tmp_path)
    steps = _import_edits(_import_buffer())
    checker.check(steps[0], path)
    while checker.warm(path):
        pass
    monkeypatch.setattr(Linter, "lint_source", counted)
    ran = []
    for step in steps[1:4]:
        runs.clear()
        found = checker.check(step, path).diagnostics
        ran.append([("class Noisy" in source, "class Net0" in source) for source in runs])
        assert _exact(found) == _exact(check_source(step, str(path)))
        while checker.warm(path):
            pass
    # a comment: no run; `random` bound otherwise: the one class that reads it, alone (without the others)
    assert ran == [[], [(True, False)], [(True, False)]]


def test_a_buffer_is_cut_into_independent_groups():
    text = HEADER + "".join(NET.format(n=n) for n in range(3)) + "\n\ndef make():\n    return Net0()\n"
    found = plan(text)
    names = [[found.units[index].name for index in group] for group in found.groups]
    assert names == [["Net0", "make"], ["Net1"], ["Net2"]]
    assert plan(text.replace('"""Models."""', "if True:\n    class Other: pass")) is None  # a class in the context
    # lines ended in two ways: a run without the first line would end a fix's new lines otherwise
    assert plan(text.replace('"""Models."""\n', '"""Models."""\r\n')) is None
    assert plan(text.replace("\n", "\r\n")) is not None


def _corpus_files():
    corpus = ROOT / "benchmarks" / ".corpus"
    if not corpus.is_dir():
        return []
    return sorted(path for path in corpus.rglob("*.py") if "hybrid_forward" in path.read_text(errors="ignore"))


def _corpus_plans(select=None):
    """A linter of the rules ``select`` (default: the default rules) without the regions pass, as the server's,
    and each file of the corpus with groups: (path, text, plan)."""
    from hylint.lint.engine import Linter
    from hylint.selection import select_rules

    files = _corpus_files()
    if not files:
        pytest.skip("no benchmark corpus (benchmarks/corpus.py downloads it)")
    linter = Linter(select_rules(select=select) if select else select_rules())
    linter.regions = False
    texts = [(path, path.read_text(errors="ignore")) for path in files]
    return linter, [(path, text, plan(text)) for path, text in texts if plan(text) is not None]


@pytest.mark.slow
@pytest.mark.parametrize("selection", ["default", "ALL"])
def test_each_group_alone_gives_what_the_whole_file_gives_on_the_corpus(selection):
    """The claim the groups rest on, on real code: a group linted with the other groups' definitions
    blanked gets the diagnostics the whole file gets in its definitions (where the checks accept it)."""
    linter, plans = _corpus_plans(["ALL"] if selection == "ALL" else None)
    groups = 0
    for path, text, found in plans:
        expected = linter.lint_source(text, "m.py").diagnostics
        buffer = _Buffer(found)
        for group in found.groups:
            entry = buffer.entry(group, lint_alone(found, group, "m.py", linter))
            if entry is None or not buffer.holds(group, entry):
                continue
            groups += 1
            got = [_shift(d, found.units[group[member]].first - 1, buffer.starts) for member, d in entry.diagnostics]
            rows = {row for index in group for row in range(found.units[index].first, found.units[index].last + 1)}
            assert _exact(sorted(got, key=lambda d: d.sort_key())) == \
                _exact([d for d in expected if d.start[0] in rows]), (path, group)
    assert groups > 50


def _outside_edits(text: str, found):
    """Edits of each statement outside the definitions, as a user makes them: removed, commented, an import
    added before it; an import's ndarray made symbol, and back."""
    lines = text.splitlines(keepends=True)
    for unit in found.units:
        if unit.name is not None:
            continue
        before, after = "".join(lines[:unit.first - 1]), "".join(lines[unit.last:])
        yield before + after
        first, _, rest = unit.text.partition("\n")
        if "#" not in first and not first.rstrip().endswith(("\\", "(", "[", "{", ",")) and '"""' not in first:
            yield before + first + "  # edited\n" + rest + after
        yield before + "from mxnet import nd\n" + unit.text + after
        if unit.facts.kind == "imports" and "ndarray" in unit.text:
            yield before + unit.text.replace("ndarray", "symbol") + after


@pytest.mark.slow
def test_edits_outside_the_definitions_on_the_corpus():
    """Each statement outside the definitions of a file of the corpus edited, then the edit undone: the
    server's answer (groups kept from before the edit where what they read did not change) is a whole
    check's, with every rule (75 s of CPU; with the default rules, measured once: 0 differences in 1,646 checks)."""
    from hylint.server.incremental import GroupCache
    from hylint.server.parsing import StatementCache
    from hylint.syntax.python_tree import python_tree

    linter, plans = _corpus_plans(["ALL"])
    grouped = 0
    for path, text, found in plans:
        cache = GroupCache(StatementCache())
        for step in [text] + [edited for edit in _outside_edits(text, found) if python_tree(edit)
                              for edited in (edit, text)]:
            got = cache.check(step, "m.py", linter)
            while cache.warm():
                pass
            if got is not None:
                grouped += 1
                assert _exact(got) == _exact(linter.lint_source(step, "m.py").diagnostics), path
    assert grouped > 1000
