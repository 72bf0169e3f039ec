"""Which kernels numpy's OpenBLAS runs here. The runtime's convolutions and dense layers are OpenBLAS matrix
products, and an OpenBLAS older than the CPU does not know it and runs its generic kernel: numpy 1.23.5's
OpenBLAS 0.3.20 runs ``Prescott`` (SSE3) on a recent AVX-512 Xeon, where a 512x4608 by 4608x4900 float32
product takes 4.5x as long as with its ``SkylakeX`` kernel (23 against 104 GFLOP/s, one thread, measured).
OpenBLAS reads its kernel once, when numpy loads it, so the runtime can only say so: the user sets
``OPENBLAS_CORETYPE`` (or takes a numpy whose OpenBLAS knows the CPU)."""
from __future__ import annotations

import ctypes
import functools
import os
from typing import Optional, Tuple

from .ops.common import cpu_flags

#: OpenBLAS's x86 kernels without AVX2 (Prescott is what its DYNAMIC_ARCH builds fall back to on a CPU they
#: do not know)
PRE_AVX2_CORES = frozenset({"prescott", "core2", "penryn", "dunnington", "nehalem", "sandybridge", "atom",
                            "katmai", "coppermine", "northwood", "banias", "opteron", "opteron_sse3", "barcelona",
                            "bobcat", "bulldozer", "piledriver"})
AVX512 = frozenset({"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"})


def _loaded_openblas() -> Optional[str]:
    """The OpenBLAS library numpy loaded, from Linux's map of the process. Other libraries bring their own
    OpenBLAS into the same process (MXNet 1.9.1's wheel loads an OpenBLAS 0.3.13 that runs Prescott here,
    OpenCV and SciPy theirs): numpy's is the one in its own folder (``numpy.libs`` of a wheel, ``numpy/.libs``
    of older ones), else the only one loaded."""
    import numpy

    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if len(line.split()) >= 6}
    except OSError:
        return None
    found = sorted(path for path in paths if "openblas" in path.rsplit("/", 1)[-1].lower())
    return numpys_openblas(found, os.path.dirname(numpy.__file__))


def numpys_openblas(paths, numpy_dir: str) -> Optional[str]:
    """Of the OpenBLAS libraries at ``paths``, numpy's: the one under ``numpy_dir`` or beside it
    (``numpy.libs``); the only one when none is; None when there are several and none is numpy's."""
    own = [path for path in paths if path.startswith((numpy_dir + os.sep, numpy_dir + ".libs" + os.sep))]
    if own:
        return own[0]
    return paths[0] if len(paths) == 1 else None


def openblas_kernel() -> Optional[Tuple[str, str]]:
    """(the kernel's name, OpenBLAS's configuration line) of the OpenBLAS numpy loaded; None where it cannot be
    read (another BLAS, another system). Its symbols carry numpy's prefix and suffix (``scipy_``, ``64_``)."""
    import numpy  # noqa: F401  (loads numpy's OpenBLAS)

    path = _loaded_openblas()
    if path is None:
        return None
    try:
        library = ctypes.CDLL(path)  # already loaded: the same handle, nothing initialised again
    except OSError:
        return None
    core, config = _read(library, "openblas_get_corename"), _read(library, "openblas_get_config")
    return None if core is None or config is None else (core, config)


def _read(library, name: str) -> Optional[str]:
    """The string an OpenBLAS function returns, under numpy's prefix and suffix for its symbols."""
    for symbol in (name, name + "64_", "scipy_" + name, "scipy_" + name + "64_"):
        function = getattr(library, symbol, None)
        if function is not None:
            function.restype = ctypes.c_char_p
            return (function() or b"").decode("ascii", "replace").strip()
    return None


def better_coretype(kernel: Optional[Tuple[str, str]], flags: frozenset) -> Optional[str]:
    """The ``OPENBLAS_CORETYPE`` this CPU deserves (``SkylakeX`` with AVX-512, ``Haswell`` with AVX2 and FMA)
    when OpenBLAS runs a kernel without AVX2 here; None when its kernel fits the CPU or cannot be read."""
    if kernel is None or kernel[0].lower() not in PRE_AVX2_CORES:
        return None
    return "SkylakeX" if AVX512 <= flags else "Haswell" if {"avx2", "fma"} <= flags else None


def openblas_version(kernel: Tuple[str, str]) -> str:
    """OpenBLAS's version from its configuration line (``OpenBLAS 0.3.20  USE64BITINT ...``), else ``?``."""
    return kernel[1].split()[1] if kernel[1].startswith("OpenBLAS ") and len(kernel[1].split()) > 1 else "?"


def slow_kernel_note(kernel: Optional[Tuple[str, str]], flags: frozenset) -> Optional[str]:
    """What to tell the user when OpenBLAS runs a kernel without AVX2 on a CPU with AVX2 or AVX-512."""
    better = better_coretype(kernel, flags)
    if better is None:
        return None
    version = openblas_version(kernel)
    return (f"numpy's OpenBLAS {version} runs its generic {kernel[0]} kernel on this CPU, which has "
            f"{'AVX-512' if better == 'SkylakeX' else 'AVX2'}: the runtime's convolutions and dense layers run "
            f"several times slower than they could (4.5x measured on a Xeon with AVX-512); set "
            f"OPENBLAS_CORETYPE={better} before starting Python, or use a numpy whose OpenBLAS knows this CPU")


@functools.lru_cache(maxsize=None)
def slow_blas_note() -> Optional[str]:
    """:func:`slow_kernel_note` for this process (once: the kernel does not change while it runs)."""
    return slow_kernel_note(openblas_kernel(), cpu_flags())
