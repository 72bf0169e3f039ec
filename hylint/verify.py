"""Run the blocks of a module eagerly and hybridized, and compare: the numeric half of hylint.

A module names its blocks and their example inputs in a module-level ``EXAMPLES`` dict::

    EXAMPLES = {"Net": [(2, 3)], "Attention": [(2, 5, 8), {"shape": (2, 5), "dtype": "int32", "high": 5}]}

one entry per positional input: a shape tuple (float32, seeded standard normal), a dict with ``shape``
and optionally ``dtype``, ``low`` and ``high`` (seeded uniform integers in [low, high) for integer
dtypes, uniform floats otherwise), or a list of entries (a nested list input, e.g. RNN states).
Every block is constructed without arguments; every call gets freshly made inputs.

For each block: build it, initialise its parameters deterministically (every non-constant parameter
gets values seeded from its name without the block's own prefix, so two instances of the same block,
even from two versions of a module, get identical parameters), run it eagerly, then hybridize and run
it twice. Outcomes are ``ok``, ``error`` (exception type and message) or ``different`` (no exception,
different output: the silent failures).

Backends: ``mxnet`` (real MXNet 1.9.1) and ``numpy`` (the reference runtime, through
``hylint.runtime.activate()``). MXNet is imported only when a block runs, never at import time.
"""
from __future__ import annotations

import contextlib
import importlib.util
import itertools
import sys
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

OK, ERROR, DIFFERENT = "ok", "error", "different"
BACKENDS = ("mxnet", "numpy")
ATOL = RTOL = 1e-5
_counter = itertools.count()


class VerifyError(Exception):
    """The module cannot be verified (no EXAMPLES, unknown block, backend unavailable): the message says why."""


@dataclass
class Outcome:
    status: str  # OK | ERROR | DIFFERENT
    error_type: str = ""
    message: str = ""
    outputs: List[np.ndarray] = field(default_factory=list, repr=False)

    def describe(self) -> str:
        if self.status == ERROR:
            return f"{self.error_type}: {self.message}"
        return self.status if not self.message else f"{self.status} ({self.message})"


@dataclass
class BlockResult:
    name: str
    eager: Outcome
    hybrid: List[Outcome]  # one per hybridized call (two calls; empty if eager failed)

    @property
    def hybrid_status(self) -> str:
        """ERROR if any hybridized call raised, else DIFFERENT if any differed, else OK."""
        statuses = [o.status for o in self.hybrid]
        if not statuses:
            return ERROR
        return ERROR if ERROR in statuses else DIFFERENT if DIFFERENT in statuses else OK


# ---------------------------------------------------------------------------------------------
# backends and module loading


@contextlib.contextmanager
def backend(name: str) -> Iterator[Any]:
    """Within the block, ``import mxnet`` gives the chosen backend; yields that module."""
    if name not in BACKENDS:
        raise VerifyError(f"unknown backend {name!r} (choose from: {', '.join(BACKENDS)})")
    if name == "mxnet":
        try:
            import mxnet  # noqa: F401
        except Exception as error:  # ImportError, or a broken native library
            raise VerifyError(f"MXNet is not importable: {type(error).__name__}: {error}") from None
        yield sys.modules["mxnet"]
        return
    try:
        import hylint.runtime as runtime
        activate = runtime.activate
    except (ImportError, AttributeError):
        raise VerifyError("the NumPy reference runtime (hylint.runtime.activate) is not available") from None
    with activate():
        import mxnet  # the runtime's import surface while activated
        yield mxnet


def load_module(path: Path) -> ModuleType:
    """Execute a module file under a unique name (call inside :func:`backend`)."""
    path = Path(path)
    name = f"_hylint_verify_{next(_counter)}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise VerifyError(f"{path}: cannot be loaded as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            spec.loader.exec_module(module)
    except Exception as error:
        sys.modules.pop(name, None)
        raise VerifyError(f"{path}: importing it failed: {type(error).__name__}: {first_line(error)}") from None
    return module


def examples(module: ModuleType) -> Dict[str, List[Any]]:
    value = getattr(module, "EXAMPLES", None)
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, (list, tuple))
                                              for k, v in value.items()):
        raise VerifyError(f"{getattr(module, '__file__', module.__name__)}: no module-level "
                          f"EXAMPLES = {{'Block': [input shapes]}}")
    return {k: list(v) for k, v in value.items()}


# ---------------------------------------------------------------------------------------------
# inputs, parameters, outputs


def make_inputs(mx: Any, specs: Sequence[Any], seed: int = 0) -> List[Any]:
    """Fresh, seeded arrays (a new set for every call, so a block that writes into its input cannot
    change what the next call sees); a list in ``specs`` is a nested list input of arrays."""
    rng = np.random.RandomState(seed)

    def one(spec: Any) -> Any:
        if isinstance(spec, list):
            return [one(item) for item in spec]
        if isinstance(spec, dict):
            shape, dtype = tuple(spec["shape"]), np.dtype(spec.get("dtype", "float32"))
            integer = dtype.kind in "iu"
            low, high = spec.get("low", 0 if integer else -1.0), spec.get("high", 2 if integer else 1.0)
            values = rng.randint(low, high, size=shape) if integer else rng.uniform(low, high, size=shape)
        else:
            shape, dtype = tuple(spec), np.dtype("float32")
            values = rng.standard_normal(shape)
        return mx.nd.array(values.astype(dtype), dtype=dtype)

    return [one(spec) for spec in specs]


def set_parameters(mx: Any, block: Any, seed: int = 0) -> None:
    """Deterministic values for every non-constant parameter, keyed by its name under the block."""
    prefix = getattr(block, "prefix", "") or ""
    constant = getattr(getattr(mx.gluon, "parameter", None), "Constant", None)
    for name, param in sorted(block.collect_params().items()):
        if constant is not None and isinstance(param, constant):
            continue
        key = name[len(prefix):] if name.startswith(prefix) else name
        rng = np.random.RandomState((seed + zlib.crc32(key.encode())) % (2 ** 32))
        shape = tuple(param.shape)
        if key.endswith(("var", "gamma")):
            values = rng.uniform(0.5, 1.5, size=shape)
        else:
            values = rng.uniform(-1.0, 1.0, size=shape)
        param.set_data(mx.nd.array(values, dtype=param.dtype))


def flatten_outputs(value: Any) -> List[np.ndarray]:
    if isinstance(value, (list, tuple)):
        return [array for item in value for array in flatten_outputs(item)]
    if hasattr(value, "asnumpy"):
        return [value.asnumpy()]
    raise TypeError(f"output of type {type(value).__name__} is not an NDArray")


def difference(expected: Sequence[np.ndarray], got: Sequence[np.ndarray]) -> Optional[str]:
    """Why two output lists differ, or None when equal (same count, shapes, values within tolerance)."""
    if len(expected) != len(got):
        return f"{len(got)} outputs instead of {len(expected)}"
    for index, (a, b) in enumerate(zip(expected, got)):
        if a.shape != b.shape:
            return f"output {index}: shape {b.shape} instead of {a.shape}"
        if a.size and not np.allclose(a.astype(np.float64), b.astype(np.float64), atol=ATOL, rtol=RTOL, equal_nan=True):
            gap = np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))
            return f"output {index}: values differ (max |d| = {gap:.3g})"
    return None


def first_line(error: BaseException) -> str:
    """The line of an exception's message that says what failed (MXNet's start with a traceback banner)."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    for line in lines:
        if "Check failed" in line or "Error in operator" in line:
            return line[:300]
    noise = ("Traceback", "File ", "[bt]", "Stack trace")
    useful = [line for line in lines if not line.startswith(noise)]
    return (useful[-1] if useful else lines[0] if lines else "")[:300]


def _call(mx: Any, block: Any, specs: Sequence[Any], seed: int) -> Outcome:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs = flatten_outputs(block(*make_inputs(mx, specs, seed)))
    except Exception as error:
        return Outcome(ERROR, type(error).__name__, first_line(error))
    return Outcome(OK, outputs=outputs)


# ---------------------------------------------------------------------------------------------
# running blocks


def build(mx: Any, module: ModuleType, name: str, specs: Sequence[Any], seed: int = 0) -> Tuple[Any, Outcome]:
    """Construct, initialise (running once eagerly for deferred shapes) and set the parameters."""
    cls = getattr(module, name, None)
    if cls is None:
        raise VerifyError(f"EXAMPLES names {name!r}, which the module does not define")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            block = cls()
            block.initialize()
    except Exception as error:
        return None, Outcome(ERROR, type(error).__name__, "constructing: " + first_line(error))
    first = _call(mx, block, specs, seed)  # completes deferred initialisation
    if first.status != OK:
        return block, first
    set_parameters(mx, block, seed)
    return block, Outcome(OK)


def run_block(mx: Any, module: ModuleType, name: str, specs: Sequence[Any], seed: int = 0,
              reference: Optional[Sequence[np.ndarray]] = None) -> BlockResult:
    """Eager run, then two hybridized runs compared with ``reference`` (default: this block's eager output)."""
    block, built = build(mx, module, name, specs, seed)
    if built.status != OK:
        return BlockResult(name, built, [])
    eager = _call(mx, block, specs, seed)
    if eager.status != OK:
        return BlockResult(name, eager, [])
    expected = list(reference) if reference is not None else eager.outputs
    if reference is not None:
        gap = difference(expected, eager.outputs)
        if gap is not None:
            eager = Outcome(DIFFERENT, message=gap, outputs=eager.outputs)
    hybrid = []
    try:
        block.hybridize()
    except Exception as error:
        return BlockResult(name, eager, [Outcome(ERROR, type(error).__name__, "hybridize(): " + first_line(error))])
    for _ in range(2):
        outcome = _call(mx, block, specs, seed)
        if outcome.status == OK:
            gap = difference(expected, outcome.outputs)
            if gap is not None:
                outcome = Outcome(DIFFERENT, message=gap, outputs=outcome.outputs)
        hybrid.append(outcome)
    return BlockResult(name, eager, hybrid)


def verify_file(path: Path, backend_name: str = "mxnet", seed: int = 0,
                reference: Optional[Dict[str, Sequence[np.ndarray]]] = None) -> Dict[str, BlockResult]:
    """Every EXAMPLES block of ``path``; ``reference`` maps block names to expected outputs."""
    with backend(backend_name) as mx:
        module = load_module(Path(path))
        results = {}
        for name, specs in examples(module).items():
            expected = reference.get(name) if reference is not None else None
            results[name] = run_block(mx, module, name, specs, seed, expected)
        return results


def compare_files(before: Path, after: Path, backend_name: str = "mxnet",
                  seed: int = 0) -> Tuple[Dict[str, BlockResult], Dict[str, BlockResult]]:
    """Run ``before`` (reference: its own eager outputs), then ``after`` against ``before``'s eager outputs."""
    original = verify_file(before, backend_name, seed)
    reference = {name: result.eager.outputs for name, result in original.items() if result.eager.status == OK}
    rewritten = verify_file(after, backend_name, seed, reference)
    return original, rewritten
