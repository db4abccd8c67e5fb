"""`mmcc testbed SCENARIO`: the scenario's flows as real kernel TCP between two network
namespaces, joined by mmcc's link emulator (crates/mmcc-linkemu) that reproduces the path.

- **Path.** The links between the flows' two nodes, in order, each direction with its rate (or
  rate schedule / Mahimahi trace), propagation delay, drop-tail buffer and error model (same
  unit as the scenario), chained as the simulator chains its channels. Scenarios with a radio
  link are refused with the way to replay them: export the radio's capacity with
  `mmcc export-trace` and give a wired link that `rate_trace`.
- **Hosts.** Namespace `a` holds the senders, `b` the receivers; each has one TUN device (MTU of
  the path, no offloads: MTU-sized packets) opened by the emulator, IPv6 off, lo up.
- **Flows.** Each flow is a bulk sender/receiver pair (python/mmcc/testbed/endpoint.py) with the
  flow's algorithm set per socket (TCP_CONGESTION): the simulator's names map to the kernel's
  (newreno -> reno, cubic, bbr) and mmcc's six eBPF algorithms (mmcc_<name>), registered for the
  run if needed and unregistered after it if this run registered them.
- **Records.** The sender samples TCP_INFO every `sample_ms`, the receiver counts delivered
  bytes; both become the tables `mmcc run` writes (flows, series, cwnd, events, links, drops; the
  same schema, columns the kernel does not expose are null), so `mmcc query`, plots and reports
  work unchanged. `tcp_profile` is `kernel`. run.json adds the sender namespace's TCP counters
  (`/proc/net/snmp`, `/proc/net/netstat`: timeouts, loss probes, recoveries, ...) and the
  emulator's per-link statistics.
- **Cleanup.** Processes, namespaces and registrations are removed on success, failure and
  Ctrl-C; the emulator and endpoints die with this process (PR_SET_PDEATHSIG), and namespaces or
  registrations left by a killed run (its pid no longer alive) are removed by the next run or by
  `mmcc testbed --cleanup`.
"""
from __future__ import annotations

import bisect
import faulthandler
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..scenario import link_route
from . import bpf

ENDPOINT = Path(__file__).resolve().parent / "endpoint.py"
STATE_DIR = Path("/run/mmcc-testbed")
NS_PREFIX = "mmcc-tb"
#: A run's temporary folder: TMP_PREFIX<pid>-<random> in the system's temporary folder (a killed
#: run's is removed by cleanup_stale).
TMP_PREFIX = "mmcc-testbed-"
ADDR_A, ADDR_B = "10.203.0.1", "10.203.0.2"
BASE_PORT = 5301
KERNEL_NAMES = {"newreno": "reno", "reno": "reno", "cubic": "cubic", "bbr": "bbr",
                **{a: bpf.PREFIX + a for a in bpf.ALGORITHMS}}
CA_STATES = {0: "open", 1: "disorder", 2: "cwr", 3: "recovery", 4: "loss"}
#: Linux TCP_INFINITE_SSTHRESH: ssthresh values at or above it mean "not set".
INFINITE_SSTHRESH = 0x7FFFFFFF


class TestbedError(RuntimeError):
    """A clear, user-facing reason why the testbed cannot run (or failed)."""


def kernel_cca(name: str) -> str:
    """The kernel's name for a simulator algorithm name (kernel names pass through)."""
    if name in KERNEL_NAMES:
        return KERNEL_NAMES[name]
    if name in KERNEL_NAMES.values():
        return name
    raise TestbedError(f"algorithm {name!r} has no kernel version here; the testbed runs: "
                       f"{', '.join(sorted(KERNEL_NAMES))}")


# ---------------------------------------------------------------------------------------------
# The plan: what the emulator and the endpoints are given


@dataclass
class Plan:
    forward: list[dict]
    reverse: list[dict]
    mtu: int
    flows: list[dict]
    duration_ns: int
    bin_ns: int
    seed: int
    link_ids: list[tuple[int, str]] = field(default_factory=list)


def plan(config: dict, independent_losses: bool = False) -> Plan:
    """The emulated path and the flows of a normalized scenario configuration. The emulator's
    losses are drawn from the simulator's stream of each link direction (common random numbers),
    or with `independent_losses` from a stream of the run seed the simulator never uses."""
    if config.get("radios"):
        raise TestbedError("the testbed emulates wired links; for a radio scenario run it in the simulator "
                           "(`mmcc run SCENARIO --out RUN`), export its capacity (`mmcc export-trace RUN --out "
                           "cap.mahimahi`) and run a wired scenario whose bottleneck has "
                           "`rate_trace = { file = \"cap.mahimahi\" }` (docs/testbed.md)")
    flows = config["flows"]
    ends = {(f["src"], f["dst"]) for f in flows}
    if len(ends) != 1:
        raise TestbedError("the testbed runs flows between one pair of nodes (all flows from the same node to the "
                           f"same node); this scenario has {len(ends)} pairs")
    src, dst = ends.pop()
    for i, f in enumerate(flows):
        app = f.get("app") or {}
        if app.get("type", "bulk") != "bulk" or app.get("bytes") is not None:
            raise TestbedError(f"flows[{i}].app: the testbed runs unlimited bulk transfers only")
        kernel_cca(f["cca"])
    links = config["links"]
    hops = link_route(config, src, dst)
    if not hops or link_route(config, dst, src) != [(i, "ba" if d == "ab" else "ab") for i, d in reversed(hops)]:
        raise TestbedError("the flows' nodes need one path of links between them, the same both ways")

    def spec(i: int, d: str) -> dict:
        lk = links[i]
        # the simulator's random stream for this link direction (common random numbers), or the
        # testbed's own (independent losses: `mmcc validate linux --independent`)
        stream = f"testbed/link/{i}/{d}" if independent_losses else f"link/{i}/{d}"
        return {"rate": lk["rate"], "delay": lk["delay"], "stream": stream, **lk[d]}

    for i, _ in hops:
        for d in ("ab", "ba"):
            for opt, what in (("reorder", "reordering"), ("outages", "outages"), ("drop_list", "drop lists")):
                if links[i][d].get(opt):
                    raise TestbedError(f"link {i}: {what} are not emulated by the testbed")
            if (links[i][d].get("queue") or {}).get("type", "droptail") != "droptail":
                raise TestbedError("the testbed emulates drop-tail queues only")
    forward = [spec(i, d) for i, d in hops]
    reverse = [spec(i, "ba" if d == "ab" else "ab") for i, d in reversed(hops)]
    return Plan(forward, reverse, min(links[i]["mtu"] for i, _ in hops), flows, int(config["duration"]),
                int(config.get("record", {}).get("bin", 100_000_000)), int(config.get("seed", 1)),
                [(i, "forward" if d == "ab" else "reverse") for i, d in hops])


# ---------------------------------------------------------------------------------------------
# Hosts: namespaces, the emulator, cleanup


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise TestbedError(f"ip {' '.join(args)}: {r.stderr.strip()}")
    return r


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def cleanup_stale() -> list[str]:
    """Remove the namespaces, BPF registrations and temporary folders left by testbed runs whose
    process is gone (killed)."""
    removed = []
    r = _ip("netns", "list", check=False)
    for line in r.stdout.splitlines():
        name = line.split()[0] if line.split() else ""
        parts = name.split("-")
        if name.startswith(NS_PREFIX + "-") and len(parts) == 4 and parts[2].isdigit() and not _alive(int(parts[2])):
            _ip("netns", "del", name, check=False)
            removed.append(name)
    if STATE_DIR.is_dir():
        for marker in STATE_DIR.glob("*.json"):
            try:
                info = json.loads(marker.read_text())
                pid = int(info["pid"])
            except (OSError, ValueError, KeyError, TypeError):
                marker.unlink(missing_ok=True)
                continue
            if not _alive(pid):
                loaded = [n for n in info.get("loaded", []) if n in bpf.registered()]
                if loaded:
                    bpf.unload(loaded)
                    removed.extend(loaded)
                marker.unlink(missing_ok=True)
    for d in Path(tempfile.gettempdir()).glob(f"{TMP_PREFIX}*-*"):
        pid = d.name[len(TMP_PREFIX):].split("-")[0]
        if pid.isdigit() and not _alive(int(pid)) and d.is_dir() and not d.is_symlink():
            shutil.rmtree(d, ignore_errors=True)
            removed.append(str(d))
    return removed


def unavailable_reason() -> str | None:
    """Why the testbed cannot run here (None: it can)."""
    if sys.platform != "linux":
        return "the testbed needs Linux (network namespaces and TUN devices)"
    if os.geteuid() != 0:
        return "the testbed creates network namespaces and TUN devices: run it as root"
    if not Path("/dev/net/tun").exists():
        return "/dev/net/tun is missing: this kernel or container has no TUN support"
    if shutil.which("ip") is None:
        return "the `ip` command (iproute2) is not installed: apt-get install iproute2"
    return _probe_namespaces()


_PROBE: list = []


def _probe_namespaces() -> str | None:
    """Can this process create a network namespace here (a container may forbid it)? Once."""
    if not _PROBE:
        name = f"{NS_PREFIX}-probe-{os.getpid()}"
        r = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
        if r.returncode == 0:
            subprocess.run(["ip", "netns", "del", name], capture_output=True)
            _PROBE.append(None)
        else:
            _PROBE.append(f"cannot create a network namespace here: {r.stderr.strip()}")
    return _PROBE[0]


def emulator_module() -> Path:
    """The file holding the link emulator: the extension module `mmcc._core` (the emulator runs
    as `python -m mmcc.testbed.linkemu`; no build at run time, nothing written to the source tree)."""
    from .. import _core

    return Path(_core.__file__)


def emulator_command(config: Path) -> list[str]:
    return [sys.executable, "-m", "mmcc.testbed.linkemu", str(config)]


def _raise_priority(pid: int, realtime: bool) -> None:
    """Keep the emulator's timing (SCHED_FIFO) and the endpoints (nice -10) ahead of whatever
    else the machine runs; best effort (a container may refuse)."""
    try:
        if realtime:
            os.sched_setscheduler(pid, os.SCHED_FIFO, os.sched_param(10))
        else:
            os.setpriority(os.PRIO_PROCESS, pid, -10)
    except (OSError, AttributeError):
        pass


class Hosts:
    """Two namespaces joined by the emulator; a context manager that always cleans up."""

    def __init__(self, p: Plan, work: Path, pcap_dir: Path | None = None):
        self.plan = p
        self.work = work
        self.pcap_dir = pcap_dir
        self.tag = f"{NS_PREFIX}-{os.getpid()}"
        self.ns_a, self.ns_b = f"{self.tag}-a", f"{self.tag}-b"
        self.tun_a, self.tun_b = f"tb{os.getpid()}a"[-15:], f"tb{os.getpid()}b"[-15:]
        self.emu: subprocess.Popen | None = None
        self.procs: list[subprocess.Popen] = []
        self.stats: dict | None = None
        self.loaded: list[str] = []
        self.marker = STATE_DIR / f"{os.getpid()}.json"

    def __enter__(self) -> "Hosts":
        try:
            self._setup()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _save_marker(self) -> None:
        STATE_DIR.mkdir(parents=True, exist_ok=True)
        tmp = self.marker.with_suffix(".tmp")
        tmp.write_text(json.dumps({"pid": os.getpid(), "namespaces": [self.ns_a, self.ns_b], "loaded": self.loaded}))
        tmp.replace(self.marker)

    def register(self, kernel_names: list[str]) -> None:
        """Register the eBPF algorithms the flows need (those already registered are reused)."""
        wanted = sorted({n for n in kernel_names if n.startswith(bpf.PREFIX)})
        if not wanted:
            return
        reason = bpf.unavailable_reason()
        if reason:
            raise TestbedError(reason)
        reused = [n for n in wanted if n in bpf.available()]
        if reused:
            sys.stderr.write(f"note: using the registration of {', '.join(reused)} already in the kernel (made "
                             "outside this run, possibly by another build); `mmcc kernel unload` first to run "
                             "this build's\n")
        try:
            self.loaded.extend(bpf.load(wanted))
        finally:
            self._save_marker()

    def _setup(self) -> None:
        self._save_marker()
        for ns in (self.ns_a, self.ns_b):
            _ip("netns", "add", ns)
            _ip("-n", ns, "link", "set", "lo", "up")
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                            "net.ipv4.tcp_no_metrics_save=1"], capture_output=True)
        cfg = {"seed": self.plan.seed, "netns_a": f"/run/netns/{self.ns_a}", "tun_a": self.tun_a,
               "netns_b": f"/run/netns/{self.ns_b}", "tun_b": self.tun_b, "forward": self.plan.forward,
               "reverse": self.plan.reverse, "stats": str(self.work / "emulator-stats.json")}
        if self.pcap_dir is not None:
            self.pcap_dir.mkdir(parents=True, exist_ok=True)
            cfg["pcap_forward"] = str(self.pcap_dir / "forward.pcap")
            cfg["pcap_reverse"] = str(self.pcap_dir / "reverse.pcap")
        (self.work / "emulator.json").write_text(json.dumps(cfg))
        self.emu = subprocess.Popen(emulator_command(self.work / "emulator.json"), stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _raise_priority(self.emu.pid, realtime=True)
        line = self.emu.stdout.readline().strip()
        if line != "ready":
            try:
                err = self.emu.communicate(timeout=5)[1]
            except subprocess.TimeoutExpired:
                self.emu.kill()
                err = self.emu.communicate()[1]
            raise TestbedError(f"the link emulator did not start: {(err or line).strip()}")
        for ns, dev, mine, peer in ((self.ns_a, self.tun_a, ADDR_A, ADDR_B), (self.ns_b, self.tun_b, ADDR_B, ADDR_A)):
            _ip("-n", ns, "addr", "add", mine, "peer", peer, "dev", dev)
            _ip("-n", ns, "link", "set", dev, "mtu", str(self.plan.mtu), "up")
            if shutil.which("ethtool"):
                subprocess.run(["ip", "netns", "exec", ns, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro",
                                "off"], capture_output=True)

    def spawn(self, ns: str, args: list[str]) -> subprocess.Popen:
        p = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, str(ENDPOINT), *args], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(p)
        _raise_priority(p.pid, realtime=False)
        return p

    def tcp_counters(self, ns: str) -> dict:
        """The namespace's TCP counters (/proc/net/snmp Tcp and /proc/net/netstat TcpExt): a
        fresh namespace per run, so they count this run only."""
        out = {}
        for f in ("/proc/net/snmp", "/proc/net/netstat"):
            r = subprocess.run(["ip", "netns", "exec", ns, "cat", f], capture_output=True, text=True)
            lines = r.stdout.splitlines()
            for head, vals in zip(lines[::2], lines[1::2]):
                names, values = head.split(), vals.split()
                if names and names[0] in ("Tcp:", "TcpExt:") and names[0] == values[0]:
                    out.update({f"{names[0][:-1]}{n}": int(v) for n, v in zip(names[1:], values[1:])
                                if v.lstrip("-").isdigit()})
        return out

    def start_clock(self) -> int:
        """Start the emulator's clock: the scenario's time 0 (CLOCK_MONOTONIC ns)."""
        t0 = time.monotonic_ns()
        self.emu.stdin.write("start\n")
        self.emu.stdin.flush()
        return t0

    def close(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        # one deadline for all endpoints (they end at once on SIGTERM), then SIGKILL
        deadline = time.monotonic() + 5.0
        for p in self.procs:
            try:
                p.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if self.emu is not None:
            if self.emu.poll() is None:
                try:
                    self.emu.stdin.write("stop\n")
                    self.emu.stdin.flush()
                except (BrokenPipeError, OSError):
                    pass
                try:
                    self.emu.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.emu.kill()
                    self.emu.wait()
            stats = self.work / "emulator-stats.json"
            if stats.exists():
                self.stats = json.loads(stats.read_text())
            self.emu = None
        for ns in (self.ns_a, self.ns_b):
            _ip("netns", "del", ns, check=False)
        if self.loaded:
            bpf.unload(self.loaded)
            self.loaded = []
        self.marker.unlink(missing_ok=True)


# ---------------------------------------------------------------------------------------------
# One run


def _read_json(p: subprocess.Popen, what: str, timeout: float) -> dict:
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    if not lines:
        raise TestbedError(f"the {what} failed: {(err or out).strip()[-1500:]}")
    doc = json.loads(lines[-1])
    if "error" in doc:
        raise TestbedError(f"the {what}: {doc['error']}")
    return doc


def _expect_ready(p: subprocess.Popen, what: str) -> None:
    line = p.stdout.readline().strip()
    if line != "ready":
        try:
            rest, err = p.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            rest, err = p.communicate()
        msg = next((json.loads(x)["error"] for x in (line + "\n" + rest).splitlines()
                    if x.startswith("{") and "error" in x), None)
        raise TestbedError(f"the {what} did not start: {msg or (err or line).strip()[-1500:]}")


def run_testbed(scenario, *, cca: str | None = None, seed: int | None = None, duration: str | None = None,
                sets: dict | None = None, sample_ms: int = 10, pcap_dir: str | Path | None = None,
                independent_losses: bool = False):
    """Run a scenario (Scenario, preset name or TOML path) on the kernel testbed; returns a
    `RunResult` whose tables have the schema of `mmcc run`'s. With `pcap_dir`, the emulator
    writes forward.pcap and reverse.pcap there (IPv4 and TCP headers of every packet entering the
    data and the ACK path, on the scenario's clock). `independent_losses`: see `plan`."""
    from ..results import RunResult
    from ..scenario import load

    reason = unavailable_reason()
    if reason:
        raise TestbedError(reason)
    sc = load(scenario) if isinstance(scenario, (str, os.PathLike)) else scenario
    if cca or seed is not None or duration or sets:
        sc = sc.with_overrides(sets or None, cca=cca, seed=seed, duration=duration)
    p = plan(sc.config, independent_losses)
    if not 1 <= sample_ms <= 1000:
        raise TestbedError(f"--sample-ms {sample_ms}: allowed 1..1000")
    cleanup_stale()
    kernel = [kernel_cca(f["cca"]) for f in p.flows]
    t_wall = time.perf_counter()
    pcap = Path(pcap_dir) if pcap_dir is not None else None
    with tempfile.TemporaryDirectory(prefix=f"{TMP_PREFIX}{os.getpid()}-") as tmp, Hosts(p, Path(tmp), pcap) as hosts:
        hosts.register(kernel)
        receivers, senders = [], []
        for i, f in enumerate(p.flows):
            r = hosts.spawn(hosts.ns_b, ["recv", "--port", str(BASE_PORT + i), "--bin-ms", "10",
                                         "--sample-ms", str(sample_ms)])
            _expect_ready(r, f"receiver of flow {i}")
            receivers.append(r)
        for i, f in enumerate(p.flows):
            stop = min(p.duration_ns, f["stop"] if f.get("stop") is not None else p.duration_ns)
            s = hosts.spawn(hosts.ns_a, ["send", "--to", ADDR_B, "--port", str(BASE_PORT + i), "--cca", kernel[i],
                                         "--start-ns", str(int(f.get("start") or 0)), "--stop-ns", str(int(stop)),
                                         "--sample-ms", str(sample_ms)])
            _expect_ready(s, f"sender of flow {i} ({kernel[i]})")
            senders.append(s)
        t0 = hosts.start_clock()
        for q in receivers + senders:
            q.stdin.write(f"go {t0}\n")
            q.stdin.flush()
        end = t0 + p.duration_ns
        while time.monotonic_ns() < end:
            time.sleep(min(0.2, max(0.0, (end - time.monotonic_ns()) / 1e9)))
        sent = [_read_json(s, f"sender of flow {i}", 30) for i, s in enumerate(senders)]
        counters = hosts.tcp_counters(hosts.ns_a)
        counters_rx = hosts.tcp_counters(hosts.ns_b)
        for r in receivers:
            r.stdin.write("stop\n")
            r.stdin.flush()
        got = [_read_json(r, f"receiver of flow {i}", 30) for i, r in enumerate(receivers)]
    wall = time.perf_counter() - t_wall
    tables = build_tables(sc, p, kernel, sent, got, hosts.stats or {}, counters)
    receive_window = [{"flow_id": i, "columns": g.get("columns", []), "samples": g.get("samples", [])}
                      for i, g in enumerate(got)]
    return RunResult(sc, tables, 0, wall, extra={"kernel_tcp_counters": counters,
                                                 "kernel_tcp_counters_receiver": counters_rx,
                                                 "emulator": hosts.stats or {},
                                                 "receive_window": receive_window,
                                                 "sender_tcp_info": [{"flow_id": i, "final": s["final"],
                                                                      "columns": s["columns"], "samples": s["samples"]}
                                                                     for i, s in enumerate(sent)]})


# ---------------------------------------------------------------------------------------------
# Tables in `mmcc run`'s schema


def _schema(sc):
    """The simulator's table schemas for this scenario (a 1 ms run gives every column and type)."""
    from ..results import run

    short = sc.with_overrides(None, duration="1ms")
    return {name: t.schema for name, t in run(short).tables.items()}


def _table(schema, rows: list[dict]):
    import pyarrow as pa

    cols = {f.name: pa.array([r.get(f.name) for r in rows], type=f.type) for f in schema}
    return pa.table(cols, schema=schema)


def build_tables(sc, p: Plan, kernel: list[str], sent: list[dict], got: list[dict], stats: dict,
                 counters: dict | None = None) -> dict:
    """The tables of `mmcc run` from the senders' TCP_INFO samples, the receivers' byte counts per
    bin and the emulator's counters."""
    fwd_stats = stats.get("forward", [])
    rows: dict[str, list] = {"flows": [], "series": [], "cwnd": [], "events": []}
    for i, (f, s, g) in enumerate(zip(p.flows, sent, got)):
        k = _Samples(s, p.duration_ns)
        recv_bins = _received_per_bin(g, p)
        rows["series"] += _series_rows(i, p, k, recv_bins)
        rows["cwnd"] += _cwnd_rows(i, k)
        start_ns = int(f.get("start") or 0)
        stop_ns = min(p.duration_ns, f["stop"] if f.get("stop") is not None else p.duration_ns)
        rows["events"] += _event_rows(i, k, start_ns, stop_ns)
        one = len(p.flows) == 1  # the namespace's and the emulator's counters are per run
        rows["flows"].append(_flow_row(i, kernel[i], k, s, g, p, sum(recv_bins.values()), (start_ns, stop_ns),
                                       counters if one else None, fwd_stats if one else None))
    rows["links"] = [{"link_id": lid, "direction": direction, "tx_packets": h["delivered_packets"],
                      "tx_wire_bytes": h["delivered_bytes"], "utilization": math.nan}
                     for (lid, direction), h in zip(p.link_ids, fwd_stats)]
    rows["drops"] = [{"link_id": lid, "direction": direction, "flow_id": None, "kind": "data", "cause": cause,
                      "packets": h[key], "wire_bytes": None}
                     for (lid, direction), h in zip(p.link_ids, fwd_stats)
                     for cause, key in (("queue_full", "drops_queue_full"), ("error_model", "drops_error_model"))
                     if h.get(key)]
    return {name: _table(sch, rows.get(name, [])) for name, sch in _schema(sc).items()}


class _Samples:
    """One sender's TCP_INFO samples within the run: rows, their times, column positions, MSS."""

    def __init__(self, s: dict, duration_ns: int):
        self.cols = {c: k for k, c in enumerate(s["columns"])}
        self.rows = [x for x in s["samples"] if x[0] <= duration_ns]
        self.times = [x[0] for x in self.rows]
        self.mss = (self.rows[-1][self.cols["mss"]] if self.rows else s["final"]["snd_mss"]) or 1448

    def at(self, t_ns: int, col: str):
        """Column `col` of the last sample at or before t (0 before the first)."""
        k = bisect.bisect_right(self.times, t_ns)
        return self.rows[k - 1][self.cols[col]] if k else 0

    def between(self, t_lo: int, t_hi: int) -> list:
        return self.rows[bisect.bisect_left(self.times, t_lo):bisect.bisect_left(self.times, t_hi)]

    def ssthresh_bytes(self, ss) -> float:
        return math.nan if ss is None or ss >= INFINITE_SSTHRESH else float(ss * self.mss)


def _received_per_bin(g: dict, p: Plan) -> dict[int, int]:
    out: dict[int, int] = {}
    for k, b in g["bins"]:
        t = k * g["bin_ns"]
        if t < p.duration_ns:
            out[t // p.bin_ns] = out.get(t // p.bin_ns, 0) + b
    return out


def _series_rows(i: int, p: Plan, k: _Samples, recv_bins: dict[int, int]) -> list[dict]:
    c, out = k.cols, []
    for b in range(max(1, -(-p.duration_ns // p.bin_ns))):
        t_lo, t_hi = b * p.bin_ns, min((b + 1) * p.bin_ns, p.duration_ns)
        inside = k.between(t_lo, t_hi)
        last = inside[-1] if inside else None
        out.append({
            "flow_id": i, "t_s": t_lo / 1e9,
            "throughput_mbps": recv_bins.get(b, 0) * 8 / ((t_hi - t_lo) / 1e9) / 1e6,
            "delivered_bytes": recv_bins.get(b, 0),
            "sent_bytes": k.at(t_hi, "bytes_sent") - k.at(t_lo, "bytes_sent"),
            "retx_bytes": k.at(t_hi, "bytes_retrans") - k.at(t_lo, "bytes_retrans"),
            "cwnd_bytes": last[c["cwnd"]] * k.mss if last else math.nan,
            "cwnd_segments": float(last[c["cwnd"]]) if last else math.nan,
            "ssthresh_bytes": k.ssthresh_bytes(last[c["ssthresh"]] if last else None),
            "inflight_bytes": float(last[c["inflight"]] * k.mss) if last else math.nan,
            "rtt_mean_ms": statistics.fmean(x[c["rtt_us"]] / 1e3 for x in inside) if inside else math.nan,
            "owd_mean_ms": math.nan, "rtt_samples": len(inside), "acks": None, "dupacks": None,
        })
    return out


def _cwnd_rows(i: int, k: _Samples) -> list[dict]:
    c = k.cols
    return [{"flow_id": i, "t_s": x[0] / 1e9, "cwnd_bytes": x[c["cwnd"]] * k.mss,
             "cwnd_segments": float(x[c["cwnd"]]), "ssthresh_bytes": k.ssthresh_bytes(x[c["ssthresh"]]),
             "inflight_bytes": x[c["inflight"]] * k.mss,
             "state": CA_STATES.get(x[c["ca_state"]], str(x[c["ca_state"]]))} for x in k.rows]


def _event_rows(i: int, k: _Samples, start_ns: int, stop_ns: int) -> list[dict]:
    out = [{"flow_id": i, "t_s": start_ns / 1e9, "event": "start", "value": math.nan},
           {"flow_id": i, "t_s": stop_ns / 1e9, "event": "stop", "value": math.nan}]
    prev = None
    for x in k.rows:
        st = CA_STATES.get(x[k.cols["ca_state"]], "open")
        if st != prev:
            out.append({"flow_id": i, "t_s": x[0] / 1e9, "event": f"state:{st}", "value": math.nan})
            prev = st
    return out


def _flow_row(i: int, cca: str, k: _Samples, s: dict, g: dict, p: Plan, delivered: int, span: tuple[int, int],
              counters: dict | None, fwd_stats: list | None) -> dict:
    """The flow's summary row; `counters` and `fwd_stats` (the namespace's TCP counters and the
    emulator's drops, per run) are given only when the run has one flow."""
    rtts = sorted(x[k.cols["rtt_us"]] / 1e3 for x in k.rows if x[k.cols["rtt_us"]] > 0)
    pct = lambda q: rtts[min(len(rtts) - 1, int(q * len(rtts)))] if rtts else math.nan  # noqa: E731
    first_send = s["first_send_ns"] / 1e9
    last_delivery = min(g["last_ns"] or 0, p.duration_ns) / 1e9
    fin, mss = s["final"], k.mss
    return {
        "flow_id": i, "cca": cca, "tcp_profile": "kernel", "mss_bytes": mss,
        "start_s": span[0] / 1e9, "stop_s": span[1] / 1e9, "first_send_s": first_send,
        "last_delivery_s": last_delivery, "delivered_bytes": float(delivered),
        "throughput_mbps": delivered * 8 / (last_delivery - first_send) / 1e6 if last_delivery > first_send else 0.0,
        "rtt_mean_ms": statistics.fmean(rtts) if rtts else math.nan,
        "rtt_min_ms": fin["min_rtt_us"] / 1e3 if fin["min_rtt_us"] else math.nan,
        "rtt_max_ms": rtts[-1] if rtts else math.nan, "rtt_p50_ms": pct(0.5), "rtt_p95_ms": pct(0.95),
        "rtt_p99_ms": pct(0.99), "rtt_samples": float(len(rtts)),
        "owd_mean_ms": math.nan, "owd_p50_ms": math.nan, "owd_p95_ms": math.nan, "owd_p99_ms": math.nan,
        "segments_sent": float(fin["data_segs_out"]), "bytes_sent": float(fin["bytes_sent"]),
        "retransmits": float(fin["total_retrans"]),
        # recoveries entered (SACK or Reno) and retransmission timeouts
        **({"fast_retransmits": float(counters.get("TcpExtTCPSackRecovery", 0) + counters.get("TcpExtTCPRenoRecovery", 0)),
            "rtos": float(counters.get("TcpExtTCPTimeouts", 0))} if counters else {}),
        "drops_queue_full": float(sum(h.get("drops_queue_full", 0) for h in fwd_stats)) if fwd_stats is not None else math.nan,
        "drops_error_model": float(sum(h.get("drops_error_model", 0) for h in fwd_stats)) if fwd_stats is not None else math.nan,
        "drops_aqm": 0.0, "drops_link_down": 0.0, "drops_mtu": 0.0, "drops_rlc_discard": 0.0,
        "final_cwnd_bytes": float(fin["cwnd"] * mss),
        "final_ssthresh_bytes": k.ssthresh_bytes(fin["ssthresh"]),
        "srtt_ms": fin["rtt_us"] / 1e3,
    }


def install_signal_handlers() -> None:
    """SIGTERM and SIGHUP end the run like Ctrl-C, so the cleanup runs. SIGINT does so even when
    the process inherited it ignored (a shell starts background jobs that way, and Python then
    leaves it ignored). SIGUSR1 writes every thread's stack to stderr and lets the run go on
    (where a run that does not end waits)."""
    def _raise(*_):
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise)
    signal.signal(signal.SIGHUP, _raise)
    faulthandler.register(signal.SIGUSR1, all_threads=True)
