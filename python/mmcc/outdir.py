"""Output folders the user names: mmcc writes into them, replaces and deletes only its own files.

A folder mmcc writes a run into gets a manifest, `.mmcc-outputs.json`, listing the files of that
run. A later run in the same folder deletes only files of that list that it does not write again
(an earlier run's figure of a radio scenario, say); everything else in the folder is the user's and
is left alone. A non-empty folder that is not an mmcc output folder is refused unless the user
passes `--force` (then mmcc writes beside the user's files and overwrites only files of the same
names, and says which). Files the user adds to an mmcc output folder stay untouched.

Symbolic links below the folder are never followed for writing: a planted `OUT/.lock`,
`OUT/runs` or `OUT/runs/<id>` link is refused (`refuse_symlink`), figures and tables are written
to unique temporary names in the target folder (`files.atomic_write_bytes`) and renamed over the
name, which replaces a link rather than writing through it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .scenario import ScenarioError

MANIFEST = ".mmcc-outputs.json"
#: Entries an mmcc output folder may hold besides its listed files (sweeps and reproductions).
_OWN_ENTRIES = {MANIFEST, ".lock", "runs", "summary.csv", "tables", "figures", "report.html", "report.md"}
#: How many of the user's file names an error message lists.
_NAMES_SHOWN = 5


def refuse_symlink(path: Path, what: str) -> None:
    """A clear error when `path` is a symbolic link (mmcc does not write through links it did not make)."""
    if Path(path).is_symlink():
        raise ScenarioError(f"{path}: is a symbolic link ({what}); mmcc does not write through links in an output "
                            "folder: remove it or choose another --out")


def _manifest(out: Path) -> list[str] | None:
    """The files the previous run listed (None: the folder has no manifest)."""
    p = out / MANIFEST
    if p.is_symlink() or not p.is_file():
        return None
    try:
        names = json.loads(p.read_text()).get("files", [])
    except (OSError, ValueError, AttributeError):
        return None
    return [n for n in names if isinstance(n, str) and "/" not in n and n not in ("", ".", "..")]


def _is_legacy_run_folder(out: Path) -> bool:
    """A run folder an mmcc without manifests wrote: its run.json has the run's configuration."""
    p = out / "run.json"
    try:
        info = json.loads(p.read_text()) if p.is_file() and not p.is_symlink() else None
    except (OSError, ValueError):
        return False
    return isinstance(info, dict) and "config" in info and ("data_sha256" in info or "spec" in info)


def is_mmcc_folder(out: Path) -> bool:
    """An mmcc output folder: a run's (manifest, or an older run.json), or a sweep's (runs/)."""
    return (_manifest(out) is not None or _is_legacy_run_folder(out)
            or ((out / "runs").is_dir() and not (out / "runs").is_symlink()))


def foreign_entries(out: Path) -> list[str]:
    """Names in `out` that mmcc did not write there (sorted)."""
    manifest = _manifest(out) if out.is_dir() else None
    if not out.is_dir() or (manifest is None and _is_legacy_run_folder(out)):
        return []
    listed = set(manifest or [])
    names = []
    for e in out.iterdir():
        if e.name in listed or e.name in _OWN_ENTRIES or (e.name.startswith(".") and e.name.endswith(".tmp")):
            continue
        names.append(e.name)
    return sorted(names)


def prepare(out: Path, force: bool = False) -> list[str]:
    """Check that `out` can take a run's outputs before anything runs (results must not be lost
    at the end): a folder (created if missing), writable, and either empty, an mmcc output folder
    or accepted with `force`. One clear error otherwise. Returns the names in it that mmcc did not
    write (`foreign_entries`)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ScenarioError(f"--out {out}: exists and is not a folder; give a folder (it is created if missing)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ScenarioError(f"--out {out}: cannot create the folder: {e.strerror}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise ScenarioError(f"--out {out}: the folder is not writable")
    foreign = foreign_entries(out)
    if foreign and not force and not is_mmcc_folder(out):
        shown = ", ".join(foreign[:_NAMES_SHOWN]) + (f" and {len(foreign) - _NAMES_SHOWN} more"
                                                     if len(foreign) > _NAMES_SHOWN else "")
        raise ScenarioError(f"--out {out}: the folder holds files mmcc did not write ({shown}); give a new or empty "
                            "folder, an earlier mmcc output folder, or --force to write beside them (mmcc then "
                            "replaces only files of the names it writes)")
    refuse_symlink(out / MANIFEST, "the output manifest")
    return foreign


def finish(out: Path, written: list) -> list[str]:
    """Record what this run wrote and delete the files of the previous run (by its manifest) that
    this run did not write again. Returns the names deleted; nothing else is touched."""
    out = Path(out)
    names = sorted({Path(p).name for p in written if Path(p).parent.resolve() == out.resolve()})
    stale = [n for n in (_manifest(out) or []) if n not in names]
    removed = []
    for n in stale:
        f = out / n
        if f.is_file() and not f.is_symlink():
            f.unlink()
            removed.append(n)
    from .files import atomic_write_bytes

    atomic_write_bytes(out / MANIFEST, (json.dumps({"written_by": "mmcc", "files": names}, indent=1) + "\n").encode())
    return removed
