"""Run the blocks of a module eagerly and hybridized, and compare: the numeric half of hylint.

A module names its blocks and their example inputs in a module-level ``EXAMPLES`` dict::

    EXAMPLES = {"Net": [(2, 3)], "Attention": [(2, 5, 8), {"shape": (2, 5), "dtype": "int32", "high": 5}]}

one entry per positional input: a shape tuple (float32, seeded standard normal), a dict with ``shape``
and optionally ``dtype``, ``low`` and ``high`` (seeded uniform integers in [low, high) for integer
dtypes, uniform floats otherwise), or a list of entries (a nested list input, e.g. RNN states).
Every block is constructed without arguments; every call gets freshly made inputs.

For each block: build it, initialise its parameters deterministically (every non-constant parameter
gets values seeded from its name without the block's own prefix, so two instances of the same block,
even from two versions of a module, get identical parameters; weights are scaled by their fan-in), run
it eagerly, then hybridize and run
it twice. Outcomes are ``ok``, ``error`` (exception type and message) or ``different`` (no exception,
different output: the silent failures).

Backends: ``mxnet`` (real MXNet 1.9.1) and ``numpy`` (the reference runtime, through
``hylint.runtime.activate()``). MXNet is imported only when a block runs, never at import time.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import importlib.util
import inspect
import io
import json
import itertools
import linecache
import os
import re
import sys
import time
import traceback
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

OK, ERROR, DIFFERENT = "ok", "error", "different"
TRAIN_PHASE = "train mode"
BACKENDS = ("mxnet", "numpy")
# eager vs hybridized outputs are equal when max|d| <= ATOL + RTOL * max|eager|, per output: deep networks
# reorder float32 sums once traced (measured on MXNet 1.9.1: resnet152_v2 2.3e-4, preresnet110 1.5e-3 on
# outputs of their scale), while the silent changes verify exists for (a broadcast, a frozen branch) move
# outputs by a sizable part of their scale; the zoo labeller (benchmarks/zoo/label.py) uses the same rule
ATOL, RTOL = 1e-4, 1e-3
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

_HYLINT_DIR = str(Path(__file__).resolve().parent.parent)  # the hylint package


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


# folders that are the user's code although installed (a `package.module:name` target's package)
_TARGET_PACKAGES: List[str] = []


def is_user_file(filename: str, library: Optional[Tuple[str, ...]] = None) -> bool:
    """A frame of the user's code: not generated (``<string>``, ``<frozen ...>``), not hylint or a library,
    unless it is in the package of the module target being verified."""
    if not filename or filename.startswith("<"):
        return False
    path = os.path.abspath(filename)
    if any(path.startswith(d + os.sep) for d in _TARGET_PACKAGES):
        return True
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


def _package_names(module: str) -> List[str]:
    top = module.split(".")[0]
    return [name for name in sys.modules if name == top or name.startswith(top + ".")]


def forget_package(module: str) -> None:
    """Drop ``module``'s top-level package and all its submodules from ``sys.modules``: the next import
    executes them afresh (on the backend active then, with any source override)."""
    for name in _package_names(module):
        sys.modules.pop(name, None)


@contextlib.contextmanager
def module_import_scope(module: str, folder: Path) -> Iterator[None]:
    """For a ``package.module:name`` target: ``folder`` first on ``sys.path`` (as ``python -m`` puts the
    current folder); the target's package is imported afresh on the active backend (a copy imported
    before, perhaps on real MXNet, is set aside and put back afterwards)."""
    saved = {name: sys.modules.pop(name) for name in _package_names(module)}
    try:
        with user_import_scope(folder):
            spec = _find_spec(module.split(".")[0])
            roots = [os.path.abspath(d) for d in (spec.submodule_search_locations or [])] if spec else []
            _TARGET_PACKAGES.extend(roots)  # a failure in the target's package is located there
            try:
                yield
            finally:
                del _TARGET_PACKAGES[len(_TARGET_PACKAGES) - len(roots):]
    finally:
        forget_package(module)
        sys.modules.update(saved)


def _find_spec(name: str) -> Any:
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


class _SourceOverride:
    """A ``sys.meta_path`` finder: the module whose file is ``path`` executes ``text`` instead, compiled
    under ``filename`` (so tracebacks and graph-node origins name the fixed source)."""

    def __init__(self, path: Path, text: str, filename: str) -> None:
        self.path, self.text, self.filename = os.path.abspath(path), text, filename

    def find_spec(self, fullname: str, search: Any = None, target: Any = None) -> Any:
        spec = importlib.machinery.PathFinder.find_spec(fullname, search)
        if spec is None or not spec.origin or os.path.abspath(spec.origin) != self.path:
            return None
        spec.loader = self
        return spec

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        module.__file__ = self.path
        exec(compile(self.text, self.filename, "exec", dont_inherit=True), module.__dict__)


@contextlib.contextmanager
def source_override(path: Path, text: str, filename: str) -> Iterator[None]:
    linecache.cache[filename] = (len(text), None, text.splitlines(keepends=True), filename)
    finder = _SourceOverride(path, text, filename)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


def _tail_traceback(error: BaseException, frames: int = 4) -> str:
    """The last frames of ``error``'s traceback: a library target has no user frames to show."""
    lines = ["Traceback (most recent call last; the last frames):\n"]
    lines += traceback.format_list(traceback.extract_tb(error.__traceback__)[-frames:])
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines).rstrip("\n")


def import_attribute(module: str, attr: str, label: str) -> Any:
    """``module``'s (dotted) attribute ``attr``; VerifyError (ImportFailure with the traceback) when not."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj: Any = importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name and (module == error.name or module.startswith(error.name + ".")):
            raise VerifyError(f"{label}: no module named {error.name!r} (is it installed, or is its folder the "
                              f"current one?)") from None
        raise ImportFailure(f"{label}: importing {module} failed: {type(error).__name__}: {first_line(error)}",
                            user_traceback(error) if user_frames(error) else _tail_traceback(error)) from None
    except Exception as error:
        raise ImportFailure(f"{label}: importing {module} failed: {type(error).__name__}: {first_line(error)}",
                            user_traceback(error) if user_frames(error) else _tail_traceback(error)) from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise VerifyError(f"{label}: {getattr(obj, '__name__', module)} has no attribute {part!r}")
        obj = getattr(obj, part)
    return obj


def module_factory(mx: Any, module: str, attr: str, label: str) -> Any:
    """What builds the block of a ``module:attr`` target: the Block class, the function, or for a Block
    instance a function giving that instance first, then a fresh one (the module imported again)."""
    obj = import_attribute(module, attr, label)
    if isinstance(obj, mx.gluon.Block):
        given = [obj]

        def instance() -> Any:
            if given:
                return given.pop()
            forget_package(module)
            return import_attribute(module, attr, label)

        instance.__name__ = attr
        return instance
    return block_factory(mx, obj, attr, label, "a Block subclass, a Block instance nor")


def block_factory(mx: Any, obj: Any, name: str, label: str, kinds: str = "a Block subclass nor") -> Any:
    """``obj`` when it is a Block subclass or a function (that should return a Block); VerifyError if not."""
    if isinstance(obj, type):
        if not issubclass(obj, mx.gluon.Block):
            raise VerifyError(f"{label}: {name} is a class but not a gluon Block")
        return obj
    if callable(obj):
        return obj
    raise VerifyError(f"{label}: {name} is neither {kinds} a function returning a Block "
                      f"(it is a {type(obj).__name__})")


def _file_to_fix(block: Any, hybridized: Outcome) -> Optional[Path]:
    """The file verify fixes for a module target: the one holding the line the hybridized run failed at,
    else the one defining the block's class."""
    if hybridized.location is not None and os.path.isfile(hybridized.location.filename):
        return Path(hybridized.location.filename)
    try:
        found = inspect.getsourcefile(type(block))
    except (TypeError, OSError):
        return None
    return Path(found) if found and os.path.isfile(found) else None


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


def load_source(text: str, filename: str, path: Path) -> ModuleType:
    """Execute ``text`` as a module (call inside :func:`backend`). ``filename`` names it in tracebacks and
    graph-node origins (an in-memory text is registered with ``linecache`` under it); ``__file__`` is ``path``.
    Raises :class:`ImportFailure` when it does not compile or its execution raises."""
    path = Path(path)
    name = f"_hylint_verify_{next(_counter)}_{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}"
    notebook = path.suffix == ".ipynb"  # `text` is its code cells (hylint/batch/notebook.py), not the file
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
                from hylint.batch.notebook import run_cells

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


@dataclass(frozen=True)
class Named:
    """A keyword input: ``spec`` (as in EXAMPLES) passed as the forward argument called ``name``."""
    name: str
    spec: Any


def make_inputs(mx: Any, specs: Sequence[Any], seed: int = 0) -> List[Any]:
    """Fresh, seeded arrays (a new set for every call, so a block that writes into its input cannot
    change what the next call sees); a list in ``specs`` is a nested list input of arrays, a
    :class:`Named` entry gives a :class:`Named` array."""
    rng = np.random.RandomState(seed)

    def one(spec: Any) -> Any:
        if isinstance(spec, Named):
            return Named(spec.name, one(spec.spec))
        if isinstance(spec, list):
            return [one(item) for item in spec]
        if isinstance(spec, dict):
            shape, dtype = tuple(spec["shape"]), np.dtype(spec.get("dtype", "float32"))
            integer = dtype.kind in "iu" or spec.get("integers", False)  # whole numbers, perhaps as floats
            low, high = spec.get("low", 0 if integer else -1.0), spec.get("high", 2 if integer else 1.0)
            values = rng.randint(low, high, size=shape) if integer else rng.uniform(low, high, size=shape)
        else:
            shape, dtype = tuple(spec), np.dtype("float32")
            values = rng.standard_normal(shape)
        return mx.nd.array(values.astype(dtype), dtype=dtype)

    return [one(spec) for spec in specs]


def forward_parameters(block: Any) -> List[inspect.Parameter]:
    """The inputs a block's call takes, in order: ``hybrid_forward``'s after ``F`` (unless the class
    defines its own ``forward``), else ``forward``'s."""
    forward = getattr(type(block), "forward", None)
    library_forward = (getattr(forward, "__module__", "") or "").split(".")[0] in ("mxnet", "hylint")
    method, skip = (block.hybrid_forward, 1) if library_forward and hasattr(block, "hybrid_forward") \
        else (block.forward, 0)  # 1: hybrid_forward's F
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):
        return []
    params = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
    return params[skip:]


def call_arguments(block: Any, values: Sequence[Any]) -> List[Any]:
    """Positional arguments for ``block(...)`` (MXNet 1.x blocks take no keywords): the positional values,
    then each :class:`Named` value at its parameter's position, the defaults of the parameters between."""
    positional = [v for v in values if not isinstance(v, Named)]
    named = {v.name: v.spec for v in values if isinstance(v, Named)}
    if not named:
        return positional
    params = forward_parameters(block)
    names = [p.name for p in params if p.kind != p.VAR_POSITIONAL]
    unknown = [name for name in named if name not in names[len(positional):]]
    if unknown:
        taken = names[:len(positional)]
        why = (f"it is given positionally already" if unknown[0] in taken else
               f"{type(block).__name__}'s inputs are: {', '.join(names) or 'unknown'}")
        raise VerifyError(f"keyword input `{unknown[0]}` does not name an input of {type(block).__name__} ({why})")
    last = max(names.index(name) for name in named)
    args = list(positional)
    for param in params[len(positional):last + 1]:
        if param.name in named:
            args.append(named[param.name])
        elif param.default is not param.empty:
            args.append(param.default)
        else:
            raise VerifyError(f"input `{param.name}` of {type(block).__name__} comes before "
                              f"`{params[last].name}` and has no default: give it with --input")
    return args


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
        elif len(shape) >= 2:
            # a weight: scaled by its fan-in (variance 1 / fan_in), so deep models keep their outputs near
            # unit scale; with uniform(-1, 1) a ResNet's outputs reach 1e21, where float32 rounding alone
            # makes the eager and hybridized outputs differ beyond the tolerance
            bound = float(np.sqrt(3.0 / max(1, int(np.prod(shape[1:])))))
            values = rng.uniform(-bound, bound, size=shape)
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
            here = np.where(both_nan | (a64 == b64), 0.0, np.abs(a64 - b64))  # NaN/inf only where they differ
        here_max = float(np.max(here)) if here.size else 0.0
        finite = np.abs(a64[np.isfinite(a64)])
        scale = float(finite.max()) if finite.size else 0.0
        if not here_max <= ATOL + RTOL * scale:
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
          origins: Optional[Dict[str, Tuple[str, int]]] = None, random_seed: Optional[int] = None) -> Outcome:
    inputs = make_inputs(mx, specs, seed)
    random = getattr(mx, "random", None)
    if random is not None and hasattr(random, "seed"):
        # random operators draw the same numbers on every call where the backend can
        random.seed(seed if random_seed is None else random_seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outputs = flatten_outputs(block(*call_arguments(block, inputs)))
    except VerifyError:
        raise
    except Exception as error:
        check_runtime_gap(mx, error)
        return failure(error, phase, origins)
    return Outcome(OK, outputs=outputs, phase=phase)


class RuntimeGap(VerifyError):
    """The reference runtime lacks a part of MXNet that the block uses: not a verdict on the block."""


# an MXNet name the runtime's modules do not define (they are named mxnet.* or hylint.runtime.*)
_MISSING_NAME = re.compile(r"^module '((?:mxnet|hylint\.runtime)(?:\.\w+)*)' has no attribute '(\w+)'$")


def runtime_gap(error: BaseException) -> Optional[str]:
    """The MXNet name behind ``error`` when it says the runtime lacks it: ``RuntimeUnsupported``, or a
    runtime ``mxnet`` module without an attribute that MXNet 1.9.1's module has (``mxnet_names.json``; a
    name MXNet lacks too, such as ``F.array`` on a Symbol, is the user's error). Else None."""
    name = getattr(error, "name", None)
    if type(error).__name__ == "RuntimeUnsupported" and isinstance(name, str):
        return name
    match = _MISSING_NAME.match(str(error)) if isinstance(error, AttributeError) else None
    if match is None:
        return None
    module = re.sub(r"^hylint\.runtime", "mxnet", match.group(1))
    return f"{module}.{match.group(2)}" if match.group(2) in mxnet_names().get(module, ()) else None


def mxnet_names() -> Dict[str, frozenset]:
    """MXNet 1.9.1's attribute names per module the runtime stands in for (hylint/facts/mxnet_names.json);
    empty when the table is missing."""
    from hylint.facts.names import mxnet_names as measured
    return measured()


def check_runtime_gap(mx: Any, error: BaseException) -> None:
    """On the reference runtime, a part it lacks stops verify (exit 2) with the name and where it is used,
    instead of a verdict: real MXNet may well run it."""
    if not getattr(mx, "__hylint_runtime__", False):
        return
    name = runtime_gap(error)
    if name is None:
        return
    frames = user_frames(error)
    where = f" (used at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    raise RuntimeGap(f"hylint's NumPy runtime does not provide {name}{where}: run verify with --backend mxnet "
                     f"(real MXNet 1.x) for this block") from None


# ---------------------------------------------------------------------------------------------
# running blocks


def build_block(mx: Any, factory: Any, specs: Sequence[Any], seed: int = 0,
                kwargs: Optional[Dict[str, Any]] = None) -> Tuple[Any, Outcome]:
    """Construct (``factory(**kwargs)``), initialise, run once eagerly when a parameter's shape is deferred
    (to complete it) and set the deterministic parameters. Raises VerifyError when the factory does not give
    a Block. Without deferred shapes there is no warm-up call, so the caller's call is the block's first (a
    block that can run only once, e.g. one holding an ``autograd.Function`` instance, runs as the user's)."""
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
        check_runtime_gap(mx, error)
        outcome = failure(error, "construct")
        outcome.message = "constructing: " + outcome.message
        return None, outcome
    if any(not _known_shape(param) for param in structural_parameters(block).values()):
        first = _call(mx, block, specs, seed)  # completes deferred initialisation
        if first.status != OK:
            return block, first
    set_parameters(mx, block, seed)
    return block, Outcome(OK)


def _known_shape(param: Any) -> bool:
    """Whether a parameter's shape is complete (Gluon 1.x marks an unknown dimension with 0)."""
    shape = getattr(param, "shape", None)
    return shape is not None and all(d > 0 for d in shape)


def build(mx: Any, module: ModuleType, name: str, specs: Sequence[Any], seed: int = 0) -> Tuple[Any, Outcome]:
    """:func:`build_block` for the class ``name`` of ``module``, constructed without arguments."""
    cls = getattr(module, name, None)
    if cls is None:
        raise VerifyError(f"EXAMPLES names {name!r}, which the module does not define")
    return build_block(mx, cls, specs, seed)


def run_hybridized(mx: Any, factory: Any, specs: Sequence[Any], expected: Sequence[np.ndarray], seed: int = 0,
                   kwargs: Optional[Dict[str, Any]] = None, phases: Optional["Phases"] = None,
                   train_expected: Optional[Sequence[np.ndarray]] = None,
                   notes: Optional[List[str]] = None) -> List[Outcome]:
    """A fresh build with the same (name-seeded) parameters, hybridized and called twice: the trace,
    then the cached graph; each call compared with ``expected``. With ``train_expected`` (the eager
    train-mode output), a third call in train mode follows (see :func:`train_mode_call`)."""
    phases = phases or Phases(record=False)
    with phases("hybrid build"):
        block, built = build_block(mx, factory, specs, seed, kwargs)
    if built.status != OK:
        return [built]
    outcomes: List[Outcome] = []
    with node_origins(mx) as origins:
        try:
            block.hybridize()
        except Exception as error:
            check_runtime_gap(mx, error)
            outcome = failure(error, "hybridize", origins)
            outcome.message = "hybridize(): " + outcome.message
            return [outcome]
        for index in range(2):
            traced = index == 0 or outcomes[0].status == ERROR  # nothing is cached after a failed trace
            with phases("hybridize and trace" if index == 0 else "hybridized call"):
                outcome = _call(mx, block, specs, seed, "trace" if traced else "cached graph", origins)
            outcomes.append(judge(outcome, expected))
        if train_expected is not None and all(o.status == OK for o in outcomes):
            with phases("train-mode call"):
                outcome = train_mode_call(mx, block, specs, seed, train_expected, origins, notes)
            outcomes.append(outcome)
    return outcomes


def in_train_mode(mx: Any, block: Any, specs: Sequence[Any], seed: int, phase: str = "eager",
                  origins: Optional[Dict[str, Tuple[str, int]]] = None, random_seed: Optional[int] = None) -> Outcome:
    """One call inside ``autograd.train_mode()`` (what ``autograd.record()`` sets for training, without
    recording): Python branches on ``autograd.is_training()`` and train-mode operators (BatchNorm's batch
    statistics, Dropout) take their training path."""
    with mx.autograd.train_mode():
        return _call(mx, block, specs, seed, phase, origins, random_seed)


def train_mode_call(mx: Any, block: Any, specs: Sequence[Any], seed: int, expected: Sequence[np.ndarray],
                    origins: Optional[Dict[str, Tuple[str, int]]] = None,
                    notes: Optional[List[str]] = None) -> Outcome:
    """The hybridized ``block`` (traced in predict mode) called in train mode, compared with the eager
    train-mode output ``expected``: a branch on the training mode is frozen at trace time. When they differ
    and the hybridized train-mode output follows the seed (random operators such as Dropout: eager and
    cached-graph draws differ for one seed), nothing can be compared: the outcome is OK with a note."""
    outcome = judge(in_train_mode(mx, block, specs, seed, TRAIN_PHASE, origins), expected)
    if outcome.status != DIFFERENT:
        return outcome
    again = in_train_mode(mx, block, specs, seed, TRAIN_PHASE, origins, random_seed=seed + 1)  # same inputs
    if again.status == OK and difference(outcome.outputs, again.outputs) is not None:
        if notes is not None:
            notes.append("train mode: the hybridized output follows the seed (random operators), so it is not "
                         "compared with the eager one")
        return Outcome(OK, outputs=outcome.outputs, phase=TRAIN_PHASE)
    outcome.message = "in train mode (the graph was traced in predict mode): " + outcome.message
    return outcome


def run_block(mx: Any, module: ModuleType, name: str, specs: Sequence[Any], seed: int = 0,
              reference: Optional[Sequence[np.ndarray]] = None) -> BlockResult:
    """Eager run, then two hybridized runs compared with ``reference`` (default: this block's eager output)."""
    cls = getattr(module, name, None)
    if cls is None:
        raise VerifyError(f"EXAMPLES names {name!r}, which the module does not define")
    return run_factory(mx, cls, specs, seed, None, reference, name)


def run_factory(mx: Any, factory: Any, specs: Sequence[Any], seed: int = 0, kwargs: Optional[Dict[str, Any]] = None,
                reference: Optional[Sequence[np.ndarray]] = None, name: str = "", train: bool = False) -> BlockResult:
    """Build and run eagerly (compared with ``reference`` when given), then :func:`run_hybridized` against
    ``reference`` (default: the eager output); with ``train``, also the train-mode call against this
    block's own eager train-mode output."""
    block, built = build_block(mx, factory, specs, seed, kwargs)
    if built.status != OK:
        return BlockResult(name, built, [])
    eager = _call(mx, block, specs, seed)
    if eager.status != OK:
        return BlockResult(name, eager, [])
    expected = list(reference) if reference is not None else eager.outputs
    if reference is not None:
        eager = judge(eager, expected)
    train_expected = None
    if train:
        train_eager = in_train_mode(mx, block, specs, seed)
        train_expected = train_eager.outputs if train_eager.status == OK else None
    return BlockResult(name, eager, run_hybridized(mx, factory, specs, expected, seed, kwargs,
                                                   train_expected=train_expected))


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
    """``path::name`` (a file) or ``module:name`` (an importable module) with its inputs: ``name`` is a Block
    subclass, a function returning a Block or (module form) a Block instance, perhaps dotted (``models.Net``).
    ``inputs`` holds one spec per input (see :func:`make_inputs`), keyword inputs as :class:`Named` last."""
    path: Optional[Path]
    name: str
    inputs: List[Any]
    kwargs: Dict[str, Any] = field(default_factory=dict)
    backend: str = "numpy"
    seed: int = 0
    module: Optional[str] = None  # the module form: its dotted name (``path`` is then the file verify fixes)
    search: Optional[Path] = None  # module form: the folder put first on sys.path (default: the current one)
    train: bool = False  # also compare a train-mode call of the hybridized block (traced in predict mode)

    @property
    def label(self) -> str:
        return f"{self.module}:{self.name}" if self.module else f"{self.path}::{self.name}"


_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"


def parse_target(text: str) -> Tuple[Optional[Path], Optional[str], str]:
    """``path/to/file.py::Name`` -> ``(path, None, name)``; ``package.module:attr`` -> ``(None, module, attr)``."""
    path, sep, name = text.rpartition("::")
    if sep:
        if not path or not name.isidentifier():
            raise VerifyError(f"target {text!r} is not path/to/file.py::Name")
        return Path(path), None, name
    match = re.fullmatch(rf"({_DOTTED}):({_DOTTED})", text.strip())
    if match is None:
        raise VerifyError(f"target {text!r} is not path/to/file.py::Name (a file) or package.module:name (a module)")
    return None, match.group(1), match.group(2)


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


INPUT_DTYPES = ("float16", "float32", "float64", "uint8", "int8", "int32", "int64")
_NUMBER = r"-?\d+(?:\.\d+)?"
_INPUT = re.compile(rf"(?:(?P<name>[A-Za-z_]\w*)=)?(?P<shape>[^:=]+)(?::(?P<dtype>\w+))?"
                    rf"(?::(?P<low>{_NUMBER})\.\.(?P<high>{_NUMBER})(?P<whole>:int)?)?")


def parse_input(text: Any) -> Any:
    """One ``--input``: ``[name=]SHAPE[:DTYPE[:LOW..HIGH[:int]]]``, e.g. ``2x3``, ``x=1x3x224x224:float32``,
    ``valid_length=2:int32:1..8`` (integers drawn from [1, 8)), ``5x2:float32:0..8:int`` (whole numbers in a
    float array: token ids as gluonnlp feeds them), or ``[SPEC, SPEC, ...]``, a (nested) list input such as RNN
    states. A plain float32 shape gives a shape tuple (seeded normal values), anything else an EXAMPLES-style
    dict; a name makes it a :class:`Named` keyword input."""
    if not isinstance(text, str):
        return parse_shape(text)
    name, bracket = re.fullmatch(r"\s*(?:([A-Za-z_]\w*)=)?(\[?).*", text, re.S).groups()
    if bracket:
        items = _list_items(text.strip()[len(name) + 1 if name else 0:], text)
        return Named(name, items) if name else items
    match = _INPUT.fullmatch(text.strip())
    if match is None:
        raise VerifyError(f"input {text!r} is not [name=]SHAPE[:DTYPE[:LOW..HIGH]] (e.g. 2x3, "
                          f"x=1x3x224x224:float32, valid_length=2:int32:1..8)")
    shape = parse_shape(match.group("shape"))
    dtype = match.group("dtype") or "float32"
    if dtype not in INPUT_DTYPES:
        raise VerifyError(f"input {text!r}: unknown dtype {dtype!r} (choose from: {', '.join(INPUT_DTYPES)})")
    spec: Any = shape
    if dtype != "float32" or match.group("low") is not None:
        spec = {"shape": shape, "dtype": dtype}
        if match.group("low") is not None:
            low, high = float(match.group("low")), float(match.group("high"))
            if np.dtype(dtype).kind in "iu":
                if low != int(low) or high != int(high):
                    raise VerifyError(f"input {text!r}: an integer dtype needs integer bounds")
                low, high = int(low), int(high)
            if not low < high:
                raise VerifyError(f"input {text!r}: LOW..HIGH needs LOW < HIGH (values are drawn from [LOW, HIGH))")
            spec.update(low=low, high=high)
            if match.group("whole"):
                if low != int(low) or high != int(high):
                    raise VerifyError(f"input {text!r}: `:int` (whole numbers) needs integer bounds")
                if np.dtype(dtype).kind == "f":
                    spec.update(low=int(low), high=int(high), integers=True)
    return Named(match.group("name"), spec) if match.group("name") else spec


def _list_items(text: str, whole: str) -> List[Any]:
    """``[SPEC, SPEC, [SPEC, ...]]`` -> the list of parsed specs (names are not allowed inside)."""
    if not text.endswith("]"):
        raise VerifyError(f"input {whole!r}: a list input is [SPEC, SPEC, ...] (e.g. [2x2x200, 2x2x200])")
    items, depth, start, inner = [], 0, 0, text[1:-1]
    for index, char in enumerate(inner + ","):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth < 0:
            raise VerifyError(f"input {whole!r}: unbalanced brackets")
        if char == "," and depth == 0:
            part = inner[start:index].strip()
            if part:
                spec = parse_input(part)
                if isinstance(spec, Named):
                    raise VerifyError(f"input {whole!r}: names go before the list (name=[...]), not inside it")
                items.append(spec)
            start = index + 1
    if depth != 0 or not items:
        raise VerifyError(f"input {whole!r}: a list input is [SPEC, SPEC, ...] (e.g. [2x2x200, 2x2x200])")
    return items


def parse_inputs(texts: Sequence[Any]) -> List[Any]:
    """Every ``--input``; keyword inputs after the positional ones, each name once."""
    specs = [parse_input(text) for text in texts]
    seen = set()
    for index, spec in enumerate(specs):
        if isinstance(spec, Named):
            if spec.name in seen:
                raise VerifyError(f"keyword input `{spec.name}` is given twice")
            seen.add(spec.name)
        elif seen:
            raise VerifyError(f"input {texts[index]!r}: positional inputs come before keyword inputs (name=SHAPE)")
    return specs


def input_text(spec: Any) -> str:
    """An input spec as ``--input`` writes it."""
    if isinstance(spec, Named):
        return f"{spec.name}={input_text(spec.spec)}"
    if isinstance(spec, list):
        return "[" + ", ".join(input_text(item) for item in spec) + "]"
    if isinstance(spec, dict):
        text = "x".join(str(d) for d in spec["shape"]) + f":{spec.get('dtype', 'float32')}"
        return text + (f":{spec['low']}..{spec['high']}" if "low" in spec else "") + (
            ":int" if spec.get("integers") else "")
    return "x".join(str(d) for d in spec)


def input_json(spec: Any) -> Any:
    if isinstance(spec, Named):
        return {"name": spec.name, **dict(_as_dict(spec.spec))}
    return _as_dict(spec) if isinstance(spec, dict) else [input_json(s) for s in spec] if isinstance(spec, list) \
        else list(spec)


def _as_dict(spec: Any) -> Dict[str, Any]:
    if isinstance(spec, dict):
        return {**spec, "shape": list(spec["shape"])}
    return {"shape": list(spec), "dtype": "float32"}


VERIFY_KEYS = {"target": str, "inputs": list, "kwargs": dict, "backend": str, "train_mode": bool}


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
            path, module, name = parse_target(entry["target"])
            inputs = parse_inputs(entry["inputs"])
        except VerifyError as error:
            raise VerifyError(f"{at}: {error}") from None
        if not inputs:
            raise VerifyError(f"{at}: `inputs` must name at least one input shape")
        backend_name = entry.get("backend", "numpy")
        if backend_name not in BACKENDS:
            raise VerifyError(f"{at}: `backend` must be one of {', '.join(BACKENDS)}, got {backend_name!r}")
        if path is not None and not path.is_absolute():
            path = root / path
            try:  # shown relative to the current folder when it is under it
                path = path.relative_to(Path.cwd().resolve())
            except ValueError:
                pass
        targets.append(Target(path, name, inputs, dict(entry.get("kwargs", {})), backend_name, module=module,
                              search=root if module else None, train=entry.get("train_mode", False)))
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
    proven: bool = False  # an unsafe fix on a line the block executes, proven by running on the given inputs
    why_unsafe: str = ""
    replacement: str = ""  # the fix's new text, and the text it replaces
    replaced: str = ""
    cell: Optional[int] = None  # in a notebook: the cell `line` is counted in

    def to_json(self) -> Dict[str, Any]:
        data = {"code": self.code, "name": self.name, "line": self.line, "message": self.message,
                "applicability": self.applicability, "evidence": self.evidence, "source": self.code_line,
                **({"cell": self.cell} if self.cell is not None else {})}
        if self.applicability == "unsafe":
            data.update(proven=self.proven, why_unsafe=self.why_unsafe, replaced=self.replaced,
                        replacement=self.replacement)
        return data


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
    unsafe_source: Optional[str] = None  # the safe fixes plus the unsafe ones proven on the inputs
    write_source: Optional[str] = None  # what --fix writes: check_fix_source, or with --unsafe-fixes unsafe_source
    phases: Optional["Phases"] = None
    calls: List[Outcome] = field(default_factory=list)  # every hybridized call (train mode last, if run)
    train_eager: Optional[Outcome] = None  # the eager train-mode call (Target.train)

    @property
    def proven_unsafe(self) -> List["AppliedFix"]:
        return [fix for fix in self.fixes if fix.proven]

    @property
    def exit_code(self) -> int:
        return 0 if self.verdict in (OK_AS_IS, FIXED) else 1

    def to_json(self) -> Dict[str, Any]:
        return {
            "target": self.target.label, "file": str(self.target.path) if self.target.path else None,
            "backend": self.target.backend, "seed": self.target.seed,
            "inputs": [input_json(spec) for spec in self.target.inputs], "kwargs": self.target.kwargs,
            "verdict": self.verdict, "exit_code": self.exit_code,
            "eager": outcome_json(self.eager),
            "hybridized": outcome_json(self.hybridized) if self.hybridized else None,
            "fixes": [fix.to_json() for fix in self.fixes],
            "fixed": outcome_json(self.fixed) if self.fixed else None,
            "remaining": [{"code": d.code, "name": d.name, "line": d.start[0], "message": d.message,
                           **({"cell": d.cell} if getattr(d, "cell", None) is not None else {})}
                          for d in self.remaining],
            "train_mode": self.target.train,
            "train_eager": outcome_json(self.train_eager) if self.train_eager else None,
            "written": self.written, "notes": self.notes,
            "phases": self.phases.to_json() if self.phases is not None else [],
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
    """The first error of the hybridized calls, else the first difference, else the last (ok) predict-mode
    call (a train-mode call's outputs are not the eager output's counterpart)."""
    for status in (ERROR, DIFFERENT):
        for outcome in outcomes:
            if outcome.status == status:
                return outcome
    predict = [outcome for outcome in outcomes if outcome.phase != TRAIN_PHASE]
    return (predict or list(outcomes))[-1]


def output_arrays(report: "TargetReport") -> Dict[str, np.ndarray]:
    """The outputs a run computed, for ``--save-outputs``: ``eager/<i>`` (the eager call), ``hybridized/<i>``
    (the last predict-mode hybridized call that returned, its outputs even when they differ), and with
    ``--train-mode`` ``train_eager/<i>`` and ``train_hybridized/<i>``. Absent when that call raised."""
    arrays: Dict[str, np.ndarray] = {}

    def add(kind: str, outcome: Optional[Outcome]) -> None:
        if outcome is not None and outcome.status != ERROR:
            arrays.update({f"{kind}/{index}": array for index, array in enumerate(outcome.outputs)})

    add("eager", report.eager)
    returned = [o for o in report.calls if o.phase != TRAIN_PHASE and o.status != ERROR and o.outputs]
    add("hybridized", returned[-1] if returned else None)
    add("train_eager", report.train_eager)
    add("train_hybridized", next((o for o in report.calls if o.phase == TRAIN_PHASE), None))
    return arrays


def save_outputs(report: "TargetReport", path: Path) -> None:
    """Write :func:`output_arrays` to ``path`` (a NumPy ``.npz``); VerifyError when it cannot be written."""
    try:
        with open(path, "wb") as handle:
            np.savez(handle, **output_arrays(report))
    except OSError as error:
        raise VerifyError(f"--save-outputs {path}: cannot write it: {error}") from None


def resolve_factory(mx: Any, module: ModuleType, name: str, label: str) -> Any:
    obj = getattr(module, name, None)
    if obj is None:
        raise VerifyError(f"{label}: the module defines no {name!r}")
    return block_factory(mx, obj, name, label)


def _fixed_filename(path: Path, rounds: int, unsafe: bool = False) -> str:
    kind = "fixed, unsafe" if unsafe else "fixed"
    return f"{path} ({kind})" if not rounds else f"{path} ({kind}, +{rounds} HY102)"


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
    from hylint.lint.engine import Linter
    from hylint.selection import select_rules

    diagnostics = Linter(select_rules(select=["HY102"])).lint_source(text, filename).diagnostics
    here = [d for d in diagnostics if d.start[0] == outcome.location.line and d.fix is not None
            and any(op + "(" in edit.content for edit in d.fix.edits)]
    # the innermost operator is created (and fails) first
    here.sort(key=lambda d: sum(e.end_offset - e.start_offset for e in d.fix.edits))
    return here[0] if here else None


def _signature_check(factory: Any, target: Target) -> None:
    try:
        inspect.signature(factory).bind(**target.kwargs)
    except TypeError as error:
        raise VerifyError(f"{target.label}: cannot be called with "
                          f"{'--kwargs ' + json.dumps(target.kwargs) if target.kwargs else 'no arguments'}: "
                          f"{error} (pass constructor arguments with --kwargs)") from None
    except ValueError:  # no signature to check (a builtin): let the call tell
        pass


def _read(path: Path) -> str:
    from hylint.batch.files import SourceError, read_source

    if not path.is_file():
        raise VerifyError(f"{path}: no such file")
    try:
        return read_source(path).text
    except SourceError as error:
        raise VerifyError(f"{path}: cannot be read: {error}") from None


def verify_target(target: Target, linter: Any, unsafe: bool = False, source: Optional[str] = None) -> TargetReport:
    """Run ``target`` eagerly and hybridized; fix its source in memory with ``linter`` and prove the fix.

    Raises VerifyError (ImportFailure with a trimmed traceback) for what is a usage problem: an unreadable
    or failing module, an unknown name, a backend that is not available."""
    phases = Phases()
    specs, seed = list(target.inputs), target.seed
    if target.module is None:
        path = Path(target.path)
        if source is None:
            source = _read(path)
        scope: Any = user_import_scope(path.parent)
    else:
        scope = module_import_scope(target.module, target.search or Path.cwd())
    with backend(target.backend) as mx, scope, _quiet():
        with phases("import"):
            if target.module is None:
                linecache.checkcache(str(path))
                module = load_source(source, str(path), path)
                factory = resolve_factory(mx, module, target.name, target.label)
            else:
                factory = module_factory(mx, target.module, target.name, target.label)
        _signature_check(factory, target)
        with phases("build"):
            built_block, built = build_block(mx, factory, specs, seed, target.kwargs)
        report = TargetReport(target, built, phases=phases)
        if target.module is None:
            report.notes.extend(module.__dict__.get("__hylint_notes__", ()))
        if built.status != OK:
            report.verdict = EAGER_ERROR
            return _cell_positions(report, source)
        with phases("eager"):
            report.eager = eager = _call(mx, built_block, specs, seed)
        if eager.status != OK:
            report.verdict = EAGER_ERROR
            return _cell_positions(report, source)
        reference = eager.outputs
        train_expected = None
        if target.train:
            with phases("train-mode eager"):
                report.train_eager = in_train_mode(mx, built_block, specs, seed)
            if report.train_eager.status == OK:
                train_expected = report.train_eager.outputs
            else:
                report.notes.append(f"train mode not compared: the eager train-mode call fails: "
                                    f"{report.train_eager.describe()}")
        report.calls = run_hybridized(mx, factory, specs, reference, seed, target.kwargs, phases, train_expected,
                                      report.notes)
        report.hybridized = summarize(report.calls)
        if target.module is not None:
            path = _file_to_fix(built_block, report.hybridized)
            if path is None:
                report.notes.append(f"{type(built_block).__name__} has no source file: nothing to fix")
                report.verdict = OK_AS_IS if report.hybridized.status == OK else FAILS
                return report
            target.path = path
            source = _read(path)
        with phases("fixes"):
            _fix_and_prove(mx, report, linter, source, path, reference, unsafe)
        return _cell_positions(report, source, report.check_fix_source or source)


def _cell_positions(report: TargetReport, source: str, fixed_source: Optional[str] = None) -> TargetReport:
    """A notebook's rows are its cells' rows: the lines named in the report become `cell N` and a row in it."""
    if report.target.path is None or Path(report.target.path).suffix != ".ipynb":
        return report
    from hylint.batch.notebook import cell_of_row, map_diagnostics

    path = Path(report.target.path)
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


def _fix_and_prove(mx: Any, report: TargetReport, linter: Any, source: str, path: Path,
                   reference: Sequence[np.ndarray], unsafe: bool) -> None:
    """hylint's safe fixes (exactly `hylint check --fix`'s), run; when they are not enough, the unsafe fixes
    on lines this run executes, each proven by running: the fixed block's eager and hybridized outputs must
    equal the original's eager output."""
    from hylint.lint.engine import FixLoopError

    filename = str(path)
    try:
        result = linter.fix_source(source, filename, unsafe=False)
    except FixLoopError as error:
        report.notes.append(f"fixing failed: {error}")
        result = None
    text = source
    if result is not None:
        original = linter.lint_source(source, filename).diagnostics
        report.fixes = [AppliedFix(d.code, d.name, d.start[0], d.message, d.fix.applicability.value,
                                   code_line=linecache.getline(filename, d.start[0]).strip())
                        for d in original if d.fix is not None and d.fix.applicability.value == "safe"]
        report.remaining = list(result.diagnostics)
        report.notes.extend(result.messages)
        if result.source != source:
            report.check_fix_source = report.write_source = result.source
            text = result.source
    current = report.hybridized
    if text != source:
        current = _run_fixed(mx, text, _fixed_filename(path, 0), path, report.target, reference)
    text, current, _ = _evidence_rounds(mx, report, text, source, current, path, reference)
    if text != source:
        report.fixed = current
    if report.hybridized.status != OK and current.status != OK and result is not None:
        _try_unsafe(mx, report, linter, report.check_fix_source or source, source, path, reference, unsafe)
    if report.hybridized.status == OK:
        report.verdict = OK_AS_IS
        if report.fixed is not None and report.fixed.status != OK:
            report.notes.append("hylint's fixes break this block, which hybridizes as it is")
    elif report.fixed is not None and report.fixed.status == OK:
        report.verdict = FIXED
    else:
        report.verdict = FAILS


def _evidence_rounds(mx: Any, report: TargetReport, text: str, source: str, current: Outcome, path: Path,
                     reference: Sequence[np.ndarray], unsafe_step: bool = False) -> Tuple[str, Outcome, int]:
    """The opt-in HY102 fixes at the operators the hybridized run fails at, one per round."""
    from hylint.lint.engine import apply_fixes

    rounds = 0
    while rounds < MAX_EVIDENCE_ROUNDS:
        fixed_name = _fixed_filename(path, rounds, unsafe_step) if text != source else str(path)
        diagnostic = _evidence_fix(current, text, fixed_name)
        if diagnostic is None:
            break
        text, applied = apply_fixes(text, [diagnostic])
        rounds += 1
        report.fixes.append(AppliedFix(diagnostic.code, diagnostic.name, diagnostic.start[0], diagnostic.message,
                                       diagnostic.fix.applicability.value, evidence=True,
                                       code_line=linecache.getline(fixed_name, diagnostic.start[0]).strip()))
        current = _run_fixed(mx, text, _fixed_filename(path, rounds, unsafe_step), path, report.target, reference)
    if rounds:
        report.notes.append(f"{rounds} opt-in HY102 fix{'es' if rounds > 1 else ''} applied because the "
                            f"hybridized run failed at {'their' if rounds > 1 else 'its'} operator; "
                            f"`hylint check --fix` does not make {'them' if rounds > 1 else 'it'} "
                            f"unless HY102 is selected (`--extend-select HY102`)")
    return text, current, rounds


def _try_unsafe(mx: Any, report: TargetReport, linter: Any, text: str, source: str, path: Path,
                reference: Sequence[np.ndarray], unsafe: bool) -> None:
    """Apply the unsafe fixes whose lines the block executes (on ``text``, the safe-fixed source) and run:
    proven when the fixed block computes the original's eager output, eagerly and hybridized."""
    from hylint.lint.engine import FixLoopError, apply_fixes

    filename = _fixed_filename(path, 0) if text != source else str(path)
    candidates = [d for d in linter.lint_source(text, filename).diagnostics
                  if d.fix is not None and d.fix.applicability.value == "unsafe"]
    if not candidates:
        return
    try:
        executed = _executed_lines(mx, text, filename, path, report.target)
    except VerifyError as error:  # the safe-fixed source does not import or build: its run said so already
        report.notes.append(f"unsafe fixes not tried: {error}")
        return
    exercised = [d for d in candidates if executed.intersection(range(d.start[0], d.end[0] + 1))]
    if not exercised:
        return
    fixed_text, applied = apply_fixes(text, exercised)
    try:  # a safe fix the unsafe ones made possible
        fixed_text = linter.fix_source(fixed_text, filename, unsafe=False).source
    except FixLoopError:
        pass
    unsafe_name = _fixed_filename(path, 0, True)
    outcome = _run_fixed(mx, fixed_text, unsafe_name, path, report.target, reference)
    proven_text, outcome, _ = _evidence_rounds(mx, report, fixed_text, source, outcome, path, reference, True)
    fixes = [AppliedFix(d.code, d.name, d.start[0], d.message, "unsafe",
                        code_line=linecache.getline(filename, d.start[0]).strip(),
                        proven=outcome.status == OK, why_unsafe=unsafe_reason(d.code),
                        replacement=" / ".join(edit.content for edit in d.fix.edits),
                        replaced=" / ".join(text[edit.start_offset:edit.end_offset] for edit in d.fix.edits))
             for d in applied]
    names = ", ".join(f"{f.code} line {f.line}" for f in fixes)
    if outcome.status != OK:
        report.notes.append(f"tried the unsafe fix{'es' if len(fixes) > 1 else ''} {names} on the lines this run "
                            f"executes: not proven, {'; '.join(_describe(outcome))}")
        return
    report.fixes.extend(fixes)
    report.fixed = outcome
    report.unsafe_source = fixed_text
    # what remains on the lines this block runs (the module's other blocks are not this run's business)
    report.remaining = [d for d in linter.lint_source(proven_text, str(path)).diagnostics
                        if (d.fix is None or d.fix.applicability.value != "safe")
                        and executed.intersection(range(d.start[0], d.end[0] + 1))]
    if unsafe:
        report.write_source = fixed_text
    for fix in fixes:
        report.notes.append(f"{fix.code} line {fix.line}, `{fix.replaced}` -> `{fix.replacement}`, is unsafe in "
                            f"general (the rule's doc: \"{fix.why_unsafe}\"). Proven on these inputs: with it, the "
                            f"block's eager and hybridized outputs equal the original's eager output")


def unsafe_reason(code: str) -> str:
    """Why a rule's fix is unsafe in general: the sentences of its doc's "Fix safety" section that say so."""
    from hylint.selection import all_rules

    rule = all_rules().get(code)
    doc = getattr(rule, "DOC", "") or ""
    section = doc.split("## Fix safety", 1)[1] if "## Fix safety" in doc else ""
    section = " ".join(section.split("\n## ", 1)[0].split())
    sentences = re.split(r"(?<=\.)\s+(?=[A-Z`])", section)
    chosen = []
    for index, sentence in enumerate(sentences):
        if "nsafe" in sentence:
            if sentence.startswith("Unsafe otherwise") and index:  # "otherwise" needs the sentence before
                chosen.append(sentences[index - 1])
            chosen.append(sentence)
    return " ".join(dict.fromkeys(chosen)) or "it can change what the code computes in other uses."


def _executed_lines(mx: Any, text: str, filename: str, path: Path, target: Target) -> set:
    """The lines of ``filename`` that building the block and one eager call execute."""
    lines: set = set()

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    def calls(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename == filename else None

    with _target_source(mx, text, filename, path, target) as factory:
        previous = sys.gettrace()
        sys.settrace(calls)
        try:
            block, built = build_block(mx, factory, target.inputs, target.seed, target.kwargs)
            if built.status == OK:
                _call(mx, block, target.inputs, target.seed)  # the eager call's lines
        finally:
            sys.settrace(previous)
    return lines


@contextlib.contextmanager
def _target_source(mx: Any, text: str, filename: str, path: Path, target: Target) -> Iterator[Any]:
    """The target's factory with ``path`` executing ``text`` (shown as ``filename``)."""
    if target.module is None:
        module = load_source(text, filename, path)
        yield resolve_factory(mx, module, target.name, f"{filename}::{target.name}")
        return
    with source_override(path, text, filename):
        forget_package(target.module)
        try:
            yield module_factory(mx, target.module, target.name, target.label)
        finally:
            forget_package(target.module)


def _run_fixed(mx: Any, text: str, filename: str, path: Path, target: Target,
               reference: Sequence[np.ndarray]) -> Outcome:
    """The fixed source, loaded from memory: eager (must equal the reference: fixes never change eager
    results) and hybridized, compared with the original's eager output."""
    try:
        with _target_source(mx, text, filename, path, target) as factory:
            result = run_factory(mx, factory, target.inputs, target.seed, target.kwargs, reference, target.name,
                                 target.train)
    except ImportFailure as error:
        return Outcome(ERROR, "ImportError", str(error), phase="import")
    if result.eager.status != OK:
        eager = result.eager
        eager.phase = "eager"
        eager.message = "the fixed source's eager run " + (
            "differs from the original's: " if eager.status == DIFFERENT else "fails: ") + eager.message
        return eager
    return summarize(result.hybrid)


def can_write(report: TargetReport) -> bool:
    """``--fix`` writes `hylint check --fix`'s output (with ``--unsafe-fixes``, plus the unsafe fixes proven on
    the inputs) unless running proved it harmful: the fixed source's eager run differs or fails, or the block
    hybridized as it was and the fixed one does not."""
    if report.write_source is None or report.fixed is None:
        return False
    if report.write_source == report.unsafe_source:
        return True  # proven: it ran and hybridized with the eager output
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


def _cell(item: Any) -> str:
    cell = getattr(item, "cell", None)
    return "" if cell is None else f"cell {cell} "


VERDICT_TEXT = {
    OK_AS_IS: "hybridizes as it is, with the eager output",
    FIXED: "the fixed source hybridizes and computes the eager output",
    FAILS: "does not hybridize correctly, fixed or not",
    EAGER_ERROR: "the block cannot be built or run eagerly: nothing to compare with (check --input and --kwargs)",
}


def render_full(report: TargetReport) -> str:
    t = report.target
    inputs = " ".join(input_text(spec) for spec in t.inputs)
    out = [f"{t.label}  (backend {t.backend}, seed {t.seed}, input {inputs})"]

    def section(title: str, lines: List[str]) -> None:
        out.append(f"  {title:<12}{lines[0]}")
        out.extend(f"  {'':<12}{line}" for line in lines[1:])

    section("eager", _describe(report.eager))
    if report.hybridized is not None:
        section("hybridized", _describe(report.hybridized))
    if report.fixes:
        section("fixes", [f"{f.code} {_cell(f)}line {f.line}{' (fixed source)' if f.evidence else ''}: {f.message}"
                          + ("" if f.applicability == "safe" else
                             " [unsafe, proven on these inputs]" if f.proven else f" [{f.applicability}]")
                          for f in report.fixes])
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
        unsafe = report.proven_unsafe
        if unsafe:
            verdict += (f" ({codes}), with the unsafe fix{'es' if len(unsafe) > 1 else ''} "
                        + ", ".join(f"{f.code} line {f.line}" for f in unsafe) + " proven on these inputs")
        else:
            verdict += f" ({codes})"
        if report.written:
            verdict += "; written"
        elif unsafe and report.write_source != report.unsafe_source:
            verdict += "; run with --fix --unsafe-fixes to write it"
        else:
            verdict += "; run with --fix to write it"
    section("verdict", [f"{report.verdict.upper()}: {verdict}"])
    return "\n".join(out)
