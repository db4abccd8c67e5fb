"""The radio-path oracle's own TCP against ns-3.37's, on wired paths without any radio.

ns3-mmwave at the commit the thesis' scripts compile against carries the ns-3-dev of January
2020, whose TCP is not the ns-3.35 the thesis names nor the ns-3.37 the `ns3` profile reproduces.
To see how much of a radio-path difference is that TCP, the same wired cases run in four
stacks: mmcc's `ns3` profile, ns-3.37 (`ns3/examples/mmcc-ns3-runner.cc` built against Debian's
libns3-dev), the same runner built against the oracle's tree (its one `CommandLine
cmd(__FILE__)` spelt `CommandLine cmd;`) and built against the oracle's tree with ns-3.35's TCP
(the second oracle of `mmcc validate mmwave --tcp ns-3.35`). The cases stand in for what the thesis' radio path
does to a flow (CASES): a bulk flow from a server 11 ms away (the edge server's wired path)
into a drop-tail buffer of the thesis' RLC sizes on a 3 Gb/s last hop (ns3-mmwave's peak rate),
which in the shadow cases drops to 400 Mb/s at 2 s.

    python -m mmcc.experiments.oracle_tcp --side ns-3.37 target/ns3/mmcc-ns3-runner \\
        --side ns3-mmwave-tcp /path/to/runner-built-against-ns3-mmwave \\
        --side ns3-mmwave-tcp-3.35 /path/to/runner-built-against-that-tree-with-ns-3.35-tcp
        # runs those sides (optionally `--cca bbr` only), replaces their rows in the stored
        # table, rewrites the docs block
    python -m mmcc.experiments.oracle_tcp --docs                # docs/validation.md's block from it

The ns-3 results are stored in validation/oracle-tcp/results.csv; `make test` checks that mmcc
still gives ns-3.37's numbers on every case and that docs/validation.md quotes the table.
"""

from __future__ import annotations

import csv
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
STORE = ROOT / "validation" / "oracle-tcp" / "results.csv"
DOC = ROOT / "docs" / "validation.md"
CCAS = ["newreno", "cubic", "highspeed", "bbr"]
#: the algorithms a side lacks: the pinned tree predates ns-3's TcpBbr (ns-3.31)
MISSING = {("ns3-mmwave-tcp", "bbr")}
#: case name -> (RLC-sized buffer, last-hop rate schedule, duration)
CASES = {
    "shadow-2.5MiB": ("2621440B", [("0s", "3Gbps"), ("2s", "400Mbps")], "5s"),
    "shadow-0.25MiB": ("262144B", [("0s", "3Gbps"), ("2s", "400Mbps")], "12s"),
    "los-0.25MiB": ("262144B", [("0s", "3Gbps")], "12s"),
}
SIDES = ("ns-3.37", "ns3-mmwave-tcp", "ns3-mmwave-tcp-3.35")
FIELDS = ["case", "cca", "side", "goodput_mbps", "retx_bytes", "fast_retransmits", "rtos"]


def scenario(case: str, cca: str) -> dict:
    from .. import ns3

    buf, schedule, duration = CASES[case]
    return {
        "name": f"oracle-tcp-{case}", "duration": duration, "seed": 1, "nodes": ["server", "router", "client"],
        "links": [
            # the runner's point-to-point devices: their PPP header and queue flow control
            {"between": ["server", "router"], "rate": "100Gbps", "delay": "11ms", "framing": ns3.P2P_FRAMING,
             "queue": ns3.device_queue("100MB")},
            {"between": ["router", "client"], "rate": schedule[0][1], "delay": "0.5ms", "framing": ns3.P2P_FRAMING,
             "queue": ns3.device_queue(buf),
             "forward": {"rate_schedule": [{"t": t, "rate": r} for t, r in schedule]}},
        ],
        "tcp": {"profile": "ns3", "segment_size": 1400, "min_rto": "1s", "send_buffer": "6553600B",
                "recv_buffer": "6553600B"},
        "flows": [{"from": "server", "to": "client", "cca": cca, "app": {"type": "bulk"}}],
    }


def run_mmcc(case: str, cca: str) -> dict:
    from ..results import run
    from ..scenario import Scenario

    f = run(Scenario.from_dict(scenario(case, cca), source=f"oracle-tcp {case}")).flows.to_pylist()[0]
    secs = float(CASES[case][2].removesuffix("s"))
    # goodput as the runner counts it: bytes delivered over the whole run
    return {"goodput_mbps": f["delivered_bytes"] * 8 / secs / 1e6, "retx_bytes": int(f["retransmits"]) * 1400,
            "fast_retransmits": f["fast_retransmits"], "rtos": f["rtos"]}


def run_runner(runner: str, case: str, cca: str) -> dict:
    from .. import ns3
    from ..scenario import Scenario

    with tempfile.TemporaryDirectory() as d:
        cfg = Scenario.from_dict(scenario(case, cca), source=case).config
        row = ns3.run_case(runner, cfg, Path(d), 1, f"{case} {cca}")[0]
    return {"goodput_mbps": float(row["goodput_mbps"]), "retx_bytes": int(row["retx_bytes"]),
            "fast_retransmits": int(row["fast_retransmits"]), "rtos": int(row["rtos"])}


def measure(runners: dict[str, str], ccas: list[str] = CCAS) -> list[dict]:
    """Every case of these algorithms on each side given (side -> runner)."""
    return [{"case": case, "cca": cca, "side": side, **run_runner(runner, case, cca)}
            for side, runner in runners.items() for case in CASES for cca in ccas if (side, cca) not in MISSING]


def stored(path: Path = STORE) -> list[dict]:
    with open(path) as f:
        return [{**r, "goodput_mbps": float(r["goodput_mbps"]), "retx_bytes": int(r["retx_bytes"]),
                 "fast_retransmits": int(r["fast_retransmits"]), "rtos": int(r["rtos"])} for r in csv.DictReader(f)]


def markdown(rows: list[dict]) -> str:
    """The table docs/validation.md quotes: each side's goodput and timeouts, the oracle's TCPs
    as differences from ns-3.37."""
    by = {(r["case"], r["cca"], r["side"]): r for r in rows}
    lines = ["| case | algorithm | ns-3.37: goodput Mb/s, timeouts | ns3-mmwave's own TCP: goodput Mb/s, timeouts, "
             "difference | ns3-mmwave with ns-3.35's TCP: goodput Mb/s, timeouts, difference |",
             "| --- | --- | --- | --- | --- |"]
    for case in CASES:
        for cca in CCAS:
            a = by[(case, cca, SIDES[0])]
            cells = []
            for side in SIDES[1:]:
                b = by.get((case, cca, side))
                d = 100 * (b["goodput_mbps"] - a["goodput_mbps"]) / a["goodput_mbps"] if b else 0.0
                missing = "no such class in this tree" if (side, cca) in MISSING else "not run"
                cells.append(f"{b['goodput_mbps']:.1f}, {b['rtos']}, {d:+.1f} %" if b else missing)
            lines.append(f"| {case} | {cca} | {a['goodput_mbps']:.1f}, {a['rtos']} | {' | '.join(cells)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    from ..files import rewrite_marked_block, write_csv_rows

    if argv == ["--docs"]:
        rewrite_marked_block(DOC, "oracle-tcp", markdown(stored()))
        return 0
    ccas = CCAS
    if len(argv) >= 2 and argv[-2] == "--cca":
        ccas, argv = argv[-1].split(","), argv[:-2]
    runners = dict(zip(argv[1::3], argv[2::3]))
    if (argv and len(argv) % 3 == 0 and set(argv[::3]) == {"--side"} and set(runners) <= set(SIDES)
            and set(ccas) <= set(CCAS)):
        new = measure(runners, ccas)
        rows = [r for r in (stored() if STORE.exists() else [])
                if r["side"] not in runners or r["cca"] not in ccas] + new
        rows.sort(key=lambda r: (list(CASES).index(r["case"]), CCAS.index(r["cca"]), SIDES.index(r["side"])))
        write_csv_rows(STORE, [{k: r[k] for k in FIELDS} for r in rows])
        rewrite_marked_block(DOC, "oracle-tcp", markdown(rows))
        return 0
    sys.stderr.write(f"usage: python -m mmcc.experiments.oracle_tcp (--side SIDE RUNNER)... [--cca A,B] | --docs  "
                     f"(SIDE: {', '.join(SIDES)}; algorithms: {', '.join(CCAS)})\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
