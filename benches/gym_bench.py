#!/usr/bin/env python3
"""Speed of the learning environment (mmcc.gym): environment steps per second with 10 ms
monitor intervals, the ratio to real time, the share of the step spent in the simulator, how
mmcc's vector environment scales with threads, and gymnasium's AsyncVectorEnv beside it.
Prints the machine.

    .venv/bin/python benches/gym_bench.py            # (make bench-gym)

The agent's flow runs CUBIC under a neutral action (0: the window as CUBIC sets it), so the
traffic is a real flow's; a trained policy's choice costs the same per step."""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

CASES = {
    # thesis-edge: the thesis' 28 GHz UE walking from its gNB, a 1 Gb/s source
    "thesis-edge": ("thesis-edge", {}),
    # the dumbbell preset at 100 Mb/s with a one-BDP (250 kB) buffer
    "dumbbell 100 Mb/s": ("dumbbell", {"links.1.rate": "100Mbps", "links.1.forward.queue.limit": "250KB"}),
}


def make(case: str, seconds: float):
    from mmcc.gym.env import CongestionControlEnv

    scenario, sets = CASES[case]
    return CongestionControlEnv(scenario, duration=f"{seconds}s", base="cubic", sets=sets)


def single(case: str, seconds: float) -> tuple[int, float, float]:
    """(steps, wall seconds, seconds inside the simulator) of one episode."""
    env = make(case, seconds)
    env.reset(seed=1)
    session = env._session
    inner = 0.0
    run_until = session.run_until

    class Timed:  # the session with run_until timed
        def __getattr__(self, name):
            return getattr(session, name)

        def run_until(self, t):
            nonlocal inner
            t0 = time.perf_counter()
            r = run_until(t)
            inner += time.perf_counter() - t0
            return r

    env._session = env._ctl.session = Timed()
    a = np.zeros(1, dtype=np.float32)
    n, done, t0 = 0, False, time.perf_counter()
    while not done:
        _, _, done, _, _ = env.step(a)
        n += 1
    return n, time.perf_counter() - t0, inner


def vector(case: str, seconds: float, num_envs: int, threads: int) -> float:
    """Steps per second (all environments' steps) of mmcc's vector env: `num_envs` simulations
    in one process, advanced on `threads` threads."""
    from mmcc.gym.vector import CongestionControlVectorEnv

    scenario, sets = CASES[case]
    venv = CongestionControlVectorEnv(num_envs, threads=threads, scenario=scenario, duration=f"{seconds}s",
                                      base="cubic", sets=sets)
    venv.reset(seed=1)
    return _steps_per_s(venv, seconds, num_envs)


def async_vector(case: str, seconds: float, workers: int) -> float:
    """The same through gymnasium.vector.AsyncVectorEnv (a process per environment)."""
    import gymnasium

    venv = gymnasium.vector.AsyncVectorEnv([lambda: make(case, seconds)] * workers)
    venv.reset(seed=list(range(1, workers + 1)))
    rate = _steps_per_s(venv, seconds, workers)
    venv.close()
    return rate


def _steps_per_s(venv, seconds: float, n: int) -> float:
    a = np.zeros((n, 1), dtype=np.float32)
    steps = int(seconds * 100) - 1  # one episode: no reset inside the timing
    t0 = time.perf_counter()
    for _ in range(steps):
        venv.step(a)
    return steps * n / (time.perf_counter() - t0)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="simulated seconds per episode (default 10)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="threads of the vector env and processes of AsyncVectorEnv (default: all cores)")
    a = ap.parse_args()
    print(f"machine: {machine()}")
    for case in CASES:
        n, wall, inner = single(case, a.seconds)
        print(f"gym {case}: {n / wall:,.0f} steps/s (10 ms steps), {a.seconds / wall:.1f}x real time, "
              f"simulator {inner / wall:.0%} of the step, Python {(wall - inner) / n * 1e6:.0f} us per step")
        n = 2 * a.workers
        one, many = vector(case, a.seconds, n, 1), vector(case, a.seconds, n, a.workers)
        print(f"gym {case} vector ({n} envs in one process): 1 thread {one:,.0f} steps/s, {a.workers} threads "
              f"{many:,.0f} steps/s -> {many / one:.2f}x; gymnasium AsyncVectorEnv, {a.workers} processes: "
              f"{async_vector(case, a.seconds, a.workers):,.0f} steps/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
