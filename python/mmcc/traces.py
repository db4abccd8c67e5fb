"""Capacity traces in the Mahimahi `mm-link` format: each line is a millisecond timestamp and
stands for one 1500-byte delivery opportunity at that millisecond; lines repeat for higher
rates; the trace loops with the period of its last timestamp."""

from __future__ import annotations

from pathlib import Path

import numpy as np

OPPORTUNITY_BYTES = 1500

__all__ = ["read_mahimahi", "write_mahimahi", "opportunities_from_capacity", "OPPORTUNITY_BYTES"]


def read_mahimahi(path: str | Path) -> list[int]:
    """Opportunities per millisecond (index i = timestamp i + 1), over one period."""
    text = Path(path).read_text()
    try:  # fast path, parsed in C (a trace of a Gb/s link has millions of lines)
        arr = np.fromstring(text, dtype=np.int64, sep=" ")
    except ValueError:  # not all integers: the line-by-line path below names the line
        arr = None
    if arr is not None and arr.size and (arr > 0).all() and (np.diff(arr) >= 0).all():
        return np.bincount(arr - 1, minlength=int(arr[-1])).astype(int).tolist()
    stamps = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            if not line.isdigit() or int(line) <= 0:
                raise ValueError(f"{path}:{n}: expected a positive integer millisecond timestamp, got {line!r}")
            stamps.append(int(line))
    if not stamps:
        raise ValueError(f"{path}: the trace is empty")
    if any(b < a for a, b in zip(stamps, stamps[1:])):
        raise ValueError(f"{path}: timestamps must not decrease")
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
