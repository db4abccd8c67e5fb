"""mmcc: TCP congestion control for 5G mmWave networks — a fast, deterministic packet-level
simulator (Rust core) with reproducible experiments.

    import mmcc
    r = mmcc.run("dumbbell", cca="newreno", seed=1)
    print(r.summary_text())
    r.write("out/dumbbell")
"""

from ._core import __version__  # noqa: F401  (the extension's version is the package version)
from .cca import CongestionControl  # noqa: E402
from .scenario import Scenario, ScenarioError, list_presets, load  # noqa: E402

#: Names served from a submodule when first used: `mmcc.results` brings numpy and pyarrow
#: (about 0.15 s), which `mmcc --help` or reading a scenario do not need.
_LAZY = {"run": "results", "RunResult": "results"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["run", "RunResult", "Scenario", "ScenarioError", "CongestionControl", "load", "list_presets",
           "algorithms", "__version__"]


def algorithms() -> list[dict]:
    """Every built-in congestion-control algorithm with its source and parameters."""
    from . import _core

    return _core.algorithms()
