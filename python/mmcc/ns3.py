"""ns-3 side of the cross-checks: export a scenario for ns-3 and build the reference runner.

`mmcc export-ns3 SCENARIO` writes the scenario as the runner reads it (format "mmcc-ns3/1"): the
normalized configuration (every quantity in ns, bytes, bit/s) with each flow's TCP settings
resolved from its profile, so both simulators run with the same values. The runner
(`ns3/examples/mmcc-ns3-runner.cc`) is built against Debian's libns3-dev with pkg-config.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from . import _core
from .scenario import ScenarioError

ROOT = Path(__file__).resolve().parents[2]
RUNNER_SRC = ROOT / "ns3" / "examples" / "mmcc-ns3-runner.cc"
NS3_MODULES = ["ns3-core", "ns3-network", "ns3-internet", "ns3-point-to-point", "ns3-applications",
               "ns3-traffic-control"]
APT_HINT = "apt-get install libns3-dev libgsl-dev libsqlite3-dev pkg-config nlohmann-json3-dev"


def export(config: dict) -> dict:
    """The runner's input for a normalized scenario configuration."""
    if config.get("radios"):
        raise ScenarioError("export-ns3: scenarios with a radio link have no ns-3 mapping in this runner; "
                            "export the run's capacity with `mmcc export-trace` and use a trace link")
    flows = []
    for f in config["flows"]:
        tcp = json.loads(_core.resolve_tcp(json.dumps(f.get("tcp", {}))))
        flows.append({**f, "tcp": tcp})
    return {"format": "mmcc-ns3/1", **{k: v for k, v in config.items() if k != "flows"}, "flows": flows,
            "bin_ns": config.get("record", {}).get("bin", 100_000_000)}


def build_runner(build_dir: Path | None = None) -> Path:
    """Compile the runner (once per source change); a clear error when ns-3 is missing."""
    build_dir = build_dir or ROOT / "target" / "ns3"
    exe = build_dir / "mmcc-ns3-runner"
    if exe.exists() and exe.stat().st_mtime >= RUNNER_SRC.stat().st_mtime:
        return exe
    if shutil.which("pkg-config") is None:
        raise RuntimeError(f"pkg-config is not installed; install ns-3 with: {APT_HINT}")
    probe = subprocess.run(["pkg-config", "--cflags", "--libs", *NS3_MODULES], capture_output=True, text=True)
    if probe.returncode != 0:
        raise RuntimeError(f"ns-3 development files not found (pkg-config {NS3_MODULES[0]}); install with: {APT_HINT}")
    if not Path("/usr/include/nlohmann/json.hpp").exists():
        raise RuntimeError(f"nlohmann/json.hpp not found; install with: {APT_HINT}")
    build_dir.mkdir(parents=True, exist_ok=True)
    tmp = exe.with_suffix(".tmp")
    cmd = ["g++", "-std=c++17", "-O2", "-o", str(tmp), str(RUNNER_SRC), *probe.stdout.split()]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"building the ns-3 runner failed:\n{r.stderr[-2000:]}")
    tmp.replace(exe)
    return exe
