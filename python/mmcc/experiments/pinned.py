"""Pinned reference traces: cwnd trajectories the TCP stack must reproduce change for change.

- `tests/data/ns3-cwnd/NAME.txt.gz`: ns-3 3.37's CongestionWindow trace of flow 0 for one case
  of `mmcc validate ns3` (common random numbers), which the `ns3` profile must reproduce.
- `tests/data/linux-cwnd/NAME.txt.gz`: the `linux` profile's own cwnd / ssthresh trajectory on a
  few cases (golden traces: any change of the profile's behaviour shows, and must be accepted by
  rewriting them, `python -m mmcc.experiments.pinned --write-linux`).

Each trace has a `NAME.config.json.gz` beside it: the run configuration (the core's JSON) of its
case, cut where the trace was recorded, with every cwnd change recorded. The Rust suite
(`crates/mmcc-core/tests/pinned_traces.rs`) runs those configurations and compares, so the pins
hold in `cargo test` as well as in the Python suite, which also checks that each stored
configuration is still what the scenario gives (`python -m mmcc.experiments.pinned
--write-configs` rewrites them).

Trace files: a header line `# ...` (naming the columns: `t_ns`, or `dt_ns` for the time since the
previous line, then `cwnd_bytes` and, for linux traces, `ssthresh_bytes` (-1: not set yet); and `first X s`, the
recorded span), then one line per change.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
NS3_TRACES = ROOT / "tests" / "data" / "ns3-cwnd"
#: ns-3's trace of the stall after a timeout (20 timeouts in 5 s; docs/tcp-profiles.md), kept with
#: its case in validation/ns3-cases: its configuration is written beside it (config.json.gz).
STALL_CASE = ROOT / "validation" / "ns3-cases" / "stall-after-timeout.toml"
STALL_TRACE = STALL_CASE.with_suffix(".ns3") / "cwnd.txt.gz"
#: Stored ns-3 runs (validation/ns3-runs/NAME-ns3.json) whose goodput and timeouts the Rust suite
#: checks too, from configurations in tests/data/ns3-runs/: all of them (`cargo test`, and so
#: `make mutants`, sees every rule they show, e.g. ns-3's timeout with nothing in flight while
#: data waits: BBR on the square wave, 15 timeouts in 20 s).
NS3_RUNS = sorted(p.name[:-len("-ns3.json")] for p in (ROOT / "validation" / "ns3-runs").glob("*-ns3.json"))
NS3_RUN_CONFIGS = ROOT / "tests" / "data" / "ns3-runs"
LINUX_TRACES = ROOT / "tests" / "data" / "linux-cwnd"
#: The linux profile's golden cases: name -> duration (s). Wired cases of the validation
#: topology with and without loss (`CCA-RATE-LOSS-sSEED`), heavy loss with timeouts, the thesis'
#: radio path with its 2.5 MiB and 0.25 MiB RLC buffers (the small one overflows: timeouts), a
#: bottleneck that crawls (a spurious timeout, undone by F-RTO) and one that all but stops for 3 s
#: (BLACKOUT: four timeouts in a row, backed off).
LINUX_CASES = {
    "reno-100Mbps-0.001-s1": 5.0,
    "cubic-100Mbps-0.001-s2": 5.0,
    "bbr-100Mbps-0-s1": 5.0,
    "cubic-1Gbps-0.0001-s1": 3.0,
    "rttv-100Mbps-0.001-s1": 5.0,
    "reno-100Mbps-0.1-s2": 5.0,
    "newreno-thesis-edge-0-s1": 6.0,
    "cubic-thesis-edge-0.25MiB-s1": 4.0,
    "cubic-crawl-s1": 6.0,
    "cubic-blackout-s1": 8.0,
}

#: The crawling bottleneck: 20 Mb/s, 50 kb/s for 0.8 s from 3 s; a timeout fires while nothing
#: is lost.
CRAWL = {
    "name": "crawl", "duration": "6s", "seed": 1, "nodes": ["server", "router", "client"],
    "links": [{"between": ["server", "router"], "rate": "1Gbps", "delay": "100us"},
              {"between": ["router", "client"], "rate": "20Mbps", "delay": "9.9ms",
               "forward": {"queue": {"type": "droptail", "limit": "50kB"},
                           "rate_schedule": [{"t": "3s", "rate": "50kbps"}, {"t": "3.8s", "rate": "20Mbps"}]}}],
    "tcp": {"profile": "linux"},
    "flows": [{"from": "server", "to": "client", "cca": "cubic"}],
}


#: The crawling bottleneck at 1 kb/s from 2 s to 5 s: repeated timeouts.
BLACKOUT = {**CRAWL, "links": [CRAWL["links"][0], {
    **CRAWL["links"][1], "forward": {**CRAWL["links"][1]["forward"],
                                     "rate_schedule": [{"t": "2s", "rate": "1kbps"}, {"t": "5s", "rate": "20Mbps"}]}}]}


def names(folder: Path) -> list[str]:
    return sorted(p.name[: -len(".txt.gz")] for p in folder.glob("*.txt.gz"))


def read_trace(path: Path) -> tuple[str, list[tuple]]:
    """The header line and the rows (t_ns, value, ...) of a trace file (dt_ns rows made absolute)."""
    with gzip.open(path, "rt") as f:
        head = f.readline()
        rows = [tuple(int(x) for x in line.split()) for line in f]
    if "dt_ns" in head:
        t = 0
        for i, r in enumerate(rows):
            t += r[0]
            rows[i] = (t, *r[1:])
    return head, rows


def span_s(head: str) -> float:
    """The recorded span `first X s` of a trace's header."""
    return float(head.rsplit("first ", 1)[1].split()[0])


def cwnd_changes(pairs) -> list[tuple]:
    """A trace as its distinct changes: the last value at each instant (ns-3 schedules some
    settings 1 ns after the event that causes them), repeats dropped (the same rule as the Rust
    suite's)."""
    out = []
    for t, *v in pairs:
        v = tuple(v)
        if out and t - out[-1][0] <= 1:
            out[-1] = (out[-1][0], v)
        elif not out or out[-1][1] != v:
            out.append((t, v))
    # a value replaced at the same instant may equal the one before it (ns-3's ProbeRTT sets
    # 8,400 then 5,600 on every ACK): drop such repeats too
    out = [p for i, p in enumerate(out) if i == 0 or p[1] != out[i - 1][1]]
    return [(t, *v) for t, v in out]


def _wired_case(name: str, duration_s: float):
    """`CCA-RATE-LOSS-sSEED` (the loss may read 1e-05) as a case of validate ns3's topology."""
    from .validate_ns3 import Case

    cca, rate, loss, seed = re.fullmatch(r"(\w+)-(\w+)-([0-9.e-]+)-s(\d+)", name).groups()
    return Case(cca, rate, float(loss), int(seed), duration_s)


def ns3_case_config(name: str, tmp: Path) -> str:
    """The run configuration of a pinned ns-3 trace's case (cut at its span, every cwnd change
    recorded), as the core's JSON."""
    from ..scenario import Scenario
    from .validate_ns3 import scenario

    head, _ = read_trace(NS3_TRACES / f"{name}.txt.gz")
    rate = name.split("-")[1]
    sc = scenario(_wired_case(name, 5.0 if rate in ("1Gbps", "trace") else 20.0), tmp)  # the trace case writes its capacity trace there
    sc.setdefault("record", {})["trace"] = True
    sc["duration"] = f"{span_s(head)}s"
    return Scenario.from_dict(sc, source=name).to_json()


def linux_case_config(name: str, tmp: Path) -> str:
    """The run configuration of a linux golden case (every cwnd change recorded)."""
    from ..scenario import Scenario, load
    from .validate_ns3 import scenario

    span = LINUX_CASES[name]
    if "-thesis-edge-" in name:
        cca, rest = name.split("-thesis-edge-")
        params = {} if rest.startswith("0-") else {"rlc_buffer": rest.split("-s")[0]}
        sc = load("thesis-edge").with_overrides({"record.trace": True, "tcp.profile": "linux"}, cca=cca,
                                                duration=f"{span}s", params=params or None)
        return sc.to_json()
    if "-crawl-" in name or "-blackout-" in name:
        raw = json.loads(json.dumps(CRAWL if "-crawl-" in name else BLACKOUT))
        raw["flows"][0]["cca"] = name.split("-")[0]
        raw["record"] = {"trace": True}
        raw["duration"] = f"{span}s"
        return Scenario.from_dict(raw, source=name).to_json()
    raw = scenario(_wired_case(name, span), tmp)
    raw["tcp"]["profile"] = "linux"
    raw.setdefault("record", {})["trace"] = True
    return Scenario.from_dict(raw, source=name).to_json()


def stall_case_config() -> str:
    """The stall case's run configuration, every cwnd change recorded."""
    from ..scenario import load

    return load(str(STALL_CASE)).with_overrides({"record.trace": True}).to_json()


def _config_path(folder: Path, name: str) -> Path:
    return folder / f"{name}.config.json.gz"


def stored_config(folder: Path, name: str) -> dict:
    with gzip.open(_config_path(folder, name), "rt") as f:
        return json.load(f)


def _write_gz(path: Path, text: str) -> None:
    from ..files import atomic_write_bytes

    atomic_write_bytes(path, gzip.compress(text.encode(), mtime=0))


def write_configs() -> list[Path]:
    """Rewrite every pinned trace's configuration file from its case."""
    written = []
    with tempfile.TemporaryDirectory() as d:
        for n in names(NS3_TRACES):
            _write_gz(_config_path(NS3_TRACES, n), ns3_case_config(n, Path(d)))
            written.append(_config_path(NS3_TRACES, n))
        for n in LINUX_CASES:
            _write_gz(_config_path(LINUX_TRACES, n), linux_case_config(n, Path(d)))
            written.append(_config_path(LINUX_TRACES, n))
    _write_gz(STALL_TRACE.with_name("config.json.gz"), stall_case_config())
    written.append(STALL_TRACE.with_name("config.json.gz"))
    with tempfile.TemporaryDirectory() as d:
        for n in NS3_RUNS:
            _write_gz(_config_path(NS3_RUN_CONFIGS, n), ns3_run_config(n, Path(d)))
            written.append(_config_path(NS3_RUN_CONFIGS, n))
    return written


def ns3_run_config(name: str, tmp: Path) -> str:
    """The run configuration of a stored ns-3 run's case (validate ns3's scenario, whole run)."""
    from ..scenario import Scenario
    from .validate_ns3 import Case, scenario

    ref = json.loads((ROOT / "validation" / "ns3-runs" / f"{name}-ns3.json").read_text())
    case = Case(**ref["case"])
    return Scenario.from_dict(scenario(case, tmp), source=name).to_json()


def run_trace(config_json: str) -> list[tuple]:
    """Flow 0's (t_ns, cwnd, ssthresh) changes of a configuration run by mmcc."""
    from .. import _core
    from ..results import _to_arrow

    raw = _core.run(config_json, None)
    cw = _to_arrow(raw["tables"]["cwnd"]).to_pydict()
    # ssthresh -1: not set yet (the table's NaN), as the core records it
    return cwnd_changes([(round(t * 1e9), int(c), -1 if s != s else int(s))
                         for t, c, s, f in zip(cw["t_s"], cw["cwnd_bytes"], cw["ssthresh_bytes"], cw["flow_id"])
                         if f == 0])


def write_linux_traces() -> None:
    """Record the linux profile's golden traces from the stored configurations (after a change
    of the profile's behaviour was accepted)."""
    LINUX_TRACES.mkdir(parents=True, exist_ok=True)
    for n in LINUX_CASES:
        cfg = json.dumps(stored_config(LINUX_TRACES, n))
        rows = run_trace(cfg)
        lines, prev = [], 0
        for t, c, s in rows:
            lines.append(f"{t - prev} {c} {s}")
            prev = t
        head = (f"# mmcc linux profile, cwnd and ssthresh of flow 0: dt_ns cwnd_bytes ssthresh_bytes (time since "
                f"the previous line); case {n}, first {LINUX_CASES[n]} s")
        _write_gz(LINUX_TRACES / f"{n}.txt.gz", head + "\n" + "\n".join(lines) + "\n")


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m mmcc.experiments.pinned", description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-configs", action="store_true", help="rewrite every pinned trace's configuration file")
    ap.add_argument("--write-linux", action="store_true", help="re-record the linux profile's golden traces")
    a = ap.parse_args(argv)
    if not (a.write_configs or a.write_linux):
        ap.print_help()
        return 2
    if a.write_configs:
        print(f"wrote {len(write_configs())} configuration files")
    if a.write_linux:
        write_linux_traces()
        print(f"wrote {len(LINUX_CASES)} linux traces to {LINUX_TRACES}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
