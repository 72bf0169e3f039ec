"""Wall time and peak memory of each phase of a verify run (``phases`` in the JSON output)."""
from __future__ import annotations

import contextlib
import re
import sys
import time
from typing import Any, Dict, Iterator, List, Optional


class Phases:
    """Wall time and peak memory of each phase of a verify run. Peak memory is the process's peak resident
    set size during the phase (Linux: ``VmHWM``, reset before each phase through ``/proc/self/clear_refs``);
    elsewhere the process's peak so far (``ru_maxrss``), marked ``"peak_rss_kind": "process"``."""

    def __init__(self, record: bool = True) -> None:
        self.record = record
        self.records: List[Dict[str, Any]] = []

    @contextlib.contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        if not self.record:
            yield
            return
        resettable = _reset_peak_rss()
        start = time.perf_counter()
        try:
            yield
        finally:
            seconds = time.perf_counter() - start
            peak = _peak_rss_mib()
            self.records.append({"phase": name, "seconds": round(seconds, 4),
                                 "peak_rss_mib": None if peak is None else round(peak, 1),
                                 "peak_rss_kind": "phase" if resettable else "process"})

    def to_json(self) -> List[Dict[str, Any]]:
        return list(self.records)


def _reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def _peak_rss_mib() -> Optional[float]:
    try:
        with open("/proc/self/status") as handle:
            match = re.search(r"VmHWM:\s+(\d+) kB", handle.read())
        if match:
            return int(match.group(1)) / 1024
    except OSError:
        pass
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024
    except (ImportError, OSError):
        return None

