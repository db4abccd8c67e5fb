"""Quantities with units: sizes ("2.5MB"), rates ("1Gbps"), durations ("20ms").

Every parser returns an integer in base units (bytes, bit/s, nanoseconds) or raises
``UnitError`` with a message naming the accepted units.
"""

from __future__ import annotations

import math
import re

__all__ = ["UnitError", "parse_size", "parse_rate", "parse_time", "parse_frequency", "format_size", "format_rate",
           "format_time"]


class UnitError(ValueError):
    """A malformed quantity. The message says what was expected."""


_NUM = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
_RE = re.compile(r"^\s*" + _NUM + r"\s*([A-Za-zµ/]+)?\s*$")

SIZE_UNITS = {
    "B": 1, "byte": 1, "bytes": 1,
    "KB": 1_000, "kB": 1_000, "MB": 1_000_000, "GB": 1_000_000_000,
    "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30,
}
RATE_UNITS = {
    "bps": 1, "b/s": 1,
    "kbps": 1_000, "Kbps": 1_000, "kb/s": 1_000, "Kb/s": 1_000,
    "Mbps": 1_000_000, "Mb/s": 1_000_000,
    "Gbps": 1_000_000_000, "Gb/s": 1_000_000_000,
    "Tbps": 1_000_000_000_000, "Tb/s": 1_000_000_000_000,
}
TIME_UNITS = {
    "ns": 1, "us": 1_000, "µs": 1_000, "ms": 1_000_000, "s": 1_000_000_000, "min": 60_000_000_000,
}

FREQ_UNITS = {"Hz": 1, "kHz": 1_000, "MHz": 1_000_000, "GHz": 1_000_000_000}

_KIND_UNITS = {"size": SIZE_UNITS, "rate": RATE_UNITS, "time": TIME_UNITS, "frequency": FREQ_UNITS}
_EXAMPLE = {"size": '"2.5MB"', "rate": '"1Gbps"', "time": '"20ms"', "frequency": '"28GHz"'}
_ACCEPT = {
    "size": "B, KB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of 1024); a bare integer is bytes",
    "rate": "bps, kbps, Mbps, Gbps, Tbps (or b/s, kb/s, Mb/s, Gb/s, Tb/s)",
    "time": "ns, us, ms, s, min",
    "frequency": "Hz, kHz, MHz, GHz",
}


def _parse(value, kind: str) -> int:
    units = _KIND_UNITS[kind]
    expect = f"accepted units: {_ACCEPT[kind]} (e.g. {_EXAMPLE[kind]})"
    if isinstance(value, bool):
        raise UnitError(f"{value!r} is not a {kind}; {expect}")
    if isinstance(value, (int, float)):
        if kind == "size" and float(value).is_integer() and value >= 0:
            return int(value)
        raise UnitError(f"{value!r} has no unit; a {kind} needs one: {expect}")
    if not isinstance(value, str):
        raise UnitError(f"{value!r} is not a {kind}; {expect}")
    m = _RE.match(value)
    if not m:
        raise UnitError(f'"{value}" is not a {kind}; {expect}')
    num, unit = m.group(1), m.group(2)
    if unit is None:
        if kind == "size":
            unit = "B"
        else:
            raise UnitError(f'"{value}" has no unit; {expect}')
    if unit not in units:
        raise UnitError(f'"{value}": unknown {kind} unit "{unit}"; {expect}')
    x = float(num) * units[unit]
    if not math.isfinite(x) or x < 0:
        raise UnitError(f'"{value}" must be a finite, non-negative {kind}')
    r = round(x)
    if abs(x - r) > 1e-6 * max(1.0, abs(x)):
        base = {"size": "bytes", "rate": "bits per second (bps)", "time": "nanoseconds", "frequency": "Hz"}[kind]
        raise UnitError(f'"{value}" is not a whole number of {base}')
    return int(r)


def parse_size(value) -> int:
    """Bytes from "2.5MB", "2.5 MiB", "1400B" or a bare integer."""
    return _parse(value, "size")


def parse_rate(value) -> int:
    """Bits per second from "1Gbps", "100 Mb/s"."""
    return _parse(value, "rate")


def parse_time(value) -> int:
    """Nanoseconds from "20ms", "1.5 s", "125us"."""
    return _parse(value, "time")


def parse_frequency(value) -> int:
    """Hertz from "28GHz", "400 MHz"."""
    return _parse(value, "frequency")


def format_size(b: int) -> str:
    for unit, f in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= f:
            return f"{b / f:g}{unit}"
    return f"{b}B"


def format_rate(bps: int) -> str:
    for unit, f in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if bps >= f:
            return f"{bps / f:g}{unit}"
    return f"{bps}bps"


def format_time(ns: int) -> str:
    for unit, f in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= f:
            return f"{ns / f:g}{unit}"
    return f"{ns}ns"
