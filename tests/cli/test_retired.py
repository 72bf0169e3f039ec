"""Retired rules (issue 23, item 7): not right on real code, so their codes are reserved and nothing runs
them. Naming one says so; ALL and prefixes skip them; a noqa naming one is not an unknown code."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hylint.selection import RETIRED, all_rules, expand, select_rules

# HY102 (unproven-broadcast) would flag `x * mask`; HY908 (returns-input-unchanged) the returned `mask`
SOURCE = ("from mxnet.gluon import HybridBlock\n\n\nclass N(HybridBlock):\n"
          "    def hybrid_forward(self, F, x, mask):\n        return x * mask, mask\n")


def hylint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hylint", *args], cwd=cwd, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120)


def test_the_retired_codes_are_rules_with_a_reason():
    rules = all_rules()
    for code, reason in RETIRED.items():
        assert code in rules and not rules[code].DEFAULT_ENABLED and reason


def test_no_selector_runs_a_retired_rule():
    assert not set(RETIRED) & expand("ALL")
    assert not set(RETIRED) & expand("HY1")
    assert expand("HY102") == {"HY102"}  # known, so a config naming it is no error
    codes = {rule.CODE for rule in select_rules(["ALL"], ["HY102", "HY908"])}
    assert not codes & set(RETIRED) and "HY101" in codes


@pytest.mark.parametrize("how", ["option", "config"])
def test_naming_a_retired_rule_says_so_and_checks_nothing(tmp_path, how):
    (tmp_path / "m.py").write_text(SOURCE)
    args = ["check", "m.py", "--no-cache", "--output-format", "concise"]
    if how == "option":
        args += ["--extend-select", "HY102,HY908"]
    else:
        (tmp_path / "pyproject.toml").write_text('[tool.hylint]\nextend-select = ["HY102", "HY908"]\n')
    run = hylint(*args, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout == "All checks passed!\n"
    warnings = [line for line in run.stderr.splitlines() if "retired" in line]
    assert [line.split()[2] for line in warnings] == ["HY102", "HY908"]
    assert warnings[0].startswith("hylint: warning: HY102 is retired and checks nothing: on real code")


def test_select_all_is_silent_about_retired_rules(tmp_path):
    (tmp_path / "m.py").write_text(SOURCE)
    run = hylint("check", "m.py", "--no-cache", "--select", "ALL", "--output-format", "concise", cwd=tmp_path)
    assert "retired" not in run.stderr
    assert not any(code in run.stdout for code in RETIRED), run.stdout


def test_rule_command_and_noqa(tmp_path):
    run = hylint("rule", "HY908", cwd=tmp_path)
    assert run.returncode == 0 and "Retired: on real code the blocks it flagged were children" in run.stdout
    listing = hylint("rule", "--all", cwd=tmp_path).stdout
    assert [line.split()[2] for line in listing.splitlines() if line.startswith(tuple(RETIRED))] == ["retired"] * 4
    # a noqa naming a retired code is a known code (unused-noqa, HY090, does not call it unknown)
    (tmp_path / "m.py").write_text(SOURCE.replace("mask, mask\n", "mask, mask  # noqa: HY908\n"))
    run = hylint("check", "m.py", "--no-cache", "--select", "HY090", "--output-format", "concise", cwd=tmp_path)
    assert "unknown" not in run.stdout, run.stdout
