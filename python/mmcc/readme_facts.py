"""The numbers README.md quotes, computed from the current code.

The README marks each one `<!-- fact:NAME -->VALUE<!-- /fact -->` (a block: the lines between
`<!-- fact:NAME -->` and `<!-- /fact -->`). `python -m mmcc.readme_facts --write` recomputes
every fact and rewrites the README (and, with `--figures`, the figures it shows);
`python -m mmcc.readme_facts` without arguments (and tests/test_readme.py) fails when a quoted
value is no longer what the code gives. Runs are seeded, so each value is exact.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FACT = re.compile(r"<!-- fact:([a-z0-9-]+) -->(.*?)<!-- /fact -->", re.S)


@functools.lru_cache(maxsize=None)
def _thesis_newreno():
    from . import run
    from .scenario import load

    return run(load("thesis-edge"), cca="newreno")


@functools.lru_cache(maxsize=None)
def _bbr_run(per: float, app_limited: bool):
    from . import run
    from .scenario import load

    return run(load("thesis-edge"), cca="bbr", params={"per": per},
               cca_params={"probe_rtt_app_limited": 1} if app_limited else None)


def _bbr(per: float, app_limited: bool) -> float:
    return _bbr_run(per, app_limited).flows.column("throughput_mbps")[0].as_py()


def _summary_block() -> str:
    r = _thesis_newreno()
    head = (f"scenario thesis-edge (preset thesis-edge), seed 1, TCP profile ns3, 60 s simulated in ... s wall "
            f"({r.events_processed:,} events)")
    return "\n```\n" + head + "\n" + r.summary_text() + "\n```\n"


def _first_event(name: str) -> float:
    ev = _thesis_newreno().tables["events"].to_pydict()
    return next(t for t, e in zip(ev["t_s"], ev["event"]) if e == name)


def _flow(col: str) -> float:
    return _thesis_newreno().flows.column(col)[0].as_py()


def _oracle_bbr(buffer: str, per: str) -> float:
    """Goodput of a stored ns3-mmwave run (the build with ns-3.35's TCP, seed 1, 12 s)."""
    import csv

    path = ROOT / "validation" / "mmwave-runs-tcp-3.35" / f"bbr-edge-{buffer}-{per}-s1-12s" / "flows.csv"
    with open(path) as f:
        return float(next(csv.DictReader(f))["goodput_mbps"])


def _agreement(tcp: str, key: str) -> str:
    """A figure of `mmcc validate mmwave` on the stored runs (validate_mmwave.AGREEMENT_FILE, whose
    currency tests/test_validate_mmwave.py checks)."""
    from .experiments.validate_mmwave import read_agreement

    return str(read_agreement()[tcp][key])


FACTS = {
    "thesis-newreno-summary": _summary_block,
    "thesis-newreno-first-loss-s": lambda: f"{_first_event('fast_retransmit'):.1f}",
    "thesis-newreno-drops": lambda: f"{int(_flow('drops_queue_full')):,}",
    "thesis-newreno-retx": lambda: f"{int(_flow('retransmits')):,}",
    "thesis-newreno-rtos": lambda: f"{int(_flow('rtos'))}",
    "bbr-edge-lossless-mbps": lambda: f"{_bbr(0.0, False):.0f}",
    "bbr-edge-per1e-7-mbps": lambda: f"{_bbr(1e-7, False):.0f}",
    "bbr-edge-app-limited-mbps": lambda: f"{_bbr(0.0, True):.0f}",
    "bbr-edge-lossless-rtos": lambda: f"{int(_bbr_run(0.0, False).flows.column('rtos')[0].as_py())}",
    "oracle-bbr-edge-per1e-7-mbps": lambda: f"{_oracle_bbr('2.5MiB', '1e-07'):.1f}",
    "oracle-bbr-edge-lossless-mbps": lambda: f"{_oracle_bbr('2.5MiB', '0'):.1f}",
    "mmwave-cases-ns335": lambda: _agreement("ns-3.35", "cases"),
    "mmwave-goodput-ns335": lambda: _agreement("ns-3.35", "goodput_within_10pct"),
    "mmwave-phase-thr-ns335": lambda: _agreement("ns-3.35", "phase_thr_within_10pct"),
    "mmwave-phase-sinr-ns335": lambda: _agreement("ns-3.35", "phase_sinr_within_2db"),
    "mmwave-cases-pinned": lambda: _agreement("pinned", "cases"),
    "mmwave-goodput-pinned": lambda: _agreement("pinned", "goodput_within_10pct"),
}


def quoted(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in FACT.finditer(text)}


def check(text: str) -> list[str]:
    """The facts whose quoted value differs from the code's (one line each)."""
    bad = []
    for name, value in quoted(text).items():
        if name not in FACTS:
            bad.append(f"{name}: no such fact (known: {', '.join(FACTS)})")
        elif FACTS[name]() != value:
            bad.append(f"{name}: README says {value!r}, the code gives {FACTS[name]()!r}")
    return bad


def write(text: str) -> str:
    return FACT.sub(lambda m: f"<!-- fact:{m.group(1)} -->{FACTS[m.group(1)]()}<!-- /fact -->", text)


def figures() -> None:
    """The README's figures: this run's radio overview and the quick reproduction's throughput
    against PER (about 1.5 minutes)."""
    import shutil
    import tempfile

    from .experiments.reproduce import reproduce_thesis
    from .plots import radio_figures

    with tempfile.TemporaryDirectory() as d:
        radio_figures(_thesis_newreno(), d)
        shutil.copy(Path(d) / "radio_overview.png", ROOT / "docs" / "img" / "thesis-edge-newreno.png")
        reproduce_thesis(Path(d) / "thesis", quick=True)
        shutil.copy(Path(d) / "thesis" / "figures" / "throughput_vs_per.png",
                    ROOT / "docs" / "img" / "thesis-throughput-vs-per.png")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mmcc.readme_facts", description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite the README's facts")
    ap.add_argument("--figures", action="store_true", help="with --write: also the README's figures")
    a = ap.parse_args(argv)
    text = README.read_text()
    if a.write:
        README.write_text(write(text))
        if a.figures:
            figures()
        return 0
    bad = check(text)
    for line in bad:
        sys.stderr.write(line + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
