"""`mmcc/CongestionControl-v0`: a Gymnasium environment in which the agent controls one flow
of any mmcc scenario (docs/gym.md)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from ..units import parse_time
from . import rewards
from .control import (ControlSpec, FlowControl, build_session, check_controlled, scenario_of, step_info,
                      with_trace_offsets)


class CongestionControlEnv(gym.Env):
    """One step = one monitor interval of flow `flow` of `scenario` (a preset name, a TOML path
    or a `mmcc.Scenario`). Observation: the features of `observation` (a preset: "orca",
    "aurora", "basic"; or a list of feature names) over the last `history` intervals, plus
    the radio features with `radio=True`. Action: see `action`/`action_bound`/`base`. Reward:
    "orca", "aurora", "throughput" or a callable of the interval's `Measure`; `reward_scale`
    multiplies it. An episode is the scenario's run (or `duration`); `reset(seed=s)` derives the
    run's seed (drawn from `run_seeds` when given, e.g. a training set apart from evaluation
    seeds) and trace offsets (with `random_trace_offset`) from s: the same s gives the same
    episode, bit for bit."""

    metadata = {"render_modes": []}

    def __init__(self, scenario="thesis-edge", *, flow: int = 0, observation="orca", history: int | None = None,
                 radio: bool = False, action: str = "cwnd", action_bound: float | None = None, base: str = "held",
                 interval: str = "10ms", initial_rate: str = "10Mbps", reward="orca", reward_scale: float = 1.0,
                 duration: str | None = None, params: dict | None = None, sets: dict | None = None,
                 random_trace_offset: bool = False, run_seeds=None):
        self.spec_ctl = ControlSpec(observation=observation, history=history, radio=radio, action=action,
                                    action_bound=action_bound, base=base, interval=interval, initial_rate=initial_rate)
        sc = scenario_of(scenario)
        if params or sets or duration:
            sc = sc.with_overrides(sets, params=params, duration=duration)
        sc.config  # noqa: B018 - a bad scenario fails here, not at the first reset
        if duration is not None:
            parse_time(duration)
        self.scenario = sc
        self.flow = flow
        self.reward = reward
        self.reward_scale = float(reward_scale)
        self.random_trace_offset = random_trace_offset
        self.run_seeds = None if run_seeds is None else [int(x) for x in run_seeds]
        if self.run_seeds is not None and (not self.run_seeds or min(self.run_seeds) < 0):
            raise ValueError("run_seeds: expected a non-empty collection of non-negative run seeds")
        n = self.spec_ctl.obs_size
        self.observation_space = gym.spaces.Box(low=-np.inf, high=np.inf, shape=(n,), dtype=np.float32)
        self.action_space = gym.spaces.Box(low=-1.0, high=1.0, shape=(1,), dtype=np.float32)
        self._ctl: FlowControl | None = None
        self._session = None
        if not isinstance(flow, int) or not 0 <= flow < len(sc.config["flows"]):
            raise ValueError(f"flow: {flow!r}; the scenario has {len(sc.config['flows'])} flows "
                             f"(0..{len(sc.config['flows']) - 1})")
        check_controlled(sc, {flow: self.spec_ctl})
        rewards.resolve(reward)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        run_seed = (int(self.np_random.integers(1, 2**31 - 1)) if self.run_seeds is None
                    else self.run_seeds[int(self.np_random.integers(len(self.run_seeds)))])
        sc = with_trace_offsets(self.scenario, self.np_random) if self.random_trace_offset else self.scenario
        self._session = build_session(sc, {self.flow: self.spec_ctl}, seed=run_seed)
        self._ctl = FlowControl(self.spec_ctl, self._session, self.flow, self.reward)
        self._end = self._session.duration_ns
        self._session.run_until(self._ctl.next_ns)
        obs, m = self._ctl.observe()
        return obs, self._info(m, run_seed)

    def step(self, action):
        self._act(action)
        self._session.run_until(self._ctl.next_ns)
        return self._observe()

    def _act(self, action) -> None:
        """The first half of a step: apply the action (the vector env then advances many)."""
        if self._ctl is None:
            raise RuntimeError("call reset() before step()")
        self._ctl.act(action)

    def _observe(self):
        """The second half of a step, once the simulation reached the interval's end."""
        obs, m = self._ctl.observe()
        reward = self._ctl.reward(m) * self.reward_scale
        terminated = bool(self._session.now_ns >= self._end or m.done)
        return obs, reward, terminated, False, self._info(m)

    def _info(self, m, run_seed: int | None = None) -> dict:
        info = step_info(m)
        if run_seed is not None:
            info["run_seed"] = run_seed
        return info

    def finish(self):
        """Run the episode's remainder without further actions and return its tables as an
        `mmcc.RunResult` (the same tables as `mmcc run`)."""
        from ..results import result_from_raw

        if self._session is None:
            raise RuntimeError("call reset() first")
        raw = self._session.finish()
        self._ctl = None
        return result_from_raw(self.scenario, raw, 0.0)
