"""Scenarios: TOML files (or the same structure as Python dicts) describing a topology, flows
and what to record, read into the run configuration the Rust core runs.

One schema: this module reads the file's *syntax* (tables and keys, units into ns / bytes /
bit/s, node names into indices, types within what the core's integers hold, the user's key
names into the core's) and nothing else; the core (`mmcc_core::sim::SimConfig`) fills every
default and applies every rule (ranges, relations between keys, algorithm names) in
`crates/mmcc-core/src/sim/validate.rs`, with messages that name the scenario's key. This module
adds the file name and the warnings (valid values that are almost surely mistakes).

Every error names the source, the key and what is allowed, on one line, e.g.::

    dumbbell.toml: links[1].rate: "2.5 parsecs": unknown rate unit "parsecs"; accepted units: ...
"""

from __future__ import annotations

import copy
import re
import json
import sys
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from . import _core, schema
from .parse import (  # noqa: F401 (ERROR_CHARS, one_line: part of this module's interface)
    BOOL, ERROR_CHARS, FLOAT, FREQ, INT, ONE_OF, RATE, SIZE, SIZE32, STR, TIME, U32, U64, Parser,
    ScenarioError, _bounded_float, _Ctx, _list, _table, one_line,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Scenario", "ScenarioError", "load", "list_presets", "normalize"]


#: The algorithm name of a flow whose algorithm is a Python object given to `mmcc.run`.
PYTHON_CCA = "python"
#: `cca = "policy:PATH"`: a trained policy drives the flow (mmcc.gym.policy).
POLICY_PREFIX = "policy:"


#: Most flows in one run (the core's sim::config::MAX_FLOWS, which refuses more too).
MAX_FLOWS = 100_000


# ---- schema -------------------------------------------------------------------------------

#: The `[tcp]` keys and their parsers, and scenario key -> core name where they differ: from the
#: core's declaration of each knob (`mmcc.schema`, crates/mmcc-core/src/tcp/knobs.rs).
TCP_FIELDS: dict[str, Parser] = schema.tcp_fields()
TCP_CORE_NAMES: dict[str, str] = schema.tcp_core_names()


_SAFE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}")
_PCAP_PATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.pcap")


def SAFE_NAME(ctx, v, path):
    """A scenario name: it names the default output folder, so no path separators or '..'."""
    if not isinstance(v, str) or not _SAFE_NAME.fullmatch(v) or ".." in v:
        ctx.fail(path, f"{v!r}: expected a name of letters, digits, '.', '_' and '-' (at most 100, no '..'), "
                       "as it names the output folder")
    return v


def NODE_NAME(ctx, v, path):
    """A node name: printable text of 1 to 100 characters (names appear in tables, figures and
    messages)."""
    if not isinstance(v, str) or not 1 <= len(v) <= 100 or not v.isprintable():
        shown = repr(v[:40]) + "..." if isinstance(v, str) and len(v) > 40 else repr(v)
        ctx.fail(path, f"{shown}: expected a node name of 1 to 100 printable characters")
    return v


def _queue(ctx, v, path):
    t = _table(
        ctx, v, path,
        {"type": ONE_OF("droptail", "codel"), "limit": SIZE, "limit_packets": U64,
         "target": TIME, "interval": TIME, "admit_room": SIZE},
        required=("type",),
    )
    out = {"type": t["type"], "limit_bytes": t.get("limit"), "limit_packets": t.get("limit_packets")}
    if t["type"] == "droptail":
        if "admit_room" in t:
            out["room_bytes"] = t["admit_room"]
        for k in ("target", "interval"):
            if k in t:
                ctx.fail(f"{path}.{k}", "only a codel queue has this key")
    elif "admit_room" in t:
        ctx.fail(f"{path}.admit_room", "only a droptail queue has this key")
    else:  # CoDel's TARGET and INTERVAL default in the core (RFC 8289: 5 ms, 100 ms)
        out.update({k: t[k] for k in ("target", "interval") if k in t})
    return out


#: Units of an error model in one 1500-byte packet.
_UNITS_PER_PACKET = {"bit": 12_000, "byte": 1_500, "packet": 1}
#: A warning when an error model loses more than this share of 1500-byte packets.
_LOSSY_PACKET_SHARE = 0.3


def _error(ctx, v, path):
    t = _table(ctx, v, path, {"unit": ONE_OF("bit", "byte", "packet"), "rate": FLOAT},
               required=("unit", "rate"))
    r = min(max(t["rate"], 0.0), 1.0)
    loss = 1.0 - (1.0 - r) ** _UNITS_PER_PACKET[t["unit"]]  # per packet, as the core draws it
    if loss > _LOSSY_PACKET_SHARE:
        ctx.warn(f"{path}.rate", f"{t['rate']:g} per {t['unit']} loses {100 * loss:.0f} % of 1500-byte packets; "
                                 f"is the unit right?")
    return {"unit": t["unit"], "rate": t["rate"]}


def _reorder(ctx, v, path):
    t = _table(ctx, v, path, {"probability": FLOAT, "delay": TIME}, required=("probability", "delay"))
    return {"probability": t["probability"], "delay": t["delay"]}


def _outage(ctx, v, path):
    t = _table(ctx, v, path, {"start": TIME, "end": TIME}, required=("start", "end"))
    return {"start": t["start"], "end": t["end"]}


def _rate_step(ctx, v, path):
    t = _table(ctx, v, path, {"t": TIME, "rate": RATE}, required=("t", "rate"))
    return [t["t"], t["rate"]]


def _rate_schedule(ctx, v, path):
    return _list(ctx, v, path, _rate_step)


def _rate_trace(ctx, v, path):
    """A Mahimahi trace as rate steps: the mean capacity of each `bin`, at least `floor`, looped
    over the run (finalized in `_trace_steps` once the duration is known)."""
    t = _table(ctx, v, path, {"file": lambda c, x, p: x, "bin": TIME, "floor": RATE, "scale": _bounded_float(1e-6, 1e6),
                              "offset": TIME}, required=("file",))
    counts = _trace_file(ctx, t["file"], f"{path}.file")
    b = t.get("bin", 100_000_000)
    if b < 1_000_000 or b % 1_000_000:
        ctx.fail(f"{path}.bin", "must be a whole number of milliseconds, at least 1ms")
    floor = t.get("floor", 1_000_000)
    if floor <= 0:
        ctx.fail(f"{path}.floor", "must be positive")
    offset = t.get("offset", 0)
    if offset % 1_000_000 or offset // 1_000_000 >= len(counts):
        ctx.fail(f"{path}.offset", f"must be a whole number of milliseconds within the trace's {len(counts)} ms")
    return {"counts": counts, "bin": b, "floor": floor, "scale": t.get("scale", 1.0), "offset": offset}


def _trace_steps(trace: dict, duration_ns: int) -> list[list[int]]:
    """Rate steps from a trace: per bin, opportunities x 1500 B x 8 / bin x scale, from `offset`
    into the trace, looped to the end."""
    from .traces import OPPORTUNITY_BYTES

    counts, bin_ms = trace["counts"], trace["bin"] // 1_000_000
    scale, first = trace.get("scale", 1.0), trace.get("offset", 0) // 1_000_000
    period = len(counts)
    steps, t_ms, prev = [], 0, None
    while t_ms * 1_000_000 < duration_ns:
        n = sum(counts[(first + t_ms + k) % period] for k in range(bin_ms))
        rate = max(trace["floor"], round(n * OPPORTUNITY_BYTES * 8 * 1000 * scale) // bin_ms)
        if rate != prev:
            steps.append([t_ms * 1_000_000, rate])
            prev = rate
        t_ms += bin_ms
    return steps


DIRECTION_FIELDS: dict[str, Parser] = {
    "queue": _queue,
    "error": _error,
    "reorder": _reorder,
    "outages": lambda c, v, p: _list(c, v, p, _outage),
    "rate_schedule": _rate_schedule,
    "rate_trace": _rate_trace,
    # drop exactly these arrivals (0 = the direction's first counted packet; the handshake's SYN
    # and SYN-ACK are not counted): a loss pattern both simulators apply alike (the ns-3 runner
    # reads it too)
    "drop_list": lambda c, v, p: _list(c, v, p, U64),
}


def _direction(ctx, v, path):
    return _table(ctx, v, path, DIRECTION_FIELDS)


def _app(ctx, v, path):
    t = _table(ctx, v, path, {"type": ONE_OF("bulk", "rate"), "bytes": SIZE, "rate": RATE, "write_size": SIZE32,
                              "writes": INT(1, 2**63 - 1)},
               required=("type",))
    if t["type"] == "bulk":
        for k in ("rate", "writes"):
            if k in t:
                ctx.fail(f"{path}.{k}", "only a rate application has this key")
    elif "rate" not in t:
        ctx.fail(f"{path}.rate", "missing required key (a rate application needs its rate)")
    return t


def _cca_params(ctx, v, path):
    if not isinstance(v, dict):
        ctx.fail(path, f"expected a table of numbers, got {v!r}")
    out = {}
    for k, x in v.items():
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            ctx.fail(f"{path}.{k}", f"expected a number, got {x!r}")
        out[k] = float(x)
    return out


def POINT(ctx, v, path):
    if not (isinstance(v, list) and len(v) == 3
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and abs(x) < float("inf") for x in v)):
        ctx.fail(path, f"expected a point [x, y, z] of finite numbers in metres, got {v!r}")
    return [float(x) for x in v]


def _velocity(ctx, v, path):
    t = _table(ctx, v, path, {"t": TIME, "v": POINT}, required=("t", "v"))
    return {"t": t["t"], "v": t["v"]}


def _obstacle(ctx, v, path):
    return _table(ctx, v, path, {"kind": ONE_OF("building", "foliage"), "min": POINT, "max": POINT},
                  required=("kind", "min", "max"))


def _sinr_step(ctx, v, path):
    t = _table(ctx, v, path, {"t": TIME, "sinr_db": FLOAT}, required=("t", "sinr_db"))
    return {"t": t["t"], "sinr_db": t["sinr_db"]}


def scenario_file(source: str, name) -> Path:
    """A file a scenario names: relative to the scenario file, or to the current folder for a
    scenario made from a dict or a preset."""
    p = Path(name)
    if not p.is_absolute() and source not in ("<dict>", "<scenario>") and not source.startswith("preset "):
        p = Path(source).parent / p
    return p


def _trace_file(ctx, v, path):
    from .traces import read_mahimahi

    if not isinstance(v, str):
        ctx.fail(path, f"expected the path of a Mahimahi trace file, got {v!r}")
    p = scenario_file(ctx.source, v)
    try:
        return read_mahimahi(p)
    except OSError as e:
        ctx.fail(path, f"cannot read trace {str(p)!r}: {e.strerror or e}")
    except ValueError as e:
        ctx.fail(path, str(e))


# user-facing key -> (parser, core key)
RADIO_FIELDS: dict[str, tuple[Parser, str]] = {
    "carrier": (FREQ, "carrier_ghz"),
    "bandwidth": (FREQ, "bandwidth_hz"),
    "gnb_position": (POINT, "gnb_position"),
    "ue_position": (POINT, "ue_position"),
    "mobility": (lambda c, v, p: _list(c, v, p, _velocity), "mobility"),
    "obstacles": (lambda c, v, p: _list(c, v, p, _obstacle), "obstacles"),
    "pathloss": (ONE_OF("umi-street-canyon", "umi-street-canyon-optional-nlos", "nyu", "buildings-obstacle"), "pathloss"),
    "shadowing": (BOOL, "shadowing"),
    "gnb_tx_power_dbm": (FLOAT, "gnb_tx_power_dbm"),
    "ue_tx_power_dbm": (FLOAT, "ue_tx_power_dbm"),
    "gnb_antennas": (U32, "gnb_antennas"),
    "ue_antennas": (U32, "ue_antennas"),
    "bf_gain_db": (FLOAT, "bf_gain_db"),
    "gnb_noise_figure_db": (FLOAT, "gnb_noise_figure_db"),
    "ue_noise_figure_db": (FLOAT, "ue_noise_figure_db"),
    "blockage_db": (FLOAT, "blockage_db"),
    "interference_db": (FLOAT, "interference_db"),
    "update": (TIME, "update"),
    "slot": (TIME, "slot"),
    "eta": (FLOAT, "eta"),
    "cqi_delay": (TIME, "cqi_delay"),
    "link_adaptation": (ONE_OF("shannon", "ns3-mmwave-mcs"), "link_adaptation"),
    "se_cap": (FLOAT, "se_cap"),
    "outage_sinr_db": (FLOAT, "outage_sinr_db"),
    "harq_rtt_slots": (U32, "harq_rtt_slots"),
    "harq_max_tx": (U32, "harq_max_tx"),
    "rlc_status": (TIME, "rlc_status"),
    "rlc_max_retx": (U32, "rlc_max_retx"),
    "rlc_buffer": (_queue, "rlc_buffer"),
    "ul_scheduling_slots": (U32, "ul_scheduling_slots"),
    "uplink": (ONE_OF("fixed-delay", "ns3-mmwave"), "uplink"),
    "data_symbols": (U32, "data_symbols"),
    "cqi_expiry": (TIME, "cqi_expiry"),
    "cqi_report_delay": (TIME, "cqi_report_delay"),
    "rlc_reporting": (ONE_OF("ideal", "ns3-mmwave"), "rlc_reporting"),
    "pdcp_header": (SIZE32, "pdcp_header"),
    "rlc_report_timer": (TIME, "rlc_report_timer"),
    "rlc_status_prohibit": (TIME, "rlc_status_prohibit"),
    "rlc_poll_retransmit": (TIME, "rlc_poll_retransmit"),
    "fading": (ONE_OF("none", "ns3-mmwave"), "fading"),
    "fading_chunks": (U32, "fading_chunks"),
    "fading_period": (TIME, "fading_period"),
    "sinr_schedule": (lambda c, v, p: _list(c, v, p, _sinr_step), "sinr_schedule"),
    "trace": (_trace_file, "trace_dl"),
    "trace_uplink": (_trace_file, "trace_ul"),
}


def _radio(ctx, v, path, node):
    fields = {k: f for k, (f, _) in RADIO_FIELDS.items()}
    t = _table(ctx, v, path, {"gnb": node, "ue": node, **fields}, required=("gnb", "ue"))
    radio = {}
    for k, (_, core) in RADIO_FIELDS.items():
        if k in t:
            val = t[k]
            if k == "carrier":
                val = val / 1e9
            radio[core] = val
    return {"gnb": t["gnb"], "ue": t["ue"], "radio": radio}


def _flow_feed(ctx, v, path):
    return _table(ctx, v, path, {"radio": U64, "delay": TIME}, required=("radio",))



#: Deepest nesting of tables and lists a scenario may have (the format needs 4).
MAX_DEPTH = 32


def check_depth(raw, source: str = "<scenario>") -> None:
    """Refuse structures nested deeper than MAX_DEPTH (iteratively: no recursion to exhaust)."""
    stack = [(raw, "", 0)]
    while stack:
        v, path, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise ScenarioError(f"{source}: {path or '(top)'}: nested deeper than {MAX_DEPTH} levels")
        if isinstance(v, dict):
            stack.extend((x, f"{path}.{k}" if path else str(k), depth + 1) for k, x in v.items())
        elif isinstance(v, list):
            stack.extend((x, f"{path}[{i}]", depth + 1) for i, x in enumerate(v))


def substitute_params(raw: dict, overrides: dict | None = None, source: str = "<scenario>") -> dict:
    """Replace every string value "$name" by the scenario parameter `name` (from `[params]`,
    overridden by `overrides`)."""
    if not isinstance(raw.get("params") or {}, dict):
        raise ScenarioError(f"{source}: params: expected a table of values, got {raw.get('params')!r}")
    params = dict(raw.get("params") or {})
    for k, v in (overrides or {}).items():
        if k not in params:
            raise ScenarioError(f"{source}: --param {k}: unknown parameter; this scenario's parameters: "
                                f"{', '.join(sorted(params)) or '(none)'}")
        params[k] = v

    def sub(v, path):
        if isinstance(v, str) and v.startswith("$") and len(v) > 1:
            name = v[1:]
            if name not in params:
                raise ScenarioError(f"{source}: {path}: unknown parameter {v!r}; parameters: "
                                    f"{', '.join(sorted(params)) or '(none)'}")
            return params[name]
        if isinstance(v, dict):
            return {k: sub(x, f"{path}.{k}" if path else k) for k, x in v.items()}
        if isinstance(v, list):
            return [sub(x, f"{path}[{i}]") for i, x in enumerate(v)]
        return v

    out = {k: sub(v, k) for k, v in raw.items() if k != "params"}
    out["params"] = params
    return out


def normalize(raw: dict, source: str = "<scenario>", warnings: list | None = None) -> dict:
    """Read a raw scenario (as parsed from TOML) into the core's run configuration, completed
    and checked by the core; values that are valid but almost surely mistakes are appended to
    `warnings`."""
    ctx = _Ctx(source)
    if warnings is not None:
        ctx.warnings = warnings
    check_depth(raw, source)
    raw = substitute_params(raw, None, source)
    top = _table(
        ctx, raw, "",
        {
            "name": SAFE_NAME, "description": STR, "duration": TIME, "seed": INT(0, 2**63 - 1),
            "params": lambda c, v, p: v, "radios": lambda c, v, p: v,
            "nodes": lambda c, v, p: _list(c, v, p, NODE_NAME),
            "links": lambda c, v, p: v, "flows": lambda c, v, p: v,
            "tcp": lambda c, v, p: _table(c, v, p, TCP_FIELDS),
            "record": lambda c, v, p: _table(c, v, p, {"bin": TIME, "cwnd_interval": TIME, "trace": BOOL,
                                                       "series": ONE_OF("auto", "per-flow", "aggregate")}),
            "pcap": lambda c, v, p: v,
        },
        required=("duration", "nodes", "flows"),
    )
    node = _node_reader(top["nodes"])
    links = [_link(ctx, lraw, f"links[{i}]", node, top["duration"])
             for i, lraw in enumerate(_list(ctx, top.get("links", []), "links", lambda c, v, p: v))]
    radios = [_radio(ctx, r, f"radios[{i}]", node)
              for i, r in enumerate(_list(ctx, top.get("radios", []), "radios", lambda c, v, p: v))]
    flows, custom = _flows(ctx, top, node)
    cfg = {"duration": top["duration"], "nodes": top["nodes"], "links": links, "radios": radios, "flows": flows,
           "record": top.get("record", {}), **{k: top[k] for k in ("name", "seed") if k in top}}
    if "pcap" in top:
        cfg["pcap"] = _pcap(ctx, top["pcap"])
    try:
        return json.loads(_core.complete_config(json.dumps(cfg), custom))
    except ValueError as e:  # a rule of the core: its message names the key and what is allowed
        ctx.fail("", str(e))


def _node_reader(nodes: list) -> Callable:
    """A field reader turning a node name into its index."""
    index = {n: i for i, n in enumerate(nodes)}

    def node(c, v, p):
        if not isinstance(v, str):
            c.fail(p, f"expected a node name, got {v!r}; nodes: {', '.join(nodes)}")
        if v not in index:
            c.fail(p, f"unknown node {v!r}; nodes: {', '.join(nodes)}")
        return index[v]

    return node


def _link(ctx: "_Ctx", lraw, path: str, node: Callable, duration) -> dict:
    """One [[links]] entry: its two directions (`forward` a -> b, `reverse` b -> a), each the
    link-wide keys overridden by the direction's own."""
    lt = _table(
        ctx, lraw, path,
        {"between": lambda c, v, p: _list(c, v, p, node), "rate": RATE, "delay": TIME, "mtu": SIZE32,
         "framing": SIZE32, "forward": _direction, "reverse": _direction, **DIRECTION_FIELDS},
        required=("between", "rate", "delay"),
    )
    if len(lt["between"]) != 2:
        ctx.fail(f"{path}.between", f"expected two node names, got {len(lt['between'])}")
    both = {k: lt[k] for k in DIRECTION_FIELDS if k in lt}
    link = {"a": lt["between"][0], "b": lt["between"][1], "rate": lt["rate"], "delay": lt["delay"]}
    if "mtu" in lt:
        link["mtu"] = lt["mtu"]
    for key, core in (("forward", "ab"), ("reverse", "ba")):
        d = {**both, **lt.get(key, {})}
        if "rate_schedule" in d and "rate_trace" in d:
            ctx.fail(f"{path}.rate_trace", "a direction has a rate_schedule or a rate_trace, not both")
        if "rate_trace" in d:
            d["rate_schedule"] = _trace_steps(d.pop("rate_trace"), duration)
        if "rate_schedule" in d:
            d["rate_steps"] = d.pop("rate_schedule")
        if "framing" in lt:
            d["framing"] = lt["framing"]
        link[core] = d
    return link


def _flows(ctx: "_Ctx", top: dict, node: Callable) -> tuple[list, list]:
    """The [[flows]] (each with the scenario's [tcp] overridden by its own) and the indices of
    those whose algorithm is a Python object given to the run."""
    base_tcp = top.get("tcp", {})
    if isinstance(top["flows"], list) and len(top["flows"]) > MAX_FLOWS:  # refused before the work per flow
        ctx.fail("flows", f"{len(top['flows'])} flows; allowed: at most {MAX_FLOWS}")
    flows, custom = [], []
    for i, fraw in enumerate(_list(ctx, top["flows"], "flows", lambda c, v, p: v)):
        ft = _table(
            ctx, fraw, f"flows[{i}]",
            {"from": node, "to": node, "cca": STR, "cca_params": _cca_params, "start": TIME, "stop": TIME,
             "app": _app, "tcp": lambda c, v, p: _table(c, v, p, TCP_FIELDS), "sinr_feed": _flow_feed,
             "receiver_feed": TIME},
            required=("from", "to"),
        )
        tcp = {**base_tcp, **ft.pop("tcp", {})}
        flow = {"src": ft.pop("from"), "dst": ft.pop("to"), "tcp": {TCP_CORE_NAMES.get(k, k): v for k, v in tcp.items()},
                **ft}
        # a Python algorithm object is given to the run instead, or a trained policy drives the
        # flow (mmcc.gym.policy)
        if flow.get("cca") == PYTHON_CCA or str(flow.get("cca", "")).startswith(POLICY_PREFIX):
            custom.append(i)
        flows.append(flow)
    return flows, custom


def _pcap(ctx: "_Ctx", raw) -> dict:
    pt = _table(ctx, raw, "pcap", {"link": U64, "direction": ONE_OF("forward", "reverse"), "path": STR},
                required=("link",))
    if "path" in pt and not _PCAP_PATH.fullmatch(pt["path"]):
        ctx.fail("pcap.path", f"{pt['path']!r}: expected a file name ending in .pcap (letters, digits, '.', '_', "
                              "'-'); the capture is written in the run's output folder")
    return {"link": pt["link"], "direction": "ab" if pt.get("direction", "forward") == "forward" else "ba",
            "path": pt.get("path", "capture.pcap")}


def link_route(config: dict, src: int, dst: int) -> list[tuple] | None:
    """The hops (link index, "ab" | "ba") a packet from node `src` to node `dst` takes in a
    normalized configuration, in order; None when there is no path. The simulator's own routing
    (`SimConfig::route` in the core: shortest in hops, ties to the lower port); a radio hop is
    ("radio", radio index, "down" | "up")."""
    hops = json.loads(_core.route(json.dumps(config), src, dst))
    if hops is None:
        return None
    return [tuple(h["link"]) if "link" in h else ("radio", *h["radio"]) for h in hops]


# ---- loading ------------------------------------------------------------------------------

def list_presets() -> dict[str, str]:
    """Preset name -> description."""
    out = {}
    for f in sorted(resources.files("mmcc.presets").iterdir(), key=lambda p: p.name):
        if f.name.endswith(".toml"):
            raw = tomllib.loads(f.read_text())
            out[f.name[:-5]] = raw.get("description", "")
    return out


def _parse_value(text: str):
    """A CLI value: a TOML literal if it parses as one (number, bool, quoted string, array,
    inline table), else the bare string."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def set_path(raw: dict, dotted: str, value, source: str = "--set"):
    """Set `a.b.0.c` in a raw scenario (list indices are numbers)."""
    parts = dotted.split(".")
    cur = raw
    for i, p in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(cur, list):
            if not p.isdigit() or int(p) >= len(cur):
                raise ScenarioError(f"{source}: {dotted}: index {p!r} does not exist (the list has {len(cur)} items)")
            if last:
                cur[int(p)] = value
            else:
                cur = cur[int(p)]
        elif isinstance(cur, dict):
            if last:
                cur[p] = value
            else:
                cur = cur.setdefault(p, {})
        else:
            raise ScenarioError(f"{source}: {dotted}: {'.'.join(parts[:i])} is not a table or list")


@dataclass
class Scenario:
    """A scenario: the raw structure (as in the TOML file) and where it came from."""

    raw: dict
    source: str = "<dict>"
    _config: dict | None = field(default=None, repr=False)
    _warnings: list = field(default_factory=list, repr=False)

    def __post_init__(self):
        # every construction (file, dict, preset, overrides): before anything copies or walks it
        check_depth(self.raw, self.source)

    @classmethod
    def from_dict(cls, raw: dict, source: str = "<dict>") -> "Scenario":
        if not isinstance(raw, dict):
            raise ScenarioError(f"{source}: a scenario is a table of keys (a dict, as the TOML file's top level), "
                                f"got {type(raw).__name__}")
        sc = cls(raw, source)  # checks the depth before the copy recurses into it
        sc.raw = copy.deepcopy(raw)
        return sc

    @classmethod
    def from_file(cls, path: str | Path) -> "Scenario":
        p = Path(path)
        if p.exists() and not p.is_file():
            raise ScenarioError(f"{path}: not a regular file (a scenario is a TOML file)")
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as e:
            raise ScenarioError(f"{path}: cannot read: {e.strerror or e}") from None
        except UnicodeDecodeError as e:
            raise ScenarioError(f"{path}: not a UTF-8 text file (byte {e.start}); a scenario is a TOML file") from None
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise ScenarioError(f"{path}: not valid TOML: {e}") from None
        except RecursionError:
            raise ScenarioError(f"{path}: nested too deeply (at most {MAX_DEPTH} levels)") from None
        return cls(raw, str(path))

    @classmethod
    def from_preset(cls, name: str) -> "Scenario":
        f = resources.files("mmcc.presets") / f"{name}.toml"
        if not f.is_file():
            raise ScenarioError(f"unknown preset {name!r}; presets: {', '.join(list_presets())} (or give a .toml file)")
        return cls(tomllib.loads(f.read_text()), f"preset {name}")

    def with_overrides(self, sets: dict[str, Any] | None = None, *, cca: str | None = None,
                       cca_params: dict[str, float] | None = None, seed: int | None = None,
                       duration: str | None = None, params: dict[str, Any] | None = None) -> "Scenario":
        raw = copy.deepcopy(self.raw)
        if params:
            known = raw.get("params") or {}
            if not isinstance(known, dict):
                raise ScenarioError(f"{self.source}: params: expected a table of values, got {known!r}")
            for k, v in params.items():
                if k not in known:
                    raise ScenarioError(f"{self.source}: --param {k}: unknown parameter; this scenario's parameters: "
                                        f"{', '.join(sorted(known)) or '(none)'}")
                raw["params"][k] = v
        flows = raw.get("flows") if isinstance(raw.get("flows"), list) else []
        # the algorithm first: a flow whose algorithm `cca` replaces loses the parameters the
        # scenario gave the old one; what the caller sets (`sets`, `cca_params`) comes after, so
        # it reaches the new algorithm (or is refused by it with a clear error)
        if cca is not None:
            for f in flows:
                if isinstance(f, dict):
                    if f.get("cca") != cca:
                        f.pop("cca_params", None)
                    f["cca"] = cca
        for k, v in (sets or {}).items():
            set_path(raw, k, v)
        if cca_params:
            for f in flows:
                if isinstance(f, dict):
                    f.setdefault("cca_params", {}).update(cca_params)
        if seed is not None:
            raw["seed"] = seed
        if duration is not None:
            raw["duration"] = duration
        return Scenario(raw, self.source)

    @property
    def config(self) -> dict:
        if self._config is None:
            self._warnings = []
            self._config = normalize(self.raw, self.source, self._warnings)
        return self._config

    @property
    def warnings(self) -> list[str]:
        """Valid values that are almost surely mistakes (e.g. a bare number as a buffer size)."""
        self.config  # noqa: B018 - normalizes once
        return list(self._warnings)

    @property
    def name(self) -> str:
        return self.raw.get("name") or Path(self.source).stem

    @property
    def params(self) -> dict:
        """The scenario parameters (`[params]`) with their current values."""
        return dict(self.raw.get("params") or {})

    def to_json(self) -> str:
        return json.dumps(self.config, sort_keys=True)


def load(name_or_path: str | Path) -> Scenario:
    """A preset by name, or a TOML file by path."""
    s = str(name_or_path)
    if s.endswith(".toml") or Path(s).exists():
        return Scenario.from_file(s)
    return Scenario.from_preset(s)
