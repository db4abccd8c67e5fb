"""The `mmcc` command line.

Errors are one line on stderr and a non-zero exit status; never a traceback (set MMCC_DEBUG=1
to see one when reporting a bug).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

EXIT_USAGE = 2
EXIT_INTERNAL = 70


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        sys.stderr.write(f"error: {message} (see '{self.prog} --help')\n")
        raise SystemExit(EXIT_USAGE)


def _kv(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    k, v = text.split("=", 1)
    return k.strip(), v.strip()


def _parsed(pairs) -> dict:
    """KEY=VALUE pairs of --set / --param with their values parsed (numbers, booleans, lists)."""
    from .scenario import _parse_value

    return {k: _parse_value(v) for k, v in pairs}


def _scenario_args(p) -> None:
    """The scenario and its overrides, shared by the commands that take one scenario."""
    p.add_argument("scenario", help="preset name (see 'mmcc presets') or path to a scenario .toml file")
    p.add_argument("--cca", help="congestion control algorithm for every flow (see 'mmcc algorithms'), "
                                 "or FILE.py:CLASS, a Python subclass of mmcc.CongestionControl")
    p.add_argument("--seed", type=int, help="random seed (default: the scenario's)")
    p.add_argument("--duration", help='simulated duration, e.g. "10s" (default: the scenario\'s)')
    p.add_argument("--param", action="append", type=_kv, default=[], metavar="NAME=VALUE", dest="params",
                   help="set a scenario parameter (see the preset's [params]), e.g. --param rlc_buffer=20MiB")
    p.add_argument("--set", action="append", type=_kv, default=[], metavar="KEY=VALUE", dest="sets",
                   help='override any scenario key by dotted path, e.g. --set links.1.forward.queue.limit=5MB')


#: `--force` of every command that writes an output folder (outdir.prepare).
FORCE_HELP = ("write into a non-empty folder that is not an mmcc output folder (mmcc replaces only files of the "
              "names it writes)")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="mmcc",
        description="TCP congestion control for 5G mmWave networks: a fast, deterministic packet-level simulator.",
        epilog="Examples:\n  mmcc run thesis-edge --cca bbr --param rlc_buffer=20MiB\n"
               "  mmcc run my.toml --cca newreno --seed 3\n"
               "  mmcc sweep thesis-edge --cca newreno,rttv --param per=0,1e-7 --seeds 3 --out out/sweep\n"
               "  mmcc reproduce thesis --quick\n  mmcc query out/sweep \"SELECT cca, avg(throughput_mbps) FROM runs GROUP BY cca\"\n"
               "  mmcc presets\n  mmcc algorithms",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from . import __version__

    p.add_argument("--version", action="version", version=f"mmcc {__version__}")
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND", parser_class=_Parser)

    _add_run(sub)
    _add_exports(sub)
    _add_validate(sub)
    _add_sweep(sub)
    _add_reproduce(sub)
    _add_query(sub)
    _add_kernel(sub)
    _add_testbed(sub)
    sub.add_parser("presets", help="list the scenario presets")
    sub.add_parser("algorithms", help="list the congestion control algorithms with sources and parameters")
    return p


def _add_run(sub) -> None:
    """`mmcc run`."""
    r = sub.add_parser("run", help="run one scenario (a preset name or a .toml file)",
                       description="Run one scenario; print a summary, write Parquet tables and an overview PNG.")
    _scenario_args(r)
    r.add_argument("--cca-param", action="append", type=_kv, default=[], metavar="KEY=VALUE",
                   help="algorithm parameter override (repeatable)")
    r.add_argument("--trace", action="store_true", help="also record every RTT sample, delivered segment and cwnd change")
    r.add_argument("--pcap", metavar="LINK[:forward|reverse]", help="capture one link direction to OUT/capture.pcap")
    r.add_argument("--out", default=None, help="output folder (default: out/<scenario>-<cca>-s<seed>, plus -<hash> of the --param, --set, --duration and --cca-param values when any is given)")
    r.add_argument("--no-plot", action="store_true", help="skip the PNG")
    r.add_argument("--force", action="store_true", help=FORCE_HELP)


def _add_exports(sub) -> None:
    """`mmcc export-trace` and `mmcc export-ns3`."""
    e = sub.add_parser("export-trace", help="write a run's radio capacity as a Mahimahi mm-link trace",
                       description="Convert the per-millisecond downlink capacity a run's radio model offered "
                                   "(RUN_DIR/radio.parquet) into Mahimahi delivery opportunities (1500 bytes each).")
    e.add_argument("run_dir", help="output folder of a run with a radio link")
    e.add_argument("--out", help="trace file (default: RUN_DIR/capacity_dl.mahimahi)")
    e.add_argument("--radio", type=int, default=0, help="radio link index (default 0)")

    x = sub.add_parser("export-ns3", help="write a scenario as the ns-3 reference runner reads it (JSON)",
                       description="Write SCENARIO (with overrides) in the runner's format: the normalized "
                                   "configuration with each flow's TCP settings resolved from its profile. Run it "
                                   "with ns3/examples/mmcc-ns3-runner (see docs/validation.md).")
    _scenario_args(x)
    x.add_argument("--out", help="JSON file (default: stdout)")


def _add_validate(sub) -> None:
    """`mmcc validate ns3|linux|mmwave`."""
    v = sub.add_parser("validate", help="cross-check the simulator against a reference (ns-3 or the Linux kernel)",
                       description="Run the same cases in mmcc and in the reference and report the agreement "
                                   "(mean and spread over seeds, difference, +-5 % band, cwnd overlays, speed).")
    v.add_argument("reference", choices=["ns3", "linux", "mmwave"],
                   help="ns3: the simulator against ns-3 (Debian's libns3-dev); linux: the `linux` profile against "
                        "the kernel on this machine (the testbed, root); mmwave: the thesis presets against "
                        "ns3-mmwave (stored runs in validation/mmwave-runs; new ones with --runner)")
    v.add_argument("--quick", action="store_true", help="a small subset (a few minutes)")
    v.add_argument("--seeds", type=int, help="seeds per case (ns3: default 5, --quick 4; linux: repetitions, default 1)")
    v.add_argument("--duration", type=_seconds, help="time per run, with a unit (\"20s\", \"500ms\") or bare seconds "
                                                  "(ns3: default 20 s; linux: 15 s, --quick 10 s; mmwave: 12 s)")
    v.add_argument("--cca", help="comma-separated algorithms (default: the 11 ns-3 classes and the 6 ported "
                                 "mmWave algorithms)")
    v.add_argument("--rate", help="comma-separated bottlenecks. ns3: 100Mbps, 1Gbps, steps, square, trace, 2flows "
                                  "(default: all; the last four run without random loss); linux: rates up to "
                                  "200Mbps and trace1, trace2 (default: 20Mbps, 100Mbps, trace1, trace2)")
    v.add_argument("--loss", help="comma-separated per-packet loss rates (default: 0,1e-5,1e-4,1e-3)")
    v.add_argument("--delay", help="linux --independent: comma-separated one-way delays in ms (default: 10,25)")
    v.add_argument("--workers", type=int, help="parallel runs (default: all cores)")
    v.add_argument("--out", default=None, help="output folder (resumable; default: out/validate-REFERENCE)")
    v.add_argument("--buffer", help="mmwave: comma-separated edge RLC buffers in MiB (default: 0.25,2.5,20)")
    v.add_argument("--per", help="mmwave: comma-separated per-byte error rates (default: 0,1e-7)")
    v.add_argument("--server", help="mmwave: edge, remote or both (default: both)")
    v.add_argument("--runner", help="mmwave: the built mmcc-mmwave-runner, to run the cases not stored yet "
                                    "(ns3/mmwave-oracle/Makefile)")
    v.add_argument("--ns3-mmwave", dest="ns3_mmwave", help="mmwave: the built ns3-mmwave tree the runner runs in")
    v.add_argument("--tcp", help="mmwave: the oracle's TCP: pinned (ns3-mmwave's own at the reference commit, runs in "
                                 "validation/mmwave-runs; default) or ns-3.35 (the same tree with ns-3.35's TCP, runs "
                                 "in validation/mmwave-runs-tcp-3.35; --runner then built against that tree)")
    v.add_argument("--store", help="ns3: a folder of ns-3 results kept between checkouts (e.g. validation/ns3-runs, "
                                   "the runs behind docs/validation.md): results of this runner build found there "
                                   "are reused, new ones are added to it; linux: keep the kernel runs and the "
                                   "matrix's agreement there (validation/linux-runs, checked by the suite)")
    v.add_argument("--independent", action="store_true",
                   help="ns3: each side draws its own losses (ns-3's RateErrorModel and generator, mmcc's streams) over "
                        "--seeds runs per side (default 100, at least 30); means with 95 %% intervals and the realised "
                        "loss rates in OUT/independent.md (default cases: newreno, cubic, highspeed, vegas, yeah at "
                        "100Mbps, 1e-3, 10 s); linux: the emulator draws its own losses, --seeds kernel runs per case "
                        "(default 10) against 100 simulator runs, Student-t intervals (default cases: newreno, cubic, "
                        "bbr at 100Mbps, 10 and 25 ms, 0.25 and 1 BDP, 1e-3 and 1e-2, 15 s)")


def _add_sweep(sub) -> None:
    """`mmcc sweep`."""
    sw = sub.add_parser("sweep", help="run a scenario over a grid of algorithms, parameters and seeds",
                        description="Run the cartesian product of algorithms x parameter values x seeds on all local "
                                    "cores. Resumable: finished runs (keyed by a hash of their full specification) "
                                    "are skipped. Results: OUT/runs/<run_id>/ with summary.parquet (one row per run), "
                                    "series, cwnd and radio tables; OUT/summary.csv.")
    sw.add_argument("scenario", nargs="?", help="preset name or .toml file (or give --file)")
    sw.add_argument("--file", help="a sweep file (TOML): scenario, cca, seeds, duration, [params], [set]")
    sw.add_argument("--cca", default=None, help="comma-separated algorithms (default: the scenario's)")
    sw.add_argument("--param", action="append", type=_kv, default=[], metavar="NAME=V1,V2", dest="params",
                    help="scenario parameter values (repeatable)")
    sw.add_argument("--set", action="append", type=_kv, default=[], metavar="KEY=V1,V2", dest="sets",
                    help="values of any scenario key by dotted path (repeatable)")
    sw.add_argument("--seeds", type=int, default=1, help="seeds 1..N (default 1)")
    sw.add_argument("--duration", help='simulated duration of every run, e.g. "10s"')
    sw.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    sw.add_argument("--run-time-limit", type=float, default=None, metavar="SECONDS",
                    help="stop a run that takes longer than this (wall time) and record it as failed")
    sw.add_argument("--backend", choices=["local", "ray"], default="local",
                    help="local process pool (default) or a Ray cluster")
    sw.add_argument("--address", default=None, help="Ray cluster address (default: start a local Ray instance)")
    sw.add_argument("--out", required=True, help="output folder (re-use it to resume; shared by all nodes with Ray)")
    sw.add_argument("--force", action="store_true", help=FORCE_HELP)


def _add_reproduce(sub) -> None:
    """`mmcc reproduce`."""
    rp = sub.add_parser("reproduce", help="re-run a publication's experiments: tables, figures, HTML report",
                        description="Run a publication's grid and write tables (CSV, Markdown), figures and "
                                    "report.html under one folder. Resumable like 'mmcc sweep'.")
    rp.add_argument("publication", help="thesis, siddiqui, dtcp or mmstcp")
    rp.add_argument("--seeds", type=int, default=3, help="seeds per condition (default 3, the thesis')")
    rp.add_argument("--quick", action="store_true", help="one seed")
    rp.add_argument("--duration", help="simulated duration per run (default: the presets' 60 s)")
    rp.add_argument("--workers", type=int, default=None, help="processes (default: all cores)")
    rp.add_argument("--backend", choices=["local", "ray"], default="local", help="local process pool or Ray")
    rp.add_argument("--address", default=None, help="Ray cluster address")
    rp.add_argument("--cca", default=None, help="thesis only: comma-separated algorithms or trained policies "
                                                "(policy:PATH) to run and report beside the thesis' eight")
    rp.add_argument("--out", default=None, help="output folder (default: out/reproduce-<publication>)")
    rp.add_argument("--force", action="store_true", help=FORCE_HELP)


def _add_query(sub) -> None:
    """`mmcc query`."""
    q = sub.add_parser("query", help="SQL over a sweep's results (DuckDB); the table is 'runs'",
                       description="Run SQL over OUT/runs/*/summary.parquet, available as the table 'runs' "
                                   "(one row per run); the SQL sees nothing else unless --external. Example: mmcc query out/sweep \"SELECT cca, avg(throughput_mbps) "
                                   "FROM runs GROUP BY cca\"")
    q.add_argument("dir", help="a sweep or reproduction output folder")
    q.add_argument("sql", help="the query")
    q.add_argument("--csv", action="store_true", help="print CSV instead of a table")
    q.add_argument("--external", action="store_true",
                   help="let the SQL use DuckDB's file system access (other files, COPY TO, ATTACH, extensions); "
                        "by default it sees only the table 'runs'")


def _add_kernel(sub) -> None:
    """`mmcc kernel`."""
    k = sub.add_parser("kernel", help="load, unload or list mmcc's eBPF congestion controls (root)",
                       description="Register mmcc's algorithms as BPF struct_ops congestion controls in this kernel "
                                   "(kernel names mmcc_<name>; select one per socket with TCP_CONGESTION or "
                                   "`iperf3 -C mmcc_rttv`). The system default is never changed.")
    k.add_argument("action", choices=["load", "unload", "list"])
    k.add_argument("names", nargs="*", help="rttv, msscca, mrvhs, mmstcp, dtcp, fbtcp or all (default for unload: all)")


def _add_testbed(sub) -> None:
    """`mmcc testbed`."""
    t = sub.add_parser("testbed", help="run a scenario with real kernel TCP over an emulated link (root)",
                       description="Run SCENARIO's flows as kernel TCP between two network namespaces joined by "
                                   "mmcc's link emulator (rate or schedule or trace, delay, drop-tail buffer, "
                                   "random loss); write the tables of 'mmcc run'. See docs/testbed.md.")
    t.add_argument("scenario", nargs="?", help="preset name or .toml file (wired links)")
    t.add_argument("--cca", help="algorithm for every flow: reno/newreno, cubic, bbr or an eBPF algorithm "
                                 "(rttv, msscca, mrvhs, mmstcp, dtcp, fbtcp)")
    t.add_argument("--seed", type=int, help="seed of the emulator's random loss (default: the scenario's)")
    t.add_argument("--duration", help='run time, e.g. "10s" (default: the scenario\'s)')
    t.add_argument("--set", action="append", type=_kv, default=[], metavar="KEY=VALUE", dest="sets",
                   help="override any scenario key by dotted path")
    t.add_argument("--independent-losses", action="store_true",
                   help="draw the emulator's losses from its own stream of the seed, not from the simulator's "
                        "(by default the i-th data packet meets the same draw as in 'mmcc run')")
    t.add_argument("--sample-ms", type=int, default=10, help="TCP_INFO sampling period (default 10 ms)")
    t.add_argument("--pcap", action="store_true",
                   help="also capture the headers of every packet entering the data and the ACK path "
                        "(OUT/forward.pcap, OUT/reverse.pcap)")
    t.add_argument("--out", default=None, help="output folder (default: out/testbed-<scenario>-<cca>-s<seed>)")
    t.add_argument("--no-plot", action="store_true", help="skip the PNG")
    t.add_argument("--force", action="store_true", help=FORCE_HELP)
    t.add_argument("--cleanup", action="store_true",
                   help="only remove namespaces and registrations left by killed testbed runs")
    t.add_argument("--check", action="store_true",
                   help="only prove the link emulator: RTT, UDP below capacity, random loss, TCP capacity "
                        "(50 Mb/s, 10 ms, 1 %% loss)")


def _cmd_run(a) -> int:
    from .results import run, stall_note
    from .scenario import ScenarioError, _parse_value, load

    sc = load(a.scenario)
    sets = _parsed(a.sets)
    if a.trace:
        sets["record.trace"] = True
    # default: a folder per scenario, algorithm and seed, so runs do not overwrite each other, and
    # per set of overrides (--param, --set, --duration, --cca-param: a short hash of them; run.json
    # has the values)
    if a.cca and a.cca.startswith("policy:"):
        cca_tag = "policy-" + Path(a.cca[len("policy:"):]).stem
    else:
        cca_tag = (a.cca.rpartition(":")[2] if a.cca else None) or sc.config["flows"][0]["cca"]
    seed_tag = a.seed if a.seed is not None else sc.config["seed"]
    overrides = {"param": sorted(a.params), "set": sorted(a.sets), "duration": a.duration,
                 "cca_param": sorted(a.cca_param)}
    tag = ""
    if any(overrides.values()):
        import hashlib
        import json

        tag = "-" + hashlib.sha256(json.dumps(overrides, sort_keys=True).encode()).hexdigest()[:8]
    out = Path(a.out) if a.out else Path("out") / f"{sc.name}-{cca_tag}-s{seed_tag}{tag}"
    foreign = _prepare_out(out, a.force)
    if a.pcap:
        link, _, direction = a.pcap.partition(":")
        if not link.isdigit():
            raise ScenarioError(f"--pcap: {a.pcap!r}: expected LINK or LINK:forward|reverse, LINK a link index")
        sets["pcap"] = {"link": int(link), "direction": direction or "forward", "path": "capture.pcap"}
    params = {}
    for k, v in a.cca_param:
        x = _parse_value(v)
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise ScenarioError(f"--cca-param {k}: expected a number, got {v!r}")
        params[k] = float(x)
    cca = _load_python_cca(a.cca) if a.cca and ".py:" in a.cca else a.cca
    scenario_params = _parsed(a.params)
    result = run(sc, cca=cca, cca_params=params or None, seed=a.seed, duration=a.duration, sets=sets,
                 params=scenario_params or None, out_dir=out, allow_partial=True)
    for w in result.scenario.warnings:
        sys.stderr.write(f"warning: {w}\n")
    profiles = sorted(set(result.flows.column("tcp_profile").to_pylist()))
    print(f"scenario {sc.name} ({sc.source}), seed {result.scenario.config['seed']}, "
          f"TCP profile {'/'.join(profiles)}, {result.scenario.config['duration'] / 1e9:g} s simulated in {result.wall_seconds:.2f} s wall "
          f"({result.events_processed:,} events)")
    print(result.summary_text())
    f = result.flows.to_pydict()
    for i, (n, span) in enumerate(zip(f["one_segment_timeouts"], f["one_segment_stall_s"])):
        if note := stall_note(n, span):
            sys.stderr.write(f"warning: flow {i} {note}; see docs/tcp-profiles.md (a window of one "
                             f"segment after a timeout)\n")
    for i, (rw, sb) in enumerate(zip(f["rwnd_limited_ratio"], f["sndbuf_limited_ratio"])):
        for share, what, key in ((rw, "the receive window", "tcp.recv_buffer"), (sb, "the send buffer", "tcp.send_buffer")):
            if share > 0.5:
                sys.stderr.write(f"warning: flow {i} was limited by {what} in {100 * share:.0f} % of the times it "
                                 f"stopped sending; raise {key} if the path should be the limit\n")
    written = result.write(out)
    if not a.no_plot:
        from .plots import overview, radio_figures

        written.append(overview(result, out / "overview.png"))
        written.extend(radio_figures(result, out))
    if result.pcap_packets is not None:
        written.append(out / result.scenario.config["pcap"]["path"])
        print(f"pcap: {result.pcap_packets} packets in {written[-1]}")
    _finish_out(out, written, foreign)
    if result.interrupted_at_s is not None:
        sys.stderr.write(f"interrupted at {result.interrupted_at_s:.3f} s of simulated time: the files in {out}/ are "
                         "partial (run.json: \"partial\")\n")
        return 130
    return 0


def _seconds(text: str) -> float:
    """A duration for argparse: "20s", "500ms" or bare seconds ("20")."""
    from .units import UnitError, parse_time

    try:
        return float(text) if text.replace(".", "", 1).isdigit() else parse_time(text) / 1e9
    except UnitError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _prepare_out(out: Path, force: bool) -> list[str]:
    """Check the output folder before anything runs (outdir.prepare); returns the names in it
    that mmcc did not write."""
    from . import outdir

    return outdir.prepare(out, force=force)


def _finish_out(out: Path, written: list, foreign: list[str]) -> None:
    """Record the run's files in the folder's manifest, delete the earlier run's files this run
    did not write again, and say what was replaced."""
    from . import outdir

    removed = outdir.finish(out, written)
    print(f"wrote {len(written)} files to {out}/")
    overwritten = sorted(set(foreign) & {Path(p).name for p in written})
    if overwritten:
        sys.stderr.write(f"note: --force: replaced {', '.join(overwritten)} in {out}/ (files mmcc had not written)\n")
    if removed:
        print(f"removed the earlier run's {', '.join(removed)} (not written by this run)")


def _load_python_cca(spec: str):
    """FILE.py:CLASS -> the class (a subclass of mmcc.CongestionControl)."""
    from .cca import CongestionControl
    from .files import import_user_file
    from .scenario import ScenarioError

    path, _, cls = spec.rpartition(":")
    if not Path(path).is_file():
        raise ScenarioError(f"--cca {spec}: no such file {path!r}")
    module = import_user_file(Path(path), f"--cca {spec}")
    obj = getattr(module, cls, None)
    if not (isinstance(obj, type) and issubclass(obj, CongestionControl)):
        raise ScenarioError(f"--cca {spec}: {path} has no subclass of mmcc.CongestionControl named {cls!r}")
    return obj


def _split_top(text: str) -> list[str]:
    """Split on commas outside quotes, brackets and braces ("1MB,{a=1,b=2}" -> two values)."""
    out, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    out.append("".join(cur))
    return [v.strip() for v in out if v.strip()]


def _values(text: str) -> list:
    from .scenario import _parse_value

    return [_parse_value(v) for v in _split_top(text)]


def _cmd_sweep(a) -> int:
    import csv

    from .experiments.sweep import grid, load_summaries, run_sweep
    from .scenario import ScenarioError, load

    params = {k: _values(v) for k, v in a.params}
    sets = {k: _values(v) for k, v in a.sets}
    ccas = [c.strip() for c in a.cca.split(",")] if a.cca else [None]
    scenario, seeds, duration = a.scenario, a.seeds, a.duration
    if a.file:
        scenario, ccas, seeds, duration, fparams, fsets = _read_sweep_file(a.file, a)
        params = {**fparams, **params}
        sets = {**fsets, **sets}
    if not scenario:
        raise ScenarioError("sweep: give a scenario (preset or .toml) or --file")
    load(scenario).config  # validate before starting workers
    if a.backend == "ray" and a.address:
        from .experiments.sweep import _probe_ray

        _probe_ray(a.address)  # before the output folder is made
    _prepare_out(Path(a.out), a.force)
    if seeds < 1:
        raise ScenarioError("--seeds must be at least 1")
    specs = grid(scenario, ccas=ccas, seeds=range(1, seeds + 1), params=params, sets=sets, duration=duration)
    for sp in specs:  # every variant must validate: fail before running anything
        sp.config()
    res = run_sweep(specs, a.out, workers=a.workers, backend=a.backend, address=a.address,
                    time_limit=a.run_time_limit)
    t = load_summaries(a.out).to_pylist()
    print(f"sweep: {res['ran']} run, {res['skipped']} already done, {res['failed']} failed; "
          f"{len(t)} runs in {a.out}/runs (summary: {a.out}/summary.csv)")
    return 1 if res["failed"] else 0


def _read_sweep_file(path: str, a):
    """A sweep file: scenario = "...", cca = [...], seeds = N, duration = "...", [params] and [set]
    tables of value lists. Command-line options override it."""
    from .scenario import ScenarioError, tomllib

    try:
        raw = tomllib.loads(Path(path).read_text())
    except OSError as e:
        raise ScenarioError(f"{path}: cannot read: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"{path}: not valid TOML: {e}") from None
    allowed = {"scenario", "cca", "seeds", "duration", "params", "set"}
    for k in raw:
        if k not in allowed:
            raise ScenarioError(f"{path}: {k}: unknown key; allowed keys: {', '.join(sorted(allowed))}")
    scenario = a.scenario or raw.get("scenario")
    if isinstance(scenario, str) and scenario.endswith(".toml") and not Path(scenario).is_absolute():
        scenario = str(Path(path).parent / scenario)
    cca = raw.get("cca", [None])
    ccas = [c.strip() for c in a.cca.split(",")] if a.cca else (cca if isinstance(cca, list) else [cca])
    seeds = raw.get("seeds", 1) if a.seeds == 1 else a.seeds
    if isinstance(seeds, bool) or not isinstance(seeds, int):
        raise ScenarioError(f"{path}: seeds: expected an integer, got {seeds!r}")
    duration = a.duration or raw.get("duration")
    lists = {}
    for key in ("params", "set"):
        t = raw.get(key, {})
        if not isinstance(t, dict):
            raise ScenarioError(f"{path}: {key}: expected a table of value lists")
        lists[key] = {k: (v if isinstance(v, list) else [v]) for k, v in t.items()}
    return scenario, ccas, seeds, duration, lists["params"], lists["set"]


def _cmd_reproduce(a) -> int:
    from .experiments.reproduce import reproduce_dtcp, reproduce_mmstcp, reproduce_siddiqui, reproduce_thesis
    from .scenario import ScenarioError

    known = {"thesis": reproduce_thesis, "siddiqui": reproduce_siddiqui, "dtcp": reproduce_dtcp,
             "mmstcp": reproduce_mmstcp}
    if a.publication not in known:
        raise ScenarioError(f"reproduce: {a.publication!r} is not available; available: {', '.join(known)}")
    if a.seeds < 1:
        raise ScenarioError("--seeds must be at least 1")
    extra = {}
    if a.cca:
        if a.publication != "thesis":
            raise ScenarioError(f"reproduce {a.publication}: --cca adds algorithms to the thesis reproduction only")
        extra["extra_ccas"] = [c.strip() for c in a.cca.split(",") if c.strip()]
    out = Path(a.out) if a.out else Path("out") / f"reproduce-{a.publication}"
    _prepare_out(out, a.force)
    report = known[a.publication](out, seeds=a.seeds, quick=a.quick, workers=a.workers, duration=a.duration,
                                  backend=a.backend, address=a.address, **extra)
    print(f"report: {report}")
    return 0


def _cmd_query(a) -> int:
    import csv

    from .experiments.sweep import query

    cols, rows = query(a.dir, a.sql, external=a.external)
    if a.csv:
        w = csv.writer(sys.stdout)
        w.writerow(cols)
        w.writerows(rows)
        return 0
    cells = [[("%.4g" % v) if isinstance(v, float) else str(v) for v in r] for r in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
    print("  ".join("-" * w for w in widths))
    for r in cells:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)))
    return 0


def _cmd_export_trace(a) -> int:
    import numpy as np
    import pyarrow.parquet as pq

    from .scenario import ScenarioError
    from .traces import opportunities_from_capacity, write_mahimahi

    src = Path(a.run_dir) / "radio.parquet"
    if not src.is_file():
        raise ScenarioError(f"export-trace: {src} not found (run a scenario with a radio link first)")
    t = pq.read_table(src).to_pydict()
    m = np.asarray(t["radio_id"]) == a.radio
    if not m.any():
        raise ScenarioError(f"export-trace: radio {a.radio} not in {src}")
    cap = np.asarray(t["capacity_dl_bytes"])[m]
    out = Path(a.out) if a.out else Path(a.run_dir) / "capacity_dl.mahimahi"
    counts = opportunities_from_capacity(cap)
    write_mahimahi(counts, out)
    print(f"wrote {sum(counts):,} opportunities over {len(counts):,} ms to {out}")
    return 0


def _cmd_export_ns3(a) -> int:
    import json

    from . import ns3
    from .scenario import load

    sc = load(a.scenario).with_overrides(_parsed(a.sets), cca=a.cca, seed=a.seed, duration=a.duration,
                                         params=_parsed(a.params))
    text = json.dumps(ns3.export(sc.config), indent=1, sort_keys=True)
    if a.out:
        Path(a.out).write_text(text + "\n")
        print(f"wrote {a.out}")
    else:
        print(text)
    return 0


def _cmd_kernel(a) -> int:
    from .testbed import bpf

    if a.action == "list":
        rows = bpf.listing()
        for r in rows:
            state = f"registered (struct_ops map {r['map_id']})" if r["registered"] else "not registered"
            print(f"{r['algorithm'].ljust(7)} {r['kernel_name'].ljust(12)} {state}")
        reason = bpf.unavailable_reason()
        if reason:
            print(f"note: {reason}")
        return 0
    if a.action == "load":
        if not a.names:
            raise bpf.KernelError("kernel load: name the algorithms (rttv, msscca, mrvhs, mmstcp, dtcp, fbtcp) or all")
        done = bpf.load(a.names)
        wanted = bpf.names(a.names)
        print(f"registered: {', '.join(done) or '(none new)'}; available now: {' '.join(bpf.available())}")
        return 0 if all(n in bpf.available() for n in wanted) else 1
    gone = bpf.unload(a.names or "all")
    print(f"unregistered: {', '.join(gone) or '(none were registered)'}")
    return 0


def _cmd_testbed(a) -> int:
    from .testbed.run import TestbedError, cleanup_stale, install_signal_handlers, run_testbed
    from .scenario import load

    if a.cleanup:
        removed = cleanup_stale()
        print(f"removed: {', '.join(removed) or 'nothing'}")
        return 0
    if a.check:
        from .testbed.check import check_emulator, format_checks

        install_signal_handlers()
        rows = check_emulator()
        print(format_checks(rows))
        return 0 if all(r["ok"] for r in rows) else 1
    if not a.scenario:
        raise TestbedError("testbed: give a SCENARIO (or --cleanup)")
    install_signal_handlers()
    sc = load(a.scenario)
    cca_tag = a.cca or sc.config["flows"][0]["cca"]
    seed_tag = a.seed if a.seed is not None else sc.config["seed"]
    out = Path(a.out) if a.out else Path("out") / f"testbed-{sc.name}-{cca_tag}-s{seed_tag}"
    foreign = _prepare_out(out, a.force)
    result = run_testbed(sc, cca=a.cca, seed=a.seed, duration=a.duration, sets=_parsed(a.sets),
                         independent_losses=a.independent_losses,
                         sample_ms=a.sample_ms, pcap_dir=out if a.pcap else None)
    print(f"scenario {sc.name} on the kernel testbed, {result.scenario.config['duration'] / 1e9:g} s in "
          f"{result.wall_seconds:.1f} s wall")
    print(result.summary_text())
    written = result.write(out)
    if not a.no_plot:
        from .plots import overview

        written.append(overview(result, out / "overview.png"))
    if a.pcap:
        written += [out / "forward.pcap", out / "reverse.pcap"]
    _finish_out(out, written, foreign)
    return 0


def _split(text: str | None, conv, what: str):
    try:
        return [conv(x.strip()) for x in text.split(",")] if text else None
    except ValueError:
        raise ValueError(f"validate: {what} {text!r}: expected comma-separated values") from None


def _cmd_validate_mmwave(a) -> int:
    from .experiments import validate_mmwave as vm

    out = a.out
    tcp = a.tcp or "pinned"
    store = a.store or vm.reference(tcp).store
    picked = any(x is not None for x in (a.cca, a.buffer, a.per, a.server, a.duration, a.seeds))
    cases = vm.matrix(_split(a.cca, str, "--cca"), _split(a.buffer, float, "--buffer"), _split(a.per, float, "--per"),
                      _split(a.server, str, "--server"), a.seeds or 1, a.duration or 12.0, tcp) if picked else None
    if (a.runner is None) != (a.ns3_mmwave is None):
        raise ValueError("validate mmwave: --runner and --ns3-mmwave go together (the runner runs in the tree)")
    res = vm.run_validation(out, cases=cases, store=store, runner=a.runner, tree=a.ns3_mmwave, workers=a.workers,
                            tcp=tcp)
    print(f"{res['cases']} cases ({res['runs']} runs): goodput within +-10 % in {100 * res['goodput_within_10pct']:.0f} % "
          f"(or within two standard errors: {100 * res['goodput_within_10pct_or_2se']:.0f} %); per-phase "
          f"SINR within +-2 dB in {100 * res['phase_sinr_within_2db']:.0f} % and throughput within +-10 % in "
          f"{100 * res['phase_thr_within_10pct']:.0f} % of phases (or within two standard errors: "
          f"{100 * res['phase_thr_within_10pct_or_2se']:.0f} %); report: {out}/report.md")
    return 0


def _cmd_validate(a) -> int:
    a.out = a.out or f"out/validate-{a.reference}"
    if a.independent and a.reference not in ("ns3", "linux"):
        raise ValueError(f"validate {a.reference}: --independent is for validate ns3 and validate linux")
    if a.reference == "mmwave":
        return _cmd_validate_mmwave(a)
    for opt in ("buffer", "per", "server", "runner", "ns3_mmwave", "tcp"):
        if getattr(a, opt) is not None:
            raise ValueError(f"validate {a.reference}: --{opt.replace('_', '-')} is for validate mmwave")
    if a.delay is not None and not (a.reference == "linux" and a.independent):
        raise ValueError(f"validate {a.reference}: --delay is for validate linux --independent")
    ccas = [c.strip() for c in a.cca.split(",")] if a.cca else None
    rates = [r.strip() for r in a.rate.split(",")] if a.rate else None
    try:
        losses = [float(x) for x in a.loss.split(",")] if a.loss else None
    except ValueError:
        raise ValueError(f"validate: --loss {a.loss!r}: expected comma-separated numbers, e.g. 0,1e-4") from None
    if a.reference == "linux" and a.independent:
        from .experiments.validate_linux_independent import run_linux_independent
        from .testbed.run import install_signal_handlers

        if rates and rates != ["100Mbps"]:
            raise ValueError("validate linux --independent: the cases run at 100Mbps (--rate is for the matrix)")
        install_signal_handlers()
        try:
            delays = [int(x) for x in a.delay.split(",")] if a.delay else None
        except ValueError:
            raise ValueError(f"validate linux: --delay {a.delay!r}: expected comma-separated whole milliseconds, "
                             "e.g. 10,25") from None
        res = run_linux_independent(a.out, ccas=ccas, losses=losses, delays=delays, kernel_seeds=a.seeds or 10,
                                    duration=a.duration or 15.0)
        verdicts = [r["verdict"] for r in res["rows"]]
        print(f"{res['cases']} cases with independent losses: {verdicts.count('agrees')} agree within +-5 % "
              f"(95 % interval), {verdicts.count('differs')} differ, {verdicts.count('unresolved')} need more runs; "
              f"report: {a.out}/independent.md")
        return 0
    if a.reference == "linux":
        from .experiments.validate_linux import run_validation as run_linux
        from .testbed.run import install_signal_handlers

        install_signal_handlers()  # SIGTERM / SIGHUP clean up like Ctrl-C
        res = run_linux(a.out, quick=a.quick, seeds=a.seeds, duration=a.duration, ccas=ccas, rates=rates,
                        losses=losses, store=a.store)
        print(f"{res['cases']} cases: {100 * res['within_10pct']:.0f} % within +-10 % of the kernel; "
              f"report: {res['out']}/report.md")
        return 0
    if a.independent:
        from .experiments.validate_independent import run_independent

        res = run_independent(a.out, ccas=ccas, rates=rates, losses=losses, seeds=a.seeds or 100,
                              duration=a.duration or 10.0, workers=a.workers)
        verdicts = [r["verdict"] for r in res["rows"]]
        print(f"{res['cases']} cases with independent losses: {verdicts.count('agrees')} agree within +-5 % "
              f"(95 % interval), {verdicts.count('differs')} differ, {verdicts.count('unresolved')} need more seeds; "
              f"report: {a.out}/independent.md")
        return 0
    from .experiments.validate_ns3 import run_validation

    res = run_validation(a.out, quick=a.quick, seeds=a.seeds, duration=a.duration, ccas=ccas, rates=rates,
                         losses=losses, workers=a.workers, store=a.store)
    print(f"{res['cases']} cases: {100 * res['within_5pct']:.0f} % within +-5 %, "
          f"{100 * res['within_10pct']:.0f} % within +-10 % of ns-3; report: {a.out}/report.md")
    return 0


def _cmd_presets(_a) -> int:
    from .scenario import list_presets

    ps = list_presets()
    w = max(len(n) for n in ps)
    for name, desc in ps.items():
        print(f"{name.ljust(w)}  {desc}")
    return 0


def _cmd_algorithms(_a) -> int:
    from . import algorithms

    for a in algorithms():
        aliases = f" (aliases: {', '.join(a['aliases'])})" if a["aliases"] else ""
        print(f"{a['name']}{aliases}\n    source: {a['source']}")
        for p in a["params"]:
            print(f"    {p['name']} = {p['default']:g}  {p['help']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    # Arrow's default pool (mimalloc) keeps what it freed: writing a large table once raised the
    # peak of a 1,000-flow run by 40 MB. The command line owns its process, so it takes the
    # system allocator unless the user chose one (docs/performance.md, "Many flows").
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    parser = build_parser()
    a = parser.parse_args(argv)
    if a.cmd is None:
        parser.print_help()
        return EXIT_USAGE
    handlers = {"run": _cmd_run, "presets": _cmd_presets, "algorithms": _cmd_algorithms,
                "export-trace": _cmd_export_trace, "export-ns3": _cmd_export_ns3,
                "validate": _cmd_validate, "sweep": _cmd_sweep, "reproduce": _cmd_reproduce,
                "query": _cmd_query, "kernel": _cmd_kernel, "testbed": _cmd_testbed}
    try:
        return handlers[a.cmd](a)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. `mmcc algorithms | head`: the reader left, nothing to report
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except (ValueError, OSError, RuntimeError) as e:  # ScenarioError, UnitError, core errors, files
        from .scenario import one_line

        sys.stderr.write(f"error: {one_line(str(e))}\n")
        return EXIT_USAGE if isinstance(e, ValueError) else 1
    except Exception as e:  # noqa: BLE001 - never a traceback for users
        if os.environ.get("MMCC_DEBUG"):
            raise
        from .scenario import one_line

        sys.stderr.write(f"internal error: {type(e).__name__}: {one_line(str(e))} "
                         f"(set MMCC_DEBUG=1 for details)\n")
        return EXIT_INTERNAL


if __name__ == "__main__":
    raise SystemExit(main())
