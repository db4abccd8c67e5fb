"""mmcc: TCP congestion control for 5G mmWave networks — a fast, deterministic packet-level
simulator (Rust core) with reproducible experiments.

    import mmcc
    r = mmcc.run("dumbbell", cca="newreno", seed=1)
    print(r.summary_text())
    r.write("out/dumbbell")
"""

from ._core import __version__  # noqa: F401  (the extension's version is the package version)
from .cca import CongestionControl  # noqa: E402
from .results import RunResult, run  # noqa: E402
from .scenario import Scenario, ScenarioError, list_presets, load  # noqa: E402

__all__ = ["run", "RunResult", "Scenario", "ScenarioError", "CongestionControl", "load", "list_presets",
           "algorithms", "__version__"]


def algorithms() -> list[dict]:
    """Every built-in congestion-control algorithm with its source and parameters."""
    from . import _core

    return _core.algorithms()
