"""A trained policy as a congestion-control algorithm: `mmcc run --cca policy:PATH`, sweeps and
reproductions run it like CUBIC or BBR and its results land in the same tables.

A policy file is one of:
- `NAME.npz`, written by `save_mlp` (e.g. from a stable-baselines3 PPO model with `save_sb3`):
  the actor's layers as arrays, its activation, optional observation normalisation and the
  `ControlSpec` it was trained with; run with numpy alone (no torch at run time);
- `NAME.py`, a Python file defining `SPEC` (a dict of `ControlSpec` fields) and `act(obs) ->
  action` (any callable: a PyTorch or ONNX model behind it, or a hand-written rule).

The policy acts every monitor interval of its spec on the flows whose `cca` is `policy:PATH`,
exactly as in the environment (`mmcc.gym.control`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np

from ..files import import_user_file
from ..scenario import Scenario, ScenarioError
from .control import ControlSpec, FlowControl, build_session

PREFIX = "policy:"
ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0), "identity": lambda x: x,
}


class Policy:
    """A loaded policy: its spec, its name in the tables and `act(obs) -> action`."""

    def __init__(self, spec: ControlSpec, act: Callable, label: str):
        self.spec, self.act, self.label = spec, act, label


class MlpPolicy:
    """A feed-forward actor evaluated with numpy: hidden layers with `activation`, a linear
    output (the mean action, as stable-baselines3's deterministic prediction)."""

    def __init__(self, layers: list[tuple[np.ndarray, np.ndarray]], activation: str,
                 obs_mean: np.ndarray | None = None, obs_std: np.ndarray | None = None, clip_obs: float = 10.0):
        self.layers, self.f = layers, ACTIVATIONS[activation]
        self.obs_mean, self.obs_std, self.clip_obs = obs_mean, obs_std, clip_obs

    def __call__(self, obs) -> np.ndarray:
        x = np.asarray(obs, dtype=np.float64)
        if self.obs_mean is not None:
            x = np.clip((x - self.obs_mean) / self.obs_std, -self.clip_obs, self.clip_obs)
        for i, (w, b) in enumerate(self.layers):
            x = w @ x + b
            if i < len(self.layers) - 1:
                x = self.f(x)
        return x


def save_mlp(path, layers, activation: str, spec: ControlSpec | dict, *, obs_mean=None, obs_std=None,
             clip_obs: float = 10.0) -> Path:
    """Write an MLP actor (`layers`: [(weight [out, in], bias [out])...]) as a policy file."""
    from ..files import atomic_write_bytes
    import io

    if activation not in ACTIVATIONS:
        raise ValueError(f"activation: {activation!r}; allowed: {', '.join(ACTIVATIONS)}")
    spec_d = spec.to_dict() if isinstance(spec, ControlSpec) else dict(spec)
    meta = {"format": "mmcc-mlp-policy/1", "activation": activation, "spec": spec_d, "clip_obs": clip_obs,
            "layers": len(layers)}
    arrays = {"meta": np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)}
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"], arrays[f"b{i}"] = np.asarray(w, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if obs_mean is not None:
        arrays["obs_mean"], arrays["obs_std"] = np.asarray(obs_mean, dtype=np.float64), np.asarray(obs_std, dtype=np.float64)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    p = Path(path)
    atomic_write_bytes(p, buf.getvalue())
    return p


def save_sb3(path, model, spec: ControlSpec | dict, vec_normalize=None) -> Path:
    """Write a stable-baselines3 on-policy model's actor (PPO/A2C with an MLP policy) as a
    policy file; `vec_normalize`: its VecNormalize wrapper, if training normalised observations."""
    pol = model.policy
    import torch.nn as nn

    layers = [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy())
              for m in pol.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    layers.append((pol.action_net.weight.detach().cpu().numpy(), pol.action_net.bias.detach().cpu().numpy()))
    act = {nn.Tanh: "tanh", nn.ReLU: "relu"}.get(pol.activation_fn)
    if act is None:
        raise ValueError(f"activation {pol.activation_fn.__name__}: allowed: Tanh, ReLU")
    mean = std = None
    clip = 10.0
    if vec_normalize is not None and vec_normalize.norm_obs:
        rms = vec_normalize.obs_rms
        mean, std, clip = rms.mean, np.sqrt(rms.var + vec_normalize.epsilon), vec_normalize.clip_obs
    return save_mlp(path, layers, act, spec, obs_mean=mean, obs_std=std, clip_obs=clip)


def _spec(d: dict, where: str) -> ControlSpec:
    if not isinstance(d, dict):
        raise ScenarioError(f"{where}: SPEC must be a dict of ControlSpec fields, got {type(d).__name__}")
    allowed = {"observation", "history", "radio", "action", "action_bound", "base", "interval", "initial_rate"}
    extra = sorted(set(d) - allowed)
    if extra:
        raise ScenarioError(f"{where}: unknown spec field(s) {', '.join(extra)}; allowed: {', '.join(sorted(allowed))}")
    try:
        return ControlSpec(**d)
    except (TypeError, ValueError) as e:
        raise ScenarioError(f"{where}: {e}") from None


def load_policy(spec: str) -> Policy:
    """`policy:PATH` (or PATH) -> Policy. Errors name the file and what is wrong."""
    path = Path(spec[len(PREFIX):] if spec.startswith(PREFIX) else spec)
    where = f"cca policy:{path}"
    if not path.is_file():
        raise ScenarioError(f"{where}: no such file (expected a .npz written by mmcc.gym.save_mlp or a .py "
                            f"defining SPEC and act)")
    label = f"policy:{path.stem}"
    if path.suffix == ".npz":
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(bytes(z["meta"]).decode())
                n = int(meta["layers"])
                layers = [(z[f"w{i}"], z[f"b{i}"]) for i in range(n)]
                mean = z["obs_mean"] if "obs_mean" in z else None
                std = z["obs_std"] if "obs_std" in z else None
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ScenarioError(f"{where}: not a policy file written by mmcc.gym.save_mlp ({type(e).__name__}: {e})") from None
        if meta.get("format") != "mmcc-mlp-policy/1" or meta.get("activation") not in ACTIVATIONS:
            raise ScenarioError(f"{where}: unknown policy format {meta.get('format')!r}; expected mmcc-mlp-policy/1")
        cs = _spec(meta["spec"], where)
        if layers[0][0].shape[1] != cs.obs_size or layers[-1][0].shape[0] != 1:
            raise ScenarioError(f"{where}: the network takes {layers[0][0].shape[1]} inputs and gives "
                                f"{layers[-1][0].shape[0]} outputs; its spec needs {cs.obs_size} and 1")
        return Policy(cs, MlpPolicy(layers, meta["activation"], mean, std, meta.get("clip_obs", 10.0)), label)
    if path.suffix == ".py":
        mod = import_user_file(path, where)
        if not callable(getattr(mod, "act", None)) or not hasattr(mod, "SPEC"):
            raise ScenarioError(f"{where}: a policy file must define SPEC (a dict) and act(obs)")
        return Policy(_spec(mod.SPEC, where), mod.act, label)
    raise ScenarioError(f"{where}: expected a .npz (mmcc.gym.save_mlp) or a .py file")


def policy_flows(config: dict) -> dict[int, str]:
    """Flow index -> policy spec of the flows whose `cca` is `policy:PATH`."""
    return {i: f["cca"] for i, f in enumerate(config["flows"]) if str(f.get("cca", "")).startswith(PREFIX)}


def run_policies(sc: Scenario, specs: dict[int, str], pcap_path: str | None = None) -> dict:
    """Run `sc` with the policies of `specs` driving their flows; the raw output of `_core.run`
    (`pcap_path`: where a `[pcap]` capture goes)."""
    policies = {i: load_policy(s) for i, s in specs.items()}
    session = build_session(sc, {i: p.spec for i, p in policies.items()}, labels={i: p.label for i, p in policies.items()},
                            pcap_path=pcap_path)
    ctls = {i: FlowControl(p.spec, session, i) for i, p in policies.items()}
    end = session.duration_ns
    while True:
        t = min(c.next_ns for c in ctls.values())
        if t >= end:
            break
        session.run_until(t)
        now = session.now_ns
        for i, c in ctls.items():
            if c.next_ns <= now:
                obs, _ = c.observe()
                try:
                    c.act(policies[i].act(obs))
                except Exception as e:  # noqa: BLE001 - the user's policy raised or gave no number
                    raise RuntimeError(f"{policies[i].label} (flow {i}) raised at t = {now / 1e9:.3f} s: "
                                       f"{type(e).__name__}: {e}") from None
    return session.finish()
