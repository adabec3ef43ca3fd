"""Both notebooks run top to bottom under a real Jupyter kernel (nbclient), as students and nbgrader run them."""
import json
import os

import nbformat
import pytest
from nbclient import NotebookClient

from autograder import notebook_meta
from autograder.engine.catalog import part_points


# Appended to the solution notebook: what the heatmap cell drew (its figure stays in `fig` after plt.show()).
HEATMAP_PROBE = """\
import json
print("HEATMAP " + json.dumps({
    "axes": len(fig.axes), "colorbar": fig.axes[-1].get_ylabel(),
    "xticks": [t.get_text() for t in fig.axes[0].get_xticklabels()],
    "yticks": [t.get_text() for t in fig.axes[0].get_yticklabels()],
    "xlabel": fig.axes[0].get_xlabel(), "ylabel": fig.axes[0].get_ylabel(),
    "tokens": sequence[0].tolist()}))
"""


def execute(path, grading, extra=()):
    nb = nbformat.read(path, as_version=4)
    nb.cells += [nbformat.v4.new_code_cell(code) for code in extra]
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
def test_solution_notebook_runs_clean_and_its_graded_cells_refuse_to_grade_in_a_plain_kernel(solution_notebook):
    """Every cell runs clean except the graded ones: their hook imports the retired in-kernel grader, which
    fails loudly (grading happens in the sandbox; nbgrader's kernel `week7-isolated` answers those cells)."""
    from autograder.flows.nbgrader import hooked_part

    nb = execute(solution_notebook, grading=False, extra=[HEATMAP_PROBE])
    graded = {i: meta["grade_id"].removesuffix("_tests") for i, cell in enumerate(nb.cells)
              if (meta := cell.metadata.get("nbgrader", {})).get("grade") and cell.cell_type == "code"}
    assert set(graded.values()) == set(part_points())
    for i, part in graded.items():
        assert hooked_part(nb.cells[i].source) == part, (part, nb.cells[i].source)
    found = errors(nb)
    assert {i for i, _, _ in found} == set(graded), found
    assert all(name == "ImportError" and "retired" in value for _, name, value in found), found
    text = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "test loss" in text and "generated from 2: [2, 3, 4, 5, 6, 7, 0, 1" in text
    assert any("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs), \
        "the attention heatmap was not drawn"
    # Its axes: position with the token under it on both, and a colour bar beside the heads.
    heatmap = json.loads(next(line for line in text.splitlines() if line.startswith("HEATMAP "))[8:])
    ticks = [f"{i}\n{token}" for i, token in enumerate(heatmap["tokens"])]
    assert heatmap["xticks"] == ticks, heatmap
    assert heatmap["yticks"] == [t.replace("\n", ": ") for t in ticks], heatmap
    assert "position" in heatmap["xlabel"] and "position" in heatmap["ylabel"]
    assert heatmap["axes"] == 4 + 1 and heatmap["colorbar"] == "attention weight", heatmap


@pytest.mark.slow
def test_student_notebook_fails_only_where_a_stub_is_called(student_notebook):
    nb = execute(student_notebook, grading=False)
    found = errors(nb)
    assert found, "the stubs should make the checks fail"
    assert {name for _, name, _ in found} == {"NotImplementedError"}, found
    failing = {i for i, _, _ in found}
    for i in failing:
        kind = notebook_meta.cell_kind(nb.cells[i]) or nb.cells[i].metadata.get("nbgrader", {})
        assert "solution" not in str(kind), f"cell {i} defines stubs and must not fail by itself"
    setup_and_lab = [i for i, c in enumerate(nb.cells) if notebook_meta.cell_kind(c) in ("setup", "lab")]
    assert setup_and_lab and not failing & set(setup_and_lab)
