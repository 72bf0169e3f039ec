"""benchmarks/snapshot.py: one digest per (source set, mode), paths neutral, and --compare on two snapshots."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import snapshot  # noqa: E402  (benchmarks/snapshot.py)


def test_the_folders_of_a_run_are_named_not_spelled():
    checkout, source = Path("/a/checkout"), Path("/a/checkout/fixtures")
    text = "file:///a/checkout/docs/rules.md#x /a/checkout/fixtures/HY101/before.py"
    assert snapshot.neutral(text, checkout, source) == "file://<checkout>/docs/rules.md#x <source>/HY101/before.py"


@pytest.mark.slow  # twelve runs of hylint
def test_one_source_set_in_two_folders_compares_equal_and_a_change_is_reported(tmp_path, capsys):
    """examples/ recorded where it is and from a copy elsewhere: every digest equal; then one example
    shifted a line down in the copy: every mode differs, and --compare says so and exits 1."""
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "examples", copy)
    first = snapshot.record(tmp_path / "a", ROOT, {"examples": ROOT / "examples"}, jobs=1)
    second = snapshot.record(tmp_path / "b", ROOT, {"examples": copy}, jobs=1)
    assert set(first) == {f"examples.{mode}" for mode in snapshot.MODES}
    assert first == second
    assert snapshot.compare(tmp_path / "a", tmp_path / "b") == 0
    for example in copy.glob("*.py"):
        example.write_text("\n" + example.read_text())
    third = snapshot.record(tmp_path / "c", ROOT, {"examples": copy}, jobs=1)
    assert all(third[key] != first[key] for key in first)
    capsys.readouterr()
    assert snapshot.compare(tmp_path / "a", tmp_path / "c") == 1
    assert "DIFFERENT" in capsys.readouterr().out
