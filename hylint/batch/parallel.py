"""Checking many files: the result cache, the text prefilter, then worker processes for the rest.

``check_files`` returns one ``FileOutcome`` per file, in the order of ``files``, exactly what
``runner.process_path`` gives for each of them one after another; only how they are computed
differs:

1. a file whose cache entry is valid (hylint/batch/cache.py) is not read (or is read and hashed only);
2. a file the prefilter rules out (hylint/lint/prefilter.py) is not parsed;
3. the remaining files are analysed: in this process when they are few or small (starting workers
   costs more than it saves), else in ``jobs`` worker processes, largest files first.

The linter (and with it libcst and the rules) is created only when some file needs analysis.
A worker that dies (killed, out of memory, a crash in an extension) ends the run with a clear
error naming the files that were being checked, never a hang; an exception in a worker is raised
in the parent as it would be in a serial run.
"""
from __future__ import annotations

import gc
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, List, Optional, Sequence, Tuple

from hylint.batch.files import SourceError, SourceFile, read_source
from hylint.lint.prefilter import might_hold_hybrid_code
from hylint.batch.runner import DIFF, FIX, FileOutcome, _internal_error, process_path, process_source

from hylint.batch.cache import UNKNOWN_KEYS as _UNKNOWN_KEYS
from hylint.batch.reach import Plain, reach_digest

if TYPE_CHECKING:
    from hylint.batch.cache import CachedResult, ResultCache
    from hylint.lint.engine import Linter

_UNKNOWN = object()
_Work = Tuple[int, SourceFile, object, Optional[Plain], object]  # (index, source, stat, reach, prepared regions)
# below these, the files are analysed in this process
PARALLEL_MIN_FILES = 2
PARALLEL_MIN_BYTES = 96 * 1024


class WorkerError(RuntimeError):
    """A worker process died; the message names the files it may have been checking."""


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_files(files: Sequence[Path], mode: str, unsafe: bool, make_linter: Callable[[], "Linter"],
                jobs: int = 1, cache: Optional["ResultCache"] = None, prefilter: bool = True,
                linter_for: Optional[Callable[[str], "Linter"]] = None,
                advance: Callable[[], None] = lambda: None,
                reach_for: Optional[Callable[[Path], Optional[Plain]]] = None,
                prepared_for: Optional[Callable[[Path], object]] = None) -> List[FileOutcome]:
    """One outcome per file, in order. ``make_linter()`` gives the linter of the run (its rules decide
    the prefilter's keys); ``linter_for(filename)`` the one for a file (per-file-ignores), by default
    the same. ``advance()`` is called once per file as it is done (a progress bar). ``reach_for(path)``:
    what a trace of the file's package reaches in it (hylint/batch/reach.py), checked as hybrid code;
    a cached result is keyed on it too. ``prepared_for(path)``: the regions of the file made where its
    syntax tree was (``Linter.prepare``, by the reach's parse), or None."""
    linter_for = linter_for or (lambda filename: make_linter())
    outcomes: List[Optional[FileOutcome]] = [None] * len(files)
    work: List[_Work] = []
    keys: object = _UNKNOWN  # the prefilter's keys, from the cache or (importing the rules) the linter
    for index, path in enumerate(files):
        filename = str(path)
        reach = reach_for(path) if reach_for is not None else None
        digest = reach_digest(reach)
        cached: Optional["CachedResult"] = None
        try:
            st: Optional[os.stat_result] = os.stat(path)
        except OSError:
            st = None
        if cache is not None and st is not None:
            cached, trusted = cache.lookup(path, filename, st, digest)
            if cached is not None and trusted:
                outcome = _from_cache(path, filename, cached)
                if outcome is not None:
                    outcomes[index] = outcome
                    advance()
                    continue
        try:
            source = read_source(path)
        except SourceError:
            # unreadable, a directory, undecodable: the runner reports it (HY001); never cached
            outcomes[index] = process_path(path, linter_for(filename), mode, unsafe, reach)
            advance()
            continue
        if cached is not None and st is not None and cache.verify(path, source.raw, st, digest):
            outcomes[index] = _from_cache(path, filename, cached, source)
            advance()
            continue
        if keys is _UNKNOWN:
            keys = cache.prefilter_keys if cache is not None and cache.prefilter_keys is not _UNKNOWN_KEYS \
                else make_linter().prefilter_keys
            if cache is not None:
                cache.prefilter_keys = keys
        if prefilter and not reach and not might_hold_hybrid_code(source.text, keys):  # type: ignore[arg-type]
            if "noqa" in source.text.lower():
                # not parsed, but noqa rules (unused-noqa) read its comments: the linter decides
                outcomes[index] = _process(source, linter_for(filename), mode, unsafe)
            else:
                # what process_source gives for such a file in every mode: nothing to report or fix
                outcomes[index] = FileOutcome(filename, [], source.text)
            _store(cache, path, filename, source, st, outcomes[index], mode)
            advance()
            continue
        work.append((index, source, st, reach, prepared_for(path) if prepared_for is not None else None))
    if work:
        make_linter().prefilter = prefilter
        linters = [linter_for(str(files[item[0]])) for item in work]
        for linter in linters:
            linter.prefilter = prefilter
        for index, outcome in _analyse(work, linters, mode, unsafe, jobs, advance):
            outcomes[index] = outcome
        for index, source, st, reach, _ in work:
            _store(cache, files[index], str(files[index]), source, st, outcomes[index], mode, reach_digest(reach))
    return outcomes  # type: ignore[return-value]


def _from_cache(path: Path, filename: str, cached: "CachedResult",
                source: Optional[SourceFile] = None) -> Optional[FileOutcome]:
    outcome = FileOutcome(filename, cached.diagnostics, None, cached.fixed_by_code, cached.diff,
                          cached.fixed_text, cached.messages)
    if cached.diagnostics:
        # the text is shown in code frames
        if source is None:
            try:
                source = read_source(path)
            except SourceError:
                return None
        outcome.text = source.text
    return outcome


def _store(cache: Optional["ResultCache"], path: Path, filename: str, source: SourceFile, st,
           outcome: FileOutcome, mode: str, reach: str = "") -> None:
    if cache is None or st is None:
        return
    if getattr(outcome, "failed", False):
        return  # an error (fix loop, write): tried again next run
    if mode == FIX and (outcome.fixed_text is not None or outcome.messages):
        return  # the file was rewritten (its next run checks the new content), or writing it failed
    if any(d.code == "HY001" for d in outcome.diagnostics):
        return
    from hylint.batch.cache import CachedResult

    cache.store(path, filename, source.raw, st, CachedResult(
        outcome.diagnostics, outcome.messages, outcome.fixed_by_code, outcome.diff,
        outcome.fixed_text if mode == DIFF else None), reach)


# -- analysis, serial or in workers -------------------------------------------------------------
def _analyse(work: Sequence[_Work], linters: Sequence["Linter"], mode: str, unsafe: bool,
             jobs: int, advance: Callable[[], None]) -> List[Tuple[int, FileOutcome]]:
    """(index, outcome) of every work item; ``linters[i]`` checks ``work[i]``."""
    total = sum(len(item[1].raw) for item in work)
    jobs = min(jobs, len(work))
    if jobs <= 1 or len(work) < PARALLEL_MIN_FILES or total < PARALLEL_MIN_BYTES:
        results = []
        for (index, source, _, reach, reduction), linter in zip(work, linters):
            results.append((index, _process(source, linter, mode, unsafe, reach, reduction)))
            advance()
        return results
    return _analyse_in_workers(work, linters, mode, unsafe, jobs, advance)


def _process(source: SourceFile, linter: "Linter", mode: str, unsafe: bool,
             reach: Optional[Plain] = None, reduction=None) -> FileOutcome:
    """``process_source``; an internal error ends this file's check, not the run (as process_path)."""
    try:
        return process_source(source, str(source.path), linter, mode, unsafe, mode == FIX, reach,
                              reduction=reduction)
    except Exception as error:
        return _internal_error(str(source.path), error)


_WORKER_LINTERS: List["Linter"] = []


def _worker_init(rule_codes: Optional[List[Tuple[str, ...]]], prefilter: bool, parent: int = 0) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    if parent:
        _die_with(parent)
    if rule_codes is not None:  # spawned, not forked: build the linters
        from hylint.lint.engine import Linter
        from hylint.selection import all_rules

        rules = all_rules()
        _WORKER_LINTERS[:] = [Linter([rules[code] for code in codes], rules) for codes in rule_codes]
        for linter in _WORKER_LINTERS:
            linter.prefilter = prefilter


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _die_with(parent: int) -> None:
    """End this worker when the parent process ends, however it ends: a parent killed with SIGKILL (a CI
    time-out, the OOM killer) runs no clean-up, and its workers would wait on their pipe forever. Linux
    sends the signal asked for with prctl(PR_SET_PDEATHSIG); elsewhere a thread watches the parent id."""
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    if not armed:
        import threading
        import time

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, name="hylint-parent-watch", daemon=True).start()


def _worker_task(task: Tuple[int, SourceFile, int, str, bool, Optional[Plain], object]) -> Tuple[int, FileOutcome]:
    index, source, linter_index, mode, unsafe, reach, reduction = task
    return index, _process(source, _WORKER_LINTERS[linter_index], mode, unsafe, reach, reduction)


def _analyse_in_workers(work: Sequence[_Work], linters: Sequence["Linter"], mode: str,
                        unsafe: bool, jobs: int, advance: Callable[[], None]) -> List[Tuple[int, FileOutcome]]:
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    distinct: List["Linter"] = []
    for linter in linters:
        if not any(linter is other for other in distinct):
            distinct.append(linter)
    position = [next(i for i, other in enumerate(distinct) if other is linter) for linter in linters]
    if "fork" in multiprocessing.get_all_start_methods() and sys.platform != "darwin":
        # the workers inherit the linters, libcst and the rules already imported here
        context = multiprocessing.get_context("fork")
        _WORKER_LINTERS[:] = distinct
        init_args: Tuple = (None, distinct[0].prefilter, os.getpid())
    else:
        context = multiprocessing.get_context("spawn")
        init_args = ([tuple(rule.CODE for rule in linter.rule_types) for linter in distinct], distinct[0].prefilter,
                     os.getpid())
    # largest files first: the long ones start early, the short ones fill the gaps
    order = sorted(range(len(work)), key=lambda i: -len(work[i][1].raw))
    results: List[Tuple[int, FileOutcome]] = []
    if context.get_start_method() == "fork":
        # what is imported so far stays out of the workers' collections: a collection writes to every
        # object it traverses, which copies the page holding it in each forked worker
        gc.freeze()
    executor = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_worker_init,
                                   initargs=init_args)
    futures = {}
    try:
        for i in order:
            index, source, _, reach, reduction = work[i]
            futures[executor.submit(_worker_task, (index, source, position[i], mode, unsafe, reach, reduction))] = source
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                error = future.exception()
                if error is not None:
                    raise error
                results.append(future.result())
                advance()
    except BrokenProcessPool:
        # a worker died; it was checking one of the files not done yet
        checking = sorted(str(source.path) for f, source in futures.items() if not f.done() or f.exception()) \
            or sorted(str(work[i][1].path) for i in order)
        shown = ", ".join(checking[:3]) + (f" and {len(checking) - 3} more" if len(checking) > 3 else "")
        raise WorkerError(f"a worker process died (killed, out of memory or crashed) while checking "
                          f"{shown}; run with --jobs 1 to see which file") from None
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        _WORKER_LINTERS[:] = []
        gc.unfreeze()
    return results
