"""The control loop shared by the environments and by trained policies: a `ControlSpec` (what
the agent sees, how its action acts, how often), a `FlowControl` per controlled flow, and the
`build_session` that makes a simulation whose controlled flows' windows the agent sets.

The agent's action u lies in [-1, 1] (values outside are clipped); a = u * `action_bound`
(docs/gym.md):
- "cwnd" (Orca, Abbasloo et al. SIGCOMM 2020, section 4.1: cwnd = 2^a * cwnd_TCP): the window
  becomes cwnd * 2^a (default bound 1: at most doubling or halving per interval),
  on top of the flow's `base` algorithm ("held": no algorithm of its own; or a built-in name
  such as "cubic", which goes on from the new window as the kernel's Cubic does under Orca);
- "rate" (Aurora, Jay et al. ICML 2019, section 4.1): the pacing rate x becomes x * (1 + alpha * a)
  for a >= 0 and x / (1 - alpha * a) for a < 0, alpha = 0.025 (default bound 10: at most x1.25
  or /1.25 per interval);
  the window is then two rate x RTT products (at least 4 segments) so that the rate, not the
  window, limits the sender (the cwnd gain 2 of BBR's ProbeBW)."""

from __future__ import annotations

import json
import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from .. import _core
from ..scenario import PYTHON_CCA, Scenario, ScenarioError, load
from ..units import parse_rate, parse_time
from . import features as feat
from . import rewards as rew

#: Aurora's rate-change scale alpha (Jay et al. 2019, section 4.1).
AURORA_ALPHA = 0.025
#: Window bounds of the "cwnd" action (bytes above the segment floor): 1 GiB, far above any
#: scenario's bandwidth-delay product.
MAX_CWND = 1 << 30
#: Pacing-rate bounds of the "rate" action, b/s.
MIN_RATE, MAX_RATE = 100_000, 100_000_000_000
ACTIONS = {"cwnd": 1.0, "rate": 10.0}
#: Floor of an RTT-multiple monitor interval, ns.
MIN_INTERVAL_NS = 1_000_000


@dataclass
class ControlSpec:
    """What a controller sees and does; also what a saved policy records (docs/gym.md)."""

    observation: object = "orca"
    history: int | None = None
    radio: bool = False
    action: str = "cwnd"
    action_bound: float | None = None
    base: str = "held"
    interval: str = "10ms"
    initial_rate: str = "10Mbps"
    features: list = field(init=False, repr=False)
    k: int = field(init=False, repr=False)

    def __post_init__(self):
        self.features, self.k = feat.resolve(self.observation, self.history, self.radio)
        if self.action not in ACTIONS:
            raise ValueError(f"action: {self.action!r}; allowed: {', '.join(ACTIONS)}")
        if self.action_bound is None:
            self.action_bound = ACTIONS[self.action]
        if isinstance(self.action_bound, bool) or not isinstance(self.action_bound, (int, float)) \
                or not 0 < self.action_bound <= 100:
            raise ValueError(f"action_bound: {self.action_bound!r}; allowed: a number in (0, 100]")
        if self.action == "rate" and self.base != "held":
            raise ValueError("action 'rate' needs base 'held' (the agent's pacing rate alone drives the sender)")
        self._rtt_multiple = None
        s = str(self.interval).strip()
        if s.endswith("rtt"):
            try:
                self._rtt_multiple = float(s[:-3] or 1)
            except ValueError:
                self._rtt_multiple = -1
            if not 0.1 <= self._rtt_multiple <= 100:
                raise ValueError(f"interval: {self.interval!r}; allowed: a time ('10ms') or a multiple of the "
                                 f"smoothed RTT in 0.1..100 ('1rtt', '2.5rtt')")
            self._fixed_ns = 10_000_000  # before the first RTT sample
        else:
            try:
                self._fixed_ns = parse_time(s)
            except ValueError as e:
                raise ValueError(f"interval: {e}") from None
            if not MIN_INTERVAL_NS <= self._fixed_ns <= 60_000_000_000:
                raise ValueError(f"interval: {self.interval!r}; allowed: 1ms to 60s")
        try:
            self._initial_bps = parse_rate(self.initial_rate)
        except ValueError as e:
            raise ValueError(f"initial_rate: {e}") from None

    @property
    def obs_size(self) -> int:
        return len(self.features) * self.k

    def to_dict(self) -> dict:
        return {"observation": self.observation, "history": self.k, "radio": self.radio, "action": self.action,
                "action_bound": self.action_bound, "base": self.base, "interval": self.interval,
                "initial_rate": self.initial_rate}

    def interval_ns(self, srtt_ns: int | None) -> int:
        if self._rtt_multiple is None or not srtt_ns:
            return self._fixed_ns
        return max(MIN_INTERVAL_NS, int(self._rtt_multiple * srtt_ns))


class FlowControl:
    """One controlled flow in a session: measures each interval, keeps the observation history,
    applies actions."""

    def __init__(self, spec: ControlSpec, session, flow: int, reward=None):
        self.spec, self.session, self.flow = spec, session, flow
        self.reward_fn = rew.resolve(reward) if reward is not None else None
        first = self.snap = session.snapshot(flow)
        self.monitor = feat.Monitor(first)
        n = len(spec.features)
        self.hist = deque([np.zeros(n, dtype=np.float32) for _ in range(spec.k)], maxlen=spec.k)
        self.rate = spec._initial_bps
        self.next_ns = first[feat._NOW] + spec.interval_ns(first[feat._SRTT])
        self.last: feat.Measure | None = None
        if spec.action == "rate":
            self._apply_rate(first[feat._SRTT], first[feat._MSS])

    def observe(self) -> tuple[np.ndarray, feat.Measure]:
        """Measure the interval just ended; the observation (history flattened, oldest first)."""
        cur = self.snap = self.session.snapshot(self.flow)
        m = self.monitor.measure(cur)
        v = np.fromiter((f.fn(m) for f in self.spec.features), dtype=np.float32, count=len(self.spec.features))
        if not np.isfinite(v).all():  # a user's feature; the built-in ones are finite
            np.nan_to_num(v, copy=False, posinf=1e9, neginf=-1e9)
        self.hist.append(v)
        self.last = m
        self.next_ns = cur[feat._NOW] + self.spec.interval_ns(cur[feat._SRTT])
        return np.concatenate(self.hist), m

    def reward(self, m: feat.Measure) -> float:
        return float(self.reward_fn(m)) if self.reward_fn else 0.0

    def act(self, action) -> None:
        a = float(np.asarray(action, dtype=np.float64).reshape(-1)[0])
        if not math.isfinite(a):
            raise ValueError(f"action: {a}; expected a finite number")
        a = min(max(a, -1.0), 1.0) * self.spec.action_bound
        snap = self.snap  # the simulation has not moved since the observation
        if self.spec.action == "cwnd":
            cwnd = snap[feat._CWND] * 2.0 ** a
            self.session.set_window(self.flow, int(min(max(cwnd, 2 * snap[feat._MSS]), MAX_CWND)))
        else:
            self.rate = self.rate * (1 + AURORA_ALPHA * a) if a >= 0 else self.rate / (1 - AURORA_ALPHA * a)
            self.rate = min(max(self.rate, MIN_RATE), MAX_RATE)
            self._apply_rate(snap[feat._SRTT] or snap[feat._MINRTT], snap[feat._MSS])

    def _apply_rate(self, rtt_ns, mss: int) -> None:
        self.session.set_pacing(self.flow, int(self.rate))
        rtt_s = rtt_ns * 1e-9 if rtt_ns else 0.1
        self.session.set_window(self.flow, int(min(max(2 * self.rate / 8 * rtt_s, 4 * mss), MAX_CWND)))


def step_info(m: feat.Measure) -> dict:
    """The info dict of a step: the interval's headline figures (units in the keys)."""
    return {"t_s": m.t_s, "throughput_mbps": m.throughput_bps * 1e-6, "rtt_ms": m.rtt_s * 1e3,
            "loss_rate": m.loss_rate, "cwnd": m.cwnd, "pacing_bps": m.pacing_bps, "sinr_db": m.sinr_db,
            "los": m.los, "timeouts": m.timeouts}


def trace_scenario(path, *, delay: str = "20ms", buffer: str = "1MB", bin: str = "10ms", cca: str = "cubic",
                   duration: str | None = None) -> Scenario:
    """One bulk flow over a bottleneck that replays a Mahimahi `mm-link` trace towards the
    receiver (its mean capacity per `bin`), `delay` one way, a drop-tail `buffer`; the reverse
    direction at 1 Gb/s. The run lasts one period of the trace unless `duration` is given. With
    `random_trace_offset=True` each episode starts at another point of the trace."""
    from pathlib import Path

    from ..traces import read_mahimahi

    p = Path(path).resolve()
    if not p.is_file():
        raise ScenarioError(f"trace {path}: no such file")
    period_ms = len(read_mahimahi(p))
    raw = {"name": f"trace-{p.stem}", "duration": duration or f"{period_ms}ms", "nodes": ["server", "client"],
           "links": [{"between": ["server", "client"], "rate": "1Gbps", "delay": delay,
                      "forward": {"rate_trace": {"file": str(p), "bin": bin},
                                  "queue": {"type": "droptail", "limit": buffer}}}],
           "flows": [{"from": "server", "to": "client", "cca": cca}]}
    sc = Scenario.from_dict(raw, f"trace {p.name}")
    sc.config  # noqa: B018 - a bad value fails here
    return sc


def scenario_of(scenario) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else load(scenario)


def with_trace_offsets(sc: Scenario, rng: np.random.Generator) -> Scenario:
    """`sc` with every link's `rate_trace` started at an offset drawn from `rng` (whole
    milliseconds within the trace), or `sc` itself when it replays no trace."""
    import copy

    from ..scenario import scenario_file
    from ..traces import read_mahimahi

    raw = copy.deepcopy(sc.raw)
    changed = False
    for link in raw.get("links", []) or []:
        for d in ("forward", "reverse"):
            t = (link.get(d) or {}).get("rate_trace") if isinstance(link, dict) else None
            if isinstance(t, dict) and "file" in t:
                period = len(read_mahimahi(scenario_file(sc.source, t["file"])))
                t["offset"] = f"{int(rng.integers(0, period))}ms"
                changed = True
    return Scenario(raw, sc.source) if changed else sc


def _controlled_sets(controlled: dict[int, ControlSpec]) -> dict:
    """The controlled flows' algorithm: the base, or the marker of an algorithm given to the run
    (a held window); the parameters of the algorithm it replaces do not apply."""
    sets = {}
    for i, spec in controlled.items():
        sets[f"flows.{i}.cca"] = PYTHON_CCA if spec.base == "held" else spec.base
        sets[f"flows.{i}.cca_params"] = {}
    return sets


def check_controlled(sc: Scenario, controlled: dict[int, ControlSpec]) -> None:
    """Fail now (ScenarioError) on a flow index the scenario lacks or a base algorithm it cannot
    run, rather than at the first reset."""
    flows = sc.config["flows"]
    for i in controlled:
        if not 0 <= i < len(flows):
            raise ScenarioError(f"{sc.source}: flow {i}: the scenario has {len(flows)} flows (0..{len(flows) - 1})")
    sc.with_overrides(_controlled_sets(controlled)).config  # noqa: B018 - normalizing checks the names


def build_session(sc: Scenario, controlled: dict[int, ControlSpec], *, seed: int | None = None,
                  labels: dict[int, str] | None = None, pcap_path: str | None = None):
    """A `_core.Session` of scenario `sc` (run seed `seed`) in which the flows of `controlled`
    run their spec's base algorithm (or a held window) for an agent to drive (`pcap_path`: the
    file of a `[pcap]` capture)."""
    check_controlled(sc, controlled)
    cfg_json = sc.with_overrides(_controlled_sets(controlled), seed=seed).to_json()
    if pcap_path is not None:
        cfg = json.loads(cfg_json)
        cfg["pcap"]["path"] = pcap_path
        cfg_json = json.dumps(cfg, sort_keys=True)
    held = {i: (labels or {}).get(i, "agent") for i, s in controlled.items() if s.base == "held"}
    try:
        session = _core.Session(cfg_json, held)
    except ValueError as e:
        raise ScenarioError(f"{sc.source}: {e}") from None
    for i, name in (labels or {}).items():
        session.set_label(i, name)
    return session
