"""A PettingZoo `ParallelEnv`: several agents, one per flow, share a scenario's bottleneck,
optionally with flows that keep their own algorithm (e.g. CUBIC or BBR) as competitors."""

from __future__ import annotations

import functools

import gymnasium as gym
import numpy as np
from pettingzoo import ParallelEnv

from ..experiments.sweep import jain_index
from . import features as feat
from . import rewards
from .control import (ControlSpec, FlowControl, build_session, check_controlled, scenario_of, step_info,
                      with_trace_offsets)


class MultiFlowEnv(ParallelEnv):
    """Agents "flow_<i>" for the flows in `agents` (default: every flow of the scenario); the
    other flows run the algorithm the scenario (or `competitors`, flow -> algorithm name) gives
    them. All agents act every `interval` (a fixed time: they step together). Observation,
    action and reward per agent as in `CongestionControlEnv`; each info dict carries the
    interval's Jain index over all flows' throughputs (agents and competitors) and every
    flow's throughput."""

    metadata = {"name": "mmcc_multiflow_v0", "render_modes": []}

    def __init__(self, scenario="mmstcp-fair2", *, agents: list[int] | None = None, competitors: dict | None = None,
                 observation="orca", history: int | None = None, radio: bool = False, action: str = "cwnd",
                 action_bound: float | None = None, base: str = "held", interval: str = "10ms",
                 initial_rate: str = "10Mbps", reward="orca", reward_scale: float = 1.0, duration: str | None = None,
                 params: dict | None = None, sets: dict | None = None, random_trace_offset: bool = False):
        self.spec_ctl = ControlSpec(observation=observation, history=history, radio=radio, action=action,
                                    action_bound=action_bound, base=base, interval=interval, initial_rate=initial_rate)
        if str(interval).strip().endswith("rtt"):
            raise ValueError(f"interval: {interval!r}; the agents of MultiFlowEnv step together: give a time ('10ms')")
        sets = dict(sets or {})
        for i, cca in (competitors or {}).items():
            sets[f"flows.{int(i)}.cca"] = cca
            sets[f"flows.{int(i)}.cca_params"] = {}
        sc = scenario_of(scenario)
        if params or sets or duration:
            sc = sc.with_overrides(sets, params=params, duration=duration)
        nflows = len(sc.config["flows"])
        idx = list(range(nflows)) if agents is None else [int(i) for i in agents]
        bad = [i for i in idx if not 0 <= i < nflows] + [int(i) for i in (competitors or {}) if int(i) in idx]
        if bad or not idx:
            raise ValueError(f"agents: {idx}: each must be a flow index in 0..{nflows - 1}, not a competitor, "
                             f"and at least one is needed")
        check_controlled(sc, {i: self.spec_ctl for i in idx})
        rewards.resolve(reward)
        self.scenario, self.flows = sc, idx
        self.nflows = nflows
        self.reward, self.reward_scale = reward, float(reward_scale)
        self.random_trace_offset = random_trace_offset
        self.possible_agents = [f"flow_{i}" for i in idx]
        self.agents: list[str] = []
        self._np_random = None

    @functools.lru_cache(maxsize=None)  # noqa: B019 - one space object per agent, as PettingZoo expects
    def observation_space(self, agent):
        return gym.spaces.Box(low=-np.inf, high=np.inf, shape=(self.spec_ctl.obs_size,), dtype=np.float32)

    @functools.lru_cache(maxsize=None)  # noqa: B019
    def action_space(self, agent):
        return gym.spaces.Box(low=-1.0, high=1.0, shape=(1,), dtype=np.float32)

    def reset(self, seed: int | None = None, options: dict | None = None):
        if seed is not None or self._np_random is None:
            self._np_random = np.random.default_rng(seed)
        run_seed = int(self._np_random.integers(1, 2**31 - 1))
        sc = with_trace_offsets(self.scenario, self._np_random) if self.random_trace_offset else self.scenario
        self._session = build_session(sc, {i: self.spec_ctl for i in self.flows}, seed=run_seed)
        self._ctl = {f"flow_{i}": FlowControl(self.spec_ctl, self._session, i, self.reward) for i in self.flows}
        # the competitors are measured, never driven
        self._others = {i: feat.Monitor(self._session.snapshot(i)) for i in range(self.nflows) if i not in self.flows}
        self._end = self._session.duration_ns
        self.agents = list(self.possible_agents)
        obs, infos = self._advance()
        for a in infos:
            infos[a]["run_seed"] = run_seed
        return obs, infos

    def _advance(self):
        t = min(self._ctl[a].next_ns for a in self.agents)
        self._session.run_until(t)
        measured = {a: self._ctl[a].observe() for a in self.agents}
        rates = {f"flow_{i}": 0.0 for i in range(self.nflows)}
        for a, (_, m) in measured.items():
            rates[a] = m.throughput_bps * 1e-6
        for i, mon in self._others.items():
            rates[f"flow_{i}"] = mon.measure(self._session.snapshot(i)).throughput_bps * 1e-6
        jain = jain_index(np.array(list(rates.values())))
        obs = {a: o for a, (o, _) in measured.items()}
        infos = {a: {**step_info(m), "jain_index": jain, "throughput_mbps_by_flow": rates}
                 for a, (_, m) in measured.items()}
        self._measured = measured
        return obs, infos

    def step(self, actions: dict):
        if not self.agents:
            raise RuntimeError("the episode has ended: call reset()")
        for a in self.agents:
            if a not in actions:
                raise ValueError(f"actions: no action for agent {a!r}; agents: {', '.join(self.agents)}")
            self._ctl[a].act(actions[a])
        obs, infos = self._advance()
        rewards = {a: self._ctl[a].reward(m) * self.reward_scale for a, (_, m) in self._measured.items()}
        over = self._session.now_ns >= self._end
        terminations = {a: bool(over or self._measured[a][1].done) for a in self.agents}
        truncations = {a: False for a in self.agents}
        self.agents = [a for a in self.agents if not terminations[a]]
        return obs, rewards, terminations, truncations, infos
