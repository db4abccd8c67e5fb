"""`make bench`: mmcc's speed and memory figures as ratios against a reference, in one run.

    .venv/bin/python benches/bench.py [--base REV] [--pairs K] [--repeat N] [--skip-base] [--grid]

- engine (dumbbell 1 Gb/s 60 s, thesis-edge 60 s): this checkout's benchmark binaries against
  those of `--base` (default: the previous commit, built in a git worktree under
  target/bench-base with its own target directory), run in turn, K pairs, best of N each, and
  (with valgrind installed) the instructions each executes over 2 s simulated, a count that
  machine noise does not move;
- the same dumbbell case for 10 s through mmcc and through ns-3 3.37 (the project's runner,
  target/ns3/mmcc-ns3-runner, built when Debian's libns3-dev is installed; skipped otherwise);
- start-up: `mmcc run dumbbell --duration 1s --no-plot`, process wall time beyond the simulation;
- many flows: 1,000 and 10,000 bulk flows over the dumbbell for 60 s (`mmcc run --no-plot`),
  wall time and peak memory (the child's maximum resident set);
- a congestion control written in Python (mmcc.cca.PyNewReno) against the built-in newreno;
- with `--grid`: `mmcc reproduce thesis` (384 runs) on all cores.
Speed is measured here, never asserted in tests; the figures in docs/performance.md come from
this script, with the machine line it prints.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MMCC = Path(sys.executable).parent / "mmcc"
ENGINE_BENCHES = ("dumbbell", "thesis")


def machine() -> str:
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor())
    mem = next(int(ln.split()[1]) for ln in Path("/proc/meminfo").read_text().splitlines() if ln.startswith("MemTotal"))
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    return (f"{cpu}, {os.cpu_count()} vCPU, {mem / 2**20:.0f} GiB, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, {rustc}, commit {head}")


def bench_binaries(src: Path, target: Path) -> dict[str, Path]:
    """Build the engine benchmarks of the tree at `src` into `target`; name -> executable."""
    cmd = ["cargo", "bench", "-p", "mmcc-core", "--no-run", "--message-format=json"]
    for b in ENGINE_BENCHES:
        cmd += ["--bench", b]
    env = {**os.environ, "CARGO_TARGET_DIR": str(target)}
    p = subprocess.run(cmd, cwd=src, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit(f"bench: building the benchmarks in {src} failed:\n{p.stderr[-2000:]}")
    out = {}
    for line in p.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and msg["target"]["name"] in ENGINE_BENCHES:
            out[msg["target"]["name"]] = Path(msg["executable"])
    return out


def base_binaries(rev: str) -> tuple[str, dict[str, Path]]:
    """The benchmarks of commit `rev`, built in a worktree (reused between runs)."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], capture_output=True, text=True)
    if sha.returncode != 0:
        raise SystemExit(f"bench: --base {rev!r} is not a commit of this repository")
    wt = ROOT / "target" / "bench-base" / "src"
    if not (wt / ".git").exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(wt), rev], check=True, capture_output=True)
    else:
        subprocess.run(["git", "-C", str(wt), "checkout", "--detach", "--quiet", rev], check=True)
    return sha.stdout.strip(), bench_binaries(wt, ROOT / "target" / "bench-base" / "target")


def run_engine(exe: Path, repeat: int) -> float:
    p = subprocess.run([str(exe), "--repeat", str(repeat)], capture_output=True, text=True)
    m = re.search(r"wall time \(best of \d+\): ([0-9.]+) s", p.stdout)
    if p.returncode != 0 or not m:
        raise SystemExit(f"bench: {exe.name} failed:\n{p.stdout[-1000:]}{p.stderr[-1000:]}")
    return float(m.group(1))


def instructions(exe: Path, seconds: int = 2) -> int | None:
    """Instructions one run of `exe` executes over `seconds` simulated (valgrind's callgrind):
    unlike wall time, the same on a busy or a quiet machine. None without valgrind."""
    return counted([str(exe), "--repeat", "1", "--seconds", str(seconds)])


def counted(cmd: list[str]) -> int | None:
    """Instructions `cmd` executes under callgrind; None without valgrind."""
    import shutil

    if shutil.which("valgrind") is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={d}/cg", *cmd], capture_output=True, text=True)
    m = re.search(r"Collected : (\d+)", p.stderr)
    return int(m.group(1)) if m else None


def child(cmd: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """Run `cmd`; (wall s, peak resident MB of that process, stdout)."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        text = out.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bench: {' '.join(map(str, cmd))} failed:\n{text[-1500:]}")
    return wall, usage.ru_maxrss / 1024, text


def simulated_wall(text: str) -> float:
    m = re.search(r"simulated in ([0-9.]+) s wall", text)
    return float(m.group(1)) if m else float("nan")


def many_flows_scenario(n: int, folder: Path) -> Path:
    """The dumbbell preset with `n` bulk NewReno flows starting 1 ms apart."""
    src = (ROOT / "python" / "mmcc" / "presets" / "dumbbell.toml").read_text()
    head = src.split("[[flows]]")[0].replace('name = "dumbbell"', f'name = "dumbbell-{n}-flows"')
    flows = "".join(f'[[flows]]\nfrom = "server"\nto = "client"\ncca = "newreno"\nstart = "{i}ms"\n' for i in range(n))
    p = folder / f"dumbbell-{n}.toml"
    p.write_text(head + flows)
    return p


def engine_rows(a) -> list[str]:
    cur = bench_binaries(ROOT, ROOT / "target")
    rows = []
    base_name, base = ("", {}) if a.skip_base else base_binaries(a.base)
    for name in ENGINE_BENCHES:
        mine, theirs = [], []
        for _ in range(a.pairs):
            mine.append(run_engine(cur[name], a.repeat))
            if name in base:
                theirs.append(run_engine(base[name], a.repeat))
        line = f"engine {name:8s} 60 s: {min(mine):.3f} s"
        if theirs:
            line += f"   base {base_name}: {min(theirs):.3f} s   ratio {min(theirs) / min(mine):.2f}x faster"
        ours = instructions(cur[name])
        if ours:
            line += f"\n  instructions over 2 s simulated: {ours / 1e6:,.1f} M"
            base_ins = instructions(base[name]) if name in base else None
            if base_ins:
                line += f"   base: {base_ins / 1e6:,.1f} M   ratio {base_ins / ours:.3f}"
        rows.append(line)
    return rows


def ns3_row(tmp: Path) -> str:
    import mmcc
    from mmcc import ns3

    try:
        runner = ns3.build_runner()  # make -C ns3: rebuilds only what changed, never times a stale runner
    except RuntimeError as e:
        return f"ns-3 3.37: skipped ({str(e).splitlines()[0]})"
    sc = mmcc.load("dumbbell").with_overrides({"tcp.profile": "ns3"}, duration="10s")
    t0 = time.perf_counter()
    r = mmcc.run(sc)
    ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    rows = ns3.run_case(runner, sc.config, tmp / "ns3", sc.config["seed"], "dumbbell 10 s")
    theirs = time.perf_counter() - t0
    g_ours = r.flows.column("delivered_bytes")[0].as_py() * 8 / 10 / 1e6
    g_ns3 = int(rows[0]["delivered_bytes"]) * 8 / 10 / 1e6
    return (f"dumbbell 10 s, ns3 profile: mmcc {ours:.3f} s (simulation {r.wall_seconds:.3f} s), ns-3 3.37 {theirs:.1f} s "
            f"-> {theirs / ours:.0f}x whole run, {theirs / r.wall_seconds:.0f}x simulation "
            f"(goodput {g_ours:.1f} / {g_ns3:.1f} Mb/s)")


def python_cca_row(repeat: int) -> str:
    import mmcc
    from mmcc.cca import PyNewReno
    from python_cca import best  # benches/, this script's folder

    rust = best(lambda: mmcc.run("dumbbell", duration="10s"), repeat)
    py = best(lambda: mmcc.run("dumbbell", duration="10s", cca=PyNewReno), repeat)
    row = f"Python CCA (PyNewReno, dumbbell 10 s): {py:.3f} s against the built-in's {rust:.3f} s -> {py / rust:.1f}x"
    # instructions of 2 s of simulation each, less a 1 ms run's (Python's start and imports)
    code = "import sys, mmcc; from mmcc.cca import PyNewReno; mmcc.run('dumbbell', duration=sys.argv[1], cca=PyNewReno if sys.argv[2] == 'py' else None)"
    n = [counted([sys.executable, "-c", code, d, k]) for d, k in (("1ms", "rust"), ("2s", "rust"), ("2s", "py"))]
    if None not in n:
        row += f"; instructions over 2 s simulated: {(n[2] - n[0]) / (n[1] - n[0]):.2f}x"
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="HEAD~1", help="the reference commit (default: the previous one)")
    ap.add_argument("--pairs", type=int, default=3, help="alternated runs of each engine benchmark")
    ap.add_argument("--repeat", type=int, default=3, help="best of N inside each run")
    ap.add_argument("--skip-base", action="store_true", help="no reference build (this checkout's figures only)")
    ap.add_argument("--grid", action="store_true", help="also time `mmcc reproduce thesis` (several minutes)")
    a = ap.parse_args()
    print(f"machine: {machine()}")
    for row in engine_rows(a):
        print(row, flush=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # start-up as users see it
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        print(ns3_row(tmp), flush=True)
        child([str(MMCC), "run", "dumbbell", "--duration", "1s", "--no-plot", "--out", str(tmp / "warm")], env)
        runs = [child([str(MMCC), "run", "dumbbell", "--duration", "1s", "--no-plot", "--out", str(tmp / "s")], env)
                for _ in range(5)]
        wall, _, text = min(runs)
        print(f"start-up: `mmcc run dumbbell --duration 1s --no-plot` {wall:.3f} s wall, "
              f"{wall - simulated_wall(text):.3f} s beyond the simulation (best of 5)", flush=True)
        for n in (1000, 10000):
            wall, peak, text = child([str(MMCC), "run", str(many_flows_scenario(n, tmp)), "--no-plot", "--out", str(tmp / f"f{n}")], env)
            print(f"{n:,} flows x 60 s: {wall:.1f} s wall ({simulated_wall(text):.1f} s simulation), peak {peak:.0f} MB", flush=True)
        wall, peak, _ = child([str(MMCC), "run", str(many_flows_scenario(1000, tmp)), "--out", str(tmp / "f1000p")], env)
        print(f"1,000 flows x 60 s with figures: {wall:.1f} s wall, peak {peak:.0f} MB", flush=True)
        print(python_cca_row(a.repeat), flush=True)
        if a.grid:
            wall, peak, _ = child([str(MMCC), "reproduce", "thesis", "--out", str(tmp / "grid")], env)
            print(f"thesis grid (384 runs x 60 s, {os.cpu_count()} workers): {wall / 60:.1f} min, peak {peak:.0f} MB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
