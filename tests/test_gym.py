"""mmcc.gym: the Gymnasium and PettingZoo environments, their determinism, the actions' exact
effect, and trained policies run as algorithms (`--cca policy:PATH`)."""

import json

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import mmcc  # noqa: E402
import mmcc.gym  # noqa: E402
from mmcc.gym import policy as pol  # noqa: E402
from mmcc.gym.control import ControlSpec  # noqa: E402
from mmcc.gym.env import CongestionControlEnv  # noqa: E402
from mmcc.scenario import ScenarioError  # noqa: E402

from .conftest import SMALL  # noqa: E402

LOSSY = {"links.1.forward.error": {"unit": "packet", "rate": 1e-3}}


def episode(env, seed, actions):
    obs, info = env.reset(seed=seed)
    out = [obs.copy()]
    rewards = []
    for a in actions:
        obs, r, term, trunc, info = env.step(np.array([a], dtype=np.float32))
        out.append(obs.copy())
        rewards.append(r)
        if term or trunc:
            break
    return np.array(out), np.array(rewards), info


def test_registered_on_import_and_passes_the_gymnasium_checker():
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(mmcc.gym.ENV_ID, scenario="dumbbell", duration="300ms")
    assert env.unwrapped.observation_space.shape == (6,)
    check_env(env.unwrapped, skip_render_check=True)
    check_env(CongestionControlEnv("thesis-edge", duration="200ms", observation="aurora", action="rate",
                                   reward="aurora", radio=True), skip_render_check=True)


def test_the_same_seed_gives_the_same_episode_bit_for_bit():
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, 80)
    make = lambda: CongestionControlEnv("dumbbell", duration="800ms", sets=LOSSY, observation="basic")  # noqa: E731
    a_obs, a_rew, a_info = episode(make(), 7, actions)
    b_obs, b_rew, b_info = episode(make(), 7, actions)
    assert a_obs.tobytes() == b_obs.tobytes() and a_rew.tobytes() == b_rew.tobytes()
    assert a_info == b_info
    # the same env reset again with the seed replays it; another seed draws another run seed
    env = make()
    episode(env, 3, actions)
    c_obs, _, _ = episode(env, 7, actions)
    assert c_obs.tobytes() == a_obs.tobytes()
    d_obs, _, _ = episode(make(), 8, actions)
    assert d_obs.tobytes() != a_obs.tobytes()


def test_a_cwnd_action_multiplies_the_held_window_exactly():
    env = CongestionControlEnv("dumbbell", duration="2s", observation="basic")
    obs, info = env.reset(seed=1)
    mss = 1448
    assert info["cwnd"] == 10 * mss  # held: no growth of its own
    for u, want in [(0.0, 10 * mss), (1.0, 20 * mss), (1.0, 40 * mss), (-1.0, 20 * mss), (0.5, int(20 * mss * 2 ** 0.5))]:
        obs, r, *_, info = env.step(np.array([u], dtype=np.float32))
        assert info["cwnd"] == want
    assert obs[4] == pytest.approx(want / mss)  # cwnd_segments feature
    obs, *_, info = env.step(np.array([-1.0], dtype=np.float32))
    for _ in range(12):  # halving: bounded below by two segments
        obs, *_, info = env.step(np.array([-1.0], dtype=np.float32))
    assert info["cwnd"] == 2 * mss


def test_a_rate_action_follows_aurora_and_the_reward_its_formula():
    env = CongestionControlEnv("dumbbell", duration="1s", observation="aurora", action="rate", reward="aurora")
    obs, info = env.reset(seed=1)
    assert obs.shape == (30,) and info["pacing_bps"] == 10_000_000
    obs, r, *_, info = env.step(np.array([1.0], dtype=np.float32))
    assert info["pacing_bps"] == int(10_000_000 * (1 + 0.025 * 10))
    obs, r, *_, info = env.step(np.array([-0.4], dtype=np.float32))
    assert info["pacing_bps"] == int(10_000_000 * 1.25 / (1 + 0.025 * 4))
    m = env._ctl.last
    assert r == pytest.approx(10 * m.throughput_bps / 8 / m.mss - 1000 * m.rtt_s - 2000 * m.loss_rate)
    # the paced sender delivers about the rate it was given
    for _ in range(20):
        obs, r, *_, info = env.step(np.array([0.0], dtype=np.float32))
    assert info["throughput_mbps"] == pytest.approx(info["pacing_bps"] / 1e6, rel=0.05)


def test_observed_throughput_adds_up_to_the_run_tables():
    env = CongestionControlEnv("dumbbell", duration="1s", observation=["throughput_mbps", "rtt_ms"], base="cubic",
                               interval="2rtt")
    env.reset(seed=2)
    m = env._ctl.last
    delivered, term = m.throughput_bps * m.dt_s / 8, False  # reset() observed the first interval
    while not term:
        obs, r, term, trunc, info = env.step(np.array([0.0], dtype=np.float32))
        m = env._ctl.last
        delivered += m.throughput_bps * m.dt_s / 8
        assert obs[1] == pytest.approx(m.rtt_s * 1e3)
    assert m.t_s == pytest.approx(1.0)
    flows = env.finish().flows.to_pydict()
    assert flows["cca"] == ["cubic"]
    assert delivered == pytest.approx(flows["delivered_bytes"][0], abs=1)


def test_radio_features_and_trace_offsets(tmp_path):
    env = CongestionControlEnv("thesis-edge", duration="100ms", observation=["throughput_mbps"], radio=True)
    obs, info = env.reset(seed=1)
    assert obs.shape == (3,) and obs[2] == 1.0 and 0 < obs[1] < 60  # LoS at the start, a plausible SINR
    trace = tmp_path / "cell.mm"
    trace.write_text("".join(f"{ms}\n" * (1 + ms % 7) for ms in range(1, 1001)))
    sc = tmp_path / "t.toml"
    sc.write_text('duration = "300ms"\nnodes = ["a", "b"]\n[[links]]\nbetween = ["a", "b"]\nrate = "100Mbps"\n'
                  'delay = "5ms"\n[links.forward]\nrate_trace = { file = "cell.mm", bin = "10ms" }\n'
                  '[[flows]]\nfrom = "a"\nto = "b"\n')
    env = CongestionControlEnv(str(sc), random_trace_offset=True, observation="basic")
    offsets = set()
    for seed in (1, 2, 3):
        env.reset(seed=seed)
        from mmcc.gym.control import with_trace_offsets

        offsets.add(with_trace_offsets(env.scenario, np.random.default_rng(seed)).raw["links"][0]["forward"]["rate_trace"]["offset"])
    assert len(offsets) == 3
    # a Mahimahi trace as a scenario; episodes start at different points of it
    tsc = mmcc.gym.trace_scenario(trace, delay="5ms", buffer="200KB")
    assert tsc.config["duration"] == 1_000_000_000
    env = CongestionControlEnv(tsc, random_trace_offset=True, observation="basic", base="cubic")
    runs = [episode(env, s, np.zeros(60))[0] for s in (1, 2)]
    assert runs[0].tobytes() != runs[1].tobytes()
    assert episode(env, 1, np.zeros(60))[0].tobytes() == runs[0].tobytes()
    with pytest.raises(ScenarioError, match="no such file"):
        mmcc.gym.trace_scenario(tmp_path / "none.mm")


def test_bad_settings_get_clear_errors():
    with pytest.raises(ValueError, match="observation: unknown feature"):
        CongestionControlEnv("dumbbell", observation=["nope"])
    with pytest.raises(ValueError, match="allowed: aurora, orca, basic"):
        CongestionControlEnv("dumbbell", observation="nope")
    with pytest.raises(ValueError, match="action 'rate' needs base 'held'"):
        CongestionControlEnv("dumbbell", action="rate", base="cubic")
    with pytest.raises(ValueError, match="interval"):
        CongestionControlEnv("dumbbell", interval="0.1ms")
    with pytest.raises(ValueError, match="flow: 3"):
        CongestionControlEnv("dumbbell", flow=3)
    with pytest.raises(ValueError, match="reward: unknown"):
        CongestionControlEnv("dumbbell", reward="nope")
    with pytest.raises(ScenarioError, match="unknown congestion control algorithm 'nope'"):
        CongestionControlEnv("dumbbell", base="nope")
    with pytest.raises(ValueError, match="action_bound"):
        CongestionControlEnv("dumbbell", action_bound=True)
    env = CongestionControlEnv("dumbbell", duration="100ms")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(1, dtype=np.float32))
    env.reset(seed=1)
    with pytest.raises(ValueError, match="finite"):
        env.step(np.array([np.nan], dtype=np.float32))
    s = mmcc._core.Session(mmcc.load("dumbbell").to_json())
    with pytest.raises(IndexError, match="1 flows"):
        s.snapshot(1)
    s.run_until(10_000_000)
    s.finish()
    with pytest.raises(RuntimeError, match="finished"):
        s.snapshot(0)


# the small dumbbell of conftest (100 Mb/s, 20 ms, 250 kB) for 3 s, a second flow 50 ms later
TWO_FLOWS = SMALL.replace('duration = "2s"', 'duration = "3s"') + '[[flows]]\nfrom = "a"\nto = "b"\nstart = "50ms"\n'


def test_pettingzoo_api_and_fairness_info(tmp_path):
    from pettingzoo.test import parallel_api_test

    parallel_api_test(mmcc.gym.MultiFlowEnv("mmstcp-fair2", duration="500ms"), num_cycles=100)
    sc = tmp_path / "two.toml"
    sc.write_text(TWO_FLOWS)
    env = mmcc.gym.MultiFlowEnv(str(sc), agents=[0], competitors={1: "cubic"}, base="newreno")
    obs, infos = env.reset(seed=1)
    assert env.agents == ["flow_0"]
    total = np.zeros(2)
    while env.agents:
        obs, rewards, term, trunc, infos = env.step({"flow_0": np.zeros(1, dtype=np.float32)})
        rates = list(infos["flow_0"]["throughput_mbps_by_flow"].values())
        total += rates
        if rates[0] or rates[1]:
            assert infos["flow_0"]["jain_index"] == pytest.approx(sum(rates) ** 2 / (2 * sum(r * r for r in rates)))
    mean = total / 300
    assert 90 < mean.sum() < 100 and min(mean) > 10  # the bottleneck shared by agent and competitor
    with pytest.raises(ValueError, match="not a competitor"):
        mmcc.gym.MultiFlowEnv("mmstcp-fair2", agents=[1], competitors={1: "cubic"})


HOLD = '''SPEC = {"observation": "basic", "action": "cwnd", "interval": "20ms"}

def act(obs):
    thr, rtt, min_rtt, loss, cwnd, flight = obs
    if min_rtt and rtt > 1.5 * min_rtt:
        return -0.3
    return 0.5 if loss == 0 else -0.5
'''


def test_a_python_policy_runs_as_an_algorithm_and_in_the_cli(tmp_path, mmcc_cli):
    p = tmp_path / "hold.py"
    p.write_text(HOLD)
    a = mmcc.run("dumbbell", cca=f"policy:{p}", duration="2s")
    b = mmcc.run("dumbbell", cca=f"policy:{p}", duration="2s")
    fa, fb = a.flows.to_pydict(), b.flows.to_pydict()
    assert fa["cca"] == ["policy:hold"] and fa == fb
    assert fa["throughput_mbps"][0] > 500
    r = mmcc_cli("run", "dumbbell", "--cca", f"policy:{p}", "--duration", "1s", "--out", tmp_path / "o")
    assert r.returncode == 0, r.stderr
    assert "policy:hold" in r.stdout
    r = mmcc_cli("run", "dumbbell", "--cca", f"policy:{tmp_path / 'nope.npz'}", "--duration", "1s")
    assert r.returncode != 0 and "no such file" in r.stderr and "Traceback" not in r.stderr
    bad = tmp_path / "bad.py"
    bad.write_text("SPEC = {'observation': 'basic', 'colour': 1}\ndef act(o):\n    return 0\n")
    r = mmcc_cli("run", "dumbbell", "--cca", f"policy:{bad}", "--duration", "1s")
    assert r.returncode != 0 and "unknown spec field(s) colour" in r.stderr
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\nsys.exit(3)\n")
    r = mmcc_cli("run", "dumbbell", "--cca", f"policy:{exits}", "--duration", "1s")
    assert r.returncode == 2 and f"importing {exits} failed: SystemExit: 3" in r.stderr, r.stderr


def test_an_mlp_policy_file_round_trips_and_matches_its_network(tmp_path):
    rng = np.random.default_rng(1)
    spec = ControlSpec(observation="orca", action="cwnd")
    layers = [(rng.normal(size=(8, 6)), rng.normal(size=8)), (rng.normal(size=(1, 8)) * 0.1, np.zeros(1))]
    mean, std = rng.normal(size=6), rng.uniform(0.5, 2, 6)
    path = pol.save_mlp(tmp_path / "p.npz", layers, "tanh", spec, obs_mean=mean, obs_std=std)
    p = pol.load_policy(f"policy:{path}")
    assert p.spec.to_dict() == spec.to_dict() and p.label == "policy:p"
    x = rng.normal(size=6)
    z = np.clip((x - mean) / std, -10, 10)
    want = layers[1][0] @ np.tanh(layers[0][0] @ z + layers[0][1]) + layers[1][1]
    assert np.allclose(p.act(x), want)
    res = mmcc.run("dumbbell", cca=f"policy:{path}", duration="1s")
    assert res.flows.to_pydict()["cca"] == ["policy:p"]
    wrong = pol.save_mlp(tmp_path / "w.npz", [(np.zeros((1, 5)), np.zeros(1))], "relu", spec)
    with pytest.raises(ScenarioError, match="takes 5 inputs"):
        pol.load_policy(str(wrong))
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ScenarioError, match="not a policy file"):
        pol.load_policy(str(tmp_path / "junk.npz"))


def test_a_policy_runs_in_a_sweep_next_to_built_in_algorithms(tmp_path):
    from mmcc.experiments.sweep import grid, run_sweep

    p = tmp_path / "hold.py"
    p.write_text(HOLD)
    specs = grid("dumbbell", ccas=["cubic", f"policy:{p}"], seeds=[1], duration="1s")
    run_sweep(specs, tmp_path / "sweep", workers=1, progress=False)
    import csv

    rows = {r["cca"]: r for r in csv.DictReader((tmp_path / "sweep" / "summary.csv").open())}
    assert set(rows) == {"cubic", f"policy:{p}"} and all(float(r["throughput_mbps"]) > 100 for r in rows.values())
    # a retrained policy (the same path, another content) is another run when the sweep resumes
    before = {s.run_id() for s in specs}
    p.write_text(HOLD.replace("0.5 if loss", "0.4 if loss"))
    after = {s.run_id() for s in specs}
    assert len(before & after) == 1  # cubic's run stays, the policy's is new


def test_the_vector_env_replays_the_single_envs_with_their_seeds_and_autoresets():
    venv = gymnasium.make_vec(mmcc.gym.ENV_ID, num_envs=3, scenario="dumbbell", duration="300ms",
                              observation="basic", sets=LOSSY)
    assert type(venv).__name__ == "CongestionControlVectorEnv"
    obs, _ = venv.reset(seed=5)
    actions = np.random.default_rng(0).uniform(-1, 1, (40, 3, 1))
    traj, ends = [obs], []
    for a in actions:
        o, r, term, trunc, info = venv.step(a)
        traj.append(o)
        ends.append(term.copy())
    traj = np.array(traj)
    assert np.array(ends)[28].all()  # reset() ran the first 10 ms, 29 steps the rest; then a reset
    for i in range(3):
        env = CongestionControlEnv("dumbbell", duration="300ms", observation="basic", sets=LOSSY)
        o, _ = env.reset(seed=5 + i)
        single, done = [o], False
        for a in actions:
            if done:
                o, _ = env.reset()
                done = False
            else:
                o, r, done, _, _ = env.step(a[i])
            single.append(o)
        assert np.array(single).tobytes() == traj[:, i].tobytes()
    # one thread or several: the same episodes
    from mmcc.gym.vector import CongestionControlVectorEnv

    one = CongestionControlVectorEnv(3, threads=1, scenario="dumbbell", duration="300ms", observation="basic", sets=LOSSY)
    o1, _ = one.reset(seed=5)
    steps = [one.step(a)[0] for a in actions]
    assert np.array([o1] + steps).tobytes() == traj.tobytes()
