"""ns-3 side of the cross-checks: export a scenario for ns-3 and build the reference runner.

`mmcc export-ns3 SCENARIO` writes the scenario as the runner reads it (format "mmcc-ns3/1"): the
normalized configuration (every quantity in ns, bytes, bit/s) with each flow's TCP settings
resolved from its profile, so both simulators run with the same values. The runner
(`ns3/examples/mmcc-ns3-runner.cc`), linked with this project's ns-3 congestion controls
(`ns3/model/`), is built against Debian's libns3-dev with pkg-config by `ns3/Makefile`.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from . import _core
from .scenario import ScenarioError, link_route

ROOT = Path(__file__).resolve().parents[2]
NS3_DIR = ROOT / "ns3"
NS3_MODULES = ["ns3-core", "ns3-network", "ns3-internet", "ns3-point-to-point", "ns3-applications",
               "ns3-traffic-control"]
APT_HINT = "apt-get install libns3-dev libgsl-dev libsqlite3-dev pkg-config nlohmann-json3-dev"


def export(config: dict) -> dict:
    """The runner's input for a normalized scenario configuration."""
    if config.get("radios"):
        raise ScenarioError("export-ns3: scenarios with a radio link have no ns-3 mapping in this runner; "
                            "export the run's capacity with `mmcc export-trace` and use a trace link")
    flows = []
    for i, f in enumerate(config["flows"]):
        if f.get("receiver_feed") is not None:
            raise ScenarioError(f"export-ns3: flows[{i}].receiver_feed has no ns-3 mapping in this runner (its "
                                "algorithms measure at the sender); remove it to export")
        tcp = json.loads(_core.resolve_tcp(json.dumps(f.get("tcp", {}))))
        if tcp.get("profile") == "linux":
            raise ScenarioError(f"export-ns3: flows[{i}] uses the `linux` TCP profile, and the runner is ns-3's "
                                "stack, which has none of its Linux behaviours (RACK, the send buffer's skb "
                                "accounting, Linux's recovery rules; docs/tcp-profiles.md): export with "
                                "`--set tcp.profile=ns3`")
        flows.append({**f, "tcp": tcp})
    return {"format": "mmcc-ns3/1", **{k: v for k, v in config.items() if k not in ("flows", "links")},
            "links": _links_with_streams(config), "flows": flows,
            "bin_ns": config.get("record", {}).get("bin", 100_000_000)}


def _links_with_streams(config: dict) -> list[dict]:
    """The links, each direction told its random stream's name ("link/<i>/<ab|ba>", as the
    simulator names it) and which TCP packets the simulator has on it (data of the flows routed
    through it, ACKs of the flows routed back through it), so the runner draws mmcc's losses for
    the same packets (common random numbers)."""
    carries: dict[tuple[int, str], set[str]] = {}
    for f in config["flows"]:
        for kind, (a, b) in (("data", (f["src"], f["dst"])), ("acks", (f["dst"], f["src"]))):
            for hop in link_route(config, a, b) or []:
                carries.setdefault(hop, set()).add(kind)
    links = []
    for i, lk in enumerate(config["links"]):
        lk = dict(lk)
        for d in ("ab", "ba"):
            lk[d] = {**(lk.get(d) or {}), "stream": f"link/{i}/{d}", "carries": sorted(carries.get((i, d), ()))}
        links.append(lk)
    return links


def build_runner(build_dir: Path | None = None) -> Path:
    """Build the module (ns3/model), the runner and the test program with `make -C ns3` (make
    rebuilds what changed); a clear error when ns-3 is missing. Returns the runner's path."""
    build_dir = (build_dir or ROOT / "target" / "ns3").resolve()
    if shutil.which("pkg-config") is None:
        raise RuntimeError(f"pkg-config is not installed; install ns-3 with: {APT_HINT}")
    probe = subprocess.run(["pkg-config", "--exists", *NS3_MODULES], capture_output=True, text=True)
    if probe.returncode != 0:
        raise RuntimeError(f"ns-3 development files not found (pkg-config {NS3_MODULES[0]}); install with: {APT_HINT}")
    if not Path("/usr/include/nlohmann/json.hpp").exists():
        raise RuntimeError(f"nlohmann/json.hpp not found; install with: {APT_HINT}")
    if shutil.which("make") is None or shutil.which("g++") is None:
        raise RuntimeError(f"make and g++ are needed to build the ns-3 module; install with: {APT_HINT} make")
    jobs = str(max(1, os.cpu_count() or 1))
    r = subprocess.run(["make", "-C", str(NS3_DIR), f"BUILD={build_dir}", f"-j{jobs}"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"building the ns-3 module failed:\n{(r.stderr or r.stdout)[-2000:]}")
    return build_dir / "mmcc-ns3-runner"


#: ns-3's point-to-point devices put a 2-byte PPP header on every packet: a scenario link's
#: `framing` for the runner's links.
P2P_FRAMING = "2B"


def device_queue(limit: str) -> dict:
    """A drop-tail queue as the runner's point-to-point device keeps it: while an MTU-size packet
    would not fit, its NetDeviceQueue is stopped and the traffic-control layer drops whatever
    arrives, small packets too (`admit_room` = the MTU)."""
    return {"type": "droptail", "limit": limit, "admit_room": "1500B"}


def run_case(runner: str | Path, config: dict, out: Path, seed: int, label: str, errors: str = "mmcc") -> list[dict]:
    """Run the reference runner on a run configuration (the core's JSON, exported here to
    OUT/case.json) with its outputs in OUT; returns the rows of its flows.csv (series.csv stays
    in OUT). `errors`: the runner's loss draws (docs/validation.md)."""
    import csv
    import io

    out.mkdir(parents=True, exist_ok=True)
    (out / "case.json").write_text(json.dumps(export(config)))
    p = subprocess.run([str(runner), f"--config={out / 'case.json'}", f"--out={out}", f"--seed={seed}",
                        f"--errors={errors}"], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"ns-3 runner failed for {label}: {p.stderr.strip()[-500:]}")
    return list(csv.DictReader(io.StringIO((out / "flows.csv").read_text())))


def run_unit_tests(build_dir: Path | None = None) -> subprocess.CompletedProcess:
    """Build, then run the module's ns-3 test suite (mmcc-tcp)."""
    runner = build_runner(build_dir)
    return subprocess.run([str(runner.parent / "mmcc-ns3-tests")], capture_output=True, text=True)
