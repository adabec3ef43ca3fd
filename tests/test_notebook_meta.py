"""The engine's key in a cell's metadata (autograder/notebook_meta.py): written as `autograder`, read under its former
name too, so that a notebook released while the engine served week 7 alone grades and gives feedback the same."""
import nbformat

from autograder import notebook_meta
from autograder.assignment import STUDENT_NOTEBOOK


def test_the_kind_is_read_under_either_key_and_written_under_the_engines():
    assert notebook_meta.cell_kind({"metadata": {"autograder": {"kind": "check"}}}) == "check"
    assert notebook_meta.cell_kind({"metadata": {"week7": {"kind": "lab"}}}) == "lab"
    assert notebook_meta.cell_kind({"metadata": {"autograder": {"kind": "check"}, "week7": {"kind": "lab"}}}) == "check"
    assert notebook_meta.cell_kind({"metadata": {}}) is None and notebook_meta.cell_kind({}) is None
    assert notebook_meta.cell_kind({"metadata": {"autograder": "not a mapping"}}) is None
    assert notebook_meta.cell_kind({"metadata": {"autograder": {"kind": 3}}}) is None


def test_the_released_notebook_carries_the_engines_key_and_an_old_one_reads_the_same():
    nb = nbformat.read(str(STUDENT_NOTEBOOK), as_version=4)
    kinds = [notebook_meta.cell_kind(c) for c in nb.cells]
    assert all("week7" not in c.metadata for c in nb.cells)
    assert {"setup", "solution", "check", "graded", "lab"} <= set(kinds), set(kinds)
    for cell in nb.cells:  # as released before: the same kinds under the former key
        if notebook_meta.KEY in cell.metadata:
            cell.metadata["week7"] = cell.metadata.pop(notebook_meta.KEY)
    assert [notebook_meta.cell_kind(c) for c in nb.cells] == kinds
