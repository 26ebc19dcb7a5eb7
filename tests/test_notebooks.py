"""The example notebooks run in a real Jupyter kernel on the offline model, without errors.

Each notebook is executed with nbclient and ipykernel (the ``test`` extra), as a user would
run it: top-level ``await``, ``aiwrapper.notebook.live()``, rich reprs. The committed files
carry no outputs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .test_examples import KEYS, ROOT

NOTEBOOKS = sorted((ROOT / "examples").glob("*.ipynb"))
# What a notebook prints on the offline model, where a cell shows something particular.
PRINTS = {"tools": "an image/png image 'chart.png' (360 bytes, 160x100 pixels)"}


def _execute(path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("ipykernel")
    for key in KEYS:  # the kernel inherits this environment: the offline model answers
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    book = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        book, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()  # raises CellExecutionError on a cell that fails
    return book


def _outputs(book: Any) -> list[dict[str, Any]]:
    return [o for cell in book.cells if cell.cell_type == "code" for o in cell.outputs]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_notebook_is_committed_without_outputs(path: Path) -> None:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert code
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in code)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_the_notebook_runs_in_a_kernel_without_errors(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outputs = _outputs(_execute(path, monkeypatch))
    assert [o for o in outputs if o["output_type"] == "error"] == []
    stderr = "".join(o["text"] for o in outputs if o.get("name") == "stderr")
    notice = "running on the offline model"  # Lang.from_env() says so, on the logging WARNING
    assert [line for line in stderr.splitlines() if notice not in line] == []
    rich = [o["data"]["text/markdown"] for o in outputs if "text/markdown" in o.get("data", {})]
    assert any("✓" in text for text in rich)  # a result or call shown with its status
    plain = [o["data"].get("text/plain", "") for o in outputs if "data" in o]
    assert not any("IPython.core.display" in text for text in plain)
    stdout = "".join(o["text"] for o in outputs if o.get("name") == "stdout")
    assert PRINTS.get(path.stem, "") in stdout
