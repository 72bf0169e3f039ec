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


def decode(raw: bytes, name: str = "<stdin>") -> SourceFile:
    if b"\x00" in raw:
        raise SourceError("binary file (contains NUL bytes)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as error:
        raise SourceError(f"cannot detect the encoding: {error}") from None
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        raise SourceError(f"not valid {encoding}: {error.reason if hasattr(error, 'reason') else error}") from None
    return SourceFile(Path(name), text, encoding, raw)


def read_source(path: Path) -> SourceFile:
    try:
        if path.is_dir():
            raise SourceError("is a directory")
        raw = path.read_bytes()
    except SourceError:
        raise
    except OSError as error:
        raise SourceError(error.strerror or str(error)) from None
    source = decode(raw, str(path))
    return SourceFile(path, source.text, source.encoding, raw)


def encode(source: SourceFile, text: str) -> bytes:
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
    folder = path.parent if str(path.parent) else Path(".")
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError as error:
        raise WriteError(error.strerror or str(error)) from None
    if not os.access(path, os.W_OK):
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
        if path.read_bytes() != source.raw:
            raise WriteError("file changed on disk while hylint was fixing it; not overwritten")
        os.replace(handle.name, path)
    except BaseException:
        try:
            os.unlink(handle.name)
        except OSError:
            pass
        raise
