"""``hylint verify PATH``: every HybridBlock subclass a file or folder defines, each built, fed and verified
in its own process with a time limit, ``jobs`` at a time; results cached by the package's source.

Per block (:func:`plan` and :func:`run_job`, in the child process):

1. import the class (a package's module from its package, else the file alone) and keep it only when it is
   a ``HybridBlock`` subclass;
2. a ``[[tool.hylint.verify]]`` entry naming it gives its inputs and arguments (and the gate's meaning); a
   module with ``EXAMPLES`` runs exactly the blocks it names, with its inputs;
3. else the constructor arguments (``construct.candidates``: defaults, the package's literal calls,
   guesses), the first that constructs; the inputs (``feed.candidates``), the first that runs eagerly;
4. :func:`hylint.verify.run.verify_target` with them: the report of one target, as ``file.py::Name`` gives.

A block that cannot be run gets the verdict ``not-run`` with a reason (could not build, no input found,
timed out, the runtime lacks a part of MXNet, could not import, crashed). The parent (:func:`survey`)
runs the children: each forked from it (the runtime and the rules already imported), in a process group of
its own (a time-out kills the group) that dies with the parent (``PR_SET_PDEATHSIG``)."""
from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from hylint.verify.discover import BlockJob, discover, python_files
from hylint.verify.outcomes import ERROR, OK, VerifyError, first_line
from hylint.verify.results import FAILS, FIXED, OK_AS_IS


NOT_RUN = "not-run"
# the reasons of a `not-run` verdict (the text after them says more)
COULD_NOT_BUILD, NO_INPUT, TIMED_OUT, RUNTIME_LACKS = "could not build", "no input found", "timed out", \
    "the runtime lacks"
COULD_NOT_IMPORT, CRASHED = "could not import", "crashed"
# not reported at all: not a HybridBlock once imported, or left out by its module's EXAMPLES
SKIPPED = "skipped"


@dataclass
class SurveyOptions:
    backend: str = "numpy"
    seed: int = 0
    unsafe: bool = False
    train: bool = False
    timeout: float = 120.0
    jobs: int = 1
    cache: Optional[Path] = None  # the cache folder; None: no cache
    entries: Dict[str, Any] = field(default_factory=dict)  # resolved file path::Name -> [[tool.hylint.verify]] Target
    settings: Dict[str, Any] = field(default_factory=dict)  # what else the results depend on (rule selection)


# -- one block, in the child ---------------------------------------------------------------------------------
def _import_class(mx: Any, job: BlockJob) -> Tuple[Any, Any, Optional[str]]:
    """``(class, its module, the module name to verify it by)``; a module of MXNet itself comes from the backend
    (the runtime ships MXNet's model zoo as one module: the class is looked up in the parent module then)."""
    from hylint.verify.sandbox import ImportFailure, import_attribute, in_backend_package, load_source
    from hylint.verify.targets import read_target_source

    if job.module is None:
        module = load_source(read_target_source(job.path), str(job.path), job.path)
        return getattr(module, job.name, None), module, None
    name = job.module
    while True:
        try:
            cls = import_attribute(name, job.name, job.label)
            return cls, sys.modules.get(name), name
        except ImportFailure:
            raise
        except VerifyError:
            if not in_backend_package(name) or "." not in name:
                module = sys.modules.get(name)
                if module is None:
                    raise
                return None, module, name  # defined only on some path (under an `if`): not there
        name = name.rsplit(".", 1)[0]


def plan(mx: Any, job: BlockJob, options: SurveyOptions) -> Dict[str, Any]:
    """What to run for ``job`` (call inside the backend and the job's import scope): ``{"kwargs", "inputs",
    "module", "gate", "how"}``, or ``{"verdict": SKIPPED | NOT_RUN, "reason"}``."""
    import hylint.verify.construct as construct
    from hylint.verify.harness import materialize

    cls, module, module_name = _import_class(mx, job)
    if not (isinstance(cls, type) and issubclass(cls, mx.gluon.HybridBlock)):
        return {"verdict": SKIPPED, "reason": "not a HybridBlock subclass once imported"}
    entry = options.entries.get(f"{Path(job.path).resolve()}::{job.name}")
    if entry is not None:
        return {"kwargs": dict(entry.kwargs), "inputs": list(entry.inputs), "module": module_name, "gate": True,
                "how": "its [[tool.hylint.verify]] entry"}
    examples = getattr(module, "EXAMPLES", None)
    if isinstance(examples, dict):
        if job.name not in examples:
            return {"verdict": SKIPPED, "reason": "its module's EXAMPLES does not name it"}
        return {"kwargs": {}, "inputs": list(examples[job.name]), "module": module_name, "gate": False,
                "how": "its module's EXAMPLES"}
    errors: List[str] = []
    unfed: Optional[Dict[str, Any]] = None  # the first arguments that constructed but found no input
    builder = construct.Builder(_lookup(cls, module), lambda factory, kwargs: factory(**materialize(mx, kwargs)),
                                job.context)
    for kwargs in construct.candidates(cls, job.calls, builder=builder):
        try:
            block = cls(**materialize(mx, kwargs))
            block.initialize()
        except VerifyError:
            raise
        except Exception as error:
            from hylint.verify.backends import check_runtime_gap

            check_runtime_gap(mx, error)
            errors.append(f"{_kwargs_text(kwargs)}: {type(error).__name__}: {first_line(error)}")
            continue
        if _empty_container(block):
            return {"verdict": NOT_RUN, "reason": f"{COULD_NOT_BUILD}: built with {_kwargs_text(kwargs)}, it is "
                                                  f"an empty container (the code using it adds its children)"}
        fed = _feed(mx, cls, block, kwargs, options)
        if "inputs" in fed:
            return {"kwargs": kwargs, "inputs": fed["inputs"], "module": module_name, "gate": False, "how": "found"}
        unfed = unfed or {"verdict": NOT_RUN, "reason": f"{NO_INPUT}: built with {_kwargs_text(kwargs)}, "
                                                        f"{fed['reason']}", "tried": fed["tried"]}
        # the next arguments may be fed (wider sizes: a reduction by 16 of 4 channels leaves none)
    # the package's own functions that build it (a model zoo's entries), as a model is built
    for function, kwargs in construct.factories(cls, module) if module is not None else ():
        home = None if module_name is None else function.__module__
        if module_name is None and function.__module__ != getattr(module, "__name__", None):
            continue
        try:
            block = function(**materialize(mx, kwargs))
            block.initialize()
        except VerifyError:
            raise
        except Exception as error:  # noqa: BLE001 - the next function
            errors.append(f"{function.__name__}({_kwargs_text(kwargs)}): {type(error).__name__}: "
                          f"{first_line(error)}")
            continue
        if not isinstance(block, cls):
            continue
        fed = _feed(mx, function, block, kwargs, options)
        if "inputs" in fed:
            return {"kwargs": kwargs, "inputs": fed["inputs"], "module": home, "gate": False, "how": "found",
                    "factory": function.__name__}
        unfed = unfed or {"verdict": NOT_RUN, "reason": f"{NO_INPUT}: built by {function.__name__}("
                                                        f"{_kwargs_text(kwargs)}), {fed['reason']}",
                          "tried": fed["tried"]}
    return unfed or {"verdict": NOT_RUN, "reason": f"{COULD_NOT_BUILD}: " + " | ".join(errors[:2])}


def _feed(mx: Any, factory: Any, block: Any, kwargs: Dict[str, Any], options: SurveyOptions) -> Dict[str, Any]:
    """``{"inputs": specs}``: the first of ``feed.candidates`` that runs eagerly on a block ``factory(**kwargs)``
    builds; else ``{"reason", "tried"}``."""
    import hylint.verify.feed as feed
    from hylint.verify.harness import build_block, call_block
    from hylint.verify.inputs import input_text

    tried, first = [], ""
    for specs in feed.candidates(block, kwargs):
        tried.append(" ".join(input_text(s) for s in specs) or "no input")
        built_block, built = build_block(mx, factory, specs, options.seed, kwargs)
        outcome = built if built.status != OK else call_block(mx, built_block, specs, options.seed)
        if outcome.status == OK:
            return {"inputs": specs}
        first = first or f"{outcome.error_type}: {outcome.message}"
    shown = "; ".join(tried[:3]) + (f" and {len(tried) - 3} more" if len(tried) > 3 else "")
    return {"reason": f"no input ran eagerly (tried {shown}); the first ({tried[0]}): {first}", "tried": tried}


def _lookup(cls: Any, module: Any) -> Callable[[str], Any]:
    """A function giving the class of that name the block's module or its package (as imported so far)
    defines, or None."""
    top = (getattr(cls, "__module__", "") or "").split(".")[0]

    def find(name: str) -> Any:
        value = getattr(module, name, None)
        if isinstance(value, type):
            return value
        for module_name, loaded in list(sys.modules.items()):
            if top and (module_name == top or module_name.startswith(top + ".")):
                value = getattr(loaded, name, None)
                if isinstance(value, type) and getattr(value, "__module__", "") == module_name:
                    return value
        return None

    return find


def _empty_container(block: Any) -> bool:
    """A container built without children (a ``HybridSequential`` subclass, or a block whose forward walks
    ``self._children``): what it computes is up to the code that fills it, so running it empty says nothing."""
    if getattr(block, "_children", None):
        return False
    import inspect

    kinds = [k.__name__ for k in type(block).__mro__]
    if any(name in ("HybridSequential", "HybridConcurrent", "Sequential", "Concurrent") for name in kinds):
        return True
    try:
        source = inspect.getsource(type(block))
    except (OSError, TypeError):
        return False
    return "_children" in source


def _kwargs_text(kwargs: Dict[str, Any]) -> str:
    from hylint.verify.harness import argument_text

    return ", ".join(f"{k}={argument_text(v)}" for k, v in kwargs.items()) or "no arguments"


def _scope(job: BlockJob) -> Any:
    from hylint.verify.sandbox import module_import_scope, user_import_scope

    return module_import_scope(job.module, job.search) if job.module else user_import_scope(job.path.parent)


def run_job(job: BlockJob, options: SurveyOptions, linter_for: Callable[[str], Any],
            provisional: Optional[Callable[[Dict[str, Any]], None]] = None) -> Dict[str, Any]:
    """One block start to end: the report's JSON (``verify_target``'s, plus ``how`` and ``check_codes``), or a
    ``not-run``/``skipped`` entry with its reason. ``provisional`` gets a first result before a second run
    that may not finish in time (:func:`_at_larger_input`)."""
    from hylint.verify.backends import backend, RuntimeGap
    from hylint.verify.run import verify_target
    from hylint.verify.sandbox import ImportFailure, quiet
    from hylint.verify.targets import Target

    base = {"target": job.label, "file": str(job.path), "line": job.line}
    try:
        with backend(options.backend) as mx, _scope(job), quiet():
            chosen = plan(mx, job, options)
        if "verdict" in chosen:
            return {**base, **chosen}
        target = Target(None if chosen["module"] else job.path, chosen.get("factory") or job.name, chosen["inputs"],
                        chosen["kwargs"],
                        options.backend, options.seed, module=chosen["module"], search=job.search,
                        train=options.train, gate=chosen["gate"])
        report = verify_target(target, linter_for(str(job.path)), options.unsafe)
        smaller = None
        if chosen["how"] == "found" and report.verdict in (FAILS, FIXED):
            report, smaller = _at_larger_input(target, report, linter_for, options, job, chosen, provisional)
    except RuntimeGap as error:
        return {**base, "verdict": NOT_RUN, "reason": f"{RUNTIME_LACKS} a part of MXNet: {error}"}
    except ImportFailure as error:
        return {**base, "verdict": NOT_RUN, "reason": f"{COULD_NOT_IMPORT}: {error}"}
    except VerifyError as error:
        return {**base, "verdict": NOT_RUN, "reason": f"{COULD_NOT_BUILD}: {error}"}
    data = _report_data(report, job, chosen, linter_for)
    if smaller is not None:
        data["smaller_input"] = smaller
    return data


def _report_data(report: Any, job: BlockJob, chosen: Dict[str, Any], linter_for: Callable[[str], Any],
                 ) -> Dict[str, Any]:
    from hylint.verify.inputs import input_text

    data = report.to_json()
    data.update(target=job.label, file=str(job.path), line=job.line, how=chosen["how"], factory=chosen.get("factory"),
                input_text=" ".join(input_text(spec) for spec in report.target.inputs),
                check_codes=_check_codes(report, linter_for))
    for key in ("eager", "hybridized", "fixed"):
        location = (data.get(key) or {}).get("location")
        if location:
            location["file"] = _relative(location["file"])
    if report.verdict == "eager-error":
        data.update(verdict=NOT_RUN, reason=f"{COULD_NOT_BUILD}: {report.eager.describe()}")
    return data


def _at_larger_input(target: Any, report: Any, linter_for: Callable[[str], Any], options: SurveyOptions,
                     job: BlockJob, chosen: Dict[str, Any], provisional: Optional[Callable[[Dict[str, Any]], None]],
                     ) -> Tuple[Any, Optional[str]]:
    """A block that fails hybridized on a small image verify guessed, run again on a larger one
    (:func:`hylint.verify.feed.enlarged`): when it hybridizes there, the failure was one of the small input
    (a branch shrunk to 1x1 broadcasting eagerly), not of hybridizing, and the larger run is the report
    (with what failed at the small one, ``smaller``). The first report is sent ahead (``provisional``): it
    stands when the second run does not finish in time."""
    from dataclasses import replace

    from hylint.verify.feed import enlarged
    from hylint.verify.inputs import input_text
    from hylint.verify.run import verify_target

    bigger = enlarged(target.inputs)
    if bigger is None:
        return report, None
    if provisional is not None:
        provisional(_report_data(report, job, chosen, linter_for))
    try:
        second = verify_target(replace(target, inputs=bigger), linter_for(str(job.path)), options.unsafe)
    except VerifyError:
        return report, None
    if second.verdict != OK_AS_IS:
        return report, None
    failed = report.hybridized.describe() if report.hybridized is not None else report.verdict
    return second, f"{' '.join(input_text(s) for s in target.inputs)}: {failed}"


def _relative(filename: str) -> str:
    """``filename`` relative to the current folder when it is under it (as the blocks' files are named)."""
    try:
        return str(Path(filename).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return filename


def _check_codes(report: Any, linter_for: Callable[[str], Any]) -> Optional[List[str]]:
    """The codes ``hylint check`` reports on the line the hybridized run failed at (None: no such line)."""
    outcome = report.hybridized
    if outcome is None or outcome.status != ERROR or outcome.location is None:
        return None
    filename = outcome.location.filename
    try:
        text = Path(filename).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    diagnostics = linter_for(filename).lint_source(text, filename).diagnostics
    return sorted({d.code for d in diagnostics if d.start[0] <= outcome.location.line <= d.end[0]})


# -- the children -------------------------------------------------------------------------------------------
def _child(job: BlockJob, options: SurveyOptions, linter_for: Callable[[str], Any], conn: Any, parent: int) -> None:
    from hylint.batch.parallel import _die_with

    try:
        os.setpgid(0, 0)  # a group of its own: a time-out kills whatever it started too
    except OSError:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with(parent)
    def provisional(result: Dict[str, Any]) -> None:
        conn.send(json.loads(json.dumps({**result, "provisional": True}, default=_json_default)))

    try:
        result = run_job(job, options, linter_for, provisional)
    except BaseException as error:  # an internal error: reported for this block, the run goes on
        result = {"target": job.label, "file": str(job.path), "line": job.line, "verdict": NOT_RUN,
                  "reason": f"{CRASHED}: {type(error).__name__}: {first_line(error)}",
                  "traceback": traceback.format_exc(limit=-4)}
    try:
        conn.send(json.loads(json.dumps(result, default=_json_default)))
    finally:
        conn.close()
        os._exit(0)


def _json_default(value: Any) -> Any:
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "item"):
        return value.item()
    return repr(value)


def _kill_group(process: Any) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (OSError, ProcessLookupError):
        try:
            process.kill()
        except (OSError, ValueError):
            pass
    process.join(5)


def run_children(jobs: Sequence[BlockJob], options: SurveyOptions, linter_for: Callable[[str], Any],
                 ) -> Iterator[Tuple[int, Dict[str, Any]]]:
    """``(index, result)`` of every job as each finishes; ``options.jobs`` children at a time, each killed
    (with its process group) after ``options.timeout`` seconds. Every child is ended before this returns,
    also when the caller stops early or is interrupted."""
    import multiprocessing
    from multiprocessing.connection import wait

    context = multiprocessing.get_context("fork")
    waiting = list(range(len(jobs)))
    running: Dict[int, Tuple[Any, Any, float]] = {}
    ahead: Dict[int, Dict[str, Any]] = {}  # provisional results, by job
    parent = os.getpid()
    try:
        while waiting or running:
            while waiting and len(running) < max(1, options.jobs):
                index = waiting.pop(0)
                receive, send = context.Pipe(duplex=False)
                process = context.Process(target=_child, args=(jobs[index], options, linter_for, send, parent),
                                          daemon=True)
                process.start()
                send.close()
                running[index] = (process, receive, time.monotonic() + options.timeout)
            now = time.monotonic()
            soonest = min(deadline for _, _, deadline in running.values())
            wait([conn for _, conn, _ in running.values()] + [p.sentinel for p, _, _ in running.values()],
                 timeout=max(0.0, soonest - now))
            for index in list(running):
                process, conn, deadline = running[index]
                result = None
                while result is None and conn.poll():
                    try:
                        result = conn.recv()
                    except (EOFError, OSError):
                        break
                    if result.pop("provisional", False):  # a first result; the final one may follow
                        ahead[index], result = result, None
                if result is not None:
                    process.join(5)
                elif not process.is_alive() and index not in ahead:
                    process.join()
                    result = _not_run(jobs[index], f"{CRASHED}: the process ended with exit code "
                                                   f"{process.exitcode} (killed, out of memory or a crash)")
                elif time.monotonic() >= deadline or not process.is_alive():
                    alive = process.is_alive()
                    _kill_group(process)
                    result = ahead.get(index) or _not_run(jobs[index], f"{TIMED_OUT} after {options.timeout:g} s")
                    if index in ahead:  # the first result stands; the run on a larger input did not finish
                        result.setdefault("notes", []).append(
                            "a second run on a larger input " + (f"did not finish within {options.timeout:g} s"
                                                                 if alive else "ended with no result"))
                    result["timed_out"] = True
                else:
                    continue
                conn.close()
                del running[index]
                yield index, result
    finally:
        for process, conn, _ in running.values():
            _kill_group(process)
            conn.close()


def _not_run(job: BlockJob, reason: str) -> Dict[str, Any]:
    return {"target": job.label, "file": str(job.path), "line": job.line, "verdict": NOT_RUN, "reason": reason}


# -- the cache ----------------------------------------------------------------------------------------------
def _package_digest(job: BlockJob, memo: Dict[Path, str]) -> str:
    """The digest of every ``.py`` file the block's import can read: its package (a package's module) or its
    folder (a file alone)."""
    folder = (job.search / job.module.split(".")[0]) if job.module else job.path.parent
    if folder not in memo:
        digest = hashlib.blake2b(digest_size=16)
        files = python_files(folder) if job.module else sorted(folder.glob("*.py"))
        for file in files:
            try:
                digest.update(str(file.relative_to(folder)).encode() + b"\0" + file.read_bytes() + b"\0")
            except OSError:
                digest.update(str(file).encode() + b"\0unreadable\0")
        memo[folder] = digest.hexdigest()
    return memo[folder]


def _job_key(job: BlockJob, options: SurveyOptions, memo: Dict[Path, str]) -> str:
    from hylint.batch.cache import cache_key

    return cache_key(kind="verify-path", block=job.label, module=job.module, package=_package_digest(job, memo),
                     backend=options.backend, seed=options.seed, unsafe=options.unsafe, train=options.train,
                     entry=repr(options.entries.get(f"{Path(job.path).resolve()}::{job.name}")),
                     settings=options.settings)


def _cache_read(folder: Path, key: str) -> Optional[Dict[str, Any]]:
    try:
        data = json.loads((folder / "verify" / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "verdict" in data else None


def _cache_write(folder: Path, key: str, result: Dict[str, Any]) -> None:
    from hylint.batch.cache import replace_atomically

    if result.get("timed_out") or str(result.get("reason", "")).startswith(CRASHED):
        return  # the machine's state, not the code's: tried again next run
    try:
        (folder / "verify").mkdir(parents=True, exist_ok=True)
        tag = folder / "CACHEDIR.TAG"
        if not tag.exists():
            tag.write_text("Signature: 8a477f597d28d172789f06886806bc55\n# hylint's result cache\n")
            (folder / ".gitignore").write_text("*\n")
        replace_atomically(folder / "verify" / f"{key}.json", json.dumps(result).encode())
    except OSError:
        pass


# -- the whole run ------------------------------------------------------------------------------------------
@dataclass
class Survey:
    results: List[Dict[str, Any]]  # in discovery order, skipped blocks left out
    skipped: List[Dict[str, Any]]
    seconds: float
    cached: int

    @property
    def exit_code(self) -> int:
        """1 when any block fails (or differs, or fails its gate), else 0."""
        return 1 if any(r.get("verdict") == "fails" or r.get("gate_failure") for r in self.results) else 0


def survey(path: Path, options: SurveyOptions, linter_for: Callable[[str], Any],
           on_result: Optional[Callable[[Dict[str, Any]], None]] = None) -> Survey:
    """Every candidate block under ``path``, run; ``on_result`` gets each reported result in discovery order
    as soon as it and those before it are done."""
    start = time.monotonic()
    jobs = discover(path)
    results: List[Optional[Dict[str, Any]]] = [None] * len(jobs)
    memo: Dict[Path, str] = {}
    keys = [_job_key(job, options, memo) if options.cache is not None else "" for job in jobs]
    todo = []
    cached = 0
    for index, job in enumerate(jobs):
        hit = _cache_read(options.cache, keys[index]) if options.cache is not None else None
        if hit is not None:
            results[index] = hit
            cached += 1
        else:
            todo.append(index)
    shown = 0

    def flush() -> None:
        nonlocal shown
        while shown < len(results) and results[shown] is not None:
            if on_result is not None and results[shown].get("verdict") != SKIPPED:
                on_result(results[shown])
            shown += 1

    flush()
    if todo:
        import gc

        # imported once here, shared by every forked child (and one version of the code for the whole run)
        import hylint.runtime  # noqa: F401
        import hylint.verify.construct  # noqa: F401
        import hylint.verify.feed  # noqa: F401
        import hylint.verify.run  # noqa: F401

        gc.collect()
        gc.freeze()
        try:
            for position, result in run_children([jobs[i] for i in todo], options, linter_for):
                index = todo[position]
                results[index] = result
                if options.cache is not None:
                    _cache_write(options.cache, keys[index], result)
                flush()
        finally:
            gc.unfreeze()
    done = [r for r in results if r is not None]
    return Survey([r for r in done if r.get("verdict") != SKIPPED], [r for r in done if r.get("verdict") == SKIPPED],
                  time.monotonic() - start, cached)
