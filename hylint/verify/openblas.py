"""verify on the runtime restarts itself with the right ``OPENBLAS_CORETYPE`` where numpy's OpenBLAS has fallen
back to a kernel without AVX2 on a CPU that has AVX2 or AVX-512 (numpy 1.23.5's OpenBLAS 0.3.20 runs Prescott on
recent Xeons: GEMMs 4.5x slower). OpenBLAS reads the variable once, when numpy loads it, and verify's blocks run
in this process or in children forked from it, so the only way to their kernels is a fresh process: the command
is executed again, the same interpreter with the same arguments, the variable set, and says so in one line.
Where the user set ``OPENBLAS_CORETYPE`` (or a restart set it already), nothing is done."""
from __future__ import annotations

import os
import sys
from typing import Mapping, Optional, Sequence, Tuple

from hylint.runtime.blas import better_coretype, openblas_kernel, openblas_version
from hylint.runtime.ops.common import cpu_flags

VARIABLE = "OPENBLAS_CORETYPE"


def restart_plan(argv: Sequence[str], environ: Mapping[str, str], kernel: Optional[Tuple[str, str]],
                 flags: frozenset) -> Optional[Tuple[list, dict, str]]:
    """``(argv, environment, the line to print)`` of the restart, or None: no restart when the kernel fits the
    CPU (or is unknown), when ``OPENBLAS_CORETYPE`` is set already, or when ``argv`` is not a ``hylint verify``
    command line (``sys.orig_argv``: a test runner calling the command in its own process is never replaced)."""
    better = better_coretype(kernel, flags)
    if better is None or environ.get(VARIABLE) or not _is_verify_command(argv):
        return None
    line = (f"hylint: numpy's OpenBLAS {openblas_version(kernel)} ran its generic {kernel[0]} kernel on this CPU; "
            f"verify restarted with {VARIABLE}={better}")
    return list(argv), dict(environ, **{VARIABLE: better}), line


def _is_verify_command(argv: Sequence[str]) -> bool:
    """``[python, .../hylint, verify, ...]`` or ``[python, -m, hylint, verify, ...]`` (options of the
    interpreter may come first)."""
    words = list(argv[1:])
    index = 0
    while index < len(words):
        word = words[index]
        if word == "-m":
            return words[index + 1:index + 2] == ["hylint"] and "verify" in words[index + 2:]
        if word == "-c":
            return False
        if not word.startswith("-"):
            return os.path.basename(word) in ("hylint", "hylint.exe") and "verify" in words[index + 1:]
        index += 2 if word in ("-X", "-W") else 1  # the interpreter's options that take a value
    return False


def restart_if_slow(backend: Optional[str]) -> None:
    """Execute this command again with the right ``OPENBLAS_CORETYPE`` when the runtime (``backend`` numpy or
    None) would run numpy's OpenBLAS on a generic kernel; returns only when no restart is needed."""
    if backend not in (None, "numpy"):
        return
    argv = getattr(sys, "orig_argv", None)
    if not argv or os.environ.get(VARIABLE):
        return
    plan = restart_plan(argv, os.environ, openblas_kernel(), cpu_flags())
    if plan is None:
        return
    new_argv, env, line = plan
    print(line, file=sys.stderr, flush=True)
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable] + new_argv[1:], env)
