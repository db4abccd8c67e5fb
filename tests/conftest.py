import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def mmcc_cli():
    """Run the installed `mmcc` entry point; returns CompletedProcess."""
    exe = Path(sys.executable).parent / "mmcc"

    def run(*args, cwd=None):
        env = {**os.environ}
        env.pop("MMCC_DEBUG", None)
        return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env)

    return run


SMALL = """
name = "small"
duration = "2s"
nodes = ["a", "r", "b"]
[[links]]
between = ["a", "r"]
rate = "1Gbps"
delay = "1ms"
[[links]]
between = ["r", "b"]
rate = "100Mbps"
delay = "9ms"
[links.forward]
queue = { type = "droptail", limit = "250KB" }
[[flows]]
from = "a"
to = "b"
"""


@pytest.fixture
def small_toml(tmp_path):
    p = tmp_path / "small.toml"
    p.write_text(SMALL)
    return p
