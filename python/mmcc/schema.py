"""The TCP knobs' schema, read from the core, where each knob is declared once
(`crates/mmcc-core/src/tcp/knobs.rs`, `_core.tcp_knobs()`): the scenario reader's `[tcp]` fields
come from it, and so does docs/scenario-format.md's table (`mmcc.docs_tables`).
"""

from __future__ import annotations

import functools
import json

from . import _core
from .parse import BOOL, ONE_OF, SIZE, SIZE32, TIME, U32, Parser

# the kinds of tcp/knobs.rs and what parses each (a `choice:a,b` kind: one of the names)
_PARSERS: dict[str, Parser] = {
    "count": U32, "size": SIZE, "size32": SIZE32, "optional size": SIZE, "time": TIME, "bool": BOOL,
}


@functools.cache
def tcp_knobs() -> tuple[dict, ...]:
    """Every TCP knob (`profile` first): name, key, kind, linux, ns3, range, doc."""
    return tuple(json.loads(_core.tcp_knobs()))


def _parser(kind: str) -> Parser:
    if kind.startswith("choice:"):
        return ONE_OF(*kind.removeprefix("choice:").split(","))
    return _PARSERS[kind]


def tcp_fields() -> dict[str, Parser]:
    """The `[tcp]` table's keys and the parser of each."""
    return {k["key"]: _parser(k["kind"]) for k in tcp_knobs()}


def tcp_core_names() -> dict[str, str]:
    """Scenario key -> the core's field name, where they differ (`segment_size` -> `mss`)."""
    return {k["key"]: k["name"] for k in tcp_knobs() if k["key"] != k["name"]}
