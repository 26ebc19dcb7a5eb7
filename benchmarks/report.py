"""The results table printed at the end of a run, and its JSON form.

``ok`` is ``PASS`` or ``MISS`` against the issue's target; timings on a shared machine are
noisy, so a near miss is a prompt to rerun, not a verdict.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from harness import HERE, Row

__all__ = ["HEADER", "format_table", "run_script", "write_json"]

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


def run_script(
    description: str, json_name: str, measure: Callable[[bool], Awaitable[list[Row]]]
) -> int:
    """A benchmark script's ``main``: ``--quick`` and ``--json``, then the table and the time."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument("--json", action="store_true", help=f"also write benchmarks/{json_name}")
    args = parser.parse_args()
    start = time.perf_counter()
    rows = asyncio.run(measure(args.quick))
    print(format_table(rows))
    print(f"\n({time.perf_counter() - start:.1f} s; best of repeats, baseline in the same run)")
    if args.json:
        write_json(rows, HERE / json_name, quick=args.quick)
    return 0
