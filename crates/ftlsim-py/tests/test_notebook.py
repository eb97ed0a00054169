"""The example notebook runs top to bottom (nbclient), so it cannot rot."""

import nbformat
from nbclient import NotebookClient


def test_sweep_notebook_executes(root, tmp_path):
    path = root / "examples" / "notebooks" / "sweep.ipynb"
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "the notebook draws its plot"
