"""Capacity traces in the Mahimahi `mm-link` format: each line is a millisecond timestamp and
stands for one 1500-byte delivery opportunity at that millisecond; lines repeat for higher
rates; the trace loops with the period of its last timestamp."""

from __future__ import annotations

from pathlib import Path

import numpy as np

OPPORTUNITY_BYTES = 1500
#: Bounds on a trace read from disk: file size and period (the per-millisecond table is built
#: in memory).
MAX_TRACE_BYTES = 1 << 30
MAX_PERIOD_MS = 3_600_000

__all__ = ["read_mahimahi", "write_mahimahi", "opportunities_from_capacity", "OPPORTUNITY_BYTES"]


def read_mahimahi(path: str | Path) -> list[int]:
    """Opportunities per millisecond (index i = timestamp i + 1), over one period."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"{path}: not a regular file (a Mahimahi trace is a text file of millisecond timestamps)")
    if p.stat().st_size > MAX_TRACE_BYTES:
        raise ValueError(f"{path}: {p.stat().st_size:,} bytes; allowed: at most {MAX_TRACE_BYTES:,} bytes")
    try:
        text = p.read_text()
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file (a Mahimahi trace is one millisecond timestamp per line)") from None
    try:  # fast path, parsed in C (a trace of a Gb/s link has millions of lines)
        arr = np.fromstring(text, dtype=np.int64, sep=" ")
    except ValueError:  # not all integers: the line-by-line path below names the line
        arr = None
    if arr is not None and arr.size and (arr > 0).all() and (np.diff(arr) >= 0).all():
        if arr[-1] > MAX_PERIOD_MS:
            raise ValueError(f"{path}: the trace's period is {int(arr[-1]):,} ms; allowed: at most {MAX_PERIOD_MS:,} ms (1 h)")
        return np.bincount(arr - 1, minlength=int(arr[-1])).astype(int).tolist()
    stamps = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            if not line.isdigit() or int(line) <= 0:
                raise ValueError(f"{path}:{n}: expected a positive integer millisecond timestamp (the line is not quoted here)")
            stamps.append(int(line))
    if not stamps:
        raise ValueError(f"{path}: the trace is empty")
    if any(b < a for a, b in zip(stamps, stamps[1:])):
        raise ValueError(f"{path}: timestamps must not decrease")
    if stamps[-1] > MAX_PERIOD_MS:
        raise ValueError(f"{path}: the trace's period is {stamps[-1]:,} ms; allowed: at most {MAX_PERIOD_MS:,} ms (1 h)")
    counts = np.bincount(np.asarray(stamps) - 1, minlength=stamps[-1])
    return counts.astype(int).tolist()


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
    from .results import atomic_write_bytes

    lines = []
    for i, n in enumerate(counts):
        lines.extend([str(i + 1)] * int(n))
    if not lines or str(len(counts)) != lines[-1]:
        lines.append(str(len(counts)))  # keep the period: Mahimahi loops at the last timestamp
    atomic_write_bytes(Path(path), ("\n".join(lines) + "\n").encode())
    return Path(path)
