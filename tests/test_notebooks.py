"""Both notebooks run top to bottom under a real Jupyter kernel (nbclient), as students and nbgrader run them."""
import os

import nbformat
import pytest
from nbclient import NotebookClient

from autograder.engine.catalog import part_points


def execute(path, grading):
    nb = nbformat.read(path, as_version=4)
    env_before = os.environ.get("GRADING")
    if grading:
        os.environ["GRADING"] = "1"
    else:
        os.environ.pop("GRADING", None)
    try:
        NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        if env_before is None:
            os.environ.pop("GRADING", None)
        else:
            os.environ["GRADING"] = env_before
    return nb


def errors(nb):
    return [(i, o.ename, o.evalue) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
            for o in cell.get("outputs", []) if o.output_type == "error"]


@pytest.mark.slow
def test_solution_notebook_runs_clean_and_its_graded_cells_give_full_points(solution_notebook):
    nb = execute(solution_notebook, grading=False)
    assert errors(nb) == []
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "test loss" in text and "generated from 2: [2, 3, 4, 5, 6, 7, 0, 1" in text
    assert any("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs), \
        "the attention heatmap was not drawn"
    points = part_points()
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and cell.cell_type == "code":
            part = meta["grade_id"].removesuffix("_tests")
            results = [o for o in cell.outputs if o.output_type == "execute_result"]
            assert results and float(results[0]["data"]["text/plain"]) == points[part], (part, cell.outputs)


@pytest.mark.slow
def test_student_notebook_fails_only_where_a_stub_is_called(student_notebook):
    nb = execute(student_notebook, grading=False)
    found = errors(nb)
    assert found, "the stubs should make the checks fail"
    assert {name for _, name, _ in found} == {"NotImplementedError"}, found
    failing = {i for i, _, _ in found}
    for i in failing:
        kind = nb.cells[i].metadata.get("week7", {}).get("kind") or nb.cells[i].metadata.get("nbgrader", {})
        assert "solution" not in str(kind), f"cell {i} defines stubs and must not fail by itself"
    setup_and_lab = [i for i, c in enumerate(nb.cells) if c.metadata.get("week7", {}).get("kind") in ("setup", "lab")]
    assert setup_and_lab and not failing & set(setup_and_lab)
