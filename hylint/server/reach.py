"""What a trace of a package reaches in an open file, read from the editor's buffers where they hold unsaved
text, and from disk for the other files: what ``hylint check`` would report once every buffer is saved.

``hylint check`` reads every module of a file's package (hylint/batch/reach.py): a helper in ``dist.py``
called from ``model.py``'s ``hybrid_forward`` is checked as hybrid code. An editor holds some of those
modules with unsaved edits; the reach of the package is then computed from those texts
(``reach_of_package``), so a change in ``model.py`` shows in ``dist.py`` before either is saved.

Computing a package's reach costs what ``hylint check`` pays once per run: 0.3 s for gluonnlp's 85 files,
1.7 to 2.1 s for gluoncv's 389 (measured on this 2-core machine), too much for every keystroke. So a check
uses the reach last computed for the package (``for_file``: at once), and notes when the buffers changed
since; ``refresh``, which the server calls once the editor is idle, computes it again and names the open
files whose reach changed, which the server checks again. The computation holds up the server's messages
while it runs, so the server waits for a quiet time twice as long as the latest one took (``cost``): 0.3 s
for a small package, 4 s for gluoncv. A package whose buffers all equal their files
is read through ``ReachIndex``, as before: stat-ed again at most once a second, computed again when a
file changed.
"""
from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

Key = Tuple[Tuple[str, str], ...]  # the package's unsaved buffers: (name, digest of the text), sorted


class BufferReach:
    def __init__(self) -> None:
        from hylint.batch.reach import ReachIndex

        self.index = ReachIndex()
        self.buffers: Dict[str, str] = {}  # absolute name -> the text of an open buffer (its latest check)
        self.used: Dict[str, object] = {}  # absolute name -> the reach its latest check was given
        self._computed: Dict[Path, Tuple[Key, Dict[str, tuple]]] = {}  # root -> (the buffers read, summaries)
        self.stale: Set[Path] = set()  # roots whose reach is to be computed again (refresh)
        self.cost = 0.0  # seconds the latest computation from unsaved buffers took (the server waits longer)

    def for_file(self, path: Path, text: str):
        """The reach for a check of ``text`` as ``path`` (a ``.py`` file): the latest computed for its package."""
        from hylint.batch.reach import package_root

        name = os.path.abspath(path)
        self.buffers[name] = text
        root = package_root(Path(name))[0]
        key = self._key(root)
        computed = self._computed.get(root)
        if computed is not None and computed[0] == key:
            plain = computed[1].get(name) or None
        elif not key:  # every buffer saved: the files on disk, as `hylint check` reads them
            self._computed.pop(root, None)
            plain = self._saved(path)
        else:  # unsaved texts not yet read: the reach last computed, until refresh
            plain = computed[1].get(name) or None if computed is not None else self._saved(path)
        self.used[name] = plain
        # refresh computes the reach again if the buffers changed, and compares what each open file of the
        # package was given (a save, or this buffer's text, may change the others' reach)
        self.stale.add(root)
        return plain

    def refresh(self) -> List[str]:
        """Compute the reach of the packages checked since the last call again; the open files (names) whose
        reach differs from what their latest check was given."""
        from hylint.batch.reach import package_root, reach_of_package

        changed: List[str] = []
        stale, self.stale = self.stale, set()
        for root in stale:
            key = self._key(root)
            computed = self._computed.get(root)
            if key and (computed is None or computed[0] != key):
                texts = {name: self.buffers[name] for name, _ in key}
                started = time.perf_counter()
                try:
                    summaries = reach_of_package(root / "__init__.py" if root.is_dir() else root, texts)
                except Exception:  # a bug in the reach: the files as saved
                    summaries = None
                self.cost = time.perf_counter() - started
                if summaries is not None:
                    self._computed[root] = computed = (key, summaries)
            elif not key:
                self._computed.pop(root, None)
                computed = None
            fresh = 1e-9  # the package's files stat-ed again once (a save may have changed them)
            for name in self.buffers:
                if package_root(Path(name))[0] != root:
                    continue
                plain = computed[1].get(name) or None if computed is not None else self._saved(Path(name), fresh)
                fresh = 1.0
                if plain != self.used.get(name):
                    changed.append(name)
        return changed

    def forget(self, path: Path) -> None:
        """A closed buffer: its file is read from disk again (the others are checked again if that differs)."""
        from hylint.batch.reach import package_root

        name = os.path.abspath(path)
        if self.buffers.pop(name, None) is not None:
            self.used.pop(name, None)
            self.stale.add(package_root(Path(name))[0])

    def _key(self, root: Path) -> Key:
        """The package's buffers whose text is not what their file holds (read each time: a few open files)."""
        inside = str(root) + os.sep
        unsaved = []
        for name, text in self.buffers.items():
            if name != str(root) and not name.startswith(inside):
                continue
            raw = text.encode("utf-8", "surrogatepass")
            try:
                with open(name, "rb") as file:
                    same = file.read() == raw
            except OSError:
                same = False
            if not same:
                unsaved.append((name, hashlib.blake2b(raw, digest_size=16).hexdigest()))
        return tuple(sorted(unsaved))

    def _saved(self, path: Path, fresh: float = 1.0) -> Optional[tuple]:
        try:
            return self.index.for_file(path, fresh=fresh)
        except Exception:  # an unreadable package: the buffer is checked alone, as before
            return None
