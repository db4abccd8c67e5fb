"""Fuzz target for scenarios and traces: random mutations of valid scenarios (wrong types,
extreme and non-finite numbers, deleted and unknown keys, deep nesting, bad node names, odd
strings, sizes past the documented limits) and random trace files, each either rejected with a clean error or run to the end.

    python -m mmcc.fuzz [CASES] [SEED]        # prints the tally; exit 1 on any crash or hang

A "crash" is any exception other than a clean rejection (`ScenarioError`, `ValueError` with a
message naming what is wrong; the core's raw deserialization messages count as crashes), and a "hang" a case that takes longer than `CASE_TIME_LIMIT`
seconds. Valid scenarios are run with their duration capped at 0.2 s so that the campaign stays
bounded (the cap changes the run, not what is validated).
"""

from __future__ import annotations

import copy
import random
import reprlib
import signal
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .results import run
from .scenario import ERROR_CHARS, MAX_FLOWS, Scenario, ScenarioError, load

CASE_TIME_LIMIT = 20.0
BASES = ["dumbbell", "thesis-edge", "mmstcp-1", "dtcp-wired"]

ODD_VALUES = [
    None, True, False, 0, -1, 1, 2**63, 2**70, -(2**63), 1e308, -1e308, float("nan"), float("inf"),
    float("-inf"), 1e-300, 0.5, "", " ", "0", "-1s", "1ns", "1e9s", "2.5 parsecs", "100GB", "1Gbps", "0Mbps",
    "1e400B", "NaNs", "inf", "$undefined", "../../etc/passwd", "/dev/zero", "é", "\x00", "x" * 5000, [],
    [[["deep"]]], {}, {"a": 1}, [1, 2], ["server", "router"], 3.7,
]


_repr = reprlib.Repr()
_repr.maxlevel, _repr.maxstring, _repr.maxother = 6, 80, 80


class _Hang(Exception):
    pass


def _unclear(msg: str) -> bool:
    """A rejection that does not name the key (the core's raw deserialization message), or one
    that is not a bounded, printable line (it would echo a huge or odd value whole)."""
    return (not msg.strip() or "line 1 column" in msg or "invalid run configuration" in msg
            or len(msg) > ERROR_CHARS or not msg.isprintable())


@dataclass
class Tally:
    cases: int = 0
    rejected: int = 0
    ran: int = 0
    crashes: list = field(default_factory=list)
    hangs: list = field(default_factory=list)


def _paths(v, max_depth: int = 12):
    """The paths of a nested dict/list structure, down to `max_depth` (iterative)."""
    out, stack = [], [(v, ())]
    while stack:
        x, prefix = stack.pop()
        out.append(prefix)
        if len(prefix) >= max_depth:
            continue
        if isinstance(x, dict):
            stack.extend((y, prefix + (k,)) for k, y in x.items())
        elif isinstance(x, list):
            stack.extend((y, prefix + (i,)) for i, y in enumerate(x))
    return sorted(out, key=repr)


def _get(v, path):
    for p in path:
        v = v[p]
    return v


def _set(v, path, value):
    for p in path[:-1]:
        v = v[p]
    v[path[-1]] = value


def _deep(n):
    v = "x"
    for _ in range(n):
        v = [v]
    return v


def _grow(raw: dict, rng: random.Random) -> None:
    """A size past a documented limit (more flows than MAX_FLOWS, more nodes than 65,535) or an
    echoed value no message may print whole (a 10,000-character name with control characters)."""
    kind = rng.random()
    if kind < 0.3 and isinstance(raw.get("flows"), list) and raw["flows"]:
        raw["flows"] = raw["flows"] * (MAX_FLOWS // len(raw["flows"]) + 1)  # shared tables: cheap
    elif kind < 0.6:
        raw["nodes"] = [f"n{i}" for i in range(70_000)]
    else:
        raw["nodes"] = list(raw.get("nodes") or []) + ["\x1b[31m" + "x" * 10_000 + "\n\r\x00"]


def mutate(raw: dict, rng: random.Random) -> dict:
    """One to three random mutations of a raw scenario."""
    raw = copy.deepcopy(raw)
    if rng.random() < 0.02:
        _grow(raw, rng)
        return raw
    for _ in range(rng.randint(1, 3)):
        paths = [p for p in _paths(raw) if p]
        if not paths:
            break
        path = rng.choice(paths)
        op = rng.random()
        parent = _get(raw, path[:-1])
        if op < 0.55:
            _set(raw, path, rng.choice(ODD_VALUES))
        elif op < 0.65 and isinstance(parent, dict):
            del parent[path[-1]]
        elif op < 0.75 and isinstance(parent, dict):
            parent[rng.choice(["bogus", "Rate", "delay ", "cca_params", "app", "queue"])] = rng.choice(ODD_VALUES)
        elif op < 0.8:
            _set(raw, path, _deep(rng.choice([10, 40, 300])))
        elif op < 0.9:
            x = _get(raw, path)
            if isinstance(x, (int, float)) and not isinstance(x, bool):
                _set(raw, path, x * rng.choice([-1, 0, 1e-9, 1e9, 1e300]))
            elif isinstance(x, str):
                _set(raw, path, rng.choice([x + "x", x[:-1], x * 3, x.upper(), "-" + x]))
        elif isinstance(parent, list):
            parent.append(copy.deepcopy(rng.choice(parent)) if parent else None)
    return raw


def _cap_duration(sc: Scenario) -> Scenario:
    if sc.config["duration"] > 200_000_000:
        return sc.with_overrides(duration="0.2s")
    return sc


def _random_trace(rng: random.Random, d: Path) -> str:
    p = d / f"t{rng.randrange(10**9)}.mm"
    kind = rng.random()
    if kind < 0.3:
        p.write_text("\n".join(str(x) for x in sorted(rng.randint(1, 50) for _ in range(rng.randint(1, 200)))) + "\n")
    elif kind < 0.5:
        p.write_text(rng.choice(["", "\n", "abc\n", "1\n-5\n", "3\n2\n1\n", "1.5\n", "1\n100000000\n", "0\n"]))
    elif kind < 0.7:
        p.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(0, 64))))
    else:
        return rng.choice(["/dev/zero", "/nonexistent/trace", str(d), "/etc"])
    return str(p)


def one_case(raw: dict, rng: random.Random, tmp: Path, tally: Tally) -> None:
    tally.cases += 1
    radios = raw.get("radios")
    if rng.random() < 0.1 and isinstance(radios, list) and radios and isinstance(radios[0], dict):
        raw = copy.deepcopy(raw)
        raw["radios"][0]["trace"] = _random_trace(rng, tmp)
        raw["radios"][0].pop("obstacles", None)
    old = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(_Hang()))
    signal.setitimer(signal.ITIMER_REAL, CASE_TIME_LIMIT)
    try:
        try:
            sc = _cap_duration(Scenario.from_dict(raw, source="<fuzz>"))
        except (ScenarioError, ValueError) as e:
            tally.rejected += 1
            if _unclear(str(e)):
                tally.crashes.append((f"unclear rejection: {str(e)[:200]}", _repr.repr(raw)))
            return
        try:
            run(sc)
            tally.ran += 1
        except (ScenarioError, ValueError) as e:
            tally.rejected += 1
            if _unclear(str(e)):
                tally.crashes.append((f"unclear rejection: {str(e)[:200]}", _repr.repr(raw)))
    except _Hang:
        tally.hangs.append(_repr.repr(raw))
    except RecursionError:
        tally.crashes.append(("RecursionError", _repr.repr(raw)))
    except Exception as e:  # noqa: BLE001 - this is what the fuzz target looks for
        tally.crashes.append((f"{type(e).__name__}: {' '.join(str(e).split())[:200]}", _repr.repr(raw)))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def fuzz(cases: int = 1000, seed: int = 1) -> Tally:
    rng = random.Random(seed)
    bases = [load(b).raw for b in BASES]
    tally = Tally()
    with tempfile.TemporaryDirectory() as d:
        for _ in range(cases):
            one_case(mutate(rng.choice(bases), rng), rng, Path(d), tally)
    return tally


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m mmcc.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", nargs="?", type=int, default=1000, help="mutated scenarios and traces (default 1000)")
    ap.add_argument("seed", nargs="?", type=int, default=1, help="seed of the mutations (default 1)")
    a = ap.parse_args(sys.argv[1:] if argv is None else argv)
    if a.cases < 0:
        ap.error(f"cases: {a.cases}; allowed: 0 or more")
    t = fuzz(a.cases, a.seed)
    print(f"{t.cases} cases: {t.rejected} clean rejections, {t.ran} runs, {len(t.crashes)} crashes, {len(t.hangs)} hangs")
    for what, raw in t.crashes[:20]:
        print(f"crash: {what}\n  {raw}")
    for raw in t.hangs[:5]:
        print(f"hang: {raw}")
    return 0 if not t.crashes and not t.hangs else 1


if __name__ == "__main__":
    raise SystemExit(main())
