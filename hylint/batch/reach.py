"""Trace reach for a run: for each checked file, what a trace of its package reaches in it.

A file's package is the top of the chain of folders holding an ``__init__.py`` above it (a file whose
folder has none is a package of its own). Every ``.py`` of the package is read, named on the command
line or not, so a file's diagnostics do not depend on which files were named; the package's reach
(hylint/analysis/reach.py, CPython ``ast`` only) is summarised per file as plain tuples (the
``FileReach.from_plain`` form: picklable for the workers, JSON for the cache), certain reach only.

The reach of a package is computed once per run, and kept on disk under the result cache's folder,
keyed by hylint's code fingerprint and the path, size, mtime and inode of every file of the package: a
warm run reads one small JSON file per package, and neither parses nor imports the analysis (nor
libcst). When a stat differs, or a file was modified in the last two seconds (a coarse timestamp could
hide a later edit: then no stat key is stored), the content digests of the package's files decide. A package in which no file mentions ``hybrid_forward`` has no reach. Nothing here
raises: an unreadable file is left out of its package.

The reach parses the package's modules with CPython's ``ast``; the linter's regions pass (hylint/lint/regions.py)
parses the files it checks with ``ast`` too. So that a checked file is parsed once, a run hands the index a
*preparer* (check.py: ``Linter.prepare``), which gets the tree of each file to be checked as the reach parses
it, and ``prepared_for`` passes what it made (the file's regions) to the lint, in whichever process.
"""
from __future__ import annotations

import gc
import hashlib
import json
import os
import stat
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from hylint import __version__

if TYPE_CHECKING:
    import ast

# FileReach as nested tuples: (qualname, f_params, tensor_params, f_names, chain, block_method,
# self_f_attrs, self_tensor_attrs) per function, ("resizer", name, position, keywords) per resizer,
# ("guard", name, mode) per guard helper
Plain = Tuple[tuple, ...]
_RACY_NS = 2_000_000_000


def package_root(path: Path) -> Tuple[Path, bool]:
    """(the package folder holding ``path``, True) or (``path`` itself, False) for a lone module."""
    folder = path.parent
    if not (folder / "__init__.py").is_file():
        return path, False
    while (folder.parent / "__init__.py").is_file() and folder.parent != folder:
        folder = folder.parent
    return folder, True


def reach_digest(plain: Optional[Plain]) -> str:
    """What a cached result of a file is keyed on besides its content ('' for no reach)."""
    if not plain:
        return ""
    return hashlib.blake2b(json.dumps(plain).encode(), digest_size=8).hexdigest()


class _Pending(NamedTuple):
    """A package whose reach is to be computed: its files' bytes, and the keys to save it under."""
    raws: Dict[Path, bytes]
    is_package: bool
    stat_key: Optional[str]
    content_key: str


# what the reach's parse of a checked file is handed to: (path, its bytes, CPython's tree of them, its plain
# summary) -> what the linter will need of that tree (``Linter.prepare``: the file's regions), or None
Preparer = Callable[[Path, bytes, "ast.Module", Optional[Plain]], object]

# the packages a prefetch computes, and the files whose trees are prepared, read by the forked processes
# (nothing to pickle on the way in)
_PREFETCH: List[Tuple[Path, Dict[Path, bytes], bool]] = []
_PREPARE: List[Tuple[Optional[Preparer], FrozenSet[str]]] = [(None, frozenset())]


def _compute_prefetched(index: int) -> Tuple[Dict[str, Plain], Dict[str, object]]:
    root, raws, is_package = _PREFETCH[index]
    prepared: Dict[str, object] = {}
    with _collector_paused():
        return _compute(root, raws, is_package, *_PREPARE[0], prepared), prepared


class ReachIndex:
    """``for_file(path)``: the plain summary of what its package's traces reach in ``path`` (None: nothing)."""

    def __init__(self, cache_folder: Optional[Path] = None,
                 preparer: Optional[Callable[[], Preparer]] = None) -> None:
        """``preparer()``: called once, in this process, before the first package is computed for files to
        be checked (``prefetch``'s paths); what it returns is handed each such file's syntax tree as the
        reach parses it (``Preparer``), and ``prepared_for`` gives what it made: the linter's regions, so
        the file is not parsed with ``ast`` a second time."""
        self.folder = Path(cache_folder) / __version__ / "reach" if cache_folder is not None else None
        self._preparer_factory = preparer
        self._preparer: Optional[Preparer] = None
        self._wanted: FrozenSet[str] = frozenset()  # the files to be checked (absolute)
        self.prepared: Dict[str, object] = {}
        self.packages: Dict[Path, Dict[str, Plain]] = {}
        self._roots: Dict[str, Tuple[Path, bool]] = {}  # folder -> package_root of a file in it
        self._fingerprint: Optional[str] = None
        self._checked: Dict[Path, Tuple[float, str]] = {}  # root -> (when its files were last stat-ed, the key)
        self._unsaved: List[Tuple[Path, Optional[str], str, Dict[str, Plain]]] = []

    def save(self) -> None:
        """Write the packages computed in this run; called once the result cache saved (so its folder, with
        its CACHEDIR.TAG, exists: a run that writes no result cache, a --fix run, leaves no folder behind)."""
        for args in self._unsaved:
            self._write(*args)
        self._unsaved.clear()

    def for_file(self, path: Path, fresh: float = 0.0) -> Optional[Plain]:
        """``fresh``: a long-lived caller (the language server) has the package's files stat-ed again when
        this many seconds passed since the last time, and its reach computed again when one changed."""
        if path.suffix != ".py":
            return None
        root, is_package = self._root_of(path)
        summaries = self.packages.get(root)
        if summaries is not None and fresh:
            checked = self._checked.get(root)
            if checked is None or time.monotonic() - checked[0] >= fresh:
                key = self._stat(root, is_package)[1]
                if checked is not None and key != checked[1]:
                    summaries = None
                self._checked[root] = (time.monotonic(), key)
        if summaries is None:
            summaries = self.packages[root] = self._package(root, is_package)
        return summaries.get(os.path.abspath(path)) or None

    def prefetch(self, paths: Sequence[Path], jobs: int) -> None:
        """Compute the reach of the packages of `paths` that are not cached, several at once in forked
        processes when there are several and `jobs` > 1: each package's reach is independent, and a run
        otherwise computes them one after another before it checks any file. `paths` are the files to be
        checked, whose syntax trees the preparer gets (computed here or by ``for_file``)."""
        self._wanted = frozenset(os.path.abspath(path) for path in paths)
        if jobs < 2 or not hasattr(os, "fork") or sys.platform == "darwin":
            return
        pending: Dict[Path, _Pending] = {}
        for path in paths:
            if path.suffix != ".py":
                continue
            root, is_package = self._root_of(path)
            if root in self.packages or root in pending:
                continue
            found = self._lookup(root, is_package)
            if isinstance(found, _Pending):
                pending[root] = found
            else:
                self.packages[root] = found
        if len(pending) < 2:
            return  # computed by for_file, in this process
        import multiprocessing  # here: a warm run does without it (17 ms to import)

        import hylint.analysis.reach  # noqa: F401  (imported once here, not in every process)

        order = sorted(pending, key=lambda root: -sum(len(raw) for raw in pending[root].raws.values()))
        _PREFETCH[:] = [(root, pending[root].raws, pending[root].is_package) for root in order]
        _PREPARE[0] = (self._prepare(pending.values()), self._wanted)
        try:
            context = multiprocessing.get_context("fork")
            with context.Pool(min(jobs, len(order))) as pool:
                computed = pool.map(_compute_prefetched, range(len(order)), chunksize=1)
        except Exception:  # a process that died: left to for_file, in this process
            return
        finally:
            _PREFETCH[:] = []
            _PREPARE[0] = (None, frozenset())
        for root, (summaries, prepared) in zip(order, computed):
            self.packages[root] = self._finish(root, pending[root], summaries)
            self.prepared.update(prepared)

    def prepared_for(self, path: Path) -> object:
        """What the preparer made of ``path``'s syntax tree (given once), or None."""
        return self.prepared.pop(os.path.abspath(path), None)

    def _prepare(self, packages: Iterable["_Pending"]) -> Optional[Preparer]:
        """The preparer, for the files to be checked in ``packages``; None when none of them will be parsed
        (no file mentions ``hybrid_forward``: the linter, and libcst with it, is not imported for them)."""
        if not self._wanted or not any(b"hybrid_forward" in raw for package in packages for raw in package.raws.values()):
            return None
        if self._preparer is None and self._preparer_factory is not None:
            self._preparer = self._preparer_factory()
        return self._preparer

    # -- one package -------------------------------------------------------------------------------
    def _root_of(self, path: Path) -> Tuple[Path, bool]:
        name = os.path.abspath(path)
        # the files of a folder share its package: one walk up the folders per folder, not per file (and
        # no Path per file: a warm run asks for every file)
        folder = os.path.dirname(name)
        found = self._roots.get(folder)
        if found is None:
            found = self._roots[folder] = package_root(Path(name))
        return (found[0], True) if found[1] else (Path(name), False)

    def _package(self, root: Path, is_package: bool) -> Dict[str, Plain]:
        found = self._lookup(root, is_package)
        if not isinstance(found, _Pending):
            return found
        with _collector_paused():
            summaries = _compute(root, found.raws, is_package, self._prepare([found]), self._wanted, self.prepared)
        return self._finish(root, found, summaries)

    def _lookup(self, root: Path, is_package: bool) -> Union[Dict[str, Plain], "_Pending"]:
        """The package's summaries: from its cache file when the stat of every file is as recorded, else
        when the content of every file is (a file modified too recently for its mtime to be trusted, or
        touched without a change); else what computing them needs."""
        files, stat_key, racy = self._stat(root, is_package)
        self._checked[root] = (time.monotonic(), stat_key)
        data = self._load(root)
        if data is not None and data.get("stat") == stat_key:
            return _summaries(data)
        raws = _read([Path(name) for name in files])
        content_key = hashlib.sha256(_bytes("\n".join(
            [self._code(), *(f"{path}:{hashlib.blake2b(raw, digest_size=16).hexdigest()}" for path, raw in raws.items())]
        ))).hexdigest()
        pending = _Pending(raws, is_package, None if racy else stat_key, content_key)
        if data is not None and data.get("content") == content_key:
            return self._finish(root, pending, _summaries(data))
        return pending

    def _finish(self, root: Path, pending: "_Pending", summaries: Dict[str, Plain]) -> Dict[str, Plain]:
        self._save(root, pending.stat_key, pending.content_key, summaries)
        return summaries

    def _stat(self, root: Path, is_package: bool) -> Tuple[List[str], str, bool]:
        """The package's files (names: a warm run makes no Path of them), the key of their stats (with
        hylint's code), and whether one was modified too recently for its mtime to be trusted."""
        candidates = _python_files(root) if is_package else [str(root)]
        files: List[str] = []
        stats: List[str] = []
        racy = False
        now = time.time_ns()
        for path in candidates:
            try:
                st = os.stat(path)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue  # a FIFO or a device named *.py: reading it could block forever
            files.append(path)
            stats.append(f"{path}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}")
            racy = racy or st.st_mtime_ns + _RACY_NS > now
        code = self._code()
        stat_key = hashlib.sha256(_bytes("\n".join([code, *stats]))).hexdigest()
        return files, stat_key, racy

    def _code(self) -> str:
        if self.folder is None:
            return ""  # keys compared in this process only: hylint's code cannot differ
        if self._fingerprint is None:
            from hylint.batch.cache import code_fingerprint

            self._fingerprint = code_fingerprint()
        return self._fingerprint

    def _file(self, root: Path) -> Optional[Path]:
        if self.folder is None:
            return None
        return self.folder / (hashlib.sha256(_bytes(str(root))).hexdigest()[:24] + ".reach")  # JSON

    def _load(self, root: Path) -> Optional[dict]:
        path = self._file(root)
        if path is None:
            return None
        try:
            data = json.loads(path.read_bytes())
            return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else None
        except Exception:  # missing, corrupt: computed again
            return None

    def _save(self, root: Path, stat_key: Optional[str], content_key: str, summaries: Dict[str, Plain]) -> None:
        self._unsaved.append((root, stat_key, content_key, summaries))

    def _write(self, root: Path, stat_key: Optional[str], content_key: str, summaries: Dict[str, Plain]) -> None:
        path = self._file(root)
        if path is None:
            return
        from hylint.batch.cache import replace_atomically

        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            replace_atomically(path, json.dumps({"root": str(root), "stat": stat_key, "content": content_key,
                                                 "files": summaries}).encode())
        except Exception:
            return


def is_lone_module(path: Path) -> bool:
    """A file that is a module of its own (its folder holds no ``__init__.py``): its reach is its own text's."""
    return not package_root(Path(os.path.abspath(path)))[1]


def reach_of_text(text: str) -> Optional[Plain]:
    """What a trace reaches in a source that is a module of its own, computed from ``text`` itself: a
    notebook (its code cells joined, as linted), stdin without a file name, an editor's buffer of a lone
    module (unsaved edits included). Nothing else is read: what the source imports from a package is
    not followed (as for a lone ``.py`` file on disk)."""
    if "hybrid_forward" not in text:
        return None
    path = Path(os.path.abspath("__main__.py"))  # a notebook runs as __main__; no file is read
    with _collector_paused():
        found = _compute(path, {path: text.encode("utf-8", "surrogatepass")}, False)
    return found.get(str(path)) or None


def reach_of_package(path: Path, texts: Mapping[str, str]) -> Dict[str, Plain]:
    """What a trace of the package of ``path`` reaches in each of its files (name -> plain summary, as
    ``ReachIndex.for_file`` gives one), from the package's files on disk but for those ``texts`` names
    (absolute name -> text: an editor's unsaved buffers), read from there; a buffer under the package's
    folder that has no file yet is a module of it. Nothing is cached here."""
    root, is_package = package_root(Path(os.path.abspath(path)))
    names = _python_files(root) if is_package else [str(root)]
    raws: Dict[Path, bytes] = {}
    for name in names:  # in the package's order, as ReachIndex reads them
        if name in texts:
            raws[Path(name)] = texts[name].encode("utf-8", "surrogatepass")
        else:
            raws.update(_read([Path(name)]))
    inside = str(root) + os.sep
    for name, text in texts.items():
        if Path(name) not in raws and (name == str(root) or is_package and name.startswith(inside) and name.endswith(".py")):
            raws[Path(name)] = text.encode("utf-8", "surrogatepass")
    with _collector_paused():
        return _compute(root, raws, is_package)


@contextmanager
def _collector_paused():
    """The syntax trees of a package are a few million objects, alive until its reach is summarised, and
    none is in a reference cycle: the cyclic garbage collector's passes over them were half of the reach's
    time (measured on the corpus: 4.5 s of CPU with the collector, 1.9 s without). The analysis's own cycles
    are collected once it runs again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _python_files(root: Path) -> List[str]:
    """The names of ``sorted(root.rglob("*.py"))`` in about half its time (a warm run lists every package's
    files, and makes no Path of them): names ending in ``.py`` under ``root``, symlinked folders not entered
    (as rglob), folders so named left to the caller's stat (as rglob's), in Path's order (by parts)."""
    found = []
    for folder, folders, names in os.walk(root):
        found.extend(os.path.join(folder, name) for name in names + folders if name.endswith(".py"))
    return sorted(found, key=lambda name: name.split(os.sep))


def _summaries(data: dict) -> Dict[str, Plain]:
    try:
        return {str(name): _plain(entries) for name, entries in data["files"].items()}
    except Exception:  # of another shape: nothing reached (the next computation rewrites it)
        return {}


def _bytes(text: str) -> bytes:
    """``text`` as bytes; a file name that is not UTF-8 (its undecodable bytes are surrogates) keeps them."""
    return text.encode("utf-8", "surrogateescape")


def _read(files: List[Path]) -> Dict[Path, bytes]:
    raws: Dict[Path, bytes] = {}
    for path in files:
        try:
            raws[path] = path.read_bytes()
        except OSError:
            continue
    return raws


def _plain(entries) -> Plain:
    """Functions as 8 items, resizers as 4, guard helpers as 3 (``FileReach.from_plain``)."""
    return tuple(_plain_function(*entry) if len(entry) == 8 else
                 ("resizer", str(entry[1]), int(entry[2]), str(entry[3])) if len(entry) == 4 else
                 ("guard", str(entry[1]), str(entry[2])) for entry in entries)


def _plain_function(q, fp, tp, fn, chain, block, fa, ta) -> tuple:
    return str(q), tuple(fp), tuple(tp), tuple(fn), str(chain), bool(block), tuple(fa), tuple(ta)


def _compute(root: Path, raws: Dict[Path, bytes], is_package: bool, preparer: Optional[Preparer] = None,
             wanted: FrozenSet[str] = frozenset(), prepared: Optional[Dict[str, object]] = None) -> Dict[str, Plain]:
    """path -> plain summary, for the files of the package where a trace certainly reaches something.

    Only what a reach from a ``hybrid_forward`` can go to is parsed (``analyze_sources``): first the modules
    whose text mentions ``hybrid_forward``, then a module when the analysis resolves a name into it or its
    text may define what the analysis looks for (a method called by name, a subclass). The tree of each
    parsed file of ``wanted`` goes to ``preparer`` (with its summary), what it makes into ``prepared``."""
    if not any(b"hybrid_forward" in raw for raw in raws.values()):
        return {}
    import ast
    import warnings

    from hylint.analysis.reach import analyze_sources, module_name, summarize

    top = root if is_package else root.parent
    by_name = {module_name(top, path): path for path in raws}
    sources = {name: raws[path] for name, path in by_name.items()}
    paths = {name: str(path) for name, path in by_name.items()}

    trees: Dict[str, ast.Module] = {}  # the wanted files' trees, for the preparer

    def parse(name: str) -> Optional[ast.Module]:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # invalid escapes in old code: not ours to report here
                tree = ast.parse(sources[name], filename=paths[name])
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if preparer is not None and paths[name] in wanted:
            trees[name] = tree
        return tree

    try:
        result = analyze_sources(sources, paths, sorted(name for name, raw in sources.items() if b"hybrid_forward" in raw),
                                 parse)
    except RecursionError:
        return {}
    summaries = {paths[module]: _plain(summary.plain()) for module, summary in summarize(result).items()}
    del result
    if preparer is not None and prepared is not None:
        for name, tree in trees.items():
            try:
                made = preparer(Path(paths[name]), sources[name], tree, summaries.get(paths[name]))
            except Exception:  # left to the linter, which parses the file itself
                made = None
            if made is not None:
                prepared[paths[name]] = made
    return summaries
