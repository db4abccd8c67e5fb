"""Learning-based congestion control over mmcc (docs/gym.md).

    import gymnasium, mmcc.gym
    env = gymnasium.make("mmcc/CongestionControl-v0", scenario="thesis-edge")
    obs, info = env.reset(seed=1)

Importing this package registers `mmcc/CongestionControl-v0` with Gymnasium
(`gymnasium.make_vec(ENV_ID, num_envs=N)` gives `CongestionControlVectorEnv`, N simulations
advanced on parallel threads in one process). The PettingZoo
environment is `mmcc.gym.MultiFlowEnv`; trained policies run as algorithms with
`mmcc run --cca policy:PATH` (`mmcc.gym.policy`)."""

from .control import ControlSpec, trace_scenario  # noqa: F401
from .features import FEATURES, PRESETS, Measure, register_feature  # noqa: F401
from .policy import load_policy, save_mlp, save_sb3  # noqa: F401
from .rewards import REWARDS, register_reward  # noqa: F401

ENV_ID = "mmcc/CongestionControl-v0"

try:
    import gymnasium as _gymnasium
except ImportError:  # the light environment packages are an extra: pip install mmcc[gym]
    _gymnasium = None
else:
    from .env import CongestionControlEnv  # noqa: F401

    if ENV_ID not in _gymnasium.registry:
        _gymnasium.register(id=ENV_ID, entry_point="mmcc.gym.env:CongestionControlEnv",
                            vector_entry_point="mmcc.gym.vector:CongestionControlVectorEnv")


def __getattr__(name: str):
    if name == "MultiFlowEnv":
        from .multi import MultiFlowEnv

        return MultiFlowEnv
    if name == "CongestionControlVectorEnv":
        from .vector import CongestionControlVectorEnv

        return CongestionControlVectorEnv
    if name == "CongestionControlEnv":
        raise ImportError("mmcc.gym.CongestionControlEnv needs gymnasium: pip install 'mmcc[gym]'")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
