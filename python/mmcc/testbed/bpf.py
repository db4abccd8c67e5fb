"""mmcc's eBPF congestion controls (bpf/*.bpf.c): build, register, unregister, list.

`mmcc kernel load NAME|all`, `mmcc kernel unload [NAME|all]`, `mmcc kernel list`. Each algorithm
is one BPF struct_ops object registered with `bpftool struct_ops register` under the kernel name
`mmcc_<name>` (what `TCP_CONGESTION`, `iperf3 -C` and `ss -ti` show). The maps are registered
without a link, so they stay registered after bpftool exits and are removed only by an explicit
`bpftool struct_ops unregister`, which `unload` does and then checks: a registration never
outlives an unload. The system's default congestion control (net.ipv4.tcp_congestion_control)
is never changed.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BPF_DIR = ROOT / "bpf"
ALGORITHMS = ["rttv", "msscca", "mrvhs", "mmstcp", "dtcp", "fbtcp"]
PREFIX = "mmcc_"
APT_HINT = "apt-get install clang llvm libbpf-dev bpftool"
AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")


class KernelError(RuntimeError):
    """A clear, user-facing reason why a kernel operation cannot be done."""


def kernel_name(name: str) -> str:
    """`rttv` -> `mmcc_rttv` (kernel names are accepted as they are)."""
    base = name[len(PREFIX):] if name.startswith(PREFIX) else name
    if base not in ALGORITHMS:
        raise KernelError(f"unknown eBPF algorithm {name!r}; available: {', '.join(ALGORITHMS)} (or 'all')")
    return PREFIX + base


def names(spec: str | list[str]) -> list[str]:
    items = [spec] if isinstance(spec, str) else list(spec)
    if items == ["all"]:
        return [PREFIX + a for a in ALGORITHMS]
    return [kernel_name(n) for n in items]


def unavailable_reason() -> str | None:
    """Why BPF congestion controls cannot be used here (None: they can)."""
    if os.geteuid() != 0:
        return "registering BPF congestion controls needs root (CAP_BPF and CAP_NET_ADMIN); run as root"
    if not Path("/sys/kernel/btf/vmlinux").exists():
        return "this kernel has no BTF (/sys/kernel/btf/vmlinux): BPF struct_ops congestion controls are unavailable"
    for tool in ("clang", "bpftool"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed; install with: {APT_HINT}"
    if not Path("/usr/include/bpf/bpf_helpers.h").exists():
        return f"libbpf headers are not installed; install with: {APT_HINT}"
    return None


def _require() -> None:
    reason = unavailable_reason()
    if reason:
        raise KernelError(reason)


def build_dir() -> Path:
    """Where the objects are built: the user's cache, per kernel release (they are compiled
    against its BTF), never the source tree."""
    from ..cache import cache_dir

    return cache_dir("bpf", os.uname().release)


def build() -> Path:
    """Compile every object with `make -C bpf` into build_dir() (make rebuilds what changed)."""
    _require()
    if not (BPF_DIR / "Makefile").is_file():
        raise KernelError(f"the eBPF sources (bpf/ of the mmcc source tree) are not at {BPF_DIR}: the eBPF "
                          "congestion controls are built from a checkout of mmcc (the kernel's own reno, cubic "
                          "and bbr need no build)")
    out = build_dir()
    r = subprocess.run(["make", "-C", str(BPF_DIR), f"BUILD={out}", f"-j{os.cpu_count() or 1}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise KernelError(f"building the BPF programs failed:\n{(r.stderr or r.stdout)[-3000:]}")
    return out


def available() -> list[str]:
    """The kernel's available congestion controls."""
    return AVAILABLE.read_text().split()


def registered() -> list[str]:
    """mmcc's algorithms registered in the kernel now."""
    return [n for n in available() if n.startswith(PREFIX)]


def load(spec: str | list[str]) -> list[str]:
    """Register the named algorithms (already registered ones are left as they are); returns the
    kernel names that this call registered."""
    wanted = names(spec)
    build()
    done = []
    for kname in wanted:
        if kname in available():
            continue
        obj = build_dir() / f"{kname[len(PREFIX):]}.bpf.o"
        r = subprocess.run(["bpftool", "struct_ops", "register", str(obj)], capture_output=True, text=True)
        if r.returncode != 0 or kname not in available():
            tail = "\n".join((r.stderr or r.stdout).strip().splitlines()[-12:])
            unload(done)
            raise KernelError(f"the kernel refused {kname} ({obj.name}):\n{tail}")
        done.append(kname)
    return done


def unload(spec: str | list[str] = "all") -> list[str]:
    """Unregister the named algorithms (default: all of mmcc's) and check that they are gone;
    returns the kernel names removed. A socket still using one keeps it alive in the kernel until
    it closes, but no new socket can select it."""
    _require()
    wanted = set(names(spec))
    present = [n for n in registered() if n in wanted]
    for kname in present:
        r = subprocess.run(["bpftool", "struct_ops", "unregister", "name", kname], capture_output=True, text=True)
        if r.returncode != 0 and kname in available():
            raise KernelError(f"bpftool could not unregister {kname}: {(r.stderr or r.stdout).strip()}")
    left = [n for n in registered() if n in wanted]
    if left:
        raise KernelError(f"still registered after unregister: {', '.join(left)}")
    return present


def listing() -> list[dict]:
    """Every mmcc algorithm with its kernel name and whether it is registered, plus the struct_ops
    map id when bpftool reports one."""
    ids = {}
    if shutil.which("bpftool") and os.geteuid() == 0:
        r = subprocess.run(["bpftool", "-j", "struct_ops", "list"], capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip():
            try:
                for m in json.loads(r.stdout):
                    ids[m.get("name")] = m.get("id")
            except json.JSONDecodeError:
                pass
    have = set(available())
    return [{"algorithm": a, "kernel_name": PREFIX + a, "registered": PREFIX + a in have,
             "map_id": ids.get(PREFIX + a)} for a in ALGORITHMS]
