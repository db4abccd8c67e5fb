"""Where mmcc keeps what it builds at run time (the eBPF objects of `mmcc kernel` and the
testbed): a user cache folder, never the source tree, so an installed package and a read-only
checkout work. `$MMCC_CACHE` if set, else `$XDG_CACHE_HOME/mmcc`, else `~/.cache/mmcc`."""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(*parts: str) -> Path:
    """The cache folder (or a folder inside it), created if missing."""
    base = os.environ.get("MMCC_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "mmcc")
    d = Path(base, *parts)
    d.mkdir(parents=True, exist_ok=True)
    return d
