"""Tables of the documentation generated from the core's declarations: docs/scenario-format.md's
`[tcp]` table from the TCP knobs (`mmcc.schema`, crates/mmcc-core/src/tcp/knobs.rs).

    python -m mmcc.docs_tables            # exit status 1 if the table is stale (a test runs this)
    python -m mmcc.docs_tables --write    # rewrite it
"""

from __future__ import annotations

import sys
from pathlib import Path

from .schema import tcp_knobs

#: docs/scenario-format.md, whose `tcp-knobs` block is generated here.
DOC = Path(__file__).resolve().parents[2] / "docs" / "scenario-format.md"
MARKER = "tcp-knobs"

# what a kind allows when the knob declares no range of its own
_ALLOWED = {"count": "a whole number", "size": "a size", "size32": "a size up to 4GiB",
            "optional size": "a size", "time": "a duration", "bool": "true, false"}


def _time(ns: int) -> str:
    for unit, n in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns and ns % n == 0:
            return f"{ns // n}{unit}"
    return f"{ns}ns"


def _size(b: int) -> str:
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b and b % n == 0:
            return f"{b // n}{unit}"
    return f"{b}B"


def show(kind: str, v) -> str:
    """A knob's value as a scenario writes it."""
    if v is None:
        return "unset"
    if isinstance(v, bool):
        return "true" if v else "false"
    if kind == "time":
        return _time(v)
    if kind in ("size", "size32", "optional size"):
        return _size(v)
    if kind.startswith("choice:"):
        return f'"{v}"'
    return str(v)


def table() -> str:
    """The `[tcp]` table of docs/scenario-format.md."""
    rows = ["| key | linux | ns3 | allowed | meaning |", "| --- | --- | --- | --- | --- |"]
    for k in tcp_knobs():
        kind = k["kind"]
        if k["range"]:
            allowed = f"{show(kind, k['range'][0])}..{show(kind, k['range'][1])}"
        elif kind.startswith("choice:"):
            allowed = ", ".join(f'"{c}"' for c in kind.removeprefix("choice:").split(","))
        else:
            allowed = _ALLOWED[kind]
        doc = k["doc"].replace("|", "\\|")
        rows.append(f"| `{k['key']}` | {show(kind, k['linux'])} | {show(kind, k['ns3'])} | {allowed} | {doc} |")
    return "\n".join(rows) + "\n"


def main(argv=None) -> int:
    import argparse

    from .files import rewrite_marked_block

    ap = argparse.ArgumentParser(prog="python -m mmcc.docs_tables", description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite docs/scenario-format.md's [tcp] table")
    a = ap.parse_args(argv)
    if a.write:
        rewrite_marked_block(DOC, MARKER, table())
        return 0
    current = f"<!-- {MARKER} -->\n{table()}<!-- /{MARKER} -->" in DOC.read_text()
    if not current:
        print(f"{DOC}: the [tcp] table is stale; run python -m mmcc.docs_tables --write", file=sys.stderr)
    return 0 if current else 1


if __name__ == "__main__":
    sys.exit(main())
