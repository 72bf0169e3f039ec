"""The HY6xx-HY9xx fixtures: markers match diagnostics, fixing before.py gives after.py, fixes are stable."""
import libcst as cst
import pytest

from trap_fixtures import code_of, expected, found, linter_for, strip_expect, trap_folders

FOLDERS = trap_folders()


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_markers_match_diagnostics(folder):
    code = code_of(folder)
    for name in ("before.py", "after.py"):
        source = (folder / name).read_text()
        assert found(source, code) == expected(source), name


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_fix_gives_after_and_is_idempotent(folder):
    code = code_of(folder)
    linter = linter_for(code)
    before = (folder / "before.py").read_text()
    after = (folder / "after.py").read_text()
    fixed = linter.fix_source(before, "before.py").source
    assert strip_expect(fixed) == strip_expect(after)
    assert linter.fix_source(fixed, "after.py").source == fixed
    for unsafe in (False, True):
        cst.parse_module(linter.fix_source(before, "before.py", unsafe=unsafe).source)


def test_every_new_rule_has_a_trap_fixture():
    from hylint.registry import all_rules
    codes = {code_of(f) for f in FOLDERS}
    new = {c for c in all_rules() if c.startswith(("HY6", "HY7", "HY8", "HY9"))}
    assert new and new <= codes
