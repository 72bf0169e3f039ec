"""``python -m hylint.server`` end to end over stdio: diagnostics, code actions, hover, edits, config
changes, bad input, shutdown; the server process is gone after each test."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from lsp_client import LspClient  # noqa: E402  (tests/server/, on sys.path under pytest)

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = (ROOT / "examples" / "tutorial_net.py").read_text()
RESOLVE = {"textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}},
           "workspace": {"didChangeWatchedFiles": {"dynamicRegistration": True}}}


def apply_edits(text: str, edits) -> str:
    """Apply LSP TextEdits (UTF-16 positions; ASCII text here) to ``text``, last first."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position):
        return starts[position["line"]] + position["character"]

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        text = text[:offset(edit["range"]["start"])] + edit["newText"] + text[offset(edit["range"]["end"]):]
    return text


def open_file(client: LspClient, path: Path, text: str, version: int = 1):
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                            "version": version, "text": text}})
    return uri, client.diagnostics(uri, version)


def change(client: LspClient, uri: str, text: str, version: int):
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": [{"text": text}]})
    return client.diagnostics(uri, version)


def code_actions(client: LspClient, uri: str, diagnostic: dict, only=None):
    context = {"diagnostics": [diagnostic]}
    if only:
        context["only"] = only
    return client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": diagnostic["range"],
                                                      "context": context})


def test_open_fix_edit_save_shutdown(client, tmp_path):
    capabilities = client.initialize(tmp_path.as_uri(), RESOLVE)["capabilities"]
    assert capabilities["codeActionProvider"]["resolveProvider"] is True
    assert capabilities["hoverProvider"]
    path = tmp_path / "net.py"
    path.write_text(TUTORIAL)
    uri, diagnostics = open_file(client, path, TUTORIAL)
    # the lines `hylint check examples/tutorial_net.py` names: 26:24 HY201, 27:13 HY101, 31:16 HY101
    assert [(d["code"], d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1)
            for d in diagnostics] == [("HY201", 26, 24), ("HY101", 27, 13), ("HY101", 31, 16)]
    shape = diagnostics[0]
    assert shape["source"] == "hylint" and shape["severity"] == 2
    # a link only where a page is served (HYLINT_DOCS_URL, or a "Rules" URL the project declares): none here,
    # and never a file:// path into the checkout; the hover says `hylint rule HY201`
    assert "codeDescription" not in shape
    assert "`x.shape` is NDArray-only" in shape["message"]

    # hover over the diagnostic: its message, its fix and what the rule does; the whole page is a link away
    # (issue 44: the hover showed the whole rule page, as `hylint rule HY201` prints it)
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": shape["range"]["start"]})
    assert hover["contents"]["kind"] == "markdown"
    value = hover["contents"]["value"]
    assert value.startswith("**HY201** (ndarray-only-attribute): `x.shape` is NDArray-only")
    assert "Fix: " in value and "Flags `.shape`" in value and "hylint rule HY201" in value
    assert "Why is this bad?" not in value and "Fix safety" not in value
    assert client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                 "position": {"line": 0, "character": 0}}) is None

    # the quick fix of the first diagnostic: apply it, the diagnostic goes, the others stay
    actions = code_actions(client, uri, shape)
    titles = [a["title"] for a in actions]
    assert titles[0].startswith("hylint (HY201): ") and "unsafe" not in titles[0]
    assert "hylint (HY201): add `# noqa: HY201` on this line" in titles
    assert "hylint: fix all safe fixes" in titles
    text = apply_edits(TUTORIAL, actions[0]["edit"]["changes"][uri])
    diagnostics = change(client, uri, text, 2)
    assert [d["code"] for d in diagnostics] == ["HY101", "HY101"]

    # add noqa (resolved lazily) on the next one
    actions = code_actions(client, uri, diagnostics[0])
    noqa = next(a for a in actions if "noqa" in a["title"])
    assert "edit" not in noqa
    noqa = client.request("codeAction/resolve", noqa)
    text = apply_edits(text, noqa["edit"]["changes"][uri])
    assert text.splitlines()[26].endswith("only eagerly  # noqa: HY101")  # after the line's own comment
    diagnostics = change(client, uri, text, 3)
    assert [(d["code"], d["range"]["start"]["line"] + 1) for d in diagnostics] == [("HY101", 31)]

    # fix all safe fixes (source.fixAll): nothing left
    actions = code_actions(client, uri, diagnostics[0], only=["source.fixAll"])
    assert [a["kind"] for a in actions] == ["source.fixAll.hylint"]
    text = apply_edits(text, client.request("codeAction/resolve", actions[0])["edit"]["changes"][uri])
    assert change(client, uri, text, 4) == []

    # an edit brings a hazard back (after the debounce), save lints at once
    assert "        x = F.relu(self.fc1(x))\n" in text
    text = text.replace("        x = F.relu(self.fc1(x))\n",
                        "        n = x.shape[0]\n        x = F.relu(self.fc1(x))\n")
    diagnostics = change(client, uri, text, 5)
    assert {d["code"] for d in diagnostics} == {"HY201"}
    path.write_text(text)
    client.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert {d["code"] for d in client.diagnostics(uri, 5)} == {"HY201"}

    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert client.diagnostics(uri) == []
    assert client.shutdown() == 0
    assert client.process.poll() == 0


def test_unsafe_fix_is_marked(client, tmp_path):
    client.initialize(tmp_path.as_uri())  # no resolve support: every edit comes with the action
    source = (ROOT / "examples" / "unsafe_fixes.py").read_text()
    uri, diagnostics = open_file(client, tmp_path / "unsafe.py", source)
    assert [d["code"] for d in diagnostics] == ["HY501", "HY201"]
    titles = [a["title"] for a in code_actions(client, uri, diagnostics[0])]
    assert any(t.startswith("hylint (HY501): ") and t.endswith("(unsafe fix)") for t in titles)
    noqa = next(a for a in code_actions(client, uri, diagnostics[0]) if "noqa" in a["title"])
    assert "edit" in noqa
    # no safe fix in the file: no fix-all
    assert code_actions(client, uri, diagnostics[0], only=["source.fixAll"]) == []
    assert client.shutdown() == 0


def test_unparsable_buffer_gives_hy000_and_recovers(client, tmp_path):
    client.initialize(tmp_path.as_uri())
    uri, _ = open_file(client, tmp_path / "net.py", TUTORIAL)
    broken = TUTORIAL.replace("def hybrid_forward(self, F, x, fc3_weight, fc3_bias):", "def hybrid_forward(self, F, x")
    diagnostics = change(client, uri, broken, 2)
    assert [d["code"] for d in diagnostics] == ["HY000"] and diagnostics[0]["severity"] == 1
    for version, text in enumerate(["\x00\x01", "(" * 5000, "def f(:\n\tpass\n  \tx", "", "\ufeff\r\n\r"], 3):
        diagnostics = change(client, uri, text, version)
        assert all(d["code"] == "HY000" for d in diagnostics)
    assert len(change(client, uri, TUTORIAL, 20)) == 3
    assert client.shutdown() == 0


def test_settings_from_nearest_config_and_reread_on_change(client, tmp_path):
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.hylint]\nignore = ["HY201"]\n')
    client.initialize(tmp_path.as_uri(), RESOLVE)
    path = project / "pkg" / "net.py"
    uri, diagnostics = open_file(client, path, TUTORIAL)
    assert [d["code"] for d in diagnostics] == ["HY101", "HY101"]
    # the config changes on disk: the watched-files notification re-lints open files with it
    time.sleep(0.01)
    (project / "pyproject.toml").write_text('[tool.hylint]\nignore = ["HY101"]\n'
                                            '[tool.hylint.per-file-ignores]\n"other.py" = ["HY201"]\n')
    client.notify("workspace/didChangeWatchedFiles", {"changes": [
        {"uri": (project / "pyproject.toml").as_uri(), "type": 2}]})
    assert [d["code"] for d in client.diagnostics(uri, 1)] == ["HY201"]
    # per-file-ignores match the file's name, as in `hylint check`
    other, diagnostics = open_file(client, project / "pkg" / "other.py", TUTORIAL)
    assert diagnostics == []
    # a broken config: told once, defaults used
    (project / "pyproject.toml").write_text('[tool.hylint]\nselect = ["HY9999"]\n')
    assert [d["code"] for d in change(client, uri, TUTORIAL + "\n", 2)] == ["HY201", "HY101", "HY101"]
    shown = [m["params"] for m in client.received if m["method"] == "window/showMessage"]
    assert len(shown) == 1 and "HY9999" in shown[0]["message"] and shown[0]["type"] == 1
    change(client, uri, TUTORIAL, 3)
    assert len([m for m in client.received if m["method"] == "window/showMessage"]) == 1  # once
    assert client.shutdown() == 0


def test_server_ends_when_the_client_goes(tmp_path):
    client = LspClient(cwd=str(tmp_path))
    try:
        client.initialize(tmp_path.as_uri())
        client.process.stdin.close()  # the editor died without shutdown
        assert client.process.wait(timeout=30) is not None
    finally:
        client.close()


def test_notebook_cells(client, tmp_path):
    client.initialize(tmp_path.as_uri(), RESOLVE)
    header, _, body = TUTORIAL.partition("\n\n\nclass Net(")
    cells = [("python", 2, header + "\n%matplotlib inline\n"), ("markdown", 1, "# The net\n"),
             ("python", 2, "class Net(" + body)]
    notebook = (tmp_path / "net.ipynb").as_uri()
    uris = [f"vscode-notebook-cell:{notebook[5:]}#cell{i}" for i in range(len(cells))]
    client.notify("notebookDocument/didOpen", {
        "notebookDocument": {"uri": notebook, "notebookType": "jupyter-notebook", "version": 1,
                             "cells": [{"kind": kind, "document": uri} for uri, (_, kind, _) in zip(uris, cells)]},
        "cellTextDocuments": [{"uri": uri, "languageId": language, "version": 1, "text": text}
                              for uri, (language, _, text) in zip(uris, cells)]})
    published = {}
    while len(published) < 3:
        params = client.wait_for("textDocument/publishDiagnostics")
        published[params["uri"]] = params["diagnostics"]
    assert published[uris[0]] == [] and published[uris[1]] == []
    # rows of the cell: the class starts at the cell's row 1 (file row 9)
    assert [(d["code"], d["range"]["start"]["line"] + 1) for d in published[uris[2]]] == [
        ("HY201", 18), ("HY101", 19), ("HY101", 23)]
    # a quick fix in a cell, then the cell changes: the diagnostic goes
    actions = code_actions(client, uris[2], published[uris[2]][0])
    assert actions[0]["title"].startswith("hylint (HY201): ")
    fixed = apply_edits(cells[2][2], actions[0]["edit"]["changes"][uris[2]])
    client.notify("notebookDocument/didChange", {
        "notebookDocument": {"uri": notebook, "version": 2},
        "change": {"cells": {"textContent": [{"document": {"uri": uris[2], "version": 2},
                                              "changes": [{"text": fixed}]}]}}})
    diagnostics = client.diagnostics(uris[2], 2)
    assert [d["code"] for d in diagnostics] == ["HY101", "HY101"]
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uris[2]},
                                                  "position": diagnostics[0]["range"]["start"]})
    assert hover["contents"]["value"].startswith("**HY101** (broadcast-arithmetic): ")
    client.notify("notebookDocument/didClose", {"notebookDocument": {"uri": notebook},
                                                "cellTextDocuments": [{"uri": uri} for uri in uris]})
    assert client.shutdown() == 0


def test_the_cli_command_serves(tmp_path):
    """`hylint server` (what docs/editors.md tells editors to run) is the same server."""
    import sys
    client = LspClient(cwd=str(tmp_path), command=[sys.executable, "-m", "hylint", "server"])
    try:
        assert client.initialize(tmp_path.as_uri(), RESOLVE)["capabilities"]["hoverProvider"]
        path = tmp_path / "net.py"
        path.write_text(TUTORIAL)
        _, diagnostics = open_file(client, path, TUTORIAL)
        assert [d["code"] for d in diagnostics] == ["HY201", "HY101", "HY101"]
        assert client.shutdown() == 0
    finally:
        client.close()
    assert client.process.poll() is not None
