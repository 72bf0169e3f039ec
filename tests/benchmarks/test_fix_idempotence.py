"""benchmarks/fix_idempotence.py: hylint's fix loop on a folder leaves files that parse, keep their comments and
do not change on a second run; and the checks themselves see a dropped comment and a second change. Also the
fix oracle's `dir:` sources and its multi-line edits (no MXNet needed)."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import fix_idempotence  # noqa: E402
import fix_oracle  # noqa: E402


def test_a_dropped_comment_is_lost_an_added_or_moved_one_is_not():
    before = "x = a * b  # scale\n# keep\ny = x  # keep\n"
    assert fix_idempotence.lost_comments(before, "x = F.broadcast_mul(a, b)  # scale\n# keep\ny = x  # keep\n") == []
    assert fix_idempotence.lost_comments(before, "# keep\nx = F.broadcast_mul(a, b)  # scale\n# new\ny = x\n") == \
        ["# keep"]
    assert fix_idempotence.lost_comments(before, "x = F.broadcast_mul(a, b)\n") == ["# keep", "# keep", "# scale"]


def _folder(tmp_path: Path, *fixtures: str) -> Path:
    source = tmp_path / "src"
    for name in fixtures:
        (source / name).mkdir(parents=True)
        shutil.copyfile(ROOT / "fixtures" / name / "before.py", source / name / "before.py")
    return source


def test_the_checks_see_a_second_change_an_unparsable_file_and_a_lost_comment(tmp_path, monkeypatch):
    source = _folder(tmp_path, "HY101")
    calls = []

    def careless_fix(root, hylint_root, unsafe, python=sys.executable):  # a fixer that breaks every rule
        calls.append(unsafe)
        path = root / "HY101" / "before.py"
        text = path.read_text()
        if len(calls) == 1:  # drops a comment
            path.write_text(text.replace("  # expect: HY101", "", 1))
        elif len(calls) == 2:  # changes again
            path.write_text(text + "n = 0\n")
        elif len(calls) == 3:  # breaks the syntax
            path.write_text(text + "x = (\n")

    monkeypatch.setattr(fix_idempotence, "run_fix", careless_fix)
    result = fix_idempotence.check_folder(source, work=tmp_path / "work")
    assert calls == [False, False, True, True]
    assert result["safe"]["changed"] == ["HY101/before.py"]
    assert result["safe"]["lost_comments"] == {"HY101/before.py": ["# expect: HY101"]}
    assert result["safe"]["changed_again"] == ["HY101/before.py"]
    assert list(result["unsafe"]["unparsable"]) == ["HY101/before.py"] and result["unsafe"]["changed_again"] == []


@pytest.mark.slow
def test_hylint_fixes_on_fixtures_parse_keep_comments_and_are_idempotent(tmp_path):
    source = _folder(tmp_path, "HY101", "HY301", "HY501", "HY811")
    result = fix_idempotence.check_folder(source, ROOT, work=tmp_path / "work")
    assert result["files"] == 4
    assert "HY101/before.py" in result["safe"]["changed"]
    assert "HY501/before.py" in result["safe"]["changed"] + result["unsafe"]["changed"]
    for mode in ("safe", "unsafe"):
        assert result[mode]["changed_again"] == [] and result[mode]["unparsable"] == {}
        assert result[mode]["lost_comments"] == {}


# ------------------------------------------------------------------------------------ the oracle on any folder

def test_dir_sources_are_folders_named_by_their_name_or_parent_when_two_share_one(tmp_path):
    for path in ("a/d2l", "b/d2l", "b/cnstd"):
        (tmp_path / path).mkdir(parents=True)
    named = fix_oracle.sources([f"dir:{tmp_path}/a/*", f"dir:{tmp_path}/b/*"])
    assert [name for name, _ in named] == ["dir:a/d2l", "dir:cnstd", "dir:b/d2l"]
    assert named[1][1] == (tmp_path / "b" / "cnstd").resolve()
    with pytest.raises(SystemExit, match="not a folder"):
        fix_oracle.sources([f"dir:{tmp_path}/missing"])


def test_statements_cut_at_their_indentation_become_checkable():
    edit = {"original": "if not self.ready:\n            self.setup(F)\n            self.ready = True",
            "content": "self.setup(F)\n        self.ready = True", "row": 5, "column": 9}
    with pytest.raises(fix_oracle.NotCheckable, match="not an expression"):
        fix_oracle.prepare(edit["original"], edit["content"])
    check = fix_oracle.prepare(*fix_oracle.edit_texts(edit))
    assert check.mode == "stmt" and sorted(o.text for o in check.operands) == ["self.ready", "self.setup(F)"]


def test_several_edits_are_checked_on_the_sibling_statements_that_hold_them_all():
    text = ("class Head:\n"
            "    def hybrid_forward(self, F, x):\n"
            "        size = x.shape[2:]\n"
            "        y = self.conv(x)\n"
            "        return self.up(y, size)\n"
            "\n"
            "    def other(self, x):\n"
            "        return x\n")
    shape = {"row": 3, "column": 16, "end_row": 3, "end_column": 27, "content": "None"}
    up = {"row": 5, "column": 16, "end_row": 5, "end_column": 32,
          "content": "F.contrib.BilinearResize2D(y, like, mode='like')"}
    helper = {"row": 4, "column": 1, "end_row": 4, "end_column": 1, "content": "        like = x\n"}
    original, fixed = fix_oracle.statements_edited(text, [up, shape, helper])
    assert original == "        size = x.shape[2:]\n        y = self.conv(x)\n        return self.up(y, size)\n"
    assert fixed == ("        size = None\n        like = x\n        y = self.conv(x)\n"
                     "        return F.contrib.BilinearResize2D(y, like, mode='like')\n")
    elsewhere = {"row": 8, "column": 16, "end_row": 8, "end_column": 17, "content": "F.identity(x)"}
    whole, _ = fix_oracle.statements_edited(text, [shape, elsewhere])
    assert whole.startswith("    def hybrid_forward") and "def other" in whole  # the class body: not checkable


@pytest.mark.slow
@pytest.mark.mxnet
def test_a_helper_name_only_the_fix_binds_is_not_a_harm_a_binding_it_drops_is():
    pytest.importorskip("mxnet")
    worker = fix_oracle.Worker()
    try:
        helper = fix_oracle.check_pair("y = x * 2", "tmp = x\ny = tmp * 2", worker=worker)
        assert helper["status"] == "no harm", helper
        dropped = fix_oracle.check_pair("tmp = x\ny = tmp * 2", "y = x * 2", worker=worker)
        assert dropped["status"] == "harm" and "bound on one side only" in dropped["harms"][0]["what"]
    finally:
        worker.close()


@pytest.mark.slow
@pytest.mark.mxnet
def test_when_no_sampled_combination_runs_the_original_the_rest_are_tried():
    pytest.importorskip("mxnet")
    # only x = tensor(2,3,4) with y = int 2 runs `x.reshape(y, 12)`; a sample of one combination misses it
    result = fix_oracle.check_pair("x.reshape(y, 12)", "x.reshape((y, 12))", max_combos=1)
    kinds = len(fix_oracle.KINDS)
    assert result["tried"] == kinds * kinds and result["exhaustive"], result
    assert result["original_ran"] >= 1 and result["status"] == "no harm", result
