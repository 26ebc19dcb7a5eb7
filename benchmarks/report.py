"""The results table printed at the end of a run, and its JSON form.

``ok`` is ``PASS`` or ``MISS`` against the issue's target; timings on a shared machine are
noisy, so a near miss is a prompt to rerun, not a verdict.
"""

from __future__ import annotations

import json
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

from harness import Row

__all__ = ["HEADER", "format_table", "write_json"]

HEADER = ("metric", "unit", "aiwrapper", "baseline", "ratio", "target", "ok")


def _number(value: float) -> str:
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _cells(row: Row) -> tuple[str, ...]:
    ok = "-" if row.passed is None else "PASS" if row.passed else "MISS"
    ratio = f"{row.ratio:.2f}x"
    return (
        row.metric,
        row.unit,
        _number(row.aiwrapper),
        _number(row.baseline),
        ratio,
        row.target,
        ok,
    )


def format_table(rows: Sequence[Row]) -> str:
    """The rows as an aligned plain-text table with a header line."""
    lines = [HEADER, *map(_cells, rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER))]
    numeric = {2, 3, 4}

    def render(cells: Sequence[str]) -> str:
        padded = [
            c.rjust(w) if i in numeric else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(padded).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([render(HEADER), rule, *map(render, lines[1:])])


def write_json(rows: Sequence[Row], path: Path, *, quick: bool) -> None:
    """Write the rows and the machine they ran on to ``path``."""
    data = {
        "quick": quick,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "rows": [row.as_dict() for row in rows],
    }
    path.write_text(json.dumps(data, indent=2) + "\n")
