"""Importing the user's code: import scopes that forget what they imported (so the next run, perhaps on
the other backend, imports afresh), in-memory sources (fixed text executed in place of a file), and the
user's frames of a traceback (hylint's and the libraries' left out)."""
from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import importlib.util
import io
import itertools
import linecache
import os
import re
import sys
import traceback
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator, List, Optional, Tuple

from hylint.verify.outcomes import first_line, VerifyError


_counter = itertools.count()


_HYLINT_DIR = str(Path(__file__).resolve().parent.parent)  # the hylint package


def library_dirs() -> Tuple[str, ...]:
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
    return not any(path == d or path.startswith(d + os.sep) for d in (library or library_dirs()))


def user_frames(error: BaseException) -> List[traceback.FrameSummary]:
    library = library_dirs()
    return [frame for frame in traceback.extract_tb(error.__traceback__) if is_user_file(frame.filename, library)]


def user_traceback(error: BaseException) -> str:
    """The traceback of ``error`` with only the user's frames (hylint's and the libraries' left out)."""
    lines = ["Traceback (most recent call last; hylint's and the libraries' frames left out):\n"]
    lines += traceback.format_list(user_frames(error))
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines).rstrip("\n")


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


# the backend's own package: a target in it (``mxnet.gluon.model_zoo.vision:resnet18_v1``) is imported from the
# active backend as it is, never set aside or imported afresh: that would load a second MXNet whose Block is
# not the backend's (or, on the reference runtime, look for an installed MXNet)
BACKEND_PACKAGE = "mxnet"


def in_backend_package(module: str) -> bool:
    return module.split(".")[0] == BACKEND_PACKAGE


def _package_names(module: str) -> List[str]:
    """``module``'s top-level package and its loaded submodules; none for the backend's own package."""
    top = module.split(".")[0]
    if top == BACKEND_PACKAGE:
        return []
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
    before, perhaps on real MXNet, is set aside and put back afterwards). A module of MXNet itself is the
    backend's, as it is (its frames stay the library's)."""
    if in_backend_package(module):
        with user_import_scope(folder):
            yield
        return
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


@contextlib.contextmanager
def quiet() -> Iterator[io.StringIO]:
    """What the user's code (``print(x)`` in hybrid_forward) and the backend print goes to a buffer, not
    into hylint's report."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
        yield buffer

