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


def test_a_buffer_is_cut_into_independent_groups():
    text = HEADER + "".join(NET.format(n=n) for n in range(3)) + "\n\ndef make():\n    return Net0()\n"
    found = plan(text)
    names = [[found.units[index].name for index in group] for group in found.groups]
    assert names == [["Net0", "make"], ["Net1"], ["Net2"]]
    assert plan(text.replace('"""Models."""', "if True:\n    class Other: pass")) is None  # a class in the context


def _corpus_files():
    corpus = ROOT / "benchmarks" / ".corpus"
    if not corpus.is_dir():
        return []
    return sorted(path for path in corpus.rglob("*.py") if "hybrid_forward" in path.read_text(errors="ignore"))


@pytest.mark.slow
@pytest.mark.parametrize("selection", ["default", "ALL"])
def test_each_group_alone_gives_what_the_whole_file_gives_on_the_corpus(selection):
    """The claim the groups rest on, on real code: a group linted with the other groups' definitions
    blanked gets the diagnostics the whole file gets in its definitions (where the checks accept it)."""
    from hylint.lint.engine import Linter
    from hylint.selection import select_rules

    files = _corpus_files()
    if not files:
        pytest.skip("no benchmark corpus (benchmarks/corpus.py downloads it)")
    linter = Linter(select_rules(select=["ALL"]) if selection == "ALL" else select_rules())
    linter.regions = False
    groups = 0
    for path in files:
        text = path.read_text(errors="ignore")
        found = plan(text)
        if found is None:
            continue
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
