"""Running a scenario and handling its results: pyarrow tables, Parquet files, summaries."""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from . import __version__, _core
from .files import atomic_write, atomic_write_bytes
from .scenario import Scenario

__all__ = ["RunResult", "run", "write_parquet"]

# The tables a run writes, in this order.
TABLES = ["flows", "series", "spread", "cwnd", "events", "rtt_hist", "owd_hist", "drops", "links", "radio",
          "rtt_trace", "owd_trace"]
#: Tables written only when they have rows (the others are written empty, with their columns).
OPTIONAL_TABLES = ("spread", "radio", "rtt_trace", "owd_trace")


def _to_arrow(cols: dict) -> pa.Table:
    arrays, names = [], []
    for name, (dtype, data) in cols.items():
        if dtype == "f64":
            arrays.append(pa.array(np.frombuffer(data, dtype="<f8")))
        elif dtype == "i64":
            arrays.append(pa.array(np.frombuffer(data, dtype="<i8")))
        else:  # "str": distinct labels and little-endian u32 codes into them
            labels, codes = data
            # decoded through numpy: Array.take would import pyarrow.compute (0.1 s at start-up)
            arrays.append(pa.array(np.array(labels, dtype=object)[np.frombuffer(codes, dtype="<u4")], type=pa.string()))
        names.append(name)
    return pa.table(arrays, names=names)


#: Lists longer than this (a replayed trace has one entry per millisecond) are recorded in the
#: outputs' metadata by length and digest, not element by element.
LONG_LIST = 1000


def compact_config(v):
    """The configuration with long lists replaced by {"elided_list": length, "sha256": digest}."""
    if isinstance(v, dict):
        return {k: compact_config(x) for k, x in v.items()}
    if isinstance(v, list):
        if len(v) > LONG_LIST:
            digest = hashlib.sha256(json.dumps(v).encode()).hexdigest()
            return {"elided_list": len(v), "sha256": digest}
        return [compact_config(x) for x in v]
    return v


#: Rows per Parquet row group: the writer holds one group's pages at a time.
ROW_GROUP = 131_072


def write_parquet(table: pa.Table, path: Path, metadata: dict | None = None) -> None:
    """Write a table as Parquet atomically, with string metadata in the schema."""
    if metadata:
        table = table.replace_schema_metadata({k: str(v) for k, v in metadata.items()})
    atomic_write(path, lambda f: pq.write_table(table, f, compression="zstd", row_group_size=ROW_GROUP))


@dataclass
class RunResult:
    """The tables of one run, with the scenario and seed that produced them."""

    scenario: Scenario
    tables: dict[str, pa.Table]
    events_processed: int
    wall_seconds: float
    pcap_packets: int | None = None
    #: Set when the run was interrupted (Ctrl-C): the simulated time it reached; the tables
    #: then cover [0, interrupted_at_s) only.
    interrupted_at_s: float | None = None
    #: Extra facts for run.json (the kernel testbed: the sender namespace's TCP counters).
    extra: dict | None = None

    @property
    def flows(self) -> pa.Table:
        return self.tables["flows"]

    @property
    def series(self) -> pa.Table:
        return self.tables["series"]

    def metadata(self) -> dict:
        return {
            "mmcc_version": __version__,
            "scenario": self.scenario.name,
            "scenario_source": self.scenario.source,
            "seed": self.scenario.config["seed"],
            "params": json.dumps(self.scenario.params, sort_keys=True),
            "config": json.dumps(compact_config(self.scenario.config), sort_keys=True),
            "partial": "false" if self.interrupted_at_s is None else f"interrupted at {self.interrupted_at_s:.3f} s",
        }

    def data_hash(self) -> str:
        """SHA-256 over every table's content (Arrow IPC stream), independent of file metadata."""
        h = hashlib.sha256()

        class Digest:  # a file-like sink: the stream is hashed as it is written, never held whole
            closed = False

            def write(self, b) -> int:
                h.update(b)
                return len(b)

        for name in sorted(self.tables):
            h.update(name.encode())
            with pa.ipc.new_stream(pa.PythonFile(Digest(), mode="w"), self.tables[name].schema) as w:
                w.write_table(self.tables[name])
        return h.hexdigest()

    def write(self, out_dir: str | Path) -> list[Path]:
        """Write every non-empty table as `<out>/<table>.parquet` and `run.json`; atomic per file."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        meta = self.metadata()
        written = []
        for name in TABLES:
            t = self.tables.get(name)
            if t is None or (name in OPTIONAL_TABLES and t.num_rows == 0):
                continue
            p = out / f"{name}.parquet"
            write_parquet(t, p, meta)
            written.append(p)
        from . import _core

        tcp = [json.loads(_core.resolve_tcp(json.dumps(f.get("tcp", {})))) for f in self.scenario.config["flows"]]
        info = {**meta, "config": compact_config(self.scenario.config), "tcp_settings": tcp, "events_processed": self.events_processed,
                "wall_seconds": round(self.wall_seconds, 3), "data_sha256": self.data_hash(),
                "tables": [p.name for p in written], **(self.extra or {})}
        atomic_write_bytes(out / "run.json", (json.dumps(info, indent=2, sort_keys=True) + "\n").encode())
        written.append(out / "run.json")
        return written

    def summary_rows(self) -> list[dict]:
        """One row per flow; counts a run does not measure (the kernel testbed's) are None."""
        def count(*vals):
            if any(v is None or v != v for v in vals):
                return None
            return int(sum(vals))

        rows = []
        for r in self.flows.to_pylist():
            rows.append({
                "flow": r["flow_id"], "cca": r["cca"], "throughput_mbps": r["throughput_mbps"],
                "rtt_mean_ms": r["rtt_mean_ms"], "rtt_p95_ms": r["rtt_p95_ms"], "owd_mean_ms": r["owd_mean_ms"],
                "retransmits": count(r["retransmits"]), "fast_retransmits": count(r["fast_retransmits"]),
                "rtos": count(r["rtos"]),
                "drops": count(r["drops_queue_full"], r["drops_aqm"], r["drops_error_model"], r["drops_link_down"],
                               r["drops_mtu"]),
            })
        return rows

    def summary_text(self) -> str:
        """A table of the flows; above SUMMARY_FLOWS flows the first of them and a line on all."""
        rows = self.summary_rows()
        shown = rows if len(rows) <= SUMMARY_FLOWS else rows[:SUMMARY_FLOWS // 2]
        head = ["flow", "cca", "thr Mb/s", "RTT ms", "RTT p95", "OWD ms", "retx", "fast-rtx", "RTOs", "drops"]
        body = [[str(r["flow"]), r["cca"], f"{r['throughput_mbps']:.1f}", f"{r['rtt_mean_ms']:.2f}",
                 f"{r['rtt_p95_ms']:.2f}", f"{r['owd_mean_ms']:.2f}", *("-" if r[k] is None else str(r[k])
                 for k in ("retransmits", "fast_retransmits", "rtos", "drops"))] for r in shown]
        widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
        line = lambda cells: "  ".join(c.rjust(w) if i > 1 else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))
        out = [line(head), line(["-" * w for w in widths])] + [line(b) for b in body]
        if len(shown) < len(rows):
            from .experiments.sweep import jain_index

            t = np.sort(np.array([r["throughput_mbps"] for r in rows], dtype=float))
            out.append(f"... {len(rows) - len(shown):,} more flows in the flows table; all {len(rows):,} flows: total "
                       f"{t.sum():.1f} Mb/s, per flow min {t[0]:.2f} / median {np.median(t):.2f} / max {t[-1]:.2f} "
                       f"Mb/s, Jain's index {jain_index(t):.3f}")
        return "\n".join(out)


#: Flows listed one by one in a run's summary; above this, the first half of them and a line on all.
SUMMARY_FLOWS = 20

#: A flow whose flight stayed at one segment across this many consecutive timeouts is "stalled"
#: (flows table: `one_segment_timeouts`; docs/tcp-profiles.md says when ns-3 does this).
STALL_TIMEOUTS = 3


def stall_note(one_segment_timeouts, stall_s) -> str | None:
    """A one-line description of a stalled flow, or None (for summaries and reports)."""
    if one_segment_timeouts is None or one_segment_timeouts != one_segment_timeouts \
            or one_segment_timeouts < STALL_TIMEOUTS:
        return None
    return (f"stalled: one segment in flight across {int(one_segment_timeouts)} consecutive timeouts "
            f"({stall_s:.2f} s)")


def _python_algorithms(sc: Scenario, cca) -> dict:
    """Instances of Python algorithms for the flows whose `cca` is "python"."""
    import copy as _copy

    from .cca import CongestionControl
    from .scenario import PYTHON_CCA, ScenarioError

    out = {}
    for i, f in enumerate(sc.config["flows"]):
        if f["cca"] != PYTHON_CCA:
            continue
        if cca is None:
            raise ScenarioError(f"{sc.source}: flows[{i}].cca: 'python' needs a Python algorithm: "
                                f"mmcc.run(..., cca=MyAlgorithm) with a subclass of mmcc.CongestionControl")
        # a class: one instance per flow; an instance: itself for the first flow (so it can be
        # inspected after the run), copies for the others
        cls_name = getattr(cca, "__name__", type(cca).__name__)
        try:
            obj = cca() if isinstance(cca, type) else (cca if not out else _copy.deepcopy(cca))
        except Exception as e:  # noqa: BLE001 - the user's constructor failed
            raise ScenarioError(f"Python congestion control {cls_name}: creating it failed: {type(e).__name__}: {e}") from None
        if not isinstance(obj, CongestionControl):
            raise ScenarioError(f"cca: {cca!r} is not a subclass or instance of mmcc.CongestionControl")
        name = getattr(obj, "name", None)
        if not isinstance(name, str) or not name.strip():
            raise ScenarioError(f"Python congestion control {cls_name}: its `name` must be a non-empty string, got {name!r}")
        out[i] = obj
    return out


def run(scenario: Scenario | str, *, cca=None, cca_params: dict | None = None,
        seed: int | None = None, duration: str | None = None, sets: dict | None = None,
        params: dict | None = None, out_dir: str | Path | None = None, allow_partial: bool = False) -> RunResult:
    """Run a scenario (a `Scenario`, preset name or TOML path) and return its tables.

    `cca` is an algorithm name for every flow, or a Python algorithm (a subclass or an instance
    of `mmcc.CongestionControl`; one instance per flow). A `[pcap]` capture is written in
    `out_dir` (default: the current folder) under its file name. Ctrl-C stops the simulation
    within a fraction of a second: KeyboardInterrupt, or with `allow_partial` the tables so far
    (`interrupted_at_s` set)."""
    from .scenario import POLICY_PREFIX, PYTHON_CCA, ScenarioError, load

    sc = load(scenario) if isinstance(scenario, (str, os.PathLike)) else scenario
    py_cca = None if cca is None or isinstance(cca, str) else cca
    name = PYTHON_CCA if py_cca is not None else cca
    if any(x is not None for x in (name, cca_params, seed, duration)) or sets or params:
        sc = sc.with_overrides(sets, cca=name, cca_params=cca_params, seed=seed, duration=duration, params=params)
    cfg_json = sc.to_json()
    if sc.config.get("pcap"):
        cfg = json.loads(cfg_json)
        target = Path(out_dir or ".") / cfg["pcap"]["path"]
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise ScenarioError(f"pcap: {str(target)!r} exists and is not a regular file; refusing to write it")
        target.parent.mkdir(parents=True, exist_ok=True)
        cfg["pcap"]["path"] = str(target)
        cfg_json = json.dumps(cfg, sort_keys=True)
    algorithms = _python_algorithms(sc, py_cca)
    policies = {i: f["cca"] for i, f in enumerate(sc.config["flows"]) if f["cca"].startswith(POLICY_PREFIX)}
    t0 = time.perf_counter()
    if policies:
        if algorithms:
            raise ScenarioError(f"{sc.source}: a run takes either Python algorithm objects or policies, not both")
        from .gym.policy import run_policies

        raw = run_policies(sc, policies, pcap_path=(json.loads(cfg_json).get("pcap") or {}).get("path"))
    else:
        raw = _core.run(cfg_json, algorithms or None)
    res = result_from_raw(sc, raw, time.perf_counter() - t0)
    if res.interrupted_at_s is not None and not allow_partial:
        raise KeyboardInterrupt
    return res


def result_from_raw(sc: Scenario, raw: dict, wall: float) -> RunResult:
    """A RunResult from the extension's raw output (`_core.run`, `Session.finish`)."""
    tables = {name: _to_arrow(cols) for name, cols in raw["tables"].items()}
    return RunResult(sc, tables, raw["events_processed"], wall, raw.get("pcap_packets"), raw.get("interrupted_at_s"))
