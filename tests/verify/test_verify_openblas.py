"""hylint/verify/openblas.py: where numpy's OpenBLAS runs a kernel without AVX2 on a CPU with AVX2 or AVX-512,
`hylint verify` (on the runtime) executes itself again with OPENBLAS_CORETYPE set, so that every block (in this
process or in the children forked from it) runs OpenBLAS's fast kernel, and says so in one line."""
import os
import subprocess
import sys

import pytest

from hylint.verify import openblas

AVX512 = frozenset({"sse3", "avx", "avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"})
AVX2 = frozenset({"sse3", "avx", "avx2", "fma"})
PRESCOTT = ("Prescott", "OpenBLAS 0.3.20  USE64BITINT DYNAMIC_ARCH NO_AFFINITY Prescott MAX_THREADS=64")
SKYLAKEX = ("SkylakeX", PRESCOTT[1].replace("Prescott", "SkylakeX"))
SCRIPT = ["/venv/bin/python", "/venv/bin/hylint", "verify", "model.py::Net", "--input", "1x3x8x8"]
MODULE = ["/venv/bin/python", "-X", "utf8", "-m", "hylint", "verify", "src/"]


@pytest.mark.parametrize("argv", [SCRIPT, MODULE], ids=["console_script", "python_m"])
@pytest.mark.parametrize("flags, coretype", [(AVX512, "SkylakeX"), (AVX2, "Haswell")])
def test_a_generic_kernel_restarts_verify_with_the_cpus_coretype(argv, flags, coretype):
    environ = {"PATH": "/usr/bin", "OMP_NUM_THREADS": "1"}
    new_argv, env, line = openblas.restart_plan(argv, environ, PRESCOTT, flags)
    assert new_argv == argv  # the same command line
    assert env == dict(environ, OPENBLAS_CORETYPE=coretype)  # everything else kept
    assert "OPENBLAS_CORETYPE" not in environ  # the caller's mapping untouched
    assert line == (f"hylint: numpy's OpenBLAS 0.3.20 ran its generic Prescott kernel on this CPU; verify restarted "
                    f"with OPENBLAS_CORETYPE={coretype}")
    assert "\n" not in line


@pytest.mark.parametrize("argv, environ, kernel, flags", [
    (SCRIPT, {}, SKYLAKEX, AVX512),                              # the kernel fits the CPU
    (SCRIPT, {}, None, AVX512),                                  # another BLAS, or unreadable
    (SCRIPT, {}, PRESCOTT, frozenset({"sse3", "avx"})),          # an old CPU: Prescott is its kernel
    (SCRIPT, {"OPENBLAS_CORETYPE": "Prescott"}, PRESCOTT, AVX512),  # the user's choice (or a restart's)
    (["/venv/bin/python", "-m", "pytest", "tests/verify"], {}, PRESCOTT, AVX512),  # a test runner calling verify
    (["/venv/bin/python", "/venv/bin/hylint", "check", "verify.py"], {}, PRESCOTT, AVX512),  # not verify
    (["/venv/bin/python", "-c", "import hylint"], {}, PRESCOTT, AVX512),
])
def test_no_restart(argv, environ, kernel, flags):
    assert openblas.restart_plan(argv, environ, kernel, flags) is None


def test_the_mxnet_backend_never_restarts(monkeypatch):
    monkeypatch.setattr(openblas, "openblas_kernel", lambda: pytest.fail("the kernel was read"))
    openblas.restart_if_slow("mxnet")


def test_the_restart_executes_the_same_interpreter_with_the_variable(monkeypatch, capsys):
    """restart_if_slow with a generic kernel: os.execve of sys.executable, the original arguments, the new env."""
    calls = []
    monkeypatch.setattr(sys, "orig_argv", SCRIPT, raising=False)
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    monkeypatch.setattr(openblas, "openblas_kernel", lambda: PRESCOTT)
    monkeypatch.setattr(openblas, "cpu_flags", lambda: AVX512)
    monkeypatch.setattr(os, "execve", lambda *args: calls.append(args))
    openblas.restart_if_slow(None)
    (executable, argv, env), = calls
    assert executable == sys.executable and argv == [sys.executable] + SCRIPT[1:]
    assert env["OPENBLAS_CORETYPE"] == "SkylakeX"
    assert capsys.readouterr().err.strip().endswith("verify restarted with OPENBLAS_CORETYPE=SkylakeX")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_the_variable_reaches_numpys_openblas_in_the_new_process():
    """The mechanism itself: OpenBLAS reads OPENBLAS_CORETYPE when numpy loads it (forced to Prescott here, a
    kernel every x86-64 CPU runs), so a process started with it runs a generic kernel (Prescott in numpy 1.23.5's
    OpenBLAS 0.3.20; numpy 2.4's 0.3.31 names it Katmai)."""
    from hylint.runtime import blas

    if blas.openblas_kernel() is None or not blas.openblas_kernel()[1].split()[2:] or \
            "DYNAMIC_ARCH" not in blas.openblas_kernel()[1]:
        pytest.skip("numpy's BLAS is not a DYNAMIC_ARCH OpenBLAS")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, "-c", "from hylint.runtime.blas import openblas_kernel; "
                          "print(openblas_kernel()[0])"], capture_output=True, text=True, check=True,
                         env=dict(os.environ, OPENBLAS_CORETYPE="Prescott", PYTHONPATH=root))
    assert out.stdout.strip().lower() in blas.PRE_AVX2_CORES
