"""Every fixture folder ``fixtures/<CODE>[_N]/`` checked four ways, and numerically where MXNet imports.

Conventions (docs/architecture.md): ``before.py`` carries ``# expect: CODE[, CODE]`` on each line where
a diagnostic starts; ``after.py`` is exactly what ``hylint check --fix`` makes of ``before.py``, with
``# expect:`` only on the diagnostics that remain; an optional ``after_unsafe.py`` is the same with
``--unsafe-fixes`` (present exactly when that makes more of ``before.py``). The rules are the default set
plus the folder's code (so opt-in rules are exercised). Numerics (``hylint.verify``, on MXNet and on the
reference runtime) and the per-block declarations RANDOM, BETWEEN, FAILS and SHOWS_IN: docs/architecture.md.

Regenerate the after files of a folder (then read them critically before committing)::

    python tests/rules/test_fixtures.py fixtures/HY301 [...]
"""
from __future__ import annotations

import ast
import contextlib
import io
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple

import libcst as cst
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hylint.analysis import analyze_module  # noqa: E402
from hylint.diagnostic import Applicability  # noqa: E402
from hylint.lint.engine import Linter  # noqa: E402
from hylint.selection import all_rules, select_rules  # noqa: E402
from hylint.verify import DIFFERENT, ERROR, OK, Outcome, difference, first_line, set_parameters  # noqa: E402
from hylint.verify.harness import build_block, call  # noqa: E402

FIXTURES = ROOT / "fixtures"
EXPECT = re.compile(r"[ \t]*# expect: *([A-Z0-9, ]+?)[ \t]*$")
FOLDERS = sorted(p.parent for p in FIXTURES.glob("*/before.py"))
IDS = [p.name for p in FOLDERS]


def folder_code(folder: Path) -> str:
    match = re.match(r"(HY\d{3})(_\d+)?$", folder.name)
    assert match, f"fixture folder {folder.name!r} is not named <CODE>[_N]"
    return match.group(1)


def linter_for(folder: Path) -> Linter:
    # a retired rule is never selected by users; its fixtures still prove its logic (HY102's fix is verify's)
    return Linter(select_rules(extend_select=[folder_code(folder)], named_retired=True))


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
    unsafe = fixed(folder, unsafe=True)
    if (folder / "after_unsafe.py").is_file():
        assert unsafe == (folder / "after_unsafe.py").read_text()
        assert unsafe != (folder / "after.py").read_text(), "after_unsafe.py is after.py: delete it"
    else:
        assert unsafe == (folder / "after.py").read_text(), "unsafe fixes change more: regenerate after_unsafe.py"


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
        for block in examples:  # a block class, or a factory function returning a block
            assert block in info.classes or block in info.functions, f"EXAMPLES names {block}, not defined in {name}"


@pytest.mark.slow
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
# blocks: EXAMPLES and the blocks an `# expect:` flags


def _examples(module: cst.Module) -> Dict[str, object]:
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Assign):
            target = stmt.body[0].targets[0].target
            if isinstance(target, cst.Name) and target.value == "EXAMPLES":
                value = stmt.body[0].value
                if isinstance(value, cst.Dict):
                    return {e.key.evaluated_value: e.value for e in value.elements if isinstance(e, cst.DictElement)}
    return {}


def _calling_classes(context, depth: int = 0) -> Set[str]:
    """The classes whose hybrid_forward reaches the helper ``context`` through calls."""
    names = {context.cls.name} if context.cls is not None and not context.is_helper else set()
    if depth < 5:
        for caller, _ in context.callers:
            names |= _calling_classes(caller, depth + 1)
    return names


def flagged_blocks(path: Path, codes: Callable[[str], bool]) -> Set[str]:
    """Blocks holding an `# expect:` for a code that ``codes`` accepts, directly or through a child block."""
    text = path.read_text()
    lines = {line for (line, code) in expectations(text) if codes(code)}
    module = cst.parse_module(text)
    wrapper = cst.metadata.MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(cst.metadata.PositionProvider)
    info = analyze_module(module)
    flagged = set()
    # a block class, or a factory function defining one (its span holds the class)
    blocks = {**{name: fn for name, fn in info.functions.items()}, **{name: c.node for name, c in info.classes.items()}}
    for name, node in blocks.items():
        span = positions[node]
        if any(span.start.line <= line <= span.end.line for line in lines):
            flagged.add(name)
    for fn, context in info.contexts.items():  # a helper (with or without F) fails the blocks calling it
        span = positions[fn]
        if any(span.start.line <= line <= span.end.line for line in lines):
            flagged.update(_calling_classes(context))
    changed = True
    while changed:  # a block whose child is flagged fails with it
        changed = False
        for name, cls in info.classes.items():
            if name not in flagged and any(c.rsplit(".", 1)[-1] in flagged for c in cls.children.values()):
                flagged.add(name)
                changed = True
    return flagged


# ---------------------------------------------------------------------------------------------
# per-block declarations (module-level in before.py; docs/architecture.md, "Fixture declarations")

SHOWS = ("training", "backward", "print", "attributes", "graph")
FAILS_FORMAT = re.compile(r"(eager|construct) ([A-Za-z_]\w*)$")


@dataclass(frozen=True)
class BlockOptions:
    random: bool = False                    # RANDOM: outputs (and gradients) compared by count and shape
    between: Optional[Callable] = None      # BETWEEN: called on the block between its two calls
    fails: Optional[Tuple[str, str]] = None  # FAILS: ("eager" | "construct", exception type), on purpose
    shows_in: FrozenSet[str] = frozenset()   # SHOWS_IN: where else the hazard shows (SHOWS)

    @property
    def observed(self) -> bool:
        """Whether the block needs the observed scenario rather than verify's plain eager/hybridized run."""
        return self.between is not None or self.fails is not None or bool(self.shows_in)


def _names(value: object) -> FrozenSet[str]:
    return frozenset([value] if isinstance(value, str) else value or ())


def block_options(namespace: Dict[str, object], name: str) -> BlockOptions:
    """The declarations of block ``name`` in a module's namespace (literals, and BETWEEN's callables)."""
    fails = namespace.get("FAILS", {}).get(name)
    match = FAILS_FORMAT.match(fails) if isinstance(fails, str) else None
    return BlockOptions(random=name in namespace.get("RANDOM", ()),
                        between=namespace.get("BETWEEN", {}).get(name),
                        fails=match.groups() if match else None,
                        shows_in=_names(namespace.get("SHOWS_IN", {}).get(name)))


def declarations(path: Path) -> Dict[str, Dict[str, object]]:
    """The module-level RANDOM, BETWEEN, FAILS and SHOWS_IN of a fixture file, read without running it
    (BETWEEN's values are callables: only its keys are read)."""
    found: Dict[str, Dict[str, object]] = {}
    for stmt in ast.parse(path.read_text()).body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            if target == "BETWEEN" and isinstance(stmt.value, ast.Dict):
                found[target] = {ast.literal_eval(key): None for key in stmt.value.keys}
            elif target in ("RANDOM", "FAILS", "SHOWS_IN"):
                value = ast.literal_eval(stmt.value)
                found[target] = dict.fromkeys(value) if target == "RANDOM" else dict(value)
    return found


@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_block_declarations_are_valid(folder):
    before = folder / "before.py"
    declared = declarations(before)
    blocks = set(_examples(cst.parse_module(before.read_text())))
    flagged = must_fail_blocks(folder, before)
    for kind, entries in declared.items():
        assert set(entries) <= blocks, f"{kind} names blocks that EXAMPLES does not: {set(entries) - blocks}"
    for name, value in declared.get("FAILS", {}).items():
        assert isinstance(value, str) and FAILS_FORMAT.match(value), \
            f"FAILS[{name!r}] = {value!r} is not 'eager ExceptionType' or 'construct ExceptionType'"
    for name, value in declared.get("SHOWS_IN", {}).items():
        assert _names(value) and _names(value) <= set(SHOWS), f"SHOWS_IN[{name!r}] = {value!r} (known: {SHOWS})"
    for kind in ("FAILS", "SHOWS_IN"):  # they describe a hazard: only a block that must break has one
        assert set(declared.get(kind, {})) <= flagged, f"{kind} names blocks without a hazard: " \
                                                        f"{set(declared[kind]) - flagged}"
    for name in ("after.py", "after_unsafe.py"):  # the fixes carry the declarations over unchanged
        if (folder / name).is_file():
            assert declarations(folder / name) == declared, name


# ---------------------------------------------------------------------------------------------
# the observed scenario: one fresh block in one mode, built by verify, then
#   call 1, BETWEEN, call 2 (predict mode) [, call 3 under autograd.record() with backward]
# with the printed text, public scalar attributes and (hybridized) whether a graph was built


@dataclass
class Observation:
    calls: List[Outcome]                 # [construction or first-call failure] or the scenario's calls
    gradients: Optional[Outcome] = None  # input gradients of the recorded call (as outputs)
    printed: str = ""
    attributes: Dict[str, object] = field(default_factory=dict)
    graph: Optional[bool] = None

    @property
    def failure(self) -> Optional[Outcome]:
        return next((o for o in self.calls if o.status != OK), None)


def _salvage(value: object) -> List[np.ndarray]:
    """Values of a numpy object array of NDArrays (numpy applied to an NDArray eagerly: HY804), with the
    size-1 axes numpy added at the end dropped; [] for anything else."""
    if not (isinstance(value, np.ndarray) and value.dtype == object):
        return []
    try:
        values = np.array([float(np.asarray(e.asnumpy()).reshape(-1)[0]) for e in value.flat], dtype="float32")
    except (AttributeError, IndexError, TypeError, ValueError):
        return []
    shape = list(value.shape)
    while len(shape) > 1 and shape[-1] == 1:
        shape.pop()
    return [values.reshape(shape)]


def _observed_call(mx, block, specs, seed: int, record: bool) -> Tuple[Outcome, Optional[Outcome]]:
    """One call by verify's harness, its random operators unseeded as in the user's program (recorded: under
    autograd.record(), then backward): its outcome and, recorded, the gradients of its inputs. An output that
    is not an NDArray is an ERROR (verify's rule) keeping salvaged values."""
    made = call(mx, block, specs, seed, seed_random=False, record=record)
    if isinstance(made.error, TypeError):  # verify's "not an NDArray", or the block's own TypeError
        return Outcome(ERROR, "TypeError", first_line(made.error), outputs=_salvage(made.value)), None
    return made.outcome, made.gradients


def observe(mx, module, name: str, specs, options: BlockOptions, hybrid: bool, seed: int = 0) -> Observation:
    cls = getattr(module, name)

    def make():  # hybridized before its first call, so a block that fails eagerly can still be traced
        block = cls()
        if hybrid:
            block.hybridize()
        return block

    printed = io.StringIO()
    # Python-side random numbers (numpy's, the standard library's) drawn in the same order in both modes,
    # so a number frozen at trace time shows as a difference, not as noise (HY808)
    np.random.seed(seed)
    random.seed(seed)
    with contextlib.redirect_stdout(io.StringIO()):
        block, built = build_block(mx, make, specs, seed)
    if block is None:
        return Observation([built])
    if built.status != OK:  # the first call failed: the scenario shows how (parameters as far as known)
        with contextlib.suppress(Exception):
            set_parameters(mx, block, seed)
    observation = Observation([])
    with contextlib.redirect_stdout(printed):
        observation.calls.append(_observed_call(mx, block, specs, seed, False)[0])
        if options.between is not None:
            options.between(block)
        observation.calls.append(_observed_call(mx, block, specs, seed, False)[0])
        if options.shows_in & {"training", "backward"}:
            recorded, observation.gradients = _observed_call(mx, block, specs, seed, True)
            observation.calls.append(recorded)
    observation.printed = printed.getvalue()
    observation.attributes = {key: value for key, value in vars(block).items()
                              if not key.startswith("_") and isinstance(value, (bool, int, float, str))}
    if hybrid and isinstance(block, mx.gluon.HybridBlock):
        observation.graph = bool(getattr(block, "_cached_graph", None))
    return observation


def _outcomes_differ(expected: Outcome, got: Outcome, random: bool) -> Optional[str]:
    if expected.status == ERROR or got.status == ERROR:
        same = expected.status == got.status and expected.error_type == got.error_type
        return None if same else f"{got.describe()} where expected {expected.describe()}"
    if random:  # random ops: only the count and shapes of the outputs are reproducible
        shapes = [a.shape for a in expected.outputs], [b.shape for b in got.outputs]
        return None if shapes[0] == shapes[1] else f"output shapes {shapes[1]} instead of {shapes[0]}"
    return difference(expected.outputs, got.outputs)


def observed_difference(expected: Observation, got: Observation, options: BlockOptions) -> Optional[str]:
    """Why ``got`` differs from ``expected`` in the calls' outcomes and in what SHOWS_IN declares; None if not."""
    if len(expected.calls) != len(got.calls):
        return f"{got.failure.describe() if got.failure else 'ran'} where expected " \
               f"{expected.failure.describe() if expected.failure else 'ran'}"
    for number, (a, b) in enumerate(zip(expected.calls, got.calls), 1):
        why = _outcomes_differ(a, b, options.random)
        if why:
            return f"call {number}: {why}"
    if "backward" in options.shows_in and expected.gradients is not None and got.gradients is not None:
        why = _outcomes_differ(expected.gradients, got.gradients, options.random)
        if why:
            return f"input gradients: {why}"
    if "print" in options.shows_in and expected.printed != got.printed:
        return f"printed {got.printed!r} instead of {expected.printed!r}"
    if "attributes" in options.shows_in and expected.attributes != got.attributes:
        return f"attributes {got.attributes} instead of {expected.attributes}"
    if "graph" in options.shows_in and got.graph is False:
        return "hybridize() built no graph"
    return None


# numpy >= 1.24 refuses to build an object array from an NDArray (a sequence nested deeper than numpy's
# maximum of dimensions): where MXNet 1.9.1's numpy 1.23 built one and the block then failed with a
# TypeError, the same line fails there with this ValueError (MXNet 1.9.1 itself needs numpy < 1.24; the
# reference runtime runs on the numpy installed)
_NUMPY_REFUSES_OBJECT_ARRAYS = tuple(int(v) for v in np.__version__.split(".")[:2]) >= (1, 24)
_OBJECT_ARRAY_REFUSED = "setting an array element with a sequence. The requested array would exceed the maximum"


def _fails_as_declared(observation: Observation, options: BlockOptions) -> Optional[str]:
    stage, error_type = options.fails
    failure = observation.failure
    if failure is None:
        return f"runs, but FAILS declares it fails ({stage} {error_type})"
    got = "construct" if failure.message.startswith("constructing: ") else "eager"
    if _NUMPY_REFUSES_OBJECT_ARRAYS and error_type == "TypeError" and failure.error_type == "ValueError" and \
            _OBJECT_ARRAY_REFUSED in failure.message:
        return None if got == stage else f"fails {got}: {failure.describe()}; FAILS declares {stage} {error_type}"
    if (got, failure.error_type) != (stage, error_type):
        return f"fails {got}: {failure.describe()}; FAILS declares {stage} {error_type}"
    return None


def _unobservable(mx, observation: Observation, options: BlockOptions) -> bool:
    """The backend cannot show the declared hazard: the reference runtime has no autograd (backward)."""
    gradients = observation.gradients
    return ("backward" in options.shows_in and gradients is not None and gradients.status == ERROR
            and gradients.error_type == "NotImplementedError" and getattr(mx, "__hylint_runtime__", False))


def _check_observed(mx, before, after, after_name: str, name: str, specs, options: BlockOptions,
                    must: Tuple[bool, bool], may: Tuple[bool, bool]) -> List[str]:
    """Hazard and fix checks of one declared block: ``must``/``may`` = (before, after) flags."""
    failures = []
    eager = observe(mx, before, name, specs, options, hybrid=False)
    hybrid = observe(mx, before, name, specs, options, hybrid=True)
    reference: Optional[Observation] = eager
    if options.fails:
        why = _fails_as_declared(eager, options)
        if why:
            failures.append(f"before.py:{name}: {why}")
        # what the fix must compute: the traced graph if it works, else numpy's values, else its own eager
        salvaged = eager.failure is not None and eager.failure.outputs
        reference = hybrid if hybrid.failure is None else eager if salvaged else None
        if reference is eager:
            reference = Observation([replace(o, status=OK) for o in eager.calls], eager.gradients)
    elif eager.failure is not None:
        failures.append(f"before.py:{name}: eager run failed: {eager.failure.describe()}")
        return failures
    elif not _unobservable(mx, eager, options):
        why = observed_difference(eager, hybrid, options)
        if must[0] and why is None:
            failures.append(f"before.py:{name}: flagged, but hybridizes with equal results")
        if not may[0] and why is not None:
            failures.append(f"before.py:{name}: not flagged, but hybridized: {why}")

    fixed_eager = observe(mx, after, name, specs, options, hybrid=False)
    fixed = observe(mx, after, name, specs, options, hybrid=True)
    if options.fails and may[1]:  # unfixed: still broken the declared way
        why = _fails_as_declared(fixed_eager, options)
        if why:
            failures.append(f"{after_name}:{name}: {why}")
        return failures
    if options.fails:  # fixed: the block works now
        if fixed_eager.failure is not None:
            return failures + [f"{after_name}:{name}: the fix still fails eagerly: {fixed_eager.failure.describe()}"]
        reference = reference or fixed_eager
        why = observed_difference(reference, fixed_eager, options)
        if why:
            failures.append(f"{after_name}:{name}: the fixed block computes eagerly what the original did not: {why}")
    else:
        why = observed_difference(eager, fixed_eager, options)
        if why:
            failures.append(f"{after_name}:{name}: eager results differ from before.py's: {why}")
    if _unobservable(mx, fixed_eager, options):
        return failures
    why = observed_difference(reference, fixed, options)
    if must[1] and why is None:
        failures.append(f"{after_name}:{name}: still flagged, but hybridizes with before.py's results")
    if not may[1] and why is not None:
        failures.append(f"{after_name}:{name}: hybridized: {why}")
    return failures


# ---------------------------------------------------------------------------------------------
# numerics: every block of before.py against its eager self, every block of the after files against
# before.py's eager results


def must_fail_blocks(folder: Path, path: Path) -> Set[str]:
    """Blocks that must break when hybridized: an `# expect:` for a default-on rule or the folder's own rule
    (a fixture demonstrates its rule's hazard even when the rule is opt-in)."""
    return flagged_blocks(path, codes=lambda code: all_rules()[code].DEFAULT_ENABLED or code == folder_code(folder))


def _check_numerics(folder: Path, backend_name: str) -> None:
    from hylint.verify import backend, compare_files, load_module

    failures = []
    before_path = folder / "before.py"
    for after_name in ("after.py", "after_unsafe.py"):
        after_path = folder / after_name
        if not after_path.is_file():
            continue
        original, rewritten = compare_files(before_path, after_path, backend_name)
        # must fail: see must_fail_blocks; must pass: no expect at all (opt-in rules flag what *may* fail,
        # so a block flagged only by them in another rule's folder is held to neither)
        must_before, must_after = must_fail_blocks(folder, before_path), must_fail_blocks(folder, after_path)
        may_before = flagged_blocks(before_path, codes=lambda code: True)
        may_after = flagged_blocks(after_path, codes=lambda code: True)
        with backend(backend_name) as mx:
            before, after = load_module(before_path), load_module(after_path)
            for name, specs in before.EXAMPLES.items():
                options = block_options(vars(before), name)
                if options.observed:
                    failures += _check_observed(mx, before, after, after_name, name, specs, options,
                                                (name in must_before, name in must_after),
                                                (name in may_before, name in may_after))
                    continue
                result = original[name]
                if options.random:
                    result = _by_shape(result, result.eager)
                if result.eager.status != OK:
                    failures.append(f"before.py:{name}: eager run failed: {result.eager.describe()}")
                    continue
                if name in must_before and result.hybrid_status not in (ERROR, DIFFERENT):
                    failures.append(f"before.py:{name}: flagged, but hybridizes with equal output")
                if name not in may_before and result.hybrid_status != OK:
                    failures.append(f"before.py:{name}: not flagged, but hybridized: {result.hybrid[-1].describe()}")
                fixed = rewritten[name]
                if options.random:
                    fixed = _by_shape(fixed, original[name].eager)
                if fixed.eager.status != OK:
                    failures.append(f"{after_name}:{name}: eager output differs from before.py's: "
                                    f"{fixed.eager.describe()}")
                    continue
                status = fixed.hybrid_status
                if name in must_after and status == OK:
                    failures.append(f"{after_name}:{name}: still flagged, but hybridizes with before.py's output")
                if name not in may_after and status != OK:
                    failures.append(f"{after_name}:{name}: hybridized: "
                                    f"{next(o for o in fixed.hybrid if o.status != OK).describe()}")
    assert not failures, "\n".join(failures)


def _by_shape(result, reference: Outcome):
    """A RANDOM block's result judged again by output count and shapes only (``reference``: the eager run
    the outputs were compared with)."""
    def judged(outcome: Outcome) -> Outcome:
        if outcome.status == ERROR or reference.status != OK:
            return outcome
        why = _outcomes_differ(reference, replace(outcome, status=OK), random=True)
        return replace(outcome, status=DIFFERENT if why else OK, message=why or "")
    return replace(result, eager=judged(result.eager), hybrid=[judged(o) for o in result.hybrid])


@pytest.mark.slow
@pytest.mark.mxnet
@pytest.mark.parametrize("folder", FOLDERS, ids=IDS)
def test_numerics_on_mxnet(folder):
    pytest.importorskip("mxnet")
    _check_numerics(folder, "mxnet")


@pytest.mark.slow
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
