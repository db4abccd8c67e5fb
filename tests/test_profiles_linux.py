"""The `linux` profile's loss-recovery rules, each checked where it shows (found with the kernel
testbed, docs/tcp-profiles.md)."""

import json

from mmcc import _core, run
from mmcc.scenario import Scenario


def _path(cca: str, duration: str, rate_schedule=None) -> Scenario:
    """20 Mb/s, 10 ms one way, a 0.25-BDP drop-tail buffer, the linux profile."""
    fwd = {"queue": {"type": "droptail", "limit": "12500B"}}
    if rate_schedule:
        fwd["rate_schedule"] = rate_schedule
    return Scenario.from_dict({
        "duration": duration, "nodes": ["a", "b"],
        "links": [{"between": ["a", "b"], "rate": "20Mbps", "delay": "10ms", "forward": fwd}],
        "tcp": {"profile": "linux"}, "flows": [{"from": "a", "to": "b", "cca": cca}]})


def test_a_recovery_that_ends_with_losses_marked_starts_the_next_on_the_same_ack():
    """NexGen D-TCP keeps its window above what the path holds, so every recovery ends with
    losses beyond it already marked. Linux (`tcp_fastretrans_alert`) starts the next recovery on
    the ACK that ends the last one: the flow stays in Recovery, ssthresh taken each time from
    cwnd = ssthresh. Before, the profile went back to Open/Disorder after every recovery and sent a
    burst at cwnd = ssthresh, and ssthresh climbed cycle after cycle."""
    r = run(_path("dtcp", "3s"))
    ev = r.tables["events"].to_pydict()
    later = [(t, e) for t, e in zip(ev["t_s"], ev["event"]) if t > 1.0]
    restarts = {t for t, e in later if e == "fast_retransmit"}
    assert len(restarts) >= 10
    # Recovery is mostly left only for the instant of the ACK that starts the next one (a
    # recovery that ends with nothing marked lost opens, as on Linux); before: never
    left = [t for t, e in later if e in ("state:open", "state:disorder")]
    at_once = [t for t in left if t in restarts]
    assert len(left) >= 10 and len(at_once) >= 0.7 * len(left), (len(at_once), len(left))
    # and the flow is in Recovery nearly all the time: the kernel 99.5 % of its TCP_INFO samples
    # (every 2 ms, 1-3 s, testbed of 2026-11-25), the profile 97.7 %
    states = [(t, e) for t, e in later if e.startswith("state:")]
    in_recovery = sum(t2 - t1 for (t1, e), (t2, _) in zip(states, states[1:]) if e == "state:recovery")
    assert in_recovery >= 0.95 * (states[-1][0] - states[0][0]), in_recovery


def test_a_capacity_dip_in_recovery_is_no_timeout():
    """The capacity falls to 1 Mb/s for 300 ms while the flow is in recovery; duplicate ACKs
    keep arriving with SACKs. Linux re-arms the RTO from the head's latest transmission
    (RACK's reorder timeout -> `tcp_rearm_rto`), with the RTO of the moment, which has grown
    with the SACKed segments' RTT samples; a timer armed once at the last cumulative ACK fires
    inside the dip."""
    sched = [{"t": "2s", "rate": "1Mbps"}, {"t": "2.3s", "rate": "20Mbps"}]
    r = run(_path("cubic", "4s", sched))
    f = r.flows.to_pydict()
    assert f["fast_retransmits"][0] >= 1 and f["rtos"][0] == 0, (f["fast_retransmits"], f["rtos"])


def test_rto_estimators_by_profile():
    linux = json.loads(_core.resolve_tcp("{}"))
    ns3 = json.loads(_core.resolve_tcp(json.dumps({"profile": "ns3"})))
    assert (linux["rto_estimator"], ns3["rto_estimator"]) == ("rfc6298", "rfc6298")
