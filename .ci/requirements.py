#!/usr/bin/env python3
"""Print the requirements pyproject.toml declares, one per line: the project's dependencies and
those of the extras named on the command line (`requirements.py test`). The Makefile installs
them with pip, so pyproject.toml is the one list of dependencies."""

import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10: the copy pip carries
    from pip._vendor import tomli as tomllib

project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]
reqs = list(project["dependencies"])
for extra in sys.argv[1:]:
    if extra not in project.get("optional-dependencies", {}):
        sys.exit(f"requirements.py: no extra {extra!r} in pyproject.toml")
    reqs += project["optional-dependencies"][extra]
print("\n".join(dict.fromkeys(reqs)))
