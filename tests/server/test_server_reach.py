"""The editor sees what ``hylint check`` sees (issue 44): over LSP, each open file's diagnostics equal
``hylint check --output-format json``'s for that file (codes, rows, columns, messages), on a real library
and on a package where one module's ``hybrid_forward`` reaches another's code; unsaved edits of one module
show in the others (the package's reach is read from the open buffers); stdin with ``--stdin-filename``."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import pytest

pytest.importorskip("pygls")

from lsp_client import LspClient  # noqa: E402  (tests/server/, on sys.path under pytest)

# written from gluonts' Categorical (gluonts/mx/distribution/categorical.py): its constructor reads the
# shape of the tensor it is given, and a model's hybrid_forward builds it with F
DISTRIBUTION = '''\
def _mask(F, log_probs, num_cats):
    return F.one_hot(F.argmax(log_probs, axis=-1), num_cats)


class Categorical:
    def __init__(self, log_probs, F=None):
        self.log_probs = log_probs
        self.F = F
        self.num_cats = self.log_probs.shape[-1]
        self.cats = self.F.arange(self.num_cats)

    def log_prob(self, x):
        F = self.F
        mask = F.one_hot(x, self.num_cats)
        return F.sum(self.log_probs * mask, axis=-1)
'''
MODEL = '''\
from mxnet.gluon import HybridBlock

from pkg.distribution import Categorical


class Model(HybridBlock):
    def hybrid_forward(self, F, x, target):
        distr = Categorical(F.log_softmax(x), F=F)
        return distr.log_prob(target)
'''
# the model without the distribution: nothing reaches Categorical
MODEL_ALONE = MODEL.replace("        distr = Categorical(F.log_softmax(x), F=F)\n        return distr.log_prob(target)\n",
                            "        return F.sum(F.log_softmax(x) * F.one_hot(target, 10), axis=-1)\n")
# the distribution calling a helper with a hazard of its own (`log_probs.shape`): reached only through it
DISTRIBUTION_MASKED = DISTRIBUTION.replace(
    "    return F.one_hot(F.argmax(log_probs, axis=-1), num_cats)\n",
    "    return F.one_hot(F.argmax(log_probs, axis=-1), log_probs.shape[-1])\n").replace(
    "        self.cats = self.F.arange(self.num_cats)\n",
    "        self.cats = self.F.arange(self.num_cats)\n        self.mask = _mask(F, log_probs, self.num_cats)\n")

# a module of its own: a hybrid_forward building a helper object whose constructor reads a shape
OTHER = '''\
from mxnet.gluon import HybridBlock


class Scale:
    def __init__(self, x, F=None):
        self.width = x.shape[1]


class Other(HybridBlock):
    def hybrid_forward(self, F, x):
        return x / Scale(x, F=F).width
'''


def write_package(folder: Path) -> Dict[str, Path]:
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text("")
    files = {"distribution": folder / "pkg" / "distribution.py", "model": folder / "pkg" / "model.py"}
    files["distribution"].write_text(DISTRIBUTION)
    files["model"].write_text(MODEL)
    return files


def cli(args: List[str], cwd: Path, stdin: str = None) -> Dict[str, List[tuple]]:
    """``hylint check --output-format json`` in a process of its own: filename -> its diagnostics."""
    run = subprocess.run([sys.executable, "-m", "hylint", "check", "--no-cache", "--output-format", "json", *args],
                         cwd=cwd, input=stdin, capture_output=True, text=True, timeout=600)
    assert run.returncode in (0, 1), run.stderr
    found: Dict[str, List[tuple]] = {}
    for d in json.loads(run.stdout):
        found.setdefault(d["filename"], []).append((d["code"], d["location"]["row"], d["location"]["column"],
                                                    d["end_location"]["row"], d["end_location"]["column"],
                                                    d["message"]))
    return {name: sorted(items) for name, items in found.items()}


def as_cli(diagnostics: List[dict]) -> List[tuple]:
    """LSP diagnostics in hylint's terms: rows and columns from 1 (the texts here are ASCII on those lines)."""
    return sorted((d["code"], d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1,
                   d["range"]["end"]["line"] + 1, d["range"]["end"]["character"] + 1, d["message"])
                  for d in diagnostics)


def open_file(client: LspClient, path: Path, text: str = None) -> str:
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                            "text": path.read_text() if text is None else text}})
    return uri


def change(client: LspClient, uri: str, text: str, version: int) -> None:
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": [{"text": text}]})


def published(client: LspClient, uri: str, expected: List[tuple], timeout: float = 60) -> List[tuple]:
    """The diagnostics the server last published for ``uri``, once they are ``expected`` or ``timeout`` passed
    (each step below changes them: an earlier publication cannot pass for the awaited one)."""
    deadline = time.monotonic() + timeout
    while True:
        last = None
        for message in list(client.received):
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                last = as_cli(message["params"]["diagnostics"])
        if last == expected or time.monotonic() > deadline:
            return last
        time.sleep(0.05)


def test_unsaved_edits_of_another_module_show_where_they_reach(client, tmp_path):
    """Open the distribution (A) and the model (B); edit B without saving so that its hybrid_forward no longer
    builds A's Categorical: A's reached hazard goes; edit it back: it comes back. Then A's own unsaved text
    calls a helper with a hazard: reached through it, it shows. Each state is what `hylint check` reports
    once those texts are saved."""
    files = write_package(tmp_path)
    client.initialize(tmp_path.as_uri())
    a, b = open_file(client, files["distribution"]), open_file(client, files["model"])
    on_disk = cli([str(files["distribution"])], tmp_path)[str(files["distribution"])]
    assert [(d[0], d[1]) for d in on_disk] == [("HY201", 9)] and on_disk[0][5].endswith(
        "(via Categorical)")
    assert published(client, a, on_disk) == on_disk

    change(client, b, MODEL_ALONE, 2)  # not saved: the file still builds Categorical
    assert files["model"].read_text() == MODEL
    assert published(client, a, []) == []
    change(client, b, MODEL, 3)
    assert published(client, a, on_disk) == on_disk

    change(client, a, DISTRIBUTION_MASKED, 2)  # A's own text, unsaved: Categorical now calls _mask
    saved = tmp_path / "saved"  # the same texts saved, in another folder, for `hylint check`
    write_package(saved)
    (saved / "pkg" / "distribution.py").write_text(DISTRIBUTION_MASKED)
    expected = cli([str(saved / "pkg" / "distribution.py")], saved)[str(saved / "pkg" / "distribution.py")]
    assert [(d[0], d[1]) for d in expected] == [("HY201", 2), ("HY201", 9)]
    assert expected[0][5].startswith("`log_probs.shape` is NDArray-only") and expected[0][5].endswith(
        "(via Categorical)")
    assert published(client, a, expected) == expected

    # B closed with unsaved text: A's reach is the saved model's again
    change(client, b, MODEL_ALONE, 4)
    assert published(client, a, []) == []  # nothing builds Categorical
    client.notify("textDocument/didClose", {"textDocument": {"uri": b}})
    assert published(client, a, expected) == expected
    assert client.shutdown() == 0


def test_a_saved_edit_of_another_module_shows_without_editing_the_first(client, tmp_path):
    """Before, a module's reach was read again only when that module was checked again: saving B left A's
    diagnostics as they were until A was edited."""
    files = write_package(tmp_path)
    client.initialize(tmp_path.as_uri())
    a, b = open_file(client, files["distribution"]), open_file(client, files["model"])
    assert len(published(client, a, cli([str(files["distribution"])], tmp_path)[str(files["distribution"])])) == 1
    change(client, b, MODEL_ALONE, 2)
    files["model"].write_text(MODEL_ALONE)
    client.notify("textDocument/didSave", {"textDocument": {"uri": b}})
    assert cli([str(files["distribution"])], tmp_path) == {}
    assert published(client, a, []) == []
    assert client.shutdown() == 0


def test_stdin_gives_what_the_file_gives(client, tmp_path):
    """`hylint check - --stdin-filename F` (what editors without LSP run on a buffer) reports what
    `hylint check F` and the server report for the same text, saved or not: stdin is module F of the
    package (before, the package's reach was read with F as saved: the unsaved call of `_mask` was missed)."""
    files = write_package(tmp_path)
    name = str(files["distribution"])
    on_disk = cli([name], tmp_path)[name]
    assert len(on_disk) == 1
    assert cli(["-", "--stdin-filename", name], tmp_path, stdin=DISTRIBUTION) == {name: on_disk}
    client.initialize(tmp_path.as_uri())
    uri = open_file(client, files["distribution"])
    assert published(client, uri, on_disk) == on_disk

    saved = tmp_path / "saved"
    write_package(saved)
    (saved / "pkg" / "distribution.py").write_text(DISTRIBUTION_MASKED)
    expected = cli([str(saved / "pkg" / "distribution.py")], saved)[str(saved / "pkg" / "distribution.py")]
    assert len(expected) == 2
    assert cli(["-", "--stdin-filename", name], tmp_path, stdin=DISTRIBUTION_MASKED) == {name: expected}
    change(client, uri, DISTRIBUTION_MASKED, 2)
    assert published(client, uri, expected) == expected
    # a module of the package not yet on disk: its own helper is reached as once it is saved
    (saved / "pkg" / "other.py").write_text(OTHER)
    expected = cli([str(saved / "pkg" / "other.py")], saved)[str(saved / "pkg" / "other.py")]
    assert [d[:2] for d in expected] == [("HY201", 6)] and expected[0][5].endswith(
        "(via Scale)")
    name = str(tmp_path / "pkg" / "other.py")
    assert cli(["-", "--stdin-filename", name], tmp_path, stdin=OTHER) == {name: expected}
    assert published(client, open_file(client, Path(name), OTHER), expected) == expected  # the server too
    assert client.shutdown() == 0


def _installed(name: str) -> Path:
    spec = importlib.util.find_spec(name)  # finds the package without importing it (nor MXNet)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{name} is not installed (the test extra installs it)")
    return Path(list(spec.submodule_search_locations)[0])


@pytest.mark.slow
def test_the_server_reports_what_hylint_check_reports_on_gluoncv(client, tmp_path):
    """gluoncv 0.10.5 copied whole (its reach is the package's), with the gluonts-like package beside it:
    every file with a diagnostic, and a few with a hybrid_forward and none, opened in the editor."""
    shutil.copytree(_installed("gluoncv"), tmp_path / "gluoncv", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    write_package(tmp_path)
    everything = cli([str(tmp_path / "gluoncv"), str(tmp_path / "pkg")], tmp_path)
    assert sum(len(found) for found in everything.values()) >= 50 and len(everything) >= 10
    assert any("(via " in d[5] for found in everything.values() for d in found)
    clean = sorted(str(path) for path in (tmp_path / "gluoncv").rglob("*.py")
                   if "hybrid_forward" in path.read_text(errors="replace") and str(path) not in everything)
    opened = sorted(everything) + clean[::max(len(clean) // 8, 1)][:8]
    client.initialize(tmp_path.as_uri())
    uris = {name: open_file(client, Path(name)) for name in opened}
    expected = cli(opened, tmp_path)
    assert expected == everything  # the files named, or the whole folder: the same diagnostics
    differ = {}
    for name, uri in uris.items():
        got = published(client, uri, expected.get(name, []), timeout=120)
        if got != expected.get(name, []):
            differ[name] = (got, expected.get(name, []))
    assert differ == {}
    assert client.shutdown() == 0
