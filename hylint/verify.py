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
import inspect
import io
import json
import itertools
import linecache
import os
import re
import sys
import traceback
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
class Location:
    """Where user code caused a failure: the file, the line and its text."""
    filename: str
    line: int
    code: str = ""

    def to_json(self) -> Dict[str, Any]:
        return {"file": self.filename, "line": self.line, "code": self.code}


@dataclass
class Outcome:
    status: str  # OK | ERROR | DIFFERENT
    error_type: str = ""
    message: str = ""
    outputs: List[np.ndarray] = field(default_factory=list, repr=False)
    # ERROR: when it failed ("eager", "construct", "trace", "graph", "cached graph", "hybridize") and where
    phase: str = ""
    location: Optional[Location] = None
    # DIFFERENT: the largest absolute difference (None when the shapes differ) and the shapes compared
    max_abs_diff: Optional[float] = None
    expected_shapes: List[Tuple[int, ...]] = field(default_factory=list)

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
# user frames: where an error comes from

_HYLINT_DIR = str(Path(__file__).resolve().parent)


def _library_dirs() -> Tuple[str, ...]:
    """Folders whose frames are not the user's: hylint, the standard library, installed packages, MXNet."""
    import sysconfig

    dirs = {_HYLINT_DIR}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            dirs.add(str(Path(sysconfig.get_path(key)).resolve()))
        except (KeyError, TypeError, OSError):
            pass
    for name in ("mxnet", "numpy"):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None):
            dirs.add(str(Path(module.__file__).resolve().parent))
    return tuple(dirs)


def is_user_file(filename: str, library: Optional[Tuple[str, ...]] = None) -> bool:
    """A frame of the user's code: not generated (``<string>``, ``<frozen ...>``), not hylint or a library."""
    if not filename or filename.startswith("<"):
        return False
    path = os.path.abspath(filename)
    return not any(path == d or path.startswith(d + os.sep) for d in (library or _library_dirs()))


def user_frames(error: BaseException) -> List[traceback.FrameSummary]:
    library = _library_dirs()
    return [frame for frame in traceback.extract_tb(error.__traceback__) if is_user_file(frame.filename, library)]


def user_traceback(error: BaseException) -> str:
    """The traceback of ``error`` with only the user's frames (hylint's and the libraries' left out)."""
    lines = ["Traceback (most recent call last; hylint's and the libraries' frames left out):\n"]
    lines += traceback.format_list(user_frames(error))
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines).rstrip("\n")


def _location(filename: str, line: int) -> Location:
    return Location(filename, line, linecache.getline(filename, line).strip())


# MXNet names the failing node as `Error in operator <node>:` or, for errors in a node's parameters,
# `in operator _backward_topk(name="<node>_backward", ...)`
_NODE_IN_MESSAGE = re.compile(r'Error in operator (\S+?):|in operator \w+\(name="([^"]+?)(?:_backward)?"')


def failure(error: BaseException, phase: str, origins: Optional[Dict[str, Tuple[str, int]]] = None) -> Outcome:
    """An ERROR outcome for ``error``, located: the graph node's creating line (the runtime records it on the
    error; for MXNet, ``origins`` maps node names to lines), else the innermost user frame of the traceback."""
    outcome = Outcome(ERROR, type(error).__name__, first_line(error), phase=phase)
    origin = getattr(error, "node_origin", None)
    if origin is None and origins:
        match = _NODE_IN_MESSAGE.search(str(error))
        if match:
            origin = origins.get(match.group(1) or match.group(2))
    if origin is not None and phase not in ("eager", "construct"):
        outcome.phase = "graph"
        outcome.location = _location(*origin)
        return outcome
    frames = user_frames(error)
    if frames:
        outcome.location = _location(frames[-1].filename, frames[-1].lineno)
    return outcome


@contextlib.contextmanager
def node_origins(mx: Any) -> Iterator[Dict[str, Tuple[str, int]]]:
    """On real MXNet, record ``node name -> (file, line)`` of the user code that creates every operator node
    while active (every generated ``mx.sym`` operator goes through ``mxnet.symbol.register._symbol_creator``).
    The reference runtime records origins itself (``MXNetError.node_origin``): nothing to do there."""
    origins: Dict[str, Tuple[str, int]] = {}
    register = sys.modules.get("mxnet.symbol.register")
    original = getattr(register, "_symbol_creator", None)
    if getattr(mx, "__hylint_runtime__", False) or original is None:
        yield origins
        return
    library = _library_dirs()

    def creator(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        frame = sys._getframe(1)
        while frame is not None and not is_user_file(frame.f_code.co_filename, library):
            frame = frame.f_back
        if frame is not None:
            try:
                name = result.name
            except Exception:  # a grouped symbol has no single name
                name = None
            if name:
                origins.setdefault(name, (frame.f_code.co_filename, frame.f_lineno))
        return result

    register._symbol_creator = creator
    try:
        yield origins
    finally:
        register._symbol_creator = original


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
            raise VerifyError(f"the mxnet backend needs MXNet 1.x, which is not importable here "
                              f"({type(error).__name__}: {first_line(error)}); use --backend numpy "
                              f"(the reference runtime) or install mxnet") from None
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


class ImportFailure(VerifyError):
    """Executing the user's module raised: ``details`` is its traceback, trimmed to the user's frames."""

    def __init__(self, message: str, details: str) -> None:
        super().__init__(message)
        self.details = details


@contextlib.contextmanager
def user_import_scope(folder: Path) -> Iterator[None]:
    """The module's folder on ``sys.path`` (as for ``python file.py``); modules imported from it are
    forgotten afterwards, so the next run (perhaps on the other backend) imports them afresh."""
    folder_text = str(Path(folder).resolve())
    before = set(sys.modules)
    sys.path.insert(0, folder_text)
    try:
        yield
    finally:
        try:
            sys.path.remove(folder_text)
        except ValueError:
            pass
        for name in set(sys.modules) - before:
            file = getattr(sys.modules.get(name), "__file__", None) or ""
            if name.startswith("_hylint_verify_") or os.path.abspath(file).startswith(folder_text + os.sep):
                sys.modules.pop(name, None)


def load_source(text: str, filename: str, path: Path) -> ModuleType:
    """Execute ``text`` as a module (call inside :func:`backend`). ``filename`` names it in tracebacks and
    graph-node origins (an in-memory text is registered with ``linecache`` under it); ``__file__`` is ``path``.
    Raises :class:`ImportFailure` when it does not compile or its execution raises."""
    path = Path(path)
    name = f"_hylint_verify_{next(_counter)}_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}"
    notebook = path.suffix == ".ipynb"  # `text` is its code cells (hylint/notebook.py), not the file
    if filename != str(path) or not path.is_file() or notebook:
        linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    module = ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    try:
        code = None if notebook else compile(text, filename, "exec", dont_inherit=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if code is not None:
                exec(code, module.__dict__)
            else:  # cell by cell, as Jupyter runs them; the cells that raised are noted
                from hylint.notebook import run_cells

                module.__dict__["__hylint_notes__"] = run_cells(text, filename, module.__dict__)
    except Exception as error:
        sys.modules.pop(name, None)
        raise ImportFailure(f"{filename}: importing it failed: {type(error).__name__}: {first_line(error)}",
                            user_traceback(error)) from None
    return module


def load_module(path: Path) -> ModuleType:
    """Execute a module file under a unique name (call inside :func:`backend`)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise VerifyError(f"{path}: cannot be read: {error}") from None
    return load_source(text, str(path), path)


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


def structural_parameters(block: Any) -> Dict[str, Any]:
    """``attribute.path.name -> Parameter`` (gluon's ``_collect_params_with_prefix``); where a block lacks it,
    the global names with the block's prefix removed."""
    collect = getattr(block, "_collect_params_with_prefix", None)
    if collect is not None:
        return dict(collect())
    prefix = getattr(block, "prefix", "") or ""
    return {name[len(prefix):] if name.startswith(prefix) else name: param
            for name, param in block.collect_params().items()}


def set_parameters(mx: Any, block: Any, seed: int = 0) -> None:
    """Deterministic values for every non-constant parameter, keyed by its structural name under the block
    (``body.0.weight``: the same in every instance, unlike ``hybridsequential3_dense0_weight``)."""
    constant = getattr(getattr(mx.gluon, "parameter", None), "Constant", None)
    for key, param in sorted(structural_parameters(block).items()):
        if constant is not None and isinstance(param, constant):
            continue
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


def compare(expected: Sequence[np.ndarray], got: Sequence[np.ndarray]) -> Tuple[Optional[str], Optional[float]]:
    """``(why they differ, max |difference|)``; ``(None, max |d|)`` when equal within tolerance; the
    difference is None when counts or shapes differ."""
    if len(expected) != len(got):
        return f"{len(got)} outputs instead of {len(expected)}", None
    gap = 0.0
    for index, (a, b) in enumerate(zip(expected, got)):
        if a.shape != b.shape:
            return f"output {index}: shape {b.shape} instead of {a.shape}", None
        if not a.size:
            continue
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(invalid="ignore"):
            both_nan = np.isnan(a64) & np.isnan(b64)
            here = np.where(both_nan, 0.0, np.abs(a64 - b64))
        here_max = float(np.max(here)) if here.size else 0.0
        if not np.allclose(a64, b64, atol=ATOL, rtol=RTOL, equal_nan=True):
            return f"output {index}: values differ (max |d| = {here_max:.3g})", here_max
        gap = max(gap, here_max)
    return None, gap


def difference(expected: Sequence[np.ndarray], got: Sequence[np.ndarray]) -> Optional[str]:
    """Why two output lists differ, or None when equal (same count, shapes, values within tolerance)."""
    return compare(expected, got)[0]


def judge(outcome: Outcome, expected: Sequence[np.ndarray]) -> Outcome:
    """An OK outcome compared with ``expected``: DIFFERENT (with the gap and both shapes) when it differs."""
    if outcome.status != OK:
        return outcome
    why, gap = compare(expected, outcome.outputs)
    if why is None:
        outcome.max_abs_diff = gap
        return outcome
    return Outcome(DIFFERENT, message=why, outputs=outcome.outputs, phase=outcome.phase, max_abs_diff=gap,
                   expected_shapes=[tuple(a.shape) for a in expected])


def first_line(error: BaseException) -> str:
    """The line of an exception's message that says what failed (MXNet's start with a traceback banner)."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    chosen = next((line for line in lines if "Check failed" in line or "Error in operator" in line), None)
    if chosen is None:
        noise = ("Traceback", "File ", "[bt]", "Stack trace")
        useful = [line for line in lines if not line.startswith(noise)]
        if len(useful) == len(lines):  # a plain multi-line message (a block's repr inside it): all of it
            chosen = " ".join(lines)
        else:
            chosen = useful[-1] if useful else lines[0] if lines else ""
    # MXNet's C++ log prefix (`[06:42:26] ../src/.../elemwise_op_common.h:134: `) and its repeated type name
    chosen = re.sub(r"\[\d\d:\d\d:\d\d\] \S+:\d+: ", "", chosen)
    while chosen.startswith("MXNetError: "):
        chosen = chosen[len("MXNetError: "):]
    return chosen[:300]


def _call(mx: Any, block: Any, specs: Sequence[Any], seed: int, phase: str = "eager",
          origins: Optional[Dict[str, Tuple[str, int]]] = None) -> Outcome:
    inputs = make_inputs(mx, specs, seed)
    random = getattr(mx, "random", None)
    if random is not None and hasattr(random, "seed"):
        random.seed(seed)  # random operators draw the same numbers on every call where the backend can
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs = flatten_outputs(block(*inputs))
    except Exception as error:
        return failure(error, phase, origins)
    return Outcome(OK, outputs=outputs, phase=phase)


# ---------------------------------------------------------------------------------------------
# running blocks


def build_block(mx: Any, factory: Any, specs: Sequence[Any], seed: int = 0,
                kwargs: Optional[Dict[str, Any]] = None) -> Tuple[Any, Outcome]:
    """Construct (``factory(**kwargs)``), initialise, run once eagerly (completing deferred shapes) and
    set the deterministic parameters. Raises VerifyError when the factory does not give a Block."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            block = factory(**(kwargs or {}))
            if not isinstance(block, mx.gluon.Block):
                raise VerifyError(f"{getattr(factory, '__name__', factory)}() returned a "
                                  f"{type(block).__name__}, not a gluon Block")
            block.initialize()
    except VerifyError:
        raise
    except Exception as error:
        outcome = failure(error, "construct")
        outcome.message = "constructing: " + outcome.message
        return None, outcome
    first = _call(mx, block, specs, seed)  # completes deferred initialisation
    if first.status != OK:
        return block, first
    set_parameters(mx, block, seed)
    return block, Outcome(OK)


def build(mx: Any, module: ModuleType, name: str, specs: Sequence[Any], seed: int = 0) -> Tuple[Any, Outcome]:
    """:func:`build_block` for the class ``name`` of ``module``, constructed without arguments."""
    cls = getattr(module, name, None)
    if cls is None:
        raise VerifyError(f"EXAMPLES names {name!r}, which the module does not define")
    return build_block(mx, cls, specs, seed)


def run_hybridized(mx: Any, factory: Any, specs: Sequence[Any], expected: Sequence[np.ndarray], seed: int = 0,
                   kwargs: Optional[Dict[str, Any]] = None) -> List[Outcome]:
    """A fresh build with the same (name-seeded) parameters, hybridized and called twice: the trace,
    then the cached graph; each call compared with ``expected``."""
    block, built = build_block(mx, factory, specs, seed, kwargs)
    if built.status != OK:
        return [built]
    outcomes: List[Outcome] = []
    with node_origins(mx) as origins:
        try:
            block.hybridize()
        except Exception as error:
            outcome = failure(error, "hybridize", origins)
            outcome.message = "hybridize(): " + outcome.message
            return [outcome]
        for index in range(2):
            traced = index == 0 or outcomes[0].status == ERROR  # nothing is cached after a failed trace
            outcome = _call(mx, block, specs, seed, "trace" if traced else "cached graph", origins)
            outcomes.append(judge(outcome, expected))
    return outcomes


def run_block(mx: Any, module: ModuleType, name: str, specs: Sequence[Any], seed: int = 0,
              reference: Optional[Sequence[np.ndarray]] = None) -> BlockResult:
    """Eager run, then two hybridized runs compared with ``reference`` (default: this block's eager output)."""
    cls = getattr(module, name, None)
    if cls is None:
        raise VerifyError(f"EXAMPLES names {name!r}, which the module does not define")
    return run_factory(mx, cls, specs, seed, None, reference, name)


def run_factory(mx: Any, factory: Any, specs: Sequence[Any], seed: int = 0, kwargs: Optional[Dict[str, Any]] = None,
                reference: Optional[Sequence[np.ndarray]] = None, name: str = "") -> BlockResult:
    """Build and run eagerly (compared with ``reference`` when given), then :func:`run_hybridized` against
    ``reference`` (default: the eager output)."""
    block, built = build_block(mx, factory, specs, seed, kwargs)
    if built.status != OK:
        return BlockResult(name, built, [])
    eager = _call(mx, block, specs, seed)
    if eager.status != OK:
        return BlockResult(name, eager, [])
    expected = list(reference) if reference is not None else eager.outputs
    if reference is not None:
        eager = judge(eager, expected)
    return BlockResult(name, eager, run_hybridized(mx, factory, specs, expected, seed, kwargs))


def verify_file(path: Path, backend_name: str = "mxnet", seed: int = 0,
                reference: Optional[Dict[str, Sequence[np.ndarray]]] = None) -> Dict[str, BlockResult]:
    """Every EXAMPLES block of ``path``; ``reference`` maps block names to expected outputs."""
    with backend(backend_name) as mx, user_import_scope(Path(path).parent), _quiet():
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


@contextlib.contextmanager
def _quiet() -> Iterator[io.StringIO]:
    """What the user's code (``print(x)`` in hybrid_forward) and the backend print goes to a buffer, not
    into hylint's report."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        yield buffer


# ---------------------------------------------------------------------------------------------
# `hylint verify`: one user target, its fixes proven numerically

OK_AS_IS, FIXED, FAILS, EAGER_ERROR = "hybridizes", "fixed", "fails", "eager-error"
MAX_EVIDENCE_ROUNDS = 8
# the elementwise (non-broadcasting) graph operators behind Symbol's tensor-tensor operators
ELEMENTWISE_OPS = {
    "_plus": "broadcast_add", "_minus": "broadcast_sub", "_mul": "broadcast_mul", "_div": "broadcast_div",
    "_mod": "broadcast_mod", "_power": "broadcast_power", "_equal": "broadcast_equal",
    "_not_equal": "broadcast_not_equal", "_greater": "broadcast_greater",
    "_greater_equal": "broadcast_greater_equal", "_lesser": "broadcast_lesser",
    "_lesser_equal": "broadcast_lesser_equal",
}
_SHAPE_MISMATCH = re.compile(r"expected \[[\d, ]*\], got \[")


@dataclass
class Target:
    """``path::name`` with its inputs: a Block subclass or a function returning a Block."""
    path: Path
    name: str
    inputs: List[Any]
    kwargs: Dict[str, Any] = field(default_factory=dict)
    backend: str = "numpy"
    seed: int = 0

    @property
    def label(self) -> str:
        return f"{self.path}::{self.name}"


def parse_target(text: str) -> Tuple[Path, str]:
    path, sep, name = text.rpartition("::")
    if not sep or not path or not name.isidentifier():
        raise VerifyError(f"target {text!r} is not path/to/file.py::Name")
    return Path(path), name


def parse_shape(text: Any) -> Tuple[int, ...]:
    """``16x1x28x28`` (or a list of ints) -> ``(16, 1, 28, 28)``; every dimension a positive integer."""
    if isinstance(text, (list, tuple)) and all(isinstance(d, int) and not isinstance(d, bool) for d in text):
        dims = list(text)
    elif isinstance(text, str) and re.fullmatch(r"\s*\d+(\s*[xX]\s*\d+)*\s*", text):
        dims = [int(d) for d in re.split(r"\s*[xX]\s*", text.strip())]
    else:
        raise VerifyError(f"input shape {text!r} is not like 16x1x28x28")
    if not dims or any(d <= 0 for d in dims):
        raise VerifyError(f"input shape {text!r} must have positive dimensions")
    return tuple(dims)


VERIFY_KEYS = {"target": str, "inputs": list, "kwargs": dict, "backend": str}


def targets_from_config(entries: Sequence[Dict[str, Any]], root: Path, where: str) -> List[Target]:
    """``[[tool.hylint.verify]]`` entries -> targets (paths relative to ``root``); VerifyError naming the key."""
    targets = []
    for number, entry in enumerate(entries, 1):
        at = f"{where}: [[tool.hylint.verify]] entry {number}"
        for key, value in entry.items():
            if key not in VERIFY_KEYS:
                raise VerifyError(f"{at}: unknown key `{key}` (known: {', '.join(VERIFY_KEYS)})")
            if not isinstance(value, VERIFY_KEYS[key]):
                raise VerifyError(f"{at}: `{key}` must be a {VERIFY_KEYS[key].__name__.replace('dict', 'table')}"
                                  f", got {value!r}")
        for key in ("target", "inputs"):
            if key not in entry:
                raise VerifyError(f"{at}: `{key}` is required")
        try:
            path, name = parse_target(entry["target"])
            inputs = [parse_shape(shape) for shape in entry["inputs"]]
        except VerifyError as error:
            raise VerifyError(f"{at}: {error}") from None
        if not inputs:
            raise VerifyError(f"{at}: `inputs` must name at least one input shape")
        backend_name = entry.get("backend", "numpy")
        if backend_name not in BACKENDS:
            raise VerifyError(f"{at}: `backend` must be one of {', '.join(BACKENDS)}, got {backend_name!r}")
        if not path.is_absolute():
            path = root / path
            try:  # shown relative to the current folder when it is under it
                path = path.relative_to(Path.cwd().resolve())
            except ValueError:
                pass
        targets.append(Target(path, name, inputs,
                              dict(entry.get("kwargs", {})), backend_name))
    return targets


@dataclass
class AppliedFix:
    code: str
    name: str
    line: int
    message: str
    applicability: str
    evidence: bool = False  # an opt-in HY102 fix, applied because the hybridized run failed at its operator
    code_line: str = ""
    cell: Optional[int] = None  # in a notebook: the cell `line` is counted in

    def to_json(self) -> Dict[str, Any]:
        return {"code": self.code, "name": self.name, "line": self.line, "message": self.message,
                "applicability": self.applicability, "evidence": self.evidence, "source": self.code_line,
                **({"cell": self.cell} if self.cell is not None else {})}


@dataclass
class TargetReport:
    target: Target
    eager: Outcome
    hybridized: Optional[Outcome] = None
    fixes: List[AppliedFix] = field(default_factory=list)
    fixed: Optional[Outcome] = None  # the fixed source, hybridized (or its eager run, when that differs)
    remaining: List[Any] = field(default_factory=list)  # diagnostics without an applied fix
    verdict: str = FAILS
    check_fix_source: Optional[str] = None  # what `hylint check --fix` writes (None: no change)
    notes: List[str] = field(default_factory=list)
    written: bool = False

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict in (OK_AS_IS, FIXED) else 1

    def to_json(self) -> Dict[str, Any]:
        return {
            "target": self.target.label, "backend": self.target.backend, "seed": self.target.seed,
            "inputs": [list(shape) for shape in self.target.inputs], "kwargs": self.target.kwargs,
            "verdict": self.verdict, "exit_code": self.exit_code,
            "eager": outcome_json(self.eager),
            "hybridized": outcome_json(self.hybridized) if self.hybridized else None,
            "fixes": [fix.to_json() for fix in self.fixes],
            "fixed": outcome_json(self.fixed) if self.fixed else None,
            "remaining": [{"code": d.code, "name": d.name, "line": d.start[0], "message": d.message,
                           **({"cell": d.cell} if getattr(d, "cell", None) is not None else {})}
                          for d in self.remaining],
            "written": self.written, "notes": self.notes,
        }


def outcome_json(outcome: Outcome) -> Dict[str, Any]:
    return {
        "status": outcome.status, "phase": (outcome.phase or None) if outcome.status != OK else None,
        "error_type": outcome.error_type or None,
        "message": outcome.message or None,
        "location": outcome.location.to_json() if outcome.location else None,
        "max_abs_diff": outcome.max_abs_diff,
        "shapes": [list(a.shape) for a in outcome.outputs],
        "expected_shapes": [list(s) for s in outcome.expected_shapes] if outcome.status == DIFFERENT else None,
    }


def summarize(outcomes: Sequence[Outcome]) -> Outcome:
    """The first error of the hybridized calls, else the first difference, else the last (ok) call."""
    for status in (ERROR, DIFFERENT):
        for outcome in outcomes:
            if outcome.status == status:
                return outcome
    return outcomes[-1]


def resolve_factory(mx: Any, module: ModuleType, name: str, label: str) -> Any:
    obj = getattr(module, name, None)
    if obj is None:
        raise VerifyError(f"{label}: the module defines no {name!r}")
    if isinstance(obj, type):
        if not issubclass(obj, mx.gluon.Block):
            raise VerifyError(f"{label}: {name} is a class but not a gluon Block")
        return obj
    if callable(obj):
        return obj
    raise VerifyError(f"{label}: {name} is neither a Block subclass nor a function returning a Block")


def _fixed_filename(path: Path, rounds: int) -> str:
    return f"{path} (fixed)" if not rounds else f"{path} (fixed, +{rounds} HY102)"


def _evidence_fix(outcome: Outcome, text: str, filename: str) -> Optional[Any]:
    """The HY102 diagnostic (with a fix) whose operator the hybridized run failed at, or None: a shape
    mismatch at an elementwise graph node created on a line where HY102 flags that operator."""
    if outcome.status != ERROR or outcome.phase != "graph" or outcome.location is None:
        return None
    if outcome.location.filename != filename or not _SHAPE_MISMATCH.search(outcome.message):
        return None
    node = _NODE_IN_MESSAGE.search(outcome.message)
    op = None
    if node and node.group(1):
        for candidate in sorted(ELEMENTWISE_OPS, key=len, reverse=True):
            if re.search(re.escape(candidate) + r"\d+$", node.group(1)):
                op = ELEMENTWISE_OPS[candidate]
                break
    if op is None:
        return None
    from hylint.engine import Linter
    from hylint.registry import select_rules

    diagnostics = Linter(select_rules(select=["HY102"])).lint_source(text, filename).diagnostics
    here = [d for d in diagnostics if d.start[0] == outcome.location.line and d.fix is not None
            and any(op + "(" in edit.content for edit in d.fix.edits)]
    # the innermost operator is created (and fails) first
    here.sort(key=lambda d: sum(e.end_offset - e.start_offset for e in d.fix.edits))
    return here[0] if here else None


def verify_target(target: Target, linter: Any, unsafe: bool = False, source: Optional[str] = None) -> TargetReport:
    """Run ``target`` eagerly and hybridized; fix its source in memory with ``linter`` and prove the fix.

    Raises VerifyError (ImportFailure with a trimmed traceback) for what is a usage problem: an unreadable
    or failing module, an unknown name, a backend that is not available."""
    from hylint.engine import FixLoopError, apply_fixes

    path = Path(target.path)
    if source is None:
        from hylint.files import SourceError, read_source

        if not path.is_file():
            raise VerifyError(f"{path}: no such file")
        try:
            source = read_source(path).text
        except SourceError as error:
            raise VerifyError(f"{path}: cannot be read: {error}") from None
    filename = str(path)
    specs = list(target.inputs)
    seed = target.seed
    with backend(target.backend) as mx, user_import_scope(path.parent), _quiet():
        linecache.checkcache(filename)
        module = load_source(source, filename, path)
        factory = resolve_factory(mx, module, target.name, target.label)
        try:
            inspect.signature(factory).bind(**target.kwargs)
        except TypeError as error:
            raise VerifyError(f"{target.label}: cannot be called with "
                              f"{'--kwargs ' + json.dumps(target.kwargs) if target.kwargs else 'no arguments'}: "
                              f"{error} (pass constructor arguments with --kwargs)") from None
        except ValueError:  # no signature to check (a builtin): let the call tell
            pass
        built_block, built = build_block(mx, factory, specs, seed, target.kwargs)
        report = TargetReport(target, built, notes=list(module.__dict__.get("__hylint_notes__", ())))
        if built.status != OK:
            report.verdict = EAGER_ERROR
            return _cell_positions(report, source)
        eager = _call(mx, built_block, specs, seed)
        report.eager = eager
        if eager.status != OK:
            report.verdict = EAGER_ERROR
            return _cell_positions(report, source)
        reference = eager.outputs
        report.hybridized = summarize(run_hybridized(mx, factory, specs, reference, seed, target.kwargs))

        # hylint's fixes, exactly as `hylint check --fix [--unsafe-fixes]` makes them
        try:
            result = linter.fix_source(source, filename, unsafe=unsafe)
        except FixLoopError as error:
            report.notes.append(f"fixing failed: {error}")
            result = None
        text = source
        if result is not None:
            allowed = {"safe", "unsafe"} if unsafe else {"safe"}
            original = linter.lint_source(source, filename).diagnostics
            report.fixes = [AppliedFix(d.code, d.name, d.start[0], d.message, d.fix.applicability.value,
                                       code_line=linecache.getline(filename, d.start[0]).strip())
                            for d in original if d.fix is not None and d.fix.applicability.value in allowed]
            report.remaining = list(result.diagnostics)
            report.notes.extend(result.messages)
            if result.source != source:
                report.check_fix_source = result.source
                text = result.source
        current = report.hybridized
        rounds = 0
        if text != source:
            current = _run_fixed(mx, text, _fixed_filename(path, 0), path, target, reference)
        while rounds < MAX_EVIDENCE_ROUNDS:
            fixed_name = _fixed_filename(path, rounds) if text != source else filename
            diagnostic = _evidence_fix(current, text, fixed_name)
            if diagnostic is None:
                break
            text, applied = apply_fixes(text, [diagnostic])
            rounds += 1
            report.fixes.append(AppliedFix(diagnostic.code, diagnostic.name, diagnostic.start[0], diagnostic.message,
                                           diagnostic.fix.applicability.value, evidence=True,
                                           code_line=linecache.getline(fixed_name, diagnostic.start[0]).strip()))
            current = _run_fixed(mx, text, _fixed_filename(path, rounds), path, target, reference)
        if text != source:
            report.fixed = current
        if rounds:
            report.notes.append(f"{rounds} opt-in HY102 fix{'es' if rounds > 1 else ''} applied because the "
                                f"hybridized run failed at {'their' if rounds > 1 else 'its'} operator; "
                                f"`hylint check --fix` does not make {'them' if rounds > 1 else 'it'} "
                                f"unless HY102 is selected (`--extend-select HY102`)")
        _cell_positions(report, source, result.source if result is not None else source)
        if report.hybridized.status == OK:
            report.verdict = OK_AS_IS
            if report.fixed is not None and report.fixed.status != OK:
                report.notes.append("hylint's fixes break this block, which hybridizes as it is")
        elif report.fixed is not None and report.fixed.status == OK:
            report.verdict = FIXED
        else:
            report.verdict = FAILS
        return report


def _cell_positions(report: TargetReport, source: str, fixed_source: Optional[str] = None) -> TargetReport:
    """A notebook's rows are its cells' rows: the lines named in the report become `cell N` and a row in it."""
    path = Path(report.target.path)
    if path.suffix != ".ipynb":
        return report
    from hylint.notebook import cell_of_row, map_diagnostics

    texts = {str(path): source, _fixed_filename(path, 0): fixed_source or source}
    for outcome in (report.eager, report.hybridized, report.fixed):
        location = outcome.location if outcome is not None else None
        if location is not None and location.filename in texts:
            found = cell_of_row(texts[location.filename], location.line)
            if found is not None:
                location.filename, location.line = f"{location.filename}:cell {found[0]}", found[1]
    for fix in report.fixes:
        found = None if fix.evidence else cell_of_row(source, fix.line)
        if found is not None:
            fix.cell, fix.line = found
    report.remaining = map_diagnostics(texts[_fixed_filename(path, 0)], report.remaining)
    return report


def _run_fixed(mx: Any, text: str, filename: str, path: Path, target: Target,
               reference: Sequence[np.ndarray]) -> Outcome:
    """The fixed source, loaded from memory: eager (must equal the reference: fixes never change eager
    results) and hybridized, compared with the original's eager output."""
    try:
        module = load_source(text, filename, path)
    except ImportFailure as error:
        return Outcome(ERROR, "ImportError", str(error), phase="import")
    factory = resolve_factory(mx, module, target.name, f"{filename}::{target.name}")
    result = run_factory(mx, factory, target.inputs, target.seed, target.kwargs, reference, target.name)
    if result.eager.status != OK:
        eager = result.eager
        eager.phase = "eager"
        eager.message = "the fixed source's eager run " + (
            "differs from the original's: " if eager.status == DIFFERENT else "fails: ") + eager.message
        return eager
    return summarize(result.hybrid)


def can_write(report: TargetReport) -> bool:
    """``--fix`` writes `hylint check --fix`'s output unless running proved it harmful: the fixed source's
    eager run differs or fails, or the block hybridized as it was and the fixed one does not."""
    if report.check_fix_source is None or report.fixed is None:
        return False
    if report.fixed.phase in ("eager", "import"):
        return False
    return not (report.verdict == OK_AS_IS and report.fixed.status != OK)


# ---------------------------------------------------------------------------------------------
# the human-readable report


def _describe(outcome: Outcome, reference_shapes: Sequence[Tuple[int, ...]] = ()) -> List[str]:
    if outcome.status == OK:
        shapes = ", ".join(str(tuple(a.shape)) for a in outcome.outputs)
        gap = "" if outcome.max_abs_diff is None else f" (max |d| = {outcome.max_abs_diff:.2g})"
        return [f"ok: output {shapes}" + (f" equals the eager output{gap}" if outcome.phase != "eager" else "")]
    if outcome.status == DIFFERENT:
        got = ", ".join(str(tuple(a.shape)) for a in outcome.outputs)
        want = ", ".join(str(tuple(s)) for s in outcome.expected_shapes)
        lines = [f"silently different: {outcome.message}",
                 f"output shapes {got}, eager {want}" + (f"; max |d| = {outcome.max_abs_diff:.3g}"
                                                          if outcome.max_abs_diff is not None else "")]
        return lines
    lines = [f"error ({outcome.phase}): {outcome.error_type}: {outcome.message}"]
    if outcome.location is not None:
        lines.append(f"at {outcome.location.filename}:{outcome.location.line}")
        if outcome.location.code:
            lines.append(f"    {outcome.location.code}")
    return lines


VERDICT_TEXT = {
    OK_AS_IS: "hybridizes as it is, with the eager output",
    FIXED: "the fixed source hybridizes and computes the eager output",
    FAILS: "does not hybridize correctly, fixed or not",
    EAGER_ERROR: "the block cannot be built or run eagerly: nothing to compare with (check --input and --kwargs)",
}


def _cell(item: Any) -> str:
    cell = getattr(item, "cell", None)
    return "" if cell is None else f"cell {cell} "


def render_full(report: TargetReport) -> str:
    t = report.target
    inputs = " ".join("x".join(str(d) for d in shape) for shape in t.inputs)
    out = [f"{t.label}  (backend {t.backend}, seed {t.seed}, input {inputs})"]

    def section(title: str, lines: List[str]) -> None:
        out.append(f"  {title:<12}{lines[0]}")
        out.extend(f"  {'':<12}{line}" for line in lines[1:])

    section("eager", _describe(report.eager))
    if report.hybridized is not None:
        section("hybridized", _describe(report.hybridized))
    if report.fixes:
        section("fixes", [f"{f.code} {_cell(f)}line {f.line}{' (fixed source)' if f.evidence else ''}: {f.message}"
                          + ("" if f.applicability == "safe" else f" [{f.applicability}]") for f in report.fixes])
    elif report.hybridized is not None and report.hybridized.status != OK:
        section("fixes", ["none available"])
    if report.fixed is not None:
        section("fixed", _describe(report.fixed))
    if report.remaining and report.verdict != OK_AS_IS:
        section("remaining", [f"{d.code} {_cell(d)}line {d.start[0]}: {d.message}" for d in report.remaining])
    for note in report.notes:
        section("note", [note])
    verdict = VERDICT_TEXT[report.verdict]
    if report.verdict == FIXED:
        codes = ", ".join(sorted({f.code for f in report.fixes}))
        verdict += f" ({codes})" + ("; written" if report.written else "; run with --fix to write it")
    section("verdict", [f"{report.verdict.upper()}: {verdict}"])
    return "\n".join(out)
