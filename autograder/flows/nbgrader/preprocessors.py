"""The nbgrader preprocessors that solutions/release/nbgrader_config.py names.

  RestoreCellMetadata  (sanitize, first) every cell's nbgrader metadata from the instructor notebook
  MatchesRecord        (sanitize) the file nbgrader read is the one the isolated grader graded
  RestoreDeletedCells  (sanitize) a deleted test cell comes back (nbgrader 0.9.6's own crashes here)
  IsolatedExecute      (autograde) nbgrader's Execute, always with kernel `week7-isolated`
  HideHiddenTests      (generate_feedback) no hidden-test line, no internal traceback
"""
import os

from nbformat import v4
from nbgrader.api import Gradebook
from nbgrader.preprocessors import Execute, NbGraderPreprocessor, OverwriteCells

from . import ASSIGNMENT, BEGIN, END, KERNEL_NAME
from .record import load_record, read_submission, sha256


class RestoreCellMetadata(NbGraderPreprocessor):
    """Make each cell's nbgrader metadata the instructor's, whatever the student did to it.

    nbgrader trusts the submission's metadata: a duplicated grade_id, a test cell re-marked
    as a solution, a grade cell with no grade_id, a changed cell type or an old schema
    version make `nbgrader autograde` fail for that student (so the gradebook has no
    entry). Here a cell whose grade_id the instructor notebook holds gets the instructor's
    metadata and cell type back (for a repeated grade_id the last cell keeps it, as
    nbgrader's DeduplicateIds does); any other nbgrader metadata is dropped, so the cell
    is an ordinary cell. Points never depend on it: they come from the isolated grader.
    """

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            source = gb.find_notebook(info["notebook"], info["assignment"])
            kinds = {c.name: (c.cell_type, bool(c.locked), c.checksum) for c in source.source_cells}
            points = {c.name: float(c.max_score) for c in source.grade_cells}
            solutions = {c.name for c in source.solution_cells}
            tasks = {c.name for c in source.task_cells}
        seen = set()
        for cell in reversed(nb.cells):
            meta = cell.get("metadata")
            if not isinstance(meta, dict) or "nbgrader" not in meta:
                continue
            given = meta["nbgrader"]
            grade_id = given.get("grade_id") if isinstance(given, dict) else None
            if not isinstance(grade_id, str) or grade_id not in kinds or grade_id in seen:
                self.log.warning("Dropping nbgrader metadata %r of a cell (unknown or repeated grade_id)",
                                 grade_id)
                del meta["nbgrader"]
                continue
            seen.add(grade_id)
            cell_type, locked, checksum = kinds[grade_id]
            canonical = {"cell_type": cell_type, "checksum": checksum, "grade": grade_id in points,
                         "grade_id": grade_id, "locked": locked,
                         "schema_version": 3, "solution": grade_id in solutions, "task": grade_id in tasks}
            if grade_id in points:
                canonical["points"] = points[grade_id]
            if {k: v for k, v in given.items() if k != "checksum"} != {k: v for k, v in canonical.items()
                                                                      if k != "checksum"}:
                self.log.warning("Restoring the nbgrader metadata of cell %s", grade_id)
            meta["nbgrader"] = canonical
            if cell.get("cell_type") != cell_type:
                self.log.warning("Restoring the cell type of %s to %s", grade_id, cell_type)
                _set_type(cell, cell_type)
        return nb, resources


def _set_type(cell, cell_type):
    source, meta, cell_id = cell.get("source", ""), cell.get("metadata", {}), cell.get("id")
    new = v4.new_code_cell(source, metadata=meta) if cell_type == "code" else \
        v4.new_markdown_cell(source, metadata=meta) if cell_type == "markdown" else v4.new_raw_cell(source, metadata=meta)
    cell.clear()
    cell.update(new)
    if cell_id is not None:
        cell["id"] = cell_id


class MatchesRecord(NbGraderPreprocessor):
    """Refuse to autograde a notebook whose bytes are not the ones the isolated grader recorded.

    Runs in the sanitize step, when nbgrader has just read submitted/<student>/...: the
    file is read again (same rules as the record: no symlinks, regular file) and hashed.
    A student with no record, or whose file changed since it was graded, fails loudly.
    """

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        folder = os.path.abspath(resources.get("metadata", {}).get("path") or ".")  # submitted/<student>/<assignment>
        student = info["student"]
        if os.path.basename(os.path.dirname(os.path.dirname(folder))) != "submitted":
            raise RuntimeError(f"{folder} is not submitted/{student}/{ASSIGNMENT}/ of a course")
        course = os.path.dirname(os.path.dirname(os.path.dirname(folder)))
        record = load_record(course, student)
        if record is None:
            raise RuntimeError(f"no isolated grade recorded for {student}: run the flow, not bare `nbgrader autograde`")
        digest = sha256(read_submission(course, student))
        if digest != record.get("sha256"):
            raise RuntimeError(f"{student}'s submission changed since the isolated grader graded it")
        return nb, resources


class RestoreDeletedCells(OverwriteCells):
    """OverwriteCells whose `add_missing_cells` works for this notebook.

    nbgrader 0.9.6 puts a missing test cell after the cell that precedes it in the source,
    but only indexes the submission's grade and solution cells: when that cell is a
    read-only one (here every test cell follows a `check` cell) autograde dies with a
    KeyError, and its index arithmetic drifts after the first insertion. Here a missing
    test cell goes right after the nearest preceding source cell still in the submission.
    """

    def add_missing_grade_cells(self, nb, resources):
        source = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
        cells = {c.name: c for c in source.source_cells}
        order = [c.name for c in source.source_cells]
        grades = {c.name: c for c in source.grade_cells}
        solutions = {c.name for c in source.solution_cells}
        for name in order:
            present = {c.metadata.get("nbgrader", {}).get("grade_id"): i for i, c in enumerate(nb.cells)}
            if name not in grades or name in present:
                continue
            self.log.warning("Missing grade cell %s encountered, adding to notebook", name)
            cell = self.missing_cell_transform(cells[name], grades[name].max_score, is_solution=name in solutions)
            before = [present[n] for n in order[:order.index(name)] if n in present]
            nb.cells.insert(before[-1] + 1 if before else 0, cell)
        return nb, resources


class IsolatedExecute(Execute):
    """nbgrader's Execute, always in kernel `week7-isolated` (which runs no code), never in another.

    nbclient takes the kernel from the notebook's kernelspec unless `kernel_name` is set;
    `c.Execute.kernel_name` sets it, and this refuses to start any other kernel even if a
    configuration drops that line.
    """

    def create_kernel_manager(self):
        if self.kernel_name != KERNEL_NAME:
            self.log.warning("Execute.kernel_name is %r; using %r", self.kernel_name, KERNEL_NAME)
            self.kernel_name = KERNEL_NAME
        km = super().create_kernel_manager()
        if km.kernel_name != KERNEL_NAME:
            raise RuntimeError(f"refusing to run a submission in kernel {km.kernel_name!r}")
        return km


class HideHiddenTests(NbGraderPreprocessor):
    """Feedback only: drop hidden-test regions and internal tracebacks from autograder test cells.

    nbgrader's feedback is the autograded notebook as HTML, and at autograde time the
    test cells were restored from the instructor notebook (hidden tests included). The
    student keeps the cell's printed result; a cell that raised keeps only `Name: message`.
    """

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            return cell, resources
        kept, hiding = [], False
        for line in cell.source.splitlines():
            if BEGIN in line:
                hiding = True
            elif END in line:
                hiding = False
            elif not hiding:
                kept.append(line)
        cell.source = "\n".join(kept).rstrip()
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources


__all__ = ["HideHiddenTests", "IsolatedExecute", "MatchesRecord", "RestoreCellMetadata",
           "RestoreDeletedCells"]
