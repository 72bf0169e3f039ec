"""hylint/runtime/blas.py: telling the user when numpy's OpenBLAS runs a kernel below the CPU (an OpenBLAS
older than the CPU falls back to its generic Prescott kernel, several times slower)."""
import sys

import pytest

from hylint.runtime import blas

AVX512_FLAGS = frozenset({"sse3", "avx", "avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"})
OLD = "OpenBLAS 0.3.20  USE64BITINT DYNAMIC_ARCH NO_AFFINITY Prescott MAX_THREADS=64"


def test_a_generic_kernel_on_an_avx512_cpu_names_the_version_and_the_remedy():
    note = blas.slow_kernel_note(("Prescott", OLD), AVX512_FLAGS)
    assert note.startswith("numpy's OpenBLAS 0.3.20 runs its generic Prescott kernel on this CPU, which has AVX-512")
    assert "OPENBLAS_CORETYPE=SkylakeX" in note


def test_an_avx2_cpu_is_pointed_at_the_haswell_kernel():
    note = blas.slow_kernel_note(("Prescott", OLD), frozenset({"sse3", "avx", "avx2", "fma"}))
    assert "which has AVX2" in note and "OPENBLAS_CORETYPE=Haswell" in note


@pytest.mark.parametrize("kernel, flags", [
    (("SkylakeX", OLD.replace("Prescott", "SkylakeX")), AVX512_FLAGS),  # the right kernel
    (("Haswell", OLD.replace("Prescott", "Haswell")), AVX512_FLAGS),    # AVX2 kernels: not the generic one
    (("Zen", OLD.replace("Prescott", "Zen")), AVX512_FLAGS),
    (("Prescott", OLD), frozenset({"sse3", "avx"})),                      # an old CPU: Prescott is its kernel
    (None, AVX512_FLAGS),                                                 # another BLAS, or unreadable
])
def test_no_note_when_the_kernel_fits_the_cpu(kernel, flags):
    assert blas.slow_kernel_note(kernel, flags) is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_numpys_own_openblas_is_read():
    import numpy  # noqa: F401  (loads its BLAS)

    if blas._loaded_openblas() is None:
        pytest.skip("this numpy loaded another BLAS than OpenBLAS")
    kernel = blas.openblas_kernel()
    assert kernel is not None
    name, config = kernel
    assert config.startswith("OpenBLAS ") and name and name in config


def test_numpys_own_openblas_is_chosen_among_other_libraries_openblas():
    site = "/venv/lib/python3.11/site-packages"
    mxnets, numpys = f"{site}/mxnet/libopenblas.so.0", f"{site}/numpy.libs/libopenblas64_p-r0-742d56dc.3.20.so"
    opencvs = f"{site}/opencv_python.libs/libopenblas-r0-f650aae0.3.3.so"
    assert blas.numpys_openblas(sorted([mxnets, numpys, opencvs]), f"{site}/numpy") == numpys
    assert blas.numpys_openblas([f"{site}/numpy/.libs/libopenblas.so"], f"{site}/numpy") == \
        f"{site}/numpy/.libs/libopenblas.so"
    assert blas.numpys_openblas(["/usr/lib/libopenblas.so.0"], f"{site}/numpy") == "/usr/lib/libopenblas.so.0"
    assert blas.numpys_openblas(sorted([mxnets, opencvs]), f"{site}/numpy") is None  # not numpy's: not guessed


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_mxnets_openblas_loaded_beside_numpys_is_not_read_as_numpys():
    mxnet = pytest.importorskip("mxnet")  # noqa: F841  (loads MXNet's own OpenBLAS 0.3.13 into this process)
    import numpy

    path = blas._loaded_openblas()
    if path is None:
        pytest.skip("this numpy loaded another BLAS than OpenBLAS")
    assert "numpy" in path.rsplit("/", 2)[-2] and numpy.__file__
