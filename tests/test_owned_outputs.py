"""Output folders the user owns: mmcc replaces and deletes only its own files, never writes through
a planted link, and a killed sweep leaves nothing that blocks its resume."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from mmcc.experiments.sweep import column_name, grid, run_sweep

RUN = ("run", "dumbbell", "--duration", "0.2s")


def test_run_refuses_a_folder_of_the_users_files_and_keeps_them(mmcc_cli, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    for name in ("my_data.parquet", "holiday.png", "old.pcap"):
        (out / name).write_bytes(b"user data")
    r = mmcc_cli(*RUN, "--out", out)
    assert r.returncode != 0 and "holds files mmcc did not write (holiday.png, my_data.parquet, old.pcap)" in r.stderr
    assert "--force" in r.stderr and not (out / "flows.parquet").exists()
    # with --force mmcc writes beside them and deletes none of them
    r = mmcc_cli(*RUN, "--out", out, "--force", "--no-plot")
    assert r.returncode == 0, r.stderr
    assert all((out / n).read_bytes() == b"user data" for n in ("my_data.parquet", "holiday.png", "old.pcap"))
    assert (out / "flows.parquet").is_file()


def test_force_says_which_user_files_it_replaced(mmcc_cli, tmp_path):
    (tmp_path / "run.json").write_text("my notes")
    r = mmcc_cli(*RUN, "--out", tmp_path, "--force", "--no-plot")
    assert r.returncode == 0 and "replaced run.json" in r.stderr, r.stderr


def test_a_later_run_deletes_only_the_earlier_runs_files(mmcc_cli, tmp_path):
    r = mmcc_cli(*RUN, "--out", tmp_path)
    assert r.returncode == 0 and (tmp_path / "overview.png").is_file(), r.stderr
    manifest = json.loads((tmp_path / ".mmcc-outputs.json").read_text())["files"]
    assert "overview.png" in manifest and "flows.parquet" in manifest
    (tmp_path / "notes.png").write_bytes(b"mine")  # the user's, added to an mmcc output folder
    r = mmcc_cli(*RUN, "--out", tmp_path, "--no-plot")
    assert r.returncode == 0, r.stderr
    assert "removed the earlier run's overview.png" in r.stdout
    assert not (tmp_path / "overview.png").exists() and (tmp_path / "notes.png").read_bytes() == b"mine"


def test_figures_and_manifest_replace_planted_links_without_writing_through(mmcc_cli, tmp_path):
    out, victim = tmp_path / "out", tmp_path / "victim"
    victim.write_bytes(b"precious")
    assert mmcc_cli(*RUN, "--out", out, "--no-plot").returncode == 0
    (out / ".overview.png.tmp.png").symlink_to(victim)  # the fixed temporary name figures once used
    (out / "overview.png").symlink_to(victim)
    r = mmcc_cli(*RUN, "--out", out)
    assert r.returncode == 0, r.stderr
    assert victim.read_bytes() == b"precious"
    assert not (out / "overview.png").is_symlink() and (out / "overview.png").read_bytes()[:4] == b"\x89PNG"


def test_sweep_refuses_planted_links(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    specs = grid("dumbbell", ccas=["newreno"], seeds=[1], duration="0.1s")
    lock_out = tmp_path / "a"
    lock_out.mkdir()
    (lock_out / ".lock").symlink_to(victim)
    with pytest.raises(ValueError, match=r"\.lock: is a symbolic link"):
        run_sweep(specs, lock_out, workers=1, progress=False)
    runs_out = tmp_path / "b"
    runs_out.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (runs_out / "runs").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match=r"runs: is a symbolic link"):
        run_sweep(specs, runs_out, workers=1, progress=False)
    run_out = tmp_path / "c"
    (run_out / "runs").mkdir(parents=True)
    (run_out / "runs" / specs[0].run_id()).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match=r"a run's folder"):
        run_sweep(specs, run_out, workers=1, progress=False)
    assert victim.read_text() == "precious" and not any((tmp_path / "elsewhere").iterdir())


def test_sweep_writes_each_runs_capture_into_its_own_folder(tmp_path):
    specs = grid("dumbbell", ccas=["newreno", "cubic"], seeds=[1], duration="0.1s",
                 sets={"pcap": [{"link": 1, "direction": "forward", "path": "cap.pcap"}]})
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        res = run_sweep(specs, tmp_path / "sw", workers=1, progress=False)
    finally:
        os.chdir(cwd)
    assert res["failed"] == 0 and not (tmp_path / "cap.pcap").exists()
    caps = sorted((tmp_path / "sw" / "runs").glob("*/cap.pcap"))
    assert len(caps) == 2 and all(c.stat().st_size > 24 for c in caps)  # packets beyond the pcap header


def test_sweep_columns_need_no_quoting_and_are_typed(tmp_path):
    specs = grid("dumbbell", ccas=["newreno"], seeds=[1], duration="0.1s",
                 sets={"links.1.forward.error": [{"unit": "packet", "rate": 0.01}]})
    run_sweep(specs, tmp_path, workers=1, progress=False)
    row = pq.read_table(next(tmp_path.glob("runs/*/summary.parquet"))).to_pylist()[0]
    assert row["set_links_1_forward_error_unit"] == "packet" and row["set_links_1_forward_error_rate"] == 0.01
    assert not any("." in k for k in row)
    assert column_name("links.0.rate") == "links_0_rate" and column_name("1x") == "_1x"


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(x) for x in (task / "children").read_text().split()]
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_a_killed_sweeps_workers_die_and_its_resume_is_not_refused(tmp_path):
    out = tmp_path / "sw"
    exe = Path(sys.executable).parent / "mmcc"
    p = subprocess.Popen([str(exe), "sweep", "dumbbell", "--cca", "newreno,cubic", "--seeds", "2", "--duration", "20s",
                          "--workers", "2", "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(list(out.glob("runs/*/started"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    workers = _children(p.pid)
    assert workers, "the sweep started no workers"
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers), "pool workers outlived the killed sweep"
    # the lock went with the sweep: a resume runs at once (a short duration: new runs, same folder)
    res = run_sweep(grid("dumbbell", ccas=["newreno"], seeds=[1], duration="0.1s"), out, workers=1, progress=False)
    assert res["ran"] == 1 and res["failed"] == 0
