"""Capacity traces in the Mahimahi `mm-link` format: each line is a millisecond timestamp and
stands for one 1500-byte delivery opportunity at that millisecond; lines repeat for higher
rates; the trace loops with the period of its last timestamp."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

OPPORTUNITY_BYTES = 1500
#: Bounds on a trace read from disk: file size and period (the per-millisecond table is built
#: in memory).
MAX_TRACE_BYTES = 1 << 30
MAX_PERIOD_MS = 3_600_000

__all__ = ["read_mahimahi", "write_mahimahi", "opportunities_from_capacity", "OPPORTUNITY_BYTES"]


#: Bytes of a trace parsed at a time: reading streams, so memory stays near this plus the
#: per-millisecond table whatever the file's size.
CHUNK_BYTES = 2 << 20


def read_mahimahi(path: str | Path) -> list[int]:
    """Opportunities per millisecond (index i = timestamp i + 1), over one period. The file is
    parsed in chunks into the per-millisecond counts (a 1 GB trace needs ~CHUNK_BYTES plus the
    table, not the file's size several times over)."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{path}: not a regular file (a Mahimahi trace is a text file of millisecond timestamps)")
    if p.stat().st_size > MAX_TRACE_BYTES:
        raise ValueError(f"{path}: {p.stat().st_size:,} bytes; allowed: at most {MAX_TRACE_BYTES:,} bytes")
    counts = np.zeros(0, dtype=np.int64)
    last, line_no = 0, 0
    with open(p, "rb") as f:
        rest = b""
        while True:
            block = f.read(CHUNK_BYTES)
            data = rest + block
            if block:
                cut = data.rfind(b"\n") + 1
                data, rest = data[:cut], data[cut:]
            if data:
                stamps = _parse_chunk(path, data, line_no)
                line_no += data.count(b"\n")
                if stamps.size:
                    if stamps[0] < last or (np.diff(stamps) < 0).any():
                        raise ValueError(f"{path}: timestamps must not decrease")
                    last = int(stamps[-1])
                    if last > MAX_PERIOD_MS:
                        raise ValueError(f"{path}: the trace's period is {last:,} ms; allowed: at most "
                                         f"{MAX_PERIOD_MS:,} ms (1 h)")
                    add = np.bincount(stamps - 1)
                    if add.size > counts.size:
                        counts = np.concatenate([counts, np.zeros(add.size - counts.size, dtype=np.int64)])
                    counts[:add.size] += add
            if not block:
                break
    if last == 0:
        raise ValueError(f"{path}: the trace is empty")
    return counts.tolist()


def _parse_chunk(path, data: bytes, line_before: int) -> np.ndarray:
    """The timestamps of whole lines (parsed in C); a line that is not a positive integer is named."""
    if not data.translate(None, b"0123456789 \t\r\n"):  # digits and white space only
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            arr = np.fromstring(data, dtype=np.int64, sep=" ")
        if (arr > 0).all():
            return arr
    for n, line in enumerate(data.split(b"\n"), line_before + 1):
        line = line.strip()
        if line and (not line.isdigit() or int(line) <= 0):
            if not line.isascii():
                raise ValueError(f"{path}: not a text file (a Mahimahi trace is one millisecond timestamp per line)")
            raise ValueError(f"{path}:{n}: expected a positive integer millisecond timestamp (the line is not quoted here)")
    raise ValueError(f"{path}: expected one positive integer millisecond timestamp per line")


def opportunities_from_capacity(capacity_bytes) -> list[int]:
    """Per-millisecond capacities in bytes -> whole 1500-byte opportunities (remainder carried)."""
    out, carry = [], 0
    for c in capacity_bytes:
        carry += int(c)
        n = carry // OPPORTUNITY_BYTES
        carry -= n * OPPORTUNITY_BYTES
        out.append(n)
    return out


def write_mahimahi(counts, path: str | Path) -> Path:
    """Write opportunities per millisecond (index i -> timestamp i + 1) as a Mahimahi trace."""
    from .files import atomic_write_bytes

    lines = []
    for i, n in enumerate(counts):
        lines.extend([str(i + 1)] * int(n))
    if not lines or str(len(counts)) != lines[-1]:
        lines.append(str(len(counts)))  # keep the period: Mahimahi loops at the last timestamp
    atomic_write_bytes(Path(path), ("\n".join(lines) + "\n").encode())
    return Path(path)
