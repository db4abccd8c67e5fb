"""Writing files so that nothing already written is lost: whole-or-nothing replacement, generated
blocks of documents, CSV tables. No dependency on the rest of mmcc (results, traces, plots and the
experiments all write through it)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write a file so that readers see the old content or the whole new one, never a part."""
    atomic_write(path, lambda f: f.write(data))


def atomic_write(path: Path, write: Callable[[BinaryIO], object]) -> None:
    """`write(f)` into a temporary file beside `path`, then put it in place whole (readers see
    the old content or the new one, never a part); for writers that stream, so the content
    is never held in memory at once."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; results are ordinary files
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def rewrite_marked_block(path: Path, marker: str, body: str) -> None:
    """Replace the text between `<!-- marker -->` and `<!-- /marker -->` in a document (generated
    blocks of docs/validation.md); exactly one such block must be there."""
    import re

    text = Path(path).read_text()
    block = f"<!-- {marker} -->\n{body}<!-- /{marker} -->"
    m = re.escape(marker)
    new, n = re.subn(rf"<!-- {m} -->\n.*?<!-- /{m} -->", lambda _: block, text, flags=re.S)
    if n != 1:
        raise ValueError(f"{path}: expected one {marker} block, found {n}")
    atomic_write_bytes(Path(path), new.encode())


def write_csv_rows(path: Path, rows: list[dict]) -> None:
    """Rows of dicts (the first row's keys as the header) as a CSV file, atomically."""
    import csv
    import io

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    atomic_write_bytes(path, buf.getvalue().encode())


def import_user_file(path: Path, where: str):
    """Import the Python file `path` (a user's algorithm or policy) as a module; an error in it
    (or a SystemExit) becomes a ScenarioError naming `where` and the file."""
    import importlib.util

    from .scenario import ScenarioError

    spec = importlib.util.spec_from_file_location(Path(path).stem, path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as e:  # noqa: BLE001 - the user's module failed to import (or exited)
        raise ScenarioError(f"{where}: importing {path} failed: {type(e).__name__}: {e}") from None
    return module
