"""Tables in the publications' layout: metric per algorithm x condition, and percentage
improvement of an algorithm over each benchmark (throughput: (X - B) / B; latency: (B - X) / B)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ..results import atomic_write_bytes

__all__ = ["pivot", "improvement", "throughput_improvement", "latency_improvement", "write_table", "markdown"]


def throughput_improvement(x: float, b: float) -> float:
    """Percentage improvement of X over B for a higher-is-better metric: (X - B) / B * 100."""
    return (x - b) / b * 100.0 if b else float("nan")


def latency_improvement(x: float, b: float) -> float:
    """Percentage improvement of X over B for a lower-is-better metric: (B - X) / B * 100."""
    return (b - x) / b * 100.0 if b else float("nan")


def pivot(rows: list[dict], metric: str, row_key: str, col_key: str, rows_order=None, cols_order=None):
    """Mean of `metric` per (row, column) over repetitions -> (row labels, column labels, values)."""
    acc: dict = {}
    for r in rows:
        acc.setdefault((r[row_key], r[col_key]), []).append(float(r[metric]))
    rl = rows_order or sorted({k[0] for k in acc})
    cl = cols_order or sorted({k[1] for k in acc})
    vals = [[(sum(acc[(a, c)]) / len(acc[(a, c)])) if (a, c) in acc else float("nan") for c in cl] for a in rl]
    return rl, cl, vals


def improvement(table, of: str, over: list[str], lower_is_better: bool):
    """Rows "X vs B" of percentage improvements per column from a pivot table."""
    rl, cl, vals = table
    f = latency_improvement if lower_is_better else throughput_improvement
    i = rl.index(of)
    out_rows, out_vals = [], []
    for b in over:
        if b == of or b not in rl:
            continue
        j = rl.index(b)
        out_rows.append(f"{of} vs {b}")
        out_vals.append([f(vals[i][k], vals[j][k]) for k in range(len(cl))])
    return out_rows, cl, out_vals


def markdown(table, corner: str, fmt: str = "{:.1f}") -> str:
    rl, cl, vals = table
    lines = ["| " + " | ".join([corner] + list(map(str, cl))) + " |", "|" + "---|" * (len(cl) + 1)]
    for r, v in zip(rl, vals):
        lines.append("| " + " | ".join([str(r)] + [fmt.format(x) for x in v]) + " |")
    return "\n".join(lines) + "\n"


def write_table(table, corner: str, path_stem: Path, fmt: str = "{:.1f}") -> list[Path]:
    """Write `stem.csv` and `stem.md`."""
    rl, cl, vals = table
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow([corner] + list(cl))
    for r, v in zip(rl, vals):
        w.writerow([r] + [f"{x:.6g}" for x in v])
    csv_p, md_p = path_stem.with_suffix(".csv"), path_stem.with_suffix(".md")
    atomic_write_bytes(csv_p, buf.getvalue().encode())
    atomic_write_bytes(md_p, markdown(table, corner, fmt).encode())
    return [csv_p, md_p]
