"""The server's libcst trees put together from the statements of earlier buffers (hylint/server/parsing.py) are
the trees ``libcst.parse_module`` gives for the whole text: equal node for node, and the same code."""
from pathlib import Path

import pytest

from hylint.lint.parse import parse_module
from hylint.server.parsing import StatementCache
from hylint.syntax.python_tree import python_tree

from test_incremental import HEADER, NET, _edits

ROOT = Path(__file__).resolve().parents[2]


def _same(cache: StatementCache, text: str):
    module = cache.module(text, python_tree(text))
    assert module is not None
    assert module.deep_equals(parse_module(text)) and module.code == text
    return module


def test_edits_give_the_tree_of_the_whole_text():
    cache = StatementCache()
    steps = [step for step in _edits(HEADER + "".join(NET.format(n=n) for n in range(4))) if python_tree(step)]
    for step in steps:
        _same(cache, step)
    assert len(steps) > 10


def test_an_unchanged_statement_is_not_parsed_again():
    cache = StatementCache()
    text = HEADER + "".join(NET.format(n=n) for n in range(3))
    before = _same(cache, text)
    after = _same(cache, text.replace("self.fc = nn.Dense(10)", "self.fc = nn.Dense(20)", 1))
    assert before.body[0] is after.body[0]  # the import, above the edit
    assert before.body[-1] is after.body[-1]  # the last class, below it
    assert before.body[3] is not after.body[3]  # the class edited (after the docstring and two imports)


def test_the_same_statement_twice_has_its_own_nodes():
    cache = StatementCache()
    text = HEADER + NET.format(n=0) + NET.format(n=0) + "\n\nx = 1\n\n\nx = 1\n"
    module = _same(cache, text)
    again = _same(cache, text)
    assert len({id(stmt) for stmt in again.body}) == len(again.body) == len(module.body)


@pytest.mark.parametrize("text", [
    # a comment indented under a class is its block's footer: no cut there
    "class A:\n    def f(self):\n        pass\n    # the end of A\n\n# about B\nclass B:\n    pass\n",
    # a class indented by two spaces after one indented by four: the module's default is the first one's
    "class A:\n    x = 1\n\n\nclass B:\n  y = 2\n",
    # a first line ended by \r\n, the others by \n
    "import os\r\nx = 1\ny = 2\n",
    # a coding cookie, a module docstring, a trailing comment
    "# -*- coding: latin-1 -*-\n\"\"\"Doc.\"\"\"\nimport os\n\n\nx = os.sep\n# the end\n",
    "x = 1; y = 2\nz = 3\n",
    "\n\n\n# only comments before\nimport os\n\n\n\n",
])
def test_layouts_libcst_owns_in_its_own_way(text):
    cache = StatementCache()
    module = cache.module(text, python_tree(text))
    if module is not None:  # or the caller parses the whole text
        assert module.deep_equals(parse_module(text)) and module.code == text
    module = cache.module(text, python_tree(text))  # from the chunks kept
    if module is not None:
        assert module.deep_equals(parse_module(text)) and module.code == text


@pytest.mark.slow
def test_every_file_of_the_corpus():
    corpus = ROOT / "benchmarks" / ".corpus"
    if not corpus.is_dir():
        pytest.skip("no benchmark corpus (benchmarks/corpus.py downloads it)")
    cache, built = StatementCache(), 0
    for path in sorted(corpus.rglob("*.py")):
        text = path.read_text(errors="ignore")
        if "hybrid_forward" not in text:  # the files the server sees most (and a tenth of the time)
            continue
        tree = python_tree(text)
        if tree is None:
            continue
        module = cache.module(text, tree)
        if module is not None:
            built += 1
            assert module.deep_equals(parse_module(text)) and module.code == text, path
    assert built > 100


def test_a_lint_reusing_the_statements_and_their_positions_gives_a_plain_lint(tmp_path):
    """``Linter.lint_source`` with the cache's ``reuse``: the same diagnostics, positions and fix offsets as a
    lint that parses the text, on a buffer and on the same buffer moved down two rows (its classes' nodes
    and their positions are then the kept ones)."""
    from hylint.lint.engine import Linter
    from hylint.selection import select_rules

    from test_incremental import _exact

    linter = Linter(select_rules())
    linter.regions = False
    cache = StatementCache()
    text = HEADER + "".join(NET.format(n=n) for n in range(3))
    moved = text.replace('"""Models."""\n', '"""Models."""\nimport os\nimport sys\n')
    kept = []
    for step in (text, moved):
        reused = linter.lint_source(step, "m.py", reuse=cache.reuse()).diagnostics
        assert _exact(reused) == _exact(linter.lint_source(step, "m.py").diagnostics) and reused
        kept.append(sum(len(inside) for inside in cache.positions.values()))
    assert kept[0] > 0 and kept[1] == kept[0]  # nothing computed again for the moved classes


@pytest.mark.slow
def test_lints_reusing_statements_on_the_corpus():
    """``hylint check``'s linter (regions on) with the cache's ``reuse`` on each corpus file with a
    ``hybrid_forward``, twice, and after an edit inside its first one: what it gives without."""
    from hylint.lint.engine import Linter
    from hylint.selection import select_rules

    from test_incremental import _corpus_files, _exact

    files = _corpus_files()
    if not files:
        pytest.skip("no benchmark corpus (benchmarks/corpus.py downloads it)")
    linter, cache, checked = Linter(select_rules()), StatementCache(), 0
    for path in files:
        text = path.read_text(errors="ignore")
        lines = text.splitlines(keepends=True)
        row = next((row for row, line in enumerate(lines) if "def hybrid_forward" in line), -1) + 1
        edited = "".join(lines[:row] + [lines[row].rstrip("\r\n") + "  # edited\n"] + lines[row + 1:])
        for step in (text, text, edited):
            checked += 1
            assert _exact(linter.lint_source(step, "m.py", reuse=cache.reuse()).diagnostics) == \
                _exact(linter.lint_source(step, "m.py").diagnostics), path
    assert checked > 300


def test_positions_go_with_the_statements_dropped():
    """The positions kept for a statement are dropped with its chunk (the cache's limit): they would keep
    its nodes alive."""
    cache = StatementCache(limit=0)  # keeps the chunks of the latest text only
    for n in range(3):
        text = HEADER + "".join(NET.format(n=n * 10 + k) for k in range(2))
        module = _same(cache, text)
        assert set(cache.positions) == set(module.body)
