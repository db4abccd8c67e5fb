"""`CongestionControlVectorEnv`: several `CongestionControlEnv`s stepped together in one process,
their simulations advanced in parallel on Rust threads with the GIL released
(`_core.run_sessions_until`). No pipes and no pickling between processes (what
`gymnasium.vector.AsyncVectorEnv` pays per step), so it scales with cores while the simulator
dominates the step. Each environment owns its simulation: the episodes are those of the
single environments with the same seeds, bit for bit, whatever the thread count."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from .. import _core
from .env import CongestionControlEnv


class CongestionControlVectorEnv(VectorEnv):
    """`num_envs` copies of `CongestionControlEnv(**kwargs)`; `threads` (default: all cores)
    advance their simulations. Autoreset: next step (Gymnasium's default): the step after an
    episode ends returns the new episode's first observation with reward 0."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, num_envs: int, *, threads: int = 0, **kwargs):
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs: {num_envs!r}; expected a whole number >= 1")
        self.envs = [CongestionControlEnv(**kwargs) for _ in range(num_envs)]
        self.num_envs, self.threads = num_envs, int(threads)
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._autoreset = np.zeros(num_envs, dtype=bool)

    def reset(self, *, seed=None, options=None):
        seeds = [None] * self.num_envs if seed is None else (
            [seed + i for i in range(self.num_envs)] if isinstance(seed, int) else list(seed))
        if len(seeds) != self.num_envs:
            raise ValueError(f"seed: {len(seeds)} seeds for {self.num_envs} environments")
        obs, infos = [], {}
        for i, (env, s) in enumerate(zip(self.envs, seeds)):
            o, info = env.reset(seed=s, options=options)
            obs.append(o)
            infos = self._add_info(infos, info, i)
        self._autoreset[:] = False
        return np.stack(obs), infos

    def step(self, actions):
        actions = np.asarray(actions, dtype=np.float32).reshape(self.num_envs, -1)
        stepping = [i for i in range(self.num_envs) if not self._autoreset[i]]
        for i in stepping:
            self.envs[i]._act(actions[i])
        _core.run_sessions_until([self.envs[i]._session for i in stepping],
                                 [self.envs[i]._ctl.next_ns for i in stepping], self.threads)
        obs = np.zeros((self.num_envs,) + self.single_observation_space.shape, dtype=np.float32)
        rewards = np.zeros(self.num_envs)
        terms = np.zeros(self.num_envs, dtype=bool)
        truncs = np.zeros(self.num_envs, dtype=bool)
        infos = {}
        for i, env in enumerate(self.envs):
            if self._autoreset[i]:
                obs[i], info = env.reset()
            else:
                obs[i], rewards[i], terms[i], truncs[i], info = env._observe()
            infos = self._add_info(infos, info, i)
        self._autoreset = terms | truncs
        return obs, rewards, terms, truncs, infos

