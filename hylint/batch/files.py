"""Reading and writing source files byte-faithfully (encoding, BOM, line endings) and atomically."""
from __future__ import annotations

import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path


class SourceError(Exception):
    """A file that cannot be read or decoded; the message says why."""


class WriteError(Exception):
    """A fixed file that could not be written; the original is left untouched."""


@dataclass(frozen=True)
class SourceFile:
    path: Path
    text: str
    encoding: str  # as tokenize names it: 'utf-8', 'utf-8-sig' (BOM), 'iso-8859-1', ...
    raw: bytes
    # a Jupyter notebook: ``text`` is its code cells as one module (hylint/batch/notebook.py), ``raw`` the JSON
    notebook: bool = False


def decode_notebook(raw: bytes, name: str) -> SourceFile:
    from hylint.batch.notebook import NotebookError, parse, virtual_text

    try:
        return SourceFile(Path(name), virtual_text(parse(raw)), "utf-8", raw, notebook=True)
    except NotebookError as error:
        raise SourceError(str(error)) from None


def decode(raw: bytes, name: str = "<stdin>") -> SourceFile:
    if name.endswith(".ipynb"):
        return decode_notebook(raw, name)
    if b"\x00" in raw:
        raise SourceError("binary file (contains NUL bytes)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as error:
        if "invalid or missing encoding declaration" in str(error):  # bytes that are not UTF-8, no cookie
            raise SourceError("not valid UTF-8 and no coding cookie declares another encoding") from None
        raise SourceError(f"cannot detect the encoding: {error}") from None
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as error:
        row = raw.count(b"\n", 0, error.start) + 1
        raise SourceError(f"not valid {encoding} (line {row}): {error.reason}") from None
    except LookupError as error:
        raise SourceError(f"not valid {encoding}: {error}") from None
    return SourceFile(Path(name), text, encoding, raw)


def read_source(path: Path) -> SourceFile:
    try:
        info = os.stat(path)  # follows symlinks: a loop or a dangling link raises here
        if stat.S_ISDIR(info.st_mode):
            raise SourceError("is a directory")
        if not stat.S_ISREG(info.st_mode):  # a FIFO or a device would block or never end
            raise SourceError("not a regular file")
        raw = path.read_bytes()
    except SourceError:
        raise
    except OSError as error:
        raise SourceError(error.strerror or str(error)) from None
    source = decode(raw, str(path))
    return SourceFile(path, source.text, source.encoding, raw, source.notebook)


def encode(source: SourceFile, text: str) -> bytes:
    if source.notebook:  # the edited cells spliced into the notebook's JSON
        from hylint.batch.notebook import NotebookWriteError, render

        try:
            return render(source.raw, text)
        except NotebookWriteError as error:
            raise WriteError(str(error)) from None
    try:
        return text.encode(source.encoding)
    except UnicodeEncodeError as error:
        raise WriteError(f"the fixed text cannot be encoded as {source.encoding}: {error.reason}") from None


def write_atomic(source: SourceFile, text: str) -> None:
    """Replace the file with ``text`` via a temporary file in the same folder and a rename.

    Refuses (WriteError) when the file changed on disk since it was read, or cannot be written.
    """
    data = encode(source, text)
    path = source.path
    if path.is_symlink():  # write the file the link points to; the link stays a link
        path = Path(os.path.realpath(path))
    folder = path.parent if str(path.parent) else Path(".")
    try:
        info = os.stat(path)
    except OSError as error:
        raise WriteError(error.strerror or str(error)) from None
    mode = stat.S_IMODE(info.st_mode)
    # the mode bits decide, for root too (root may write anything, but a read-only file says "keep")
    if not os.access(path, os.W_OK) or not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise WriteError("file is read-only")
    try:
        handle = tempfile.NamedTemporaryFile("wb", dir=folder, prefix=f".{path.name}.", suffix=".hylint-tmp",
                                             delete=False)
    except OSError as error:
        raise WriteError(f"cannot create a temporary file next to it: {error.strerror or error}") from None
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, mode)
        if hasattr(os, "chown") and (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
            try:  # keep the owner when root fixes another user's file
                os.chown(handle.name, info.st_uid, info.st_gid)
            except OSError:
                pass
        if path.read_bytes() != source.raw:
            raise WriteError("file changed on disk while hylint was fixing it; not overwritten")
        os.replace(handle.name, path)
    except BaseException as error:
        try:
            os.unlink(handle.name)
        except OSError:
            pass
        if isinstance(error, OSError):  # disk full, the file removed meanwhile, ...
            raise WriteError(error.strerror or str(error)) from None
        raise
