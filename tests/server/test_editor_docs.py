"""Every editor snippet of docs/editors.md parses in its own language, and starts `hylint server`."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DOC = Path(__file__).resolve().parents[2] / "docs" / "editors.md"
BLOCKS = re.findall(r"^```(\w+)\n(.*?)^```$", DOC.read_text(), re.S | re.M)


def blocks(language: str):
    found = [code for lang, code in BLOCKS if lang == language]
    assert found, f"no {language} snippet in {DOC}"
    return found


def test_the_snippets_cover_the_four_editors():
    assert {lang for lang, _ in BLOCKS} == {"sh", "json", "lua", "toml", "elisp"}
    for lang in ("json", "lua", "toml", "elisp"):
        assert any("hylint" in code and "server" in code for code in blocks(lang)), lang


def test_json_snippets():
    settings = [json.loads(code) for code in blocks("json")]
    assert settings[0]["glspc.server.command"] == "hylint"
    assert settings[0]["glspc.server.commandArguments"] == ["server"]
    assert "source.fixAll.hylint" in settings[1]["[python]"]["editor.codeActionsOnSave"]


def test_toml_snippet():
    (code,) = blocks("toml")
    config = tomllib.loads(code)
    assert config["language-server"]["hylint"] == {"command": "hylint", "args": ["server"]}
    assert "hylint" in config["language"][0]["language-servers"]


def test_lua_snippets_compile():
    lupa = pytest.importorskip("lupa")
    lua = lupa.LuaRuntime()
    compile_error = lua.eval("function(source) local chunk, error = load(source); return error end")
    for code in blocks("lua"):
        assert compile_error(code) is None, code
        assert '{ "hylint", "server" }' in code


def test_elisp_snippet_reads():
    sexpdata = pytest.importorskip("sexpdata")
    (code,) = blocks("elisp")
    forms = sexpdata.loads(f"({code})")  # all forms; unbalanced brackets or strings raise
    assert len(forms) == 3
    assert '("hylint" "server")' in code
