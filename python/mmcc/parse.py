"""The scenario reader's building blocks: one-line errors that name the source and the key
(`ScenarioError`), and the value parsers (quantities with units, bounded integers and numbers,
booleans, strings, choices, tables with known keys, lists) that `scenario.py` composes into the
file's schema. Every parser takes (context, value, dotted path) and returns the parsed value or
fails with what is allowed.
"""

from __future__ import annotations

from typing import Any, Callable

from .units import UnitError, parse_frequency, parse_rate, parse_size, parse_time

#: The longest error message: one that echoes a huge user value (70,000 node names, a
#: 10,000-character name) keeps its beginning and end.
ERROR_CHARS = 1000


def one_line(text: str, limit: int = ERROR_CHARS) -> str:
    """An error message as one readable line: white space folded, other control characters
    escaped (\\x1b), and at most `limit` characters (the middle left out, and said so)."""
    text = " ".join(text.split())
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" if ord(c) < 256 else f"\\u{ord(c):04x}"
                   for c in text)
    if len(text) > limit:
        cut = len(text) - limit + 40
        head = (limit - 40) * 2 // 3
        text = f"{text[:head]} ... ({cut:,} characters left out) ... {text[head + cut:]}"
    return text


class ScenarioError(ValueError):
    """A scenario that cannot be run; the message is one line naming source, key and fix (at
    most ERROR_CHARS characters, control characters escaped), for the CLI and the Python API alike."""

    def __init__(self, message: str = ""):
        super().__init__(one_line(str(message)))


class _Ctx:
    def __init__(self, source: str):
        self.source = source
        self.warnings: list[str] = []

    def warn(self, path: str, msg: str):
        """A value that is valid but almost surely a mistake (shown, not refused)."""
        self.warnings.append(f"{self.source}: {path}: {msg}")

    def fail(self, path: str, msg: str):
        where = f"{self.source}: {path}" if path else self.source
        raise ScenarioError(f"{where}: {msg}")


Parser = Callable[[_Ctx, Any, str], Any]


def _quantity(fn, kind: str, limit: float, shown: str) -> Parser:
    def p(ctx: _Ctx, v, path):
        try:
            x = fn(v)
        except UnitError as e:
            ctx.fail(path, str(e))
        if not (isinstance(x, (int, float)) and x == x and abs(x) <= limit):
            ctx.fail(path, f"{v!r} is out of range; allowed: a {kind} of at most {shown}")
        if kind == "size" and isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 1000:
            ctx.warn(path, f"{v!r} is {v} bytes (a bare number is bytes); write the unit, e.g. \"{v}MiB\"")
        return x

    p.kind = kind
    return p


# upper bounds far above any experiment, below what the core's integers hold (types, not rules)
SIZE = _quantity(parse_size, "size", 2**50, "1PiB")
SIZE32 = _quantity(parse_size, "size", 2**32 - 1, "4GiB")  # a u32 in the core
FREQ = _quantity(parse_frequency, "frequency", 1e13, "10THz")
RATE = _quantity(parse_rate, "rate", 1e14, "100Tbps")
TIME = _quantity(parse_time, "time", 10**17, "1e8s")


def INT(lo=None, hi=None) -> Parser:
    def p(ctx, v, path):
        if isinstance(v, bool) or not isinstance(v, int):
            ctx.fail(path, f"expected an integer, got {v!r}")
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            ctx.fail(path, f"{v} is out of range; allowed: {lo if lo is not None else '-inf'}..{hi if hi is not None else 'inf'}")
        return v

    return p


U32 = INT(0, 2**32 - 1)
U64 = INT(0, 2**64 - 1)


def FLOAT(ctx, v, path):
    """A finite number (its range is the core's rule)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        ctx.fail(path, f"expected a number, got {v!r}")
    v = float(v)
    if v != v or abs(v) == float("inf"):
        ctx.fail(path, f"{v} is not a finite number")
    return v


def _bounded_float(lo: float, hi: float) -> Parser:
    """A finite number in [lo, hi], for keys this module turns into something else."""
    def p(ctx, v, path):
        v = FLOAT(ctx, v, path)
        if not lo <= v <= hi:
            ctx.fail(path, f"{v} is out of range; allowed: {lo}..{hi}")
        return v

    return p


def BOOL(ctx, v, path):
    if not isinstance(v, bool):
        ctx.fail(path, f"expected true or false, got {v!r}")
    return v


def STR(ctx, v, path):
    if not isinstance(v, str):
        ctx.fail(path, f"expected a string, got {v!r}")
    return v


def ONE_OF(*choices) -> Parser:
    def p(ctx, v, path):
        if v not in choices:
            ctx.fail(path, f"{v!r} is not allowed; choose one of: {', '.join(map(str, choices))}")
        return v

    return p


def _table(ctx: _Ctx, v, path: str, fields: dict[str, Parser], required=()) -> dict:
    if not isinstance(v, dict):
        ctx.fail(path, f"expected a table, got {v!r}")
    out = {}
    for k in v:
        if k not in fields:
            ctx.fail(f"{path}.{k}" if path else k, f"unknown key; allowed keys here: {', '.join(sorted(fields))}")
    for k in required:
        if k not in v:
            ctx.fail(f"{path}.{k}" if path else k, "missing required key")
    for k, parse in fields.items():
        if k in v:
            out[k] = parse(ctx, v[k], f"{path}.{k}" if path else k)
    return out


def _list(ctx, v, path, item: Callable[[_Ctx, Any, str], Any]) -> list:
    if not isinstance(v, list):
        ctx.fail(path, f"expected a list, got {v!r}")
    return [item(ctx, x, f"{path}[{i}]") for i, x in enumerate(v)]
