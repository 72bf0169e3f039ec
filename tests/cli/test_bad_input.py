"""The bad-input matrix of issue 9, through the real command line (a subprocess).

Every case checks the exit code, the one-line message (file and reason) and the absence of a traceback
(``clirun.hylint`` asserts that for every run). docs/bad-input.md describes the same behaviour.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from clirun import check, codes_at, hylint, invoke

BLOCK = (
    "from mxnet.gluon import nn\n"
    "\n"
    "\n"
    "class Net(nn.HybridBlock):\n"
    "    def hybrid_forward(self, F, x):\n"
    "        return x[0]\n"
)  # HY301 on line 6


def write(folder: Path, name: str, content, mode: str = "w") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode("utf-8"))
    return path


def one_error_line(run, *needles):
    """stderr is exactly one `hylint: error: ...` line holding every needle."""
    assert len(run.err_lines) == 1, run.err
    line = run.err_lines[0]
    assert line.startswith("hylint: error: "), line
    for needle in needles:
        assert needle in line, (needle, line)
    return line


# -- files -------------------------------------------------------------------------------------

def test_syntax_error_is_hy000_and_other_files_are_still_checked(tmp_path):
    write(tmp_path, "broken.py", "class Net(HybridBlock):\n    def hybrid_forward(self, F, x)\n        return x\n")
    write(tmp_path, "good.py", BLOCK)
    run = check(["broken.py", "good.py"], cwd=tmp_path)
    assert run.code == 1
    assert ("broken.py", 2, "HY000") in codes_at(run)
    assert ("good.py", 6, "HY301") in codes_at(run)
    line = next(l for l in run.out.splitlines() if "HY000" in l)
    # CPython's message and position (column of the missing colon), one line
    assert line.startswith("broken.py:2:35: HY000 SyntaxError: expected ':'"), line


def test_python2_code_is_a_syntax_error(tmp_path):
    write(tmp_path, "py2.py", "print 'hello'\n\nclass Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
                              "        return x\n")
    run = check(["py2.py"], cwd=tmp_path)
    assert run.code == 1
    assert codes_at(run) == [("py2.py", 1, "HY000")]
    assert "Missing parentheses in call to 'print'" in run.out


def test_tab_error_names_the_line(tmp_path):
    write(tmp_path, "tabs.py", "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
                               "        y = x\n\treturn y[0]\n")
    run = check(["tabs.py"], cwd=tmp_path)
    assert run.code == 1
    assert codes_at(run) == [("tabs.py", 4, "HY000")]
    assert "TabError: inconsistent use of tabs and spaces" in run.out


def test_empty_and_comment_only_files_are_clean(tmp_path):
    for index, content in enumerate(["", "# only a comment about hybrid_forward\n# and another\n", "\n\n\n",
                                     "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n", "\ufeff"]):
        write(tmp_path, f"empty{index}.py", content)
    run = check(["."], cwd=tmp_path)
    assert run.code == 0 and codes_at(run) == [] and run.err_lines == []


@pytest.mark.slow
def test_fifty_thousand_line_file(tmp_path):
    lines = ["from mxnet.gluon import nn", ""]
    expected = []
    index = 0
    while len(lines) < 50_000 - 4:
        if len(lines) % 1000 == 2:
            lines += [f"class Net{index}(nn.HybridBlock):", "    def hybrid_forward(self, F, x):",
                      "        return x[0]", ""]
            expected.append(("big.py", len(lines) - 1, "HY301"))
            index += 1
        else:
            lines += [f"def helper_{len(lines)}(a, b):", f"    return a + b * {len(lines)}", ""]
    write(tmp_path, "big.py", "\n".join(lines) + "\n")
    assert len(lines) >= 49_990
    run = check(["big.py"], cwd=tmp_path, timeout=600)
    assert run.code == 1
    assert codes_at(run) == expected and len(expected) == 50


def test_binary_file_named_py_is_hy001_and_others_are_checked(tmp_path):
    write(tmp_path, "blob.py", bytes(range(256)) * 20)
    write(tmp_path, "good.py", BLOCK)
    run = check(["."], cwd=tmp_path)
    assert run.code == 1
    assert codes_at(run) == [("blob.py", 1, "HY001"), ("good.py", 6, "HY301")]
    assert "blob.py:1:1: HY001 Cannot read the file: binary file (contains NUL bytes)" in run.out


def test_invalid_utf8_without_cookie_is_hy001(tmp_path):
    write(tmp_path, "latin.py", "s = 'caf\xe9'\n".encode("latin-1") + BLOCK.encode())
    run = check(["latin.py"], cwd=tmp_path)
    assert run.code == 1
    assert "latin.py:1:1: HY001 Cannot read the file: not valid UTF-8 and no coding cookie" in run.out


def test_bytes_invalid_for_the_declared_encoding_name_the_line(tmp_path):
    write(tmp_path, "bad.py", b"# -*- coding: utf-8 -*-\n\n\ns = '\xff'\n" + BLOCK.encode())
    run = check(["bad.py"], cwd=tmp_path)
    assert "bad.py:1:1: HY001 Cannot read the file: not valid utf-8 (line 4)" in run.out


def test_unknown_coding_cookie_is_hy001(tmp_path):
    write(tmp_path, "klingon.py", "# coding: klingon\n" + BLOCK)
    run = check(["klingon.py"], cwd=tmp_path)
    assert run.code == 1
    assert "unknown encoding: klingon" in run.out and codes_at(run) == [("klingon.py", 1, "HY001")]


def test_latin1_with_coding_cookie(tmp_path):
    source = "# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n" + BLOCK
    write(tmp_path, "latin.py", source.encode("latin-1"))
    run = check(["latin.py"], cwd=tmp_path)
    assert run.code == 1 and codes_at(run) == [("latin.py", 8, "HY301")]


def test_utf8_bom(tmp_path):
    write(tmp_path, "bom.py", b"\xef\xbb\xbf" + BLOCK.encode())
    run = check(["bom.py"], cwd=tmp_path)
    assert codes_at(run) == [("bom.py", 6, "HY301")]
    assert "bom.py:6:16: HY301" in run.out  # the BOM is not a column


def test_line_endings(tmp_path):
    lines = BLOCK.splitlines()
    write(tmp_path, "crlf.py", "".join(line + "\r\n" for line in lines))
    write(tmp_path, "cr.py", "".join(line + "\r" for line in lines))
    write(tmp_path, "mixed.py", "".join(line + ("\r\n", "\n", "\r")[i % 3] for i, line in enumerate(lines)))
    run = check(["crlf.py", "cr.py", "mixed.py"], cwd=tmp_path)
    assert codes_at(run) == [("cr.py", 6, "HY301"), ("crlf.py", 6, "HY301"), ("mixed.py", 6, "HY301")]
    assert all(f"{name}:6:16: HY301" in run.out for name in ("crlf.py", "cr.py", "mixed.py"))


def test_tab_indentation(tmp_path):
    write(tmp_path, "tabs.py", BLOCK.replace("        ", "\t\t").replace("    ", "\t"))
    run = check(["tabs.py"], cwd=tmp_path)
    assert run.out.splitlines()[0].startswith("tabs.py:6:10: HY301")


def test_form_feeds(tmp_path):
    write(tmp_path, "ff.py", "\x0c\nimport os\n\x0c\n" + BLOCK.replace("class Net", "\x0cclass Net"))
    run = check(["ff.py"], cwd=tmp_path)
    assert codes_at(run) == [("ff.py", 9, "HY301")]


def test_non_ascii_identifiers(tmp_path):
    # `[0, 0]`: a tuple index proves a tensor, so the fix is safe ([*])
    write(tmp_path, "uni.py", BLOCK.replace("x)", "données)").replace("x[0]", "données[0, 0]")
          .replace("class Net", "class Réseau"))
    run = check(["uni.py"], cwd=tmp_path)
    assert run.out.splitlines()[0].startswith("uni.py:6:16: HY301 [*] `données[0, 0]`")


def test_fifo_named_py_does_not_hang(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    os.mkfifo(tmp_path / "pipe.py")
    write(tmp_path, "good.py", BLOCK)
    run = check(["."], cwd=tmp_path, timeout=60)
    assert codes_at(run) == [("good.py", 6, "HY301"), ("pipe.py", 1, "HY001")]
    assert "pipe.py:1:1: HY001 Cannot read the file: not a regular file" in run.out


def test_too_deeply_nested_file_is_reported_and_the_others_are_checked(tmp_path):
    deep = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return " + "x + " * 1000 + "x\n"
    write(tmp_path, "a_deep.py", deep)
    write(tmp_path, "b_good.py", BLOCK)
    run = check(["a_deep.py", "b_good.py"], cwd=tmp_path)
    assert run.code == 2  # hylint could not check a file
    one_error_line(run, "a_deep.py", "internal error, file not checked", "too deeply nested")
    assert codes_at(run) == [("b_good.py", 6, "HY301")]


def test_hylint_debug_shows_the_traceback(tmp_path):
    deep = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return " + "x + " * 1000 + "x\n"
    write(tmp_path, "deep.py", deep)
    import subprocess
    from clirun import ROOT
    process = subprocess.run([sys.executable, "-m", "hylint", "check", "deep.py"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120,
                             env={**os.environ, "PYTHONPATH": str(ROOT), "HYLINT_DEBUG": "1"})
    assert process.returncode != 0 and "Traceback" in process.stderr and "RecursionError" in process.stderr


def test_stdin_binary_is_hy001():
    run = hylint("check", "--output-format", "concise", "-", stdin=b"\x00\x01\x02")
    assert run.code == 1 and "-:1:1: HY001 Cannot read the file: binary file" in run.out


def test_stdin_syntax_error():
    run = hylint("check", "--output-format", "concise", "--stdin-filename", "x.py", "-",
                 stdin=b"def hybrid_forward(self, F, x)\n")
    assert run.code == 1 and run.out.startswith("x.py:1:31: HY000 SyntaxError: expected ':'")


# -- paths -------------------------------------------------------------------------------------

def test_missing_path_is_exit_2(tmp_path):
    write(tmp_path, "good.py", BLOCK)
    run = check(["good.py", "nope.py"], cwd=tmp_path)
    assert run.code == 2 and run.out == ""
    one_error_line(run, "nope.py: no such file or directory")


# root reads a file whatever its mode bits; there the child process gets the same error the kernel
# gives other users (PermissionError from the read), injected before the CLI starts
_DENY_READ = """
import errno, pathlib, sys
_read = pathlib.Path.read_bytes
def read_bytes(self):
    if self.name == "secret.py":
        raise PermissionError(errno.EACCES, "Permission denied", str(self))
    return _read(self)
pathlib.Path.read_bytes = read_bytes
from hylint.cli import main
sys.argv[0] = "hylint"
main()
"""


def test_unreadable_file_is_hy001(tmp_path):
    write(tmp_path, "good.py", BLOCK)
    secret = write(tmp_path, "secret.py", BLOCK)
    secret.chmod(0)
    try:
        args = ["check", "--output-format", "concise", "good.py", "secret.py"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            import subprocess
            from clirun import ROOT
            process = subprocess.run([sys.executable, "-c", _DENY_READ, *args], cwd=tmp_path, capture_output=True,
                                     text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
            code, out, err = process.returncode, process.stdout, process.stderr
        else:
            run = hylint(*args, cwd=tmp_path)
            code, out, err = run.code, run.out, run.err
    finally:
        secret.chmod(0o644)
    assert "Traceback" not in err
    assert code == 1
    assert "good.py:6:16: HY301" in out
    assert "secret.py:1:1: HY001 Cannot read the file: Permission denied" in out


def test_directory_named_like_a_python_file_is_walked(tmp_path):
    write(tmp_path, "x.py/inner.py", BLOCK)
    assert check(["x.py"], cwd=tmp_path).out.splitlines()[0].startswith(f"x.py{os.sep}inner.py:6:16: HY301")
    run = check(["."], cwd=tmp_path)
    assert codes_at(run) == [(f"x.py{os.sep}inner.py", 6, "HY301")] and run.code == 1


def test_symlink_loop_is_hy001(tmp_path):
    os.symlink("loop_b.py", tmp_path / "loop_a.py")
    os.symlink("loop_a.py", tmp_path / "loop_b.py")
    write(tmp_path, "good.py", BLOCK)
    run = check(["."], cwd=tmp_path)
    assert run.code == 1
    assert codes_at(run) == [("good.py", 6, "HY301"), ("loop_a.py", 1, "HY001"), ("loop_b.py", 1, "HY001")]
    assert "Too many levels of symbolic links" in run.out
    assert check(["loop_a.py"], cwd=tmp_path).code == 1


def test_dangling_symlink_is_hy001(tmp_path):
    os.symlink("gone.py", tmp_path / "dangling.py")
    run = check(["."], cwd=tmp_path)
    assert codes_at(run) == [("dangling.py", 1, "HY001")]
    assert "No such file or directory" in run.out


def test_symlinked_folder_loop_is_not_followed(tmp_path):
    write(tmp_path, "pkg/good.py", BLOCK)
    os.symlink("..", tmp_path / "pkg" / "up")
    run = check(["."], cwd=tmp_path, timeout=60)
    assert codes_at(run) == [(f"pkg{os.sep}good.py", 6, "HY301")]


def test_symlink_out_of_the_tree(tmp_path):
    outside = write(tmp_path, "outside/model.py", BLOCK)
    write(tmp_path, "project/own.py", BLOCK)
    os.symlink(outside, tmp_path / "project" / "linked.py")
    # walking a folder: a link pointing out of it is not followed (like black)
    run = check(["project"], cwd=tmp_path)
    assert codes_at(run) == [(f"project{os.sep}own.py", 6, "HY301")]
    # named explicitly: checked like any file
    run = check([f"project{os.sep}linked.py"], cwd=tmp_path)
    assert codes_at(run) == [(f"project{os.sep}linked.py", 6, "HY301")]


def test_path_with_spaces_and_non_ascii(tmp_path):
    write(tmp_path, "my models/réseau neuronal.py", BLOCK)
    run = check(["my models"], cwd=tmp_path)
    assert codes_at(run) == [(f"my models{os.sep}réseau neuronal.py", 6, "HY301")]
    run = check([f"my models{os.sep}réseau neuronal.py"], cwd=tmp_path)
    assert run.code == 1 and len(codes_at(run)) == 1


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="file names must be arbitrary bytes")
def test_file_name_that_is_not_utf8(tmp_path):
    (tmp_path / os.fsdecode(b"caf\xe9.py")).write_text(BLOCK)
    run = check(["."], cwd=tmp_path)
    assert run.code == 1 and len(codes_at(run)) == 1


def test_duplicate_paths_are_checked_once(tmp_path):
    write(tmp_path, "good.py", BLOCK)
    os.symlink("good.py", tmp_path / "alias.py")
    run = check(["good.py", "good.py", f".{os.sep}good.py", ".", "alias.py"], cwd=tmp_path)
    assert run.code == 1 and codes_at(run) == [("good.py", 6, "HY301")]
    assert "Found 1 error." in run.out


# -- configuration -----------------------------------------------------------------------------

def config_run(tmp_path, toml, *options, subprocess=True):
    write(tmp_path, "pyproject.toml", toml)
    write(tmp_path, "good.py", BLOCK)
    if subprocess:
        return check(["good.py"], *options, cwd=tmp_path)
    return invoke("check", "--output-format", "concise", *options, "good.py", cwd=tmp_path)


def test_malformed_toml(tmp_path):
    run = config_run(tmp_path, "[tool.hylint\nselect = ['HY3']\n")
    assert run.code == 2 and run.out == ""
    one_error_line(run, "pyproject.toml: invalid TOML", "line 1")


def test_toml_that_is_not_utf8(tmp_path):
    run = config_run(tmp_path, b"[tool.hylint]\nselect = ['\xff']\n")
    assert run.code == 2
    one_error_line(run, "pyproject.toml: invalid TOML: not valid UTF-8")


def test_unknown_key(tmp_path):
    run = config_run(tmp_path, "[tool.hylint]\nslect = ['HY3']\n")
    assert run.code == 2
    one_error_line(run, "pyproject.toml: [tool.hylint]: unknown key `slect`")


@pytest.mark.parametrize("toml, key", [
    ("select = 'HY301'", "`select` must be a list of strings"),
    ("fix = 'yes'", "`fix` must be true or false"),
    ("output-format = 3", "`output-format` must be a string"),
    ("per-file-ignores = ['tests/*']", "`per-file-ignores` must map glob patterns to lists of codes"),
    ("ignore = [301]", "`ignore` must be a list of strings"),
])
def test_wrong_type(tmp_path, toml, key):
    run = config_run(tmp_path, f"[tool.hylint]\n{toml}\n", subprocess=toml.startswith("select"))
    assert run.code == 2
    one_error_line(run, "pyproject.toml: [tool.hylint]: " + key)


def test_tool_hylint_not_a_table(tmp_path):
    run = config_run(tmp_path, "[tool]\nhylint = 3\n")
    assert run.code == 2
    one_error_line(run, "pyproject.toml: [tool.hylint] must be a table")


@pytest.mark.parametrize("toml, key, code", [
    ("select = ['HY301', 'HY999']", "`select`", "HY999"),
    ("extend-select = ['HY98']", "`extend-select`", "HY98"),
    ("ignore = ['E501']", "`ignore`", "E501"),
    ("[tool.hylint.per-file-ignores]\n'tests/*' = ['HY301', 'HY777']", '`per-file-ignores."tests/*"`', "HY777"),
])
def test_unknown_rule_code_in_configuration(tmp_path, toml, key, code):
    run = config_run(tmp_path, f"[tool.hylint]\n{toml}\n", subprocess=key == "`select`")
    assert run.code == 2 and run.out == ""
    one_error_line(run, "pyproject.toml: [tool.hylint]: " + key, repr(code))


@pytest.mark.parametrize("option", ["--select", "--extend-select", "--ignore"])
def test_unknown_rule_code_on_the_command_line(tmp_path, option):
    write(tmp_path, "good.py", BLOCK)
    if option == "--select":
        run = check(["good.py"], option, "HY301,HY999", cwd=tmp_path)
    else:
        run = invoke("check", option, "HY301,HY999", "good.py", cwd=tmp_path)
    assert run.code == 2 and run.out == ""
    one_error_line(run, f"{option}: unknown rule selector: 'HY999'")


def test_unknown_output_format(tmp_path):
    write(tmp_path, "good.py", BLOCK)
    run = hylint("check", "--output-format", "xml", "good.py", cwd=tmp_path)
    assert run.code == 2
    one_error_line(run, "unknown output format 'xml'")


def test_missing_config_file(tmp_path):
    write(tmp_path, "good.py", BLOCK)
    run = check(["good.py"], "--config", "nowhere.toml", cwd=tmp_path)
    assert run.code == 2
    one_error_line(run, "nowhere.toml: configuration file not found")


def test_unknown_code_in_noqa_comment_does_not_crash(tmp_path):
    # an unknown code in `# noqa:` suppresses nothing (the unused-noqa rule of issue 7 reports it)
    write(tmp_path, "noqa.py", BLOCK.replace("return x[0]", "return x[0]  # noqa: HY999, XYZ12, E501"))
    run = check(["noqa.py"], cwd=tmp_path)
    assert codes_at(run) == [("noqa.py", 6, "HY301")]
    write(tmp_path, "noqa.py", BLOCK.replace("return x[0]", "return x[0]  # noqa: HY999,HY301"))
    assert check(["noqa.py"], cwd=tmp_path).code == 0


def test_clean_run_exits_0(tmp_path):
    write(tmp_path, "fine.py", BLOCK.replace("x[0]", "F.relu(x)"))
    run = check(["fine.py"], cwd=tmp_path)
    assert run.code == 0 and run.err_lines == []
