"""The server's adapter into the linter (hylint/server/linting.py) and its LSP conversions
(hylint/server/convert.py), in process."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest.importorskip("lsprotocol")

from lsprotocol import types as lsp  # noqa: E402

from hylint.diagnostic import Diagnostic  # noqa: E402
from hylint.server import convert  # noqa: E402
from hylint.server.linting import Checker  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = (ROOT / "examples" / "tutorial_net.py").read_text()


def test_check_is_what_hylint_check_reports(tmp_path):
    from hylint.lint.engine import Linter
    from hylint.selection import select_rules

    path = tmp_path / "net.py"
    expected = Linter(select_rules()).lint_source(TUTORIAL, str(path)).diagnostics
    checker = Checker(tmp_path)
    first = checker.check(TUTORIAL, path)  # regions pass on; the next check skips it (fixable diagnostics)
    second = checker.check(TUTORIAL, path)
    assert first.diagnostics == expected == second.diagnostics and first.error is None
    assert checker.linter(path, whole_file=True).regions is False and checker.linter(path).regions


DIST = "class Categorical:\n    def __init__(self, F, probs):\n        self.F = F\n        self.num = probs.shape[-1]\n"
MODEL = ("from mxnet.gluon import HybridBlock\n\nfrom pkg.dist import Categorical\n\n\nclass Model(HybridBlock):\n"
         "    def hybrid_forward(self, F, x):\n        return x * Categorical(F, x).num\n")


def test_a_module_the_package_reaches_gets_what_hylint_check_reports(tmp_path):
    """The buffer of a module that another module's hybrid_forward reaches is checked with the package's
    reach, read from the files as saved, as `hylint check` checks it; a saved change is seen."""
    import json
    import time

    from click.testing import CliRunner

    from hylint.cli import main

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "dist.py").write_text(DIST)
    (package / "model.py").write_text(MODEL)
    cli = json.loads(CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "json",
                                               str(package / "dist.py")]).stdout)
    checker = Checker(tmp_path)
    found = checker.check(DIST, package / "dist.py").diagnostics
    assert [(d.code, d.start[0], d.message) for d in found] == [(d["code"], d["location"]["row"], d["message"])
                                                               for d in cli]
    assert len(found) == 1 and found[0].help.endswith("Reached from Model.hybrid_forward via Categorical.")
    (package / "model.py").write_text(MODEL.replace("Categorical(F, x).num", "2"))  # saved: nothing reaches it
    time.sleep(1.1)  # the server stats the package's files again at most once a second
    assert checker.check(DIST, package / "dist.py").diagnostics == []


def test_a_notebook_and_an_untitled_buffer_get_the_reach_of_their_own_text(tmp_path):
    """Neither has a package: what a trace reaches is read from the text itself, as `hylint check` reads a
    notebook (tests/batch/test_own_reach.py); before, neither was given a reach."""
    local = DIST + "\n\n" + MODEL.replace("from pkg.dist import Categorical\n", "")
    checker = Checker(tmp_path)
    untitled = checker.check(local, None).diagnostics
    assert [(d.code, d.start[0]) for d in untitled] == [("HY201", 4)]
    assert untitled[0].help.endswith("Reached from Model.hybrid_forward via Categorical.")
    cells = [(True, DIST), (False, "The model:"), (True, MODEL.replace("from pkg.dist import Categorical\n", ""))]
    found = checker.check_notebook(cells, tmp_path / "model.ipynb").diagnostics
    assert [(d.code, d.cell, d.start[0]) for d in found] == [("HY201", 1, 4)]


def test_settings_follow_the_nearest_pyproject(tmp_path):
    (tmp_path / "sub").mkdir()
    path = tmp_path / "sub" / "net.py"
    checker = Checker(tmp_path)
    assert len(checker.check(TUTORIAL, path).diagnostics) == 3
    (tmp_path / "pyproject.toml").write_text('[tool.hylint]\nignore = ["HY101"]\n')
    assert [d.code for d in checker.check(TUTORIAL, path).diagnostics] == ["HY201"]
    nearer = tmp_path / "sub" / "pyproject.toml"
    nearer.write_text('[tool.hylint]\nignore = ["HY201"]\n')
    assert [d.code for d in checker.check(TUTORIAL, path).diagnostics] == ["HY101", "HY101"]
    nearer.write_text('[tool.hylint]\nignore = ["HY201", "HY101"]\n')
    os.utime(nearer, ns=(1, 1))  # a changed mtime, whatever the clock's resolution
    assert checker.check(TUTORIAL, path).diagnostics == []
    nearer.write_text("[tool.hylint\n")
    outcome = checker.check(TUTORIAL, path)
    assert "invalid TOML" in outcome.error and len(outcome.diagnostics) == 3  # defaults meanwhile


def test_settings_follow_a_hylint_toml_as_the_cli_does(tmp_path):
    (tmp_path / "sub").mkdir()
    path = tmp_path / "sub" / "net.py"
    checker = Checker(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.hylint]\nignore = ["HY101"]\n')
    assert [d.code for d in checker.check(TUTORIAL, path).diagnostics] == ["HY201"]
    (tmp_path / "hylint.toml").write_text('ignore = ["HY201"]\n')  # beside it, and first: ruff's order
    assert [d.code for d in checker.check(TUTORIAL, path).diagnostics] == ["HY101", "HY101"]
    (tmp_path / "sub" / ".hylint.toml").write_text("")  # nearer, and empty: the defaults
    assert len(checker.check(TUTORIAL, path).diagnostics) == 3


def test_unparsable_text_gives_hy000(tmp_path):
    """As `hylint check`: a buffer that may hold hybrid code and does not parse gets HY000; one that
    cannot hold any (the prefilter, hylint/lint/prefilter.py) is not parsed at all."""
    checker = Checker(tmp_path)
    hybrid = "class A(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
    for text in [hybrid + "        return x.shape(\n", hybrid + "(" * 10000, hybrid + "\treturn x\n  \tx\n",
                 hybrid + "        return x\x00\n"]:
        codes = [d.code for d in checker.check(text, tmp_path / "a.py").diagnostics]
        assert codes == ["HY000"], (text[-20:], codes)
    assert checker.check("def f(:\n", tmp_path / "a.py").diagnostics == []


def test_add_noqa_one_diagnostic_and_all(tmp_path):
    checker = Checker(tmp_path)
    path = tmp_path / "net.py"
    diagnostics = checker.check(TUTORIAL, path).diagnostics
    one = checker.add_noqa(TUTORIAL, path, only=diagnostics[1])
    assert one.splitlines()[26].endswith("  # noqa: HY101") and one.count("# noqa") == 1
    assert checker.add_noqa(TUTORIAL, path).count("# noqa") == 3
    assert checker.check(checker.fix_all(TUTORIAL, path), path).diagnostics == []


def test_positions_are_utf16_and_clamped():
    text = convert.Text("a = '𝄞é'; x.shape\r\nb\rc\n")
    assert convert.Text("a = '𝄞é'; x.shape").position(1, 10) == lsp.Position(0, 10)  # 𝄞 is 2 UTF-16 units
    assert convert.Text("a = '𝄞é'; x.shape", lsp.PositionEncodingKind.Utf32).position(1, 10) == lsp.Position(0, 9)
    assert text.position(3, 2) == lsp.Position(2, 1)
    assert text.position(99, 99) == lsp.Position(3, 0)
    assert text.position(2, 50) == lsp.Position(1, 1)
    assert text.end() == lsp.Position(3, 0)


def test_minimal_edit_keeps_crlf_whole():
    old, new = "a = 1\r\nb = 2\r\n", "a = 1  # noqa\r\nb = 2\r\n"
    edit = convert.minimal_edit(old, new)
    assert edit.range == lsp.Range(lsp.Position(0, 5), lsp.Position(0, 5)) and edit.new_text == "  # noqa"
    edit = convert.minimal_edit("a\r\nb", "a\nb")
    assert edit.range == lsp.Range(lsp.Position(0, 1), lsp.Position(1, 0)) and edit.new_text == "\n"
    assert convert.minimal_edit("same", "same") is None


def test_diagnostic_to_lsp(monkeypatch):
    monkeypatch.setenv("HYLINT_DOCS_URL", "https://docs.example.org/hylint/rules.md")  # a served page
    d = Diagnostic("HY201", "ndarray-only-attribute", "m", "f.py", (2, 3), (2, 10))
    item = convert.to_lsp(d, convert.Text("x\n  x.shape\n"), {"HY201"})
    assert item.range == lsp.Range(lsp.Position(1, 2), lsp.Position(1, 9))
    assert item.code_description.href == d.url
    assert d.url == "https://docs.example.org/hylint/rules.md#hy201-ndarray-only-attribute"
    assert item.severity == lsp.DiagnosticSeverity.Warning
    assert convert.to_lsp(d, convert.Text(""), set()).code_description is None


def test_without_pygls_the_server_says_how_to_install_it(tmp_path):
    import subprocess
    import sys

    blocker = tmp_path / "pygls"  # a package that fails to import, shadowing the installed one
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ImportError('no pygls here', name='pygls')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    done = subprocess.run([sys.executable, "-m", "hylint.server"], capture_output=True, text=True, env=env,
                          stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 2 and "pip install 'pygls>=1.3,<2'" in done.stderr, done.stderr


def test_groups_are_prepared_only_while_no_change_comes(tmp_path):
    """The server prepares a file's groups for its next edit (``Checker.warm``, a group's own check per
    step) only after WARM_AFTER seconds without a change and with no change waiting for its lint: a
    change of the imports arriving meanwhile would wait behind those steps, and throw their work away."""
    import asyncio
    import time

    from hylint.server.protocol import WARM_AFTER, HylintServer

    class Steps:
        def __init__(self) -> None:
            self.paths = []

        def warm(self, path):
            self.paths.append(path)
            return len(self.paths) < 3  # three groups to prepare

        def forget(self, path) -> None:
            pass

    server = HylintServer()
    try:
        server.checker = steps = Steps()
        uri = (tmp_path / "model.py").as_uri()
        server.results[uri] = None  # the file's latest check
        server.changed = server.loop.time()
        server.warm(uri)  # just changed: put off
        assert steps.paths == [] and uri in server.warming
        server.changed -= WARM_AFTER
        server.pending[uri] = server.loop.call_later(60, lambda: None)  # a change waiting for its lint
        server.warm(uri)
        assert steps.paths == [] and uri in server.warming
        server.pending.pop(uri).cancel()
        server.warm(uri)  # quiet: one group now, the others on the next turns of the loop
        assert steps.paths == [tmp_path / "model.py"]
        deadline = time.monotonic() + 10  # the next steps, one per turn of the loop (a loaded machine: slower)
        while len(steps.paths) < 3 and time.monotonic() < deadline:
            server.loop.run_until_complete(asyncio.sleep(0.01))
        assert len(steps.paths) == 3 and uri not in server.warming
        server.forget(uri)
        server.warm(uri)  # a closed file: nothing more
        assert len(steps.paths) == 3
    finally:
        for handle in list(server.warming.values()) + list(server.pending.values()):
            handle.cancel()
        server.loop.close()
        asyncio.set_event_loop(None)


def test_the_garbage_collector_settles_only_once_the_editor_is_idle(monkeypatch):
    """``settle`` (a full collection, then ``gc.freeze``) runs SETTLE_AFTER seconds after the latest lint,
    with no change waiting for its lint and no file being prepared; until then it is put off."""
    import asyncio
    import gc

    from hylint.server import protocol
    from hylint.server.protocol import SETTLE_AFTER, HylintServer

    done = []
    monkeypatch.setattr(protocol.gc, "freeze", lambda: done.append("freeze"))
    monkeypatch.setattr(protocol.gc, "collect", lambda *args: done.append("collect"))
    server = HylintServer()
    try:
        server.changed = server.loop.time()
        server.settle()  # just linted: put off
        assert done == [] and server.settling is not None
        server.settling.cancel()
        server.changed -= SETTLE_AFTER
        server.pending["file:///m.py"] = server.loop.call_later(60, lambda: None)  # a change waiting
        server.settle()
        assert done == [] and server.settling is not None
        server.settling.cancel()
        server.pending.pop("file:///m.py").cancel()
        server.settle()  # idle
        assert done == ["collect", "freeze"] and server.settling is None
    finally:
        gc.unfreeze()
        for handle in list(server.pending.values()) + [server.settling] * (server.settling is not None):
            handle.cancel()
        server.loop.close()
        asyncio.set_event_loop(None)


def test_hover_is_the_diagnostic_its_fix_and_what_the_rule_does_not_the_whole_page(monkeypatch, tmp_path):
    import hylint.diagnostic as diagnostic_module
    from hylint.diagnostic import Applicability, Edit, Fix
    from hylint.selection import all_rules

    rule = all_rules()["HY806"]
    monkeypatch.setenv("HYLINT_DOCS_URL", "https://docs.example.org/hylint/rules.md")  # a served page
    fix = Fix(Applicability.UNSAFE, "Read the mode with `F.Dropout`", (Edit("x", (1, 1), (1, 2)),))
    d = Diagnostic("HY806", rule.NAME, "`autograd.is_training()` inside a hybrid context: frozen", "f.py", (1, 1),
                   (1, 2), fix, help="After hybridize() it is read once, when the graph is traced.")
    text = convert.hover_markdown(d, rule)
    assert text.startswith("**HY806** (autograd-state-in-hybrid): `autograd.is_training()` inside a hybrid context")
    assert "Fix (unsafe: `--unsafe-fixes`): Read the mode with `F.Dropout`" in text
    assert "\n\nAfter hybridize() it is read once, when the graph is traced.\n\n" in text  # the help
    assert convert.doc_section(rule.DOC, "What it does") in text and convert.doc_section(rule.DOC, "What it does")
    for later in ("Why is this bad?", "Example", "Use instead", "Fix safety"):
        assert f"## {later}" not in text and convert.doc_section(rule.DOC, later) not in text
    assert d.url.startswith("https://docs.example.org/") and f"({d.url})" in text
    monkeypatch.delenv("HYLINT_DOCS_URL", raising=False)
    monkeypatch.setattr(diagnostic_module, "project_rules_url", lambda: None)  # no page declared
    assert convert.hover_markdown(d, rule).endswith("More: `hylint rule HY806`")
