"""Sweeps: run a grid of scenario variants, on all local cores, resumably.

Each run is keyed by a hash of its full normalized specification (the run configuration the
core receives), so a re-run skips what is finished. A run's results are written atomically
into `OUT/runs/<run_id>/`; `summary.parquet` is written last and marks completion (a run killed
before that is simply run again). A failing run records `error.json` and does not stop the
sweep. The summaries form a Parquet dataset, `OUT/runs/*/summary.parquet`, one row per run.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import signal
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .. import __version__
from ..files import atomic_write_bytes
from ..results import STALL_TIMEOUTS, run as run_scenario, write_parquet
from ..outdir import refuse_symlink
from ..scenario import Scenario, load

__all__ = ["RunSpec", "grid", "run_sweep", "load_summaries", "jain_index"]

SUMMARY_COLUMNS = [
    "throughput_mbps", "rtt_mean_ms", "rtt_p50_ms", "rtt_p95_ms", "rtt_p99_ms", "owd_mean_ms", "owd_p95_ms",
    "segments_sent", "retransmits", "fast_retransmits", "rtos", "one_segment_timeouts", "one_segment_stall_s", "dupacks", "acks_received", "dupack_ratio",
    "delivered_bytes",
    "drops_queue_full", "drops_aqm", "drops_error_model", "drops_rlc_discard",
]


def jain_index(xs) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2)."""
    xs = np.asarray(list(xs), dtype=float)
    if len(xs) == 0 or not np.any(xs):
        return float("nan")
    return float(xs.sum() ** 2 / (len(xs) * (xs ** 2).sum()))


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: a scenario (preset name or file) with overrides."""

    scenario: str
    cca: str | None = None
    seed: int | None = None
    params: tuple = ()  # ((name, value), ...)
    sets: tuple = ()  # ((dotted key, value), ...)
    duration: str | None = None
    labels: tuple = field(default=(), compare=False)  # ((column, value), ...) for tables

    def scenario_obj(self) -> Scenario:
        return load(self.scenario).with_overrides(
            dict(self.sets) or None, cca=self.cca, seed=self.seed, duration=self.duration, params=dict(self.params) or None
        )

    def config(self) -> dict:
        return self.scenario_obj().config

    def run_id(self) -> str:
        """Hash of the full normalized specification (what the simulator runs), and of the
        content of the policy files its flows run (`cca = "policy:PATH"`), so that a resumed
        sweep runs a retrained policy again."""
        cfg = self.config()
        policies = {f["cca"]: _file_digest(f["cca"][len("policy:"):]) for f in cfg["flows"]
                    if f["cca"].startswith("policy:")}
        blob = json.dumps([cfg, policies] if policies else cfg, sort_keys=True, separators=(",", ":")).encode()
        return hashlib.sha256(blob).hexdigest()[:20]

    def describe(self) -> dict:
        """The run's identifying columns, typed: numbers as floats (0 and 0.0 are the same PER
        level), the seed as an integer, the duration in seconds; text stays text."""
        cfg = self.config()
        d = {"scenario": self.scenario, "cca": self.cca or cfg["flows"][0]["cca"],
             "seed": int(cfg["seed"]), "duration_s": cfg["duration"] / 1e9}
        for k, v in self.params:
            d.update(_columns(f"param_{k}", v))
        for k, v in self.sets:
            d.update(_columns(f"set_{k}", v))
        d.update(dict(self.labels))
        return d


def _file_digest(path: str) -> str:
    """sha256 of a file's content ("missing" when it cannot be read: the run then fails with the
    policy loader's message)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "missing"


def column_name(key: str) -> str:
    """A column name SQL needs no quotes for: "set_links.1.forward.error" -> "set_links_1_forward_error"."""
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in key)
    return name if not name[:1].isdigit() else f"_{name}"


def _columns(key: str, v) -> dict:
    """A swept value as typed columns: a table (e.g. an error model {unit, rate}) becomes one
    column per field (`<key>_unit`, `<key>_rate`), numbers are floats (0 and 0.0 are the same PER
    level), booleans stay booleans; a list is JSON text."""
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            out.update(_columns(f"{key}_{k}", x))
        return out
    if isinstance(v, bool):
        return {column_name(key): v}
    if isinstance(v, (int, float)):
        return {column_name(key): float(v)}
    if isinstance(v, (list, tuple)):
        return {column_name(key): json.dumps(v, sort_keys=True)}
    return {column_name(key): str(v)}


def grid(scenario: str, *, ccas=(None,), seeds=(None,), params: dict | None = None, sets: dict | None = None,
         duration: str | None = None) -> list[RunSpec]:
    """The cartesian product of algorithms x parameter values x set values x seeds."""
    params = params or {}
    sets = sets or {}
    pk, pv = list(params), [list(v) for v in params.values()]
    sk, sv = list(sets), [list(v) for v in sets.values()]
    out = []
    for cca in ccas:
        for pvals in itertools.product(*pv) if pk else [()]:
            for svals in itertools.product(*sv) if sk else [()]:
                for seed in seeds:
                    out.append(RunSpec(scenario, cca=cca, seed=seed, params=tuple(zip(pk, pvals)),
                                       sets=tuple(zip(sk, svals)), duration=duration))
    return out


def _record_failure(spec: RunSpec, d: Path, error: str, tb: str = "") -> dict:
    err = {"run_id": d.name, "spec": spec.describe(), "error": error, "traceback": tb}
    atomic_write_bytes(d / "error.json", json.dumps(err, indent=1).encode())
    return {"run_id": d.name, "ok": False, "error": error}


class _TimeLimit(Exception):
    pass


def _execute(spec: RunSpec, run_dir: str, time_limit: float | None = None) -> dict:
    """Run one spec and write its files; returns a small status dict (runs in a worker). A run
    that exceeds `time_limit` wall seconds is stopped and recorded as failed."""
    d = Path(run_dir)
    (d / "started").touch()  # tells a crash of the worker from a run that never started
    timed_out = []
    if time_limit:
        def on_alarm(_sig, _frame):
            timed_out.append(True)
            raise _TimeLimit
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, time_limit)
    try:
        return _execute_run(spec, d)
    except (KeyboardInterrupt, _TimeLimit):
        if not timed_out:
            raise
        return _record_failure(spec, d, f"time limit exceeded: the run took more than {time_limit:g} s of wall time")
    finally:
        if time_limit:
            signal.setitimer(signal.ITIMER_REAL, 0)
        (d / "started").unlink(missing_ok=True)


def _execute_run(spec: RunSpec, d: Path) -> dict:
    t0 = time.perf_counter()
    try:
        # a capture the scenario asks for goes into the run's own folder (results.run: out_dir)
        r = run_scenario(spec.scenario_obj(), out_dir=d)
        flows = r.flows.to_pylist()
        f0 = flows[0]
        row = {"run_id": d.name, **spec.describe()}
        for c in SUMMARY_COLUMNS:
            row[c] = float(f0[c])
        # mmS-TCP's duplicate-ACK ratio (Kim & Cho 2022, Fig. 9 / Table 2): duplicate ACKs over all
        # packets of the connection as a capture at the sender counts them (data segments sent,
        # retransmissions included, plus ACKs received), for the whole run and for the duplicate
        # ACKs of the first 3 s, both over the whole run's packets
        se = r.series.to_pydict()
        early = [i for i, (f, t) in enumerate(zip(se["flow_id"], se["t_s"])) if f == 0 and t < 3.0]
        packets = row["segments_sent"] + row["acks_received"]
        dup_early = sum(se["dupacks"][i] for i in early)
        row["dupack_per_packet"] = row["dupacks"] / packets if packets else 0.0
        per_flow = 0 in se["flow_id"]  # not with the series for all flows together (record.series)
        row["dupack_per_packet_first_3s"] = (dup_early / packets if packets else 0.0) if per_flow else float("nan")
        row["flows"] = len(flows)
        # flows stuck at one segment per timeout (docs/tcp-profiles.md); the reports list such runs
        row["stalled_flows"] = sum(f["one_segment_timeouts"] >= STALL_TIMEOUTS for f in flows)
        row["total_throughput_mbps"] = float(sum(f["throughput_mbps"] for f in flows))
        row["jain_index"] = jain_index(f["throughput_mbps"] for f in flows)
        row["wall_s"] = time.perf_counter() - t0
        row["mmcc_version"] = __version__
        meta = r.metadata()
        write_parquet(r.series, d / "series.parquet", meta)
        write_parquet(r.tables["cwnd"], d / "cwnd.parquet", meta)
        spread = r.tables.get("spread")
        if spread is not None and spread.num_rows:  # a run of many flows (record.series)
            write_parquet(spread, d / "spread.parquet", meta)
        radio = r.tables.get("radio")
        if radio is not None and radio.num_rows:
            # per 100 ms (the run's per-ms table would make a large sweep write gigabytes)
            write_parquet(radio.take(np.arange(0, radio.num_rows, 100)), d / "radio.parquet", meta)
        atomic_write_bytes(d / "run.json", (json.dumps({"spec": spec.describe(), "config": spec.config(),
                                                        "data_sha256": r.data_hash()}, indent=1, sort_keys=True)).encode())
        # written last: marks the run complete
        write_parquet(pa.Table.from_pylist([row]), d / "summary.parquet", meta)
        return {"run_id": d.name, "ok": True}
    except (Exception, MemoryError) as e:  # noqa: BLE001 - recorded, the sweep goes on
        return _record_failure(spec, d, f"{type(e).__name__}: {e}", traceback.format_exc())


def _die_with_parent(parent: int) -> None:
    """End this worker when the sweep that started it ends, however it ends (SIGKILL included):
    Linux's parent-death signal (prctl PR_SET_PDEATHSIG), and on every system a thread that
    watches the parent's pid."""
    import ctypes
    import threading

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1 (linux/prctl.h)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="mmcc-parent-watch").start()


def _worker_init(parent: int, lock_fd: int | None) -> None:
    """A pool worker: drop the inherited descriptor of the sweep's lock (the lock belongs to the
    sweep process alone, so it ends with it) and die with the sweep."""
    if lock_fd is not None:
        try:
            os.close(lock_fd)
        except OSError:
            pass
    _die_with_parent(parent)


def worker_pool(workers: int, lock_fd: int | None = None) -> ProcessPoolExecutor:
    """A process pool whose workers die with this process (and do not hold `lock_fd`)."""
    return ProcessPoolExecutor(max_workers=workers, initializer=_worker_init, initargs=(os.getpid(), lock_fd))


def _run_local(todo, workers: int, time_limit: float | None, on_done, lock_fd: int | None = None) -> None:
    """A process pool that survives its workers dying (a crash, the out-of-memory killer): the
    runs that were executing when the pool broke are run again one at a time, and one that kills
    its worker again is recorded as failed; runs that had not started go back to the pool."""
    queue, suspects = list(todo), []
    while queue or suspects:
        for s, d in suspects:
            with worker_pool(1, lock_fd) as ex:
                try:
                    on_done(ex.submit(_execute, s, d, time_limit).result())
                except BrokenProcessPool:
                    (Path(d) / "started").unlink(missing_ok=True)
                    on_done(_record_failure(s, Path(d), "the run's worker process died (killed, e.g. out of memory, "
                                                        "or crashed)"))
        suspects = []
        if not queue:
            break
        with worker_pool(workers, lock_fd) as ex:
            futs = {ex.submit(_execute, s, d, time_limit): (s, d) for s, d in queue}
            queue = []
            for f in as_completed(futs):
                try:
                    on_done(f.result())
                except BrokenProcessPool:
                    s, d = futs[f]
                    started = Path(d) / "started"
                    (suspects if started.exists() else queue).append((s, d))
                    started.unlink(missing_ok=True)


_last_progress = [0.0]


def _progress(done: int, total: int, started: float, failed: int):
    """A progress bar with ETA on a terminal (at most 4 updates a second); on a pipe, a line
    every 10 %."""
    now = time.perf_counter()
    el = now - started
    tty = sys.stderr.isatty()
    if done not in (0, total):
        if tty and now - _last_progress[0] < 0.25:
            return
        if not tty and (done * 10) // total == ((done - 1) * 10) // total:
            return
    _last_progress[0] = now
    eta = f"{el / done * (total - done):.0f}s" if done else "?"
    bar = "#" * int(30 * done / max(total, 1))
    line = f"[{bar:<30}] {done}/{total} runs, {failed} failed, {el:.0f}s elapsed, ETA {eta}"
    sys.stderr.write(("\r" + line + " ") if tty else (line + "\n"))
    if tty and done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def parse_address(address: str) -> tuple[str, int]:
    """HOST:PORT of a Ray head node (also ray://HOST:PORT and [IPv6]:PORT) -> (host, port)."""
    rest = address[len("ray://"):] if address.startswith("ray://") else address
    if rest.startswith("["):
        host, sep, port = rest[1:].partition("]:")
    else:
        host, sep, port = rest.rpartition(":")
        if ":" in host:  # a bare IPv6 address has no unambiguous port
            sep = ""
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--address {address!r}: expected HOST:PORT of a Ray cluster's head node "
                         "(an IPv6 host in brackets: [::1]:6379)")
    return host, int(port)


#: HTTP/2's client connection preface and an empty SETTINGS frame (RFC 9113 sections 3.4 and 6.5):
#: a gRPC server (Ray's head node speaks gRPC) answers with its own SETTINGS frame.
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def _probe_ray(address: str, timeout: float = 5.0) -> None:
    """Fail fast (one line) when nothing that speaks gRPC answers at a Ray cluster's HOST:PORT
    (a host that accepts any TCP connection would otherwise keep ray.init waiting)."""
    import socket

    host, port = parse_address(address)
    try:
        c = socket.create_connection((host, port), timeout=timeout)
    except OSError as e:
        raise RuntimeError(f"cannot reach the Ray cluster at {address} ({e.strerror or e}); nothing was run") from None
    head = b""
    try:
        with c:
            c.sendall(_H2_PREFACE)
            while len(head) < 9:
                chunk = c.recv(9 - len(head))
                if not chunk:
                    break
                head += chunk
    except socket.timeout:
        raise RuntimeError(f"{address}: no answer from a Ray head node within {timeout:g} s (something accepts the "
                           "connection but does not speak gRPC); nothing was run") from None
    except OSError:
        pass  # closed or reset by the server: not gRPC either
    if len(head) < 9 or head[3] != 4:  # frame type 4: SETTINGS
        raise RuntimeError(f"{address}: the server there does not speak gRPC, so it is not a Ray head node; "
                           "nothing was run")


def _local_ray_env() -> None:
    """A local Ray instance's servers listen on every interface (Ray offers no loopback-only
    binding), so mmcc starts it with Ray's token authentication (RAY_AUTH_MODE=token, Ray >= 2.52):
    a client without the token this instance generates is refused."""
    mode = os.environ.get("RAY_AUTH_MODE", "")
    if mode and mode != "token":
        raise RuntimeError(f"RAY_AUTH_MODE={mode}: a local Ray instance started by mmcc listens on every network "
                           "interface and needs token authentication; unset RAY_AUTH_MODE, or use --backend local "
                           "(the same runs, no network servers)")
    os.environ["RAY_AUTH_MODE"] = "token"


def init_ray(address: str | None, workers: int):
    """Connect to the cluster at `address`, or start a local Ray instance with `workers` CPUs and
    token authentication (no dashboard); returns ray.init's context."""
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise RuntimeError("the Ray backend needs the 'ray' package: pip install 'mmcc[ray]'")
    if not address:
        _local_ray_env()  # before Ray is imported: Ray reads its authentication mode then
    import ray

    kwargs = {"address": address} if address else {"num_cpus": workers, "include_dashboard": False}
    return ray.init(ignore_reinit_error=True, log_to_driver=False, **kwargs)


def _run_ray(todo, workers, address, on_done, time_limit=None):
    """Run `_execute` for each (spec, dir) as Ray tasks; results land in the shared output folder."""
    started_here = "ray" not in sys.modules or not sys.modules["ray"].is_initialized()
    if started_here:
        init_ray(address, workers)
    import ray

    try:
        task = ray.remote(_execute)
        pending = [task.remote(s, d, time_limit) for s, d in todo]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for r in ready:
                on_done(ray.get(r))
    finally:
        if started_here:
            ray.shutdown()


def run_sweep(specs: list[RunSpec], out_dir: str | Path, *, workers: int | None = None, progress: bool = True,
              backend: str = "local", address: str | None = None, time_limit: float | None = None) -> dict:
    """Run every spec not finished yet; returns counts. workers: processes (default: all cores);
    backend "local" (a process pool) or "ray" (`address` of a cluster; default: a local Ray
    instance). With Ray, `out_dir` must be on a file system every node shares."""
    if backend not in ("local", "ray"):
        raise ValueError(f"unknown backend {backend!r}; choose local or ray")
    if backend == "ray" and address:
        _probe_ray(address)  # before anything is written
    out = Path(out_dir)
    runs = out / "runs"
    out.mkdir(parents=True, exist_ok=True)
    refuse_symlink(runs, "the sweep's runs folder")
    runs.mkdir(exist_ok=True)
    lock = _lock(out)
    try:
        counts = _run_sweep_locked(specs, runs, workers, progress, backend, address, time_limit, lock.fileno())
        write_summary_csv(out)
        return counts
    finally:
        lock.close()


def write_summary_csv(out_dir: str | Path) -> Path | None:
    """OUT/summary.csv: every finished run's summary row (sweeps and reproductions)."""
    import csv
    import io

    rows = load_summaries(out_dir).to_pylist()
    if not rows:
        return None
    cols = list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols)
    w.writeheader()
    w.writerows(rows)
    path = Path(out_dir) / "summary.csv"
    atomic_write_bytes(path, buf.getvalue().encode())
    return path


def _lock(out: Path):
    """An exclusive lock on OUT/.lock for the sweep's lifetime (two sweeps on one folder would do
    the same runs twice)."""
    import fcntl

    try:
        # O_NOFOLLOW: a planted link is refused, not truncated; O_CLOEXEC: no program the sweep
        # starts holds the lock (pool workers close it too, _worker_init)
        fd = os.open(out / ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as e:
        if (out / ".lock").is_symlink():
            refuse_symlink(out / ".lock", "the sweep's lock file")
        raise RuntimeError(f"{out / '.lock'}: cannot open the sweep's lock file: {e.strerror}") from None
    f = os.fdopen(fd, "r+")
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.seek(0)
        holder = f.read().strip() or "?"
        f.close()
        raise RuntimeError(f"{out}: another sweep is writing this folder (lock {out / '.lock'} held by pid {holder}); "
                           "wait for it or use another --out") from None
    f.seek(0)
    f.truncate()
    f.write(str(os.getpid()))
    f.flush()
    return f


def _run_sweep_locked(specs, runs: Path, workers, progress, backend, address, time_limit, lock_fd) -> dict:
    # temporary files of writes a killed sweep left behind
    for tmp in runs.glob("*/.*.tmp"):
        tmp.unlink(missing_ok=True)
    todo, skipped = [], 0
    seen = set()
    for s in specs:
        rid = s.run_id()
        if rid in seen:
            continue
        seen.add(rid)
        d = runs / rid
        refuse_symlink(d, "a run's folder")
        if (d / "summary.parquet").is_file():
            skipped += 1
            continue
        d.mkdir(exist_ok=True)
        (d / "error.json").unlink(missing_ok=True)
        (d / "started").unlink(missing_ok=True)
        todo.append((s, str(d)))
    total, done, failed = len(todo), 0, 0
    started = time.perf_counter()
    workers = workers or os.cpu_count() or 1
    if progress and total:
        _progress(0, total, started, 0)
    def on_done(res):
        nonlocal done, failed
        done += 1
        failed += not res["ok"]
        if progress:
            _progress(done, total, started, failed)

    if backend == "ray":
        if total:
            _run_ray(todo, workers, address, on_done, time_limit)
    elif total:
        _run_local(todo, workers, time_limit, on_done, lock_fd)
    return {"ran": total, "skipped": skipped, "failed": failed}


def _readable_summaries(out_dir: str | Path) -> list[Path]:
    """The runs' summary files that are this sweep's: readable Parquet with a run_id column
    (a corrupt or foreign file is reported on stderr and left out)."""
    good = []
    for f in sorted((Path(out_dir) / "runs").glob("*/summary.parquet")):
        try:
            ok = "run_id" in pq.read_schema(f).names
        except Exception as e:  # noqa: BLE001 - any unreadable file is skipped, with its reason
            sys.stderr.write(f"warning: {f}: not readable as a run summary ({type(e).__name__}: {e}); skipped\n")
            continue
        if ok:
            good.append(f)
        else:
            sys.stderr.write(f"warning: {f}: not a run summary of mmcc (no run_id column); skipped\n")
    return good


def load_summaries(out_dir: str | Path) -> pa.Table:
    """The sweep's dataset: one row per finished run (sorted by run_id)."""
    files = _readable_summaries(out_dir)
    if not files:
        return pa.table({})
    tables = [pq.read_table(f) for f in files]
    t = pa.concat_tables(tables, promote_options="default")
    return t.sort_by("run_id").replace_schema_metadata(None)


def query(out_dir: str | Path, sql: str, external: bool = False):
    """Run SQL (DuckDB) over a sweep's dataset, available as the table `runs` (one row per run);
    returns (column names, rows). By default the query sees only `runs`: DuckDB's file system
    access (reading other files, `COPY ... TO`, `ATTACH`, extension installs) is off and locked
    after the table is loaded; `external=True` keeps DuckDB's defaults."""
    try:
        import duckdb
    except ImportError:
        raise RuntimeError("'mmcc query' needs the 'duckdb' package: pip install duckdb") from None
    files = _readable_summaries(out_dir)
    if not files:
        raise ValueError(f"{out_dir}: no finished runs (expected {Path(out_dir) / 'runs'}/*/summary.parquet)")
    con = duckdb.connect(config={} if external else {"autoload_known_extensions": False,
                                                       "autoinstall_known_extensions": False})
    listed = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files)
    con.execute(f"CREATE TABLE runs AS SELECT * FROM read_parquet([{listed}], union_by_name=true)")
    if not external:
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    try:
        # through Arrow: time-zone-aware values need no Python time-zone package
        rel = con.sql(sql)
        if rel is None:  # a statement without a result (e.g. SET)
            return [], []
        fetch = getattr(rel, "to_arrow_table", None) or getattr(rel, "arrow")  # duckdb 2 / 1.x
        table = fetch()
    except duckdb.Error as e:
        raise ValueError(f"query: {' '.join(str(e).split())}") from None
    cols = table.column_names
    data = [table.column(i).to_pylist() if not pa.types.is_timestamp(table.schema.field(i).type)
            else [str(x) for x in table.column(i).cast(pa.string()).to_pylist()] for i in range(table.num_columns)]
    return cols, [list(r) for r in zip(*data)] if data else []
