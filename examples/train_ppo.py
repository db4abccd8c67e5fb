#!/usr/bin/env python3
"""Train a small PPO congestion controller on thesis-edge and compare it with CUBIC, BBR and
RTTV on seeds it never saw.

    make rl-deps                                   # the optional training stack (torch, stable-baselines3)
    .venv/bin/python examples/train_ppo.py         # about 5 minutes of training on 2 cores, then evaluation

The agent follows Orca's design (Abbasloo et al., SIGCOMM 2020): every 10 ms it scales the
window of the flow's CUBIC by 2^a, a in [-1, 1], seeing Orca's state vector plus the radio's
SINR and LoS (a cross-layer controller), rewarded by Orca's reward. Training episodes are the
first `--episode` seconds of thesis-edge (the walk and the tree stop) with run seeds drawn from
1000-1999; evaluation runs the full scenario on seeds 1-3 through `mmcc sweep`'s engine
(`policy:out/rl/ppo-orca.npz` next to the built-in algorithms), so the results land in the same
tables. The report (out/rl/report.md) says how the policy compares, whatever the outcome."""

from __future__ import annotations

import argparse
import csv
import os
import time
from pathlib import Path

import numpy as np

ENV = dict(scenario="thesis-edge", observation="orca", radio=True, action="cwnd", base="cubic", interval="10ms",
           reward="orca")
TRAIN_SEEDS = range(1000, 2000)
EVAL_SEEDS = [1, 2, 3]
BASELINES = ["cubic", "bbr", "rttv"]


def make_env(episode: str):
    from mmcc.gym.env import CongestionControlEnv

    return CongestionControlEnv(**ENV, duration=episode, run_seeds=TRAIN_SEEDS)


def train(out: Path, minutes: float, workers: int, episode: str) -> Path:
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv, VecNormalize

    from mmcc.gym import ControlSpec, save_sb3

    torch.set_num_threads(1)  # the environments use the cores

    class WallClock(BaseCallback):
        """Stop after `minutes` of training (the example's budget)."""

        def _on_step(self) -> bool:
            return time.perf_counter() - start < minutes * 60

    venv = make_vec_env(make_env, n_envs=workers, seed=0, env_kwargs={"episode": episode},
                        vec_env_cls=SubprocVecEnv if workers > 1 else None)
    venv = VecNormalize(venv, norm_obs=True, norm_reward=False)
    model = PPO("MlpPolicy", venv, n_steps=512, batch_size=256, learning_rate=3e-4, gamma=0.98, seed=0,
                policy_kwargs={"net_arch": [64, 64]}, device="cpu", verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=10**9, callback=WallClock())
    steps = model.num_timesteps
    print(f"trained {steps:,} steps in {time.perf_counter() - start:.0f} s on {workers} worker(s)")
    spec = ControlSpec(**{k: v for k, v in ENV.items() if k not in ("scenario", "reward")})
    path = save_sb3(out / "ppo-orca.npz", model, spec, vec_normalize=venv)
    venv.close()
    return path


def evaluate(out: Path, policy: Path, workers: int) -> list[dict]:
    from mmcc.experiments.sweep import grid, run_sweep

    ccas = [f"policy:{policy}"] + BASELINES
    run_sweep(grid("thesis-edge", ccas=ccas, seeds=EVAL_SEEDS), out / "eval", workers=workers, progress=False)
    return list(csv.DictReader((out / "eval" / "summary.csv").open()))


def report(out: Path, rows: list[dict], policy: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pyarrow.parquet as pq

    name = lambda c: "PPO (Orca design)" if c.startswith("policy:") else c  # noqa: E731
    algos = list(dict.fromkeys(r["cca"] for r in rows))
    stats = {}
    for a in algos:
        mine = [r for r in rows if r["cca"] == a]
        thr = np.array([float(r["throughput_mbps"]) for r in mine])
        rtt = np.array([float(r["rtt_mean_ms"]) for r in mine])
        p95 = np.array([float(r["rtt_p95_ms"]) for r in mine])
        stats[a] = (thr.mean(), thr.std(), rtt.mean(), p95.mean(), sum(float(r["retransmits"]) for r in mine) / len(mine))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4))
    for a in algos:
        run = next(r for r in rows if r["cca"] == a and int(r["seed"]) == EVAL_SEEDS[0])
        s = pq.read_table(out / "eval" / "runs" / run["run_id"] / "series.parquet").to_pydict()
        ax1.plot(s["t_s"], s["throughput_mbps"], label=name(a), lw=0.8)
        ax2.scatter(stats[a][2], stats[a][0], label=name(a))
    ax1.set(xlabel="time (s)", ylabel="throughput (Mb/s)", title=f"thesis-edge, seed {EVAL_SEEDS[0]}")
    ax2.set(xlabel="mean RTT (ms)", ylabel="mean throughput (Mb/s)", title=f"seeds {EVAL_SEEDS}")
    ax1.legend(fontsize=8)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "comparison.png", dpi=110)
    pol = next(a for a in algos if a.startswith("policy:"))
    by_thr = sorted(algos, key=lambda a: -stats[a][0])
    by_rtt = sorted(algos, key=lambda a: stats[a][2])
    lines = [
        "# PPO on thesis-edge against CUBIC, BBR and RTTV",
        "",
        f"Policy: `{policy}` (trained by examples/train_ppo.py). Evaluation: the full 60 s thesis-edge "
        f"scenario, seeds {EVAL_SEEDS} (training used run seeds {TRAIN_SEEDS.start}-{TRAIN_SEEDS.stop - 1}).",
        "",
        "| algorithm | throughput Mb/s (mean +- sd over seeds) | mean RTT ms | p95 RTT ms | retransmissions |",
        "| --- | --- | --- | --- | --- |",
        *[f"| {name(a)} | {s[0]:.1f} +- {s[1]:.1f} | {s[2]:.1f} | {s[3]:.1f} | {s[4]:.0f} |" for a, s in stats.items()],
        "",
        f"The policy ranks {by_thr.index(pol) + 1} of {len(algos)} in throughput and {by_rtt.index(pol) + 1} of "
        f"{len(algos)} in mean RTT. Best throughput: {name(by_thr[0])}; lowest delay: {name(by_rtt[0])}. "
        "A few minutes of training on a handful of 20-second episodes is a demonstration of the "
        "pipeline, not a tuned controller.",
        "",
        "![throughput over time and throughput against delay](comparison.png)",
        "",
    ]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=5.0, help="training budget in wall minutes (default 5)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="environment processes (default: all cores)")
    ap.add_argument("--episode", default="20s", help="simulated length of a training episode (default 20s)")
    ap.add_argument("--out", default="out/rl", help="output folder (default out/rl)")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    policy = train(out, a.minutes, a.workers, a.episode)
    print(f"policy: {policy} (run it: mmcc run thesis-edge --cca policy:{policy})")
    rows = evaluate(out, policy, a.workers)
    path = report(out, rows, policy)
    print(path.read_text())
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
