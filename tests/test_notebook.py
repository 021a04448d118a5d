"""The API in a Jupyter notebook, run through ``nbclient``: a run shows a progress line (tqdm's
text bar when ipywidgets is missing, with no ``IProgress not found`` warning), and printing a
balance ``Result`` shows the verdict the command line prints."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

# Looked up, not imported: the fast loop collects this module too (the Jupyter stack costs a
# tenth of a second to import). Skipped without them, as pytest.importorskip would.
for _needed in ("nbformat", "nbclient", "ipykernel"):
    if importlib.util.find_spec(_needed) is None:
        pytest.skip(f"could not import {_needed!r}", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "sr-firefight-4v4.yaml"


def run_notebook(cells: list[str], folder: Path) -> list[list[dict]]:
    """Each code cell's outputs, the cells run in a fresh kernel in ``folder``."""
    import nbclient
    import nbformat

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": folder}}
    )
    client.execute()
    return [cell.outputs for cell in notebook.cells]


def shown(outputs: list[dict]) -> str:
    """What a cell showed: its streams and its plain-text results."""
    parts = []
    for out in outputs:
        if out["output_type"] == "stream":
            parts.append(out["text"])
        elif "data" in out:
            parts.append(out["data"].get("text/plain", ""))
        elif out["output_type"] == "error":
            parts.append("\n".join(out["traceback"]))
    return "".join(parts)


@pytest.mark.slow  # starts a Jupyter kernel
def test_a_notebook_shows_progress_and_a_balance_verdict(tmp_path):
    setup = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
        "import warnings; warnings.simplefilter('always')\n"
        "import combatsim, combatsim.progress\n"
        "combatsim.progress.DELAY = 0  # a short run shows its bar too"
    )
    run = f"result = combatsim.simulate({str(SCENARIO)!r}, 12, workers=1)"
    balance = (
        "from tests.test_sweep import toy_files, toy_runner\n"
        "toy = toy_files(__import__('pathlib').Path('scenarios'))\n"
        "print(combatsim.balance(toy, 'sides[guards].members[Guard].count=1..3', "
        "'runners down = 0.5', battles=60, runner=toy_runner, quiet=True))"
    )
    outputs = run_notebook([setup, run, balance], tmp_path)
    progress, verdict = shown(outputs[1]), shown(outputs[2])
    assert "battles:" in progress and "12/12" in progress, progress
    assert "TqdmWarning" not in progress and "IProgress" not in progress, progress
    assert "closest: " in verdict and "the target" in verdict, verdict
