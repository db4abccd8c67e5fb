"""Tables in the publications' layout: metric per algorithm x condition, and percentage
improvement of an algorithm over each benchmark (throughput: (X - B) / B; latency: (B - X) / B)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import NamedTuple

from ..files import atomic_write_bytes

__all__ = ["Pivot", "pivot", "transpose", "paired_improvement", "throughput_improvement", "latency_improvement", "write_table",
           "markdown"]


class Pivot(NamedTuple):
    """A metric per (row, column): the mean over repetitions (seeds) and their spread."""

    rows: list
    cols: list
    values: list  # means; NaN where no run
    lo: list  # minimum over repetitions
    hi: list  # maximum over repetitions
    n: list  # repetitions


def throughput_improvement(x: float, b: float) -> float:
    """Percentage improvement of X over B for a higher-is-better metric: (X - B) / B * 100."""
    return (x - b) / b * 100.0 if b else float("nan")


def latency_improvement(x: float, b: float) -> float:
    """Percentage improvement of X over B for a lower-is-better metric: (B - X) / B * 100."""
    return (b - x) / b * 100.0 if b else float("nan")


def pivot(rows: list[dict], metric: str, row_key: str, col_key: str, rows_order=None, cols_order=None) -> Pivot:
    """Mean, minimum, maximum and count of `metric` per (row, column) over repetitions."""
    acc: dict = {}
    for r in rows:
        acc.setdefault((r[row_key], r[col_key]), []).append(float(r[metric]))
    rl = rows_order or sorted({k[0] for k in acc})
    cl = cols_order or sorted({k[1] for k in acc})
    nan = float("nan")

    def grid(f):
        return [[f(acc[(a, c)]) if (a, c) in acc else nan for c in cl] for a in rl]

    return Pivot(rl, cl, grid(lambda v: sum(v) / len(v)), grid(min), grid(max), grid(len))


def transpose(table: Pivot) -> Pivot:
    """The same cells with rows and columns swapped (e.g. conditions as rows, one column per
    algorithm, as the thesis lays out its tables)."""
    t = lambda g: [list(col) for col in zip(*g)] if g else []  # noqa: E731
    return Pivot(table.cols, table.rows, t(table.values), t(table.lo), t(table.hi), t(table.n))


def paired_improvement(rows: list[dict], metric: str, of: str, over: list[str], col_key: str, cols: list,
                       lower_is_better: bool, row_key: str = "cca") -> Pivot:
    """Improvement of `of` over each benchmark per condition, computed per seed (the runs of one
    seed share the channel and the random losses) and then summarized: mean, min and max over
    the seeds both algorithms ran."""
    f = latency_improvement if lower_is_better else throughput_improvement
    val = {(r[row_key], r[col_key], r["seed"]): float(r[metric]) for r in rows}
    names = {b: f"{of} vs {b}" for b in over if b != of}
    out = [{"pair": name, "c": c, "v": f(x, val[(b, c, seed)])}
           for b, name in names.items() for (a, c, seed), x in val.items() if a == of and (b, c, seed) in val]
    return pivot(out, "v", "pair", "c", list(names.values()), cols)


def cell(table: Pivot, i: int, j: int, fmt: str) -> str:
    """"mean (min-max)" when the cell has more than one repetition, else the mean."""
    mean = fmt.format(table.values[i][j])
    if table.n[i][j] > 1:  # NaN (no run) compares false
        return f"{mean} ({fmt.format(table.lo[i][j])}-{fmt.format(table.hi[i][j])})"
    return mean


def markdown(table: Pivot, corner: str, fmt: str = "{:.1f}") -> str:
    rl, cl = table.rows, table.cols
    lines = ["| " + " | ".join([corner] + list(map(str, cl))) + " |", "|" + "---|" * (len(cl) + 1)]
    for i, r in enumerate(rl):
        lines.append("| " + " | ".join([str(r)] + [cell(table, i, j, fmt) for j in range(len(cl))]) + " |")
    return "\n".join(lines) + "\n"


def write_table(table: Pivot, corner: str, path_stem: Path, fmt: str = "{:.1f}") -> list[Path]:
    """Write `stem.csv` (means, the publication's layout), `stem.md` (mean and min-max over
    repetitions) and `stem_long.csv` (one row per cell: mean, min, max, repetitions)."""
    rl, cl, vals = table.rows, table.cols, table.values
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([corner] + list(cl))
    for r, v in zip(rl, vals):
        w.writerow([r] + [f"{x:.6g}" for x in v])
    csv_p, md_p = path_stem.with_suffix(".csv"), path_stem.with_suffix(".md")
    atomic_write_bytes(csv_p, buf.getvalue().encode())
    atomic_write_bytes(md_p, markdown(table, corner, fmt).encode())
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([corner, "condition", "mean", "min", "max", "repetitions"])
    for i, r in enumerate(rl):
        for j, c in enumerate(cl):
            n = table.n[i][j]
            w.writerow([r, c, f"{vals[i][j]:.6g}", f"{table.lo[i][j]:.6g}", f"{table.hi[i][j]:.6g}",
                        int(n) if n == n else 0])
    long_p = path_stem.with_name(path_stem.name + "_long.csv")
    atomic_write_bytes(long_p, buf.getvalue().encode())
    return [csv_p, md_p, long_p]
