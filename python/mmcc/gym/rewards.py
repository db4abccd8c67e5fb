"""Rewards: a function of one monitor interval's `Measure` (see features.py). Presets follow
the published designs; add one with `register_reward(name, fn)` or pass any callable."""

from __future__ import annotations

from typing import Callable

from .features import Measure


def aurora(m: Measure) -> float:
    """Aurora (Jay et al., "A Deep Reinforcement Learning Perspective on Internet Congestion
    Control", ICML 2019, section 4.1): 10 * throughput - 1000 * latency - 2000 * loss, with
    throughput in packets per second, latency in seconds and loss the fraction of packets lost."""
    packets_per_s = m.throughput_bps / 8.0 / m.mss if m.mss else 0.0
    return 10.0 * packets_per_s - 1000.0 * m.rtt_s - 2000.0 * m.loss_rate


def orca(m: Measure, zeta: float = 1.0, beta: float = 1.25) -> float:
    """Orca (Abbasloo et al., "Classic Meets Modern: a Pragmatic Learning-Based Congestion
    Control for the Internet", SIGCOMM 2020, section 4.3): ((r - zeta * l) / d') / (r_max / d_min)
    with r the delivery rate, l the loss rate (both b/s), d' = d_min while the delay stays within
    beta * d_min and the delay otherwise, r_max the highest rate seen (here: in the episode) and
    d_min the minimum RTT. zeta and beta are parameters of the design; the defaults here are
    mmcc's (functools.partial(orca, zeta=..., beta=...) sets others)."""
    d_min = m.min_rtt_s
    if d_min <= 0 or m.max_throughput_bps <= 0:
        return 0.0
    d = m.rtt_s if m.rtt_s > beta * d_min else d_min
    return ((m.throughput_bps - zeta * m.lost_bps) / d) / (m.max_throughput_bps / d_min)


def throughput(m: Measure) -> float:
    """Delivered throughput in Mb/s (no delay or loss term)."""
    return m.throughput_bps * 1e-6


REWARDS: dict[str, Callable[[Measure], float]] = {"aurora": aurora, "orca": orca, "throughput": throughput}


def register_reward(name: str, fn: Callable[[Measure], float]) -> None:
    """Make `fn(measure) -> float` available as reward=`name`."""
    REWARDS[name] = fn


def resolve(reward) -> Callable[[Measure], float]:
    if callable(reward):
        return reward
    if reward not in REWARDS:
        raise ValueError(f"reward: unknown {reward!r}; allowed: {', '.join(REWARDS)} or a callable(measure) -> float")
    return REWARDS[reward]
