"""Every fixture folder ``fixtures/<CODE>[_N]/`` checked four ways, and numerically where MXNet imports.

Conventions (docs/architecture.md): ``before.py`` carries ``# expect: CODE[, CODE]`` on each line where
a diagnostic starts; ``after.py`` is exactly what ``hylint check --fix`` makes of ``before.py``, with
``# expect:`` only on the diagnostics that remain; an optional ``after_unsafe.py`` is the same with
``--unsafe-fixes``. The rules are the default set plus the folder's code (so opt-in rules are exercised).

Regenerate the after files of a folder (then read them critically before committing)::

    python tests/test_fixtures.py fixtures/HY301 [...]
"""
from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hylint.context import analyze_module  # noqa: E402
from hylint.diagnostic import Applicability  # noqa: E402
from hylint.engine import Linter  # noqa: E402
from hylint.registry import all_rules, select_rules  # noqa: E402

FIXTURES = ROOT / "fixtures"
EXPECT = re.compile(r"[ \t]*# expect: *([A-Z0-9, ]+?)[ \t]*$")
FOLDERS = sorted(p.parent for p in FIXTURES.glob("*/before.py"))
IDS = [p.name for p in FOLDERS]


def folder_code(folder: Path) -> str:
    match = re.match(r"(HY\d{3})(_\d+)?$", folder.name)
    assert match, f"fixture folder {folder.name!r} is not named <CODE>[_N]"
    return match.group(1)


def linter_for(folder: Path) -> Linter:
    return Linter(select_rules(extend_select=[folder_code(folder)]))


def expectations(text: str) -> Counter:
    """(line, code) for every ``# expect:`` marker."""
    found: Counter = Counter()
    for number, line in enumerate(text.splitlines(), 1):
        match = EXPECT.search(line)
        if match:
            for code in match.group(1).split(","):
                if code.strip():
                    found[(number, code.strip())] += 1
    return found


def strip_markers(text: str) -> str:
    return "".join(EXPECT.sub("", line[:-1] if line.endswith("\n") else line) + ("\n" if line.endswith("\n") else "")
                   for line in text.splitlines(keepends=True))


def with_markers(text: str, linter: Linter, filename: str) -> str:
    """``text`` without markers, then one marker per line holding the start of a diagnostic."""
    text = strip_markers(text)
    per_line: Dict[int, List[str]] = {}
    for diagnostic in linter.lint_source(text, filename).diagnostics:
        per_line.setdefault(diagnostic.start[0], []).append(diagnostic.code)
    lines = text.splitlines(keepends=True)
    for number, codes in per_line.items():
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        lines[number - 1] = f"{body}  # expect: {', '.join(sorted(codes))}" + line[len(body):]
    return "".join(lines)


def fixed(folder: Path, unsafe: bool = False) -> str:
    before = (folder / "before.py").read_text()
    linter = linter_for(folder)
    result = linter.fix_source(before, str(folder / "before.py"), unsafe=unsafe)
    assert not result.messages, result.messages
    return with_markers(result.source, linter, str(folder / "after.py"))


def diagnosed(folder: Path, name: str) -> Counter:
    text = (folder / name).read_text()
    return Counter((d.start[0], d.code) for d in linter_for(folder).lint_source(text, name).diagnostics)


# ---------------------------------------------------------------------------------------------
# the four-way check


def test_there_are_fixtures():
    assert FOLDERS, "no fixtures/*/before.py found"


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_diagnostics_land_on_expect_lines(folder):
    for name in ("before.py", "after.py", "after_unsafe.py"):
        if (folder / name).is_file():
            text = (folder / name).read_text()
            assert diagnosed(folder, name) == expectations(text), f"{folder.name}/{name}"
    assert folder_code(folder) in {code for _, code in expectations((folder / "before.py").read_text())}


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_fixing_before_gives_after(folder):
    assert (folder / "after.py").is_file(), f"{folder.name}/after.py is missing"
    assert fixed(folder) == (folder / "after.py").read_text()
    if (folder / "after_unsafe.py").is_file():
        assert fixed(folder, unsafe=True) == (folder / "after_unsafe.py").read_text()


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_fixing_after_changes_nothing(folder):
    linter = linter_for(folder)
    for name, unsafe in (("after.py", False), ("after_unsafe.py", True)):
        if not (folder / name).is_file():
            continue
        text = (folder / name).read_text()
        result = linter.fix_source(text, name, unsafe=unsafe)
        assert result.source == text and result.fixed == 0
        allowed = {Applicability.SAFE, Applicability.UNSAFE} if unsafe else {Applicability.SAFE}
        assert [d for d in result.diagnostics if d.fix is not None and d.fix.applicability in allowed] == []


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_fixtures_are_runnable_modules(folder):
    for name in ("before.py", "after.py", "after_unsafe.py"):
        if not (folder / name).is_file():
            continue
        module = cst.parse_module((folder / name).read_text())
        info = analyze_module(module)
        examples = _examples(module)
        assert examples, f"{folder.name}/{name} has no EXAMPLES"
        for block in examples:
            assert block in info.classes, f"EXAMPLES names {block}, not defined in {name}"


def test_check_fix_on_a_copy_leaves_only_diagnostics_without_fix(tmp_path):
    """`hylint check --fix` (default rules) over a copy of fixtures/: what remains has no safe fix;
    with --unsafe-fixes, nothing that remains has a fix at all."""
    import json
    import shutil

    from click.testing import CliRunner

    from hylint.cli import main

    for unsafe in (False, True):
        copy = tmp_path / f"fixtures-{unsafe}"
        shutil.copytree(FIXTURES, copy)
        args = ["check", str(copy), "--fix", "--output-format", "json"] + (["--unsafe-fixes"] if unsafe else [])
        result = CliRunner().invoke(main, args)  # stdout: the JSON report
        assert result.exit_code in (0, 1), result.output
        remaining = json.loads(result.stdout)
        allowed = {"safe", "unsafe"} if unsafe else {"safe"}
        assert [d for d in remaining if d["fix"] and d["fix"]["applicability"] in allowed] == []
        assert remaining, "some fixture diagnostics have no fix and must remain"


# ---------------------------------------------------------------------------------------------
# numerics


def _examples(module: cst.Module) -> Dict[str, object]:
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Assign):
            target = stmt.body[0].targets[0].target
            if isinstance(target, cst.Name) and target.value == "EXAMPLES":
                value = stmt.body[0].value
                if isinstance(value, cst.Dict):
                    return {e.key.evaluated_value: e.value for e in value.elements if isinstance(e, cst.DictElement)}
    return {}


def flagged_blocks(path: Path, default_only: bool) -> Set[str]:
    """Blocks holding an `# expect:` (for a default-on rule, or any), directly or through a child block."""
    text = path.read_text()
    rules = all_rules()
    lines = {line for (line, code) in expectations(text) if rules[code].DEFAULT_ENABLED or not default_only}
    module = cst.parse_module(text)
    wrapper = cst.metadata.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(cst.metadata.PositionProvider)
    info = analyze_module(module)
    flagged = set()
    for name, cls in info.classes.items():
        span = positions[cls.node]
        if any(span.start.line <= line <= span.end.line for line in lines):
            flagged.add(name)
    changed = True
    while changed:  # a block whose child is flagged fails with it
        changed = False
        for name, cls in info.classes.items():
            if name not in flagged and any(c.rsplit(".", 1)[-1] in flagged for c in cls.children.values()):
                flagged.add(name)
                changed = True
    return flagged


def _check_numerics(folder: Path, backend_name: str) -> None:
    from hylint.verify import DIFFERENT, ERROR, OK, compare_files

    failures = []
    for after_name in ("after.py", "after_unsafe.py"):
        after = folder / after_name
        if not after.is_file():
            continue
        original, rewritten = compare_files(folder / "before.py", after, backend_name)
        # must fail: an expect for a default-on rule; must pass: no expect at all (opt-in rules
        # flag what *may* fail, so a block flagged only by them is held to neither)
        must_fail_before = flagged_blocks(folder / "before.py", default_only=True)
        may_fail_before = flagged_blocks(folder / "before.py", default_only=False)
        must_fail_after = flagged_blocks(after, default_only=True)
        may_fail_after = flagged_blocks(after, default_only=False)
        for name, result in original.items():
            if result.eager.status != OK:
                failures.append(f"before.py:{name}: eager run failed: {result.eager.describe()}")
                continue
            if name in must_fail_before and result.hybrid_status not in (ERROR, DIFFERENT):
                failures.append(f"before.py:{name}: flagged, but hybridizes with equal output")
            if name not in may_fail_before and result.hybrid_status != OK:
                failures.append(f"before.py:{name}: not flagged, but hybridized: {result.hybrid[-1].describe()}")
        for name, result in rewritten.items():
            if result.eager.status != OK:
                failures.append(f"{after_name}:{name}: eager output differs from before.py's: {result.eager.describe()}")
                continue
            status = result.hybrid_status
            if name in must_fail_after and status == OK:
                failures.append(f"{after_name}:{name}: still flagged, but hybridizes with before.py's output")
            if name not in may_fail_after and status != OK:
                failures.append(f"{after_name}:{name}: hybridized: "
                                f"{next(o for o in result.hybrid if o.status != OK).describe()}")
    assert not failures, "\n".join(failures)


@pytest.mark.mxnet
@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_numerics_on_mxnet(folder):
    pytest.importorskip("mxnet")
    _check_numerics(folder, "mxnet")


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_numerics_on_reference_runtime(folder):
    runtime = pytest.importorskip("hylint.runtime")
    if not hasattr(runtime, "activate"):
        pytest.skip("hylint.runtime.activate() is not available yet")
    _check_numerics(folder, "numpy")


# ---------------------------------------------------------------------------------------------
# regeneration


def regenerate(folder: Path) -> List[str]:
    written = []
    linter = linter_for(folder)
    before = folder / "before.py"
    unsafe_fixable = [d for d in linter.lint_source(before.read_text(), "before.py").diagnostics
                      if d.fix is not None and d.fix.applicability is Applicability.UNSAFE]
    outputs = [("after.py", False)] + ([("after_unsafe.py", True)] if unsafe_fixable else [])
    for name, unsafe in outputs:
        text = fixed(folder, unsafe)
        if unsafe and text == (folder / "after.py").read_text():
            continue
        (folder / name).write_text(text)
        written.append(str(folder / name))
    return written


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        for path in regenerate(Path(argument)):
            print("wrote", path)
