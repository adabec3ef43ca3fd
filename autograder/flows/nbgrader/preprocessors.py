"""The nbgrader preprocessors that solutions/release/nbgrader_config.py names.

  RestoreCellMetadata  (sanitize, first) every cell's nbgrader metadata from the instructor notebook
  MatchesRecord        (sanitize) the file nbgrader read is the one the isolated grader graded
  RestoreDeletedCells  (sanitize) a deleted test cell comes back (nbgrader 0.9.6's own crashes here);
                       an untouched test cell is restored without a "checksum has changed" warning
  IsolatedExecute      (autograde) nbgrader's Execute, always with kernel `week7-isolated`
  ModelAnswers         (autograde, last) graders see the model answer under each written answer
  HideHiddenTests      (generate_feedback) no hidden-test line, no internal traceback, no model answer
  FeedbackTitles       (generate_feedback) part names and points for the feedback's table of contents
  FeedbackStyle        (generate_feedback) long output lines wrap
  FeedbackExporter     generate_feedback's HTML exporter: nbgrader's feedback template, our table of contents
"""
import os

import nbformat
from nbconvert.exporters import HTMLExporter
from nbformat import v4
from nbgrader.api import Gradebook
from nbgrader.preprocessors import ClearHiddenTests, Execute, NbGraderPreprocessor, OverwriteCells
from traitlets import List

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

    def preprocess_cell(self, cell, resources, index):
        """An untouched locked cell holds the *released* source (hidden tests cleared), while the
        gradebook keeps the instructor's (hidden tests included) and its checksum: nbgrader then
        warns "checksum has changed" for every test cell of every student and restores it. Here a
        cell that is exactly its released version gets the instructor's source first, silently;
        a cell the student really changed is still reported and restored by nbgrader."""
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id is not None:
            try:
                source = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except Exception:  # noqa: BLE001 - MissingEntry (or any gradebook trouble): nbgrader's own handling below
                source = None
            if source is not None and source.locked and cell.get("source") != source.source \
                    and cell.get("source") == released_source(source.source, source.cell_type):
                cell.source = source.source
        return super().preprocess_cell(cell, resources, index)

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


def released_source(source, cell_type="code"):
    """What `nbgrader generate_assignment` leaves of a locked cell's source (hidden tests cleared)."""
    cell = v4.new_code_cell(source) if cell_type == "code" else v4.new_markdown_cell(source)
    ClearHiddenTests()._remove_hidden_test_region(cell)
    return cell.source


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


class FeedbackPreprocessor(NbGraderPreprocessor):
    """Base of the generate_feedback preprocessors: the HTML exporter hands every preprocessor its
    `display_data_priority` setting, which nbgrader's base class does not declare configurable (a
    "Config option not recognized" warning per preprocessor in every feedback log)."""

    display_data_priority = List(NbGraderPreprocessor.display_data_priority.default_value).tag(config=True)


class HideHiddenTests(FeedbackPreprocessor):
    """Feedback only: drop hidden-test regions and internal tracebacks from autograder test cells.

    nbgrader's feedback is the autograded notebook as HTML, and at autograde time the
    test cells were restored from the instructor notebook (hidden tests included). The
    student keeps the cell's printed result; a cell that raised keeps only `Name: message`.
    """

    def preprocess(self, nb, resources):
        nb.cells = [c for c in nb.cells if c.get("metadata", {}).get("week7", {}).get("kind") != MODEL_ANSWER]
        return super().preprocess(nb, resources)

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


MODEL_ANSWER = "model_answer"  # metadata week7.kind of the graders-only cells ModelAnswers adds


class ModelAnswers(NbGraderPreprocessor):
    """Autograde, last: under each written answer, a graders-only cell with the model answer.

    The formgrader shows graders the autograded notebook; nbgrader keeps no model answer for a
    written (Markdown solution) cell: its gradebook holds the released stub. The instructor
    notebook in COURSE/source/ holds it, so it is copied from there, by grade_id, into a plain
    Markdown cell (no nbgrader metadata: no grade, no checksum) marked week7.kind =
    "model_answer". HideHiddenTests removes these cells from the feedback students get.
    """

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        course = os.path.dirname(info["db_url"].removeprefix("sqlite:///"))
        path = os.path.join(course, "source", info["assignment"], f"{info['notebook']}.ipynb")
        try:
            source = nbformat.read(path, as_version=4)
        except (OSError, ValueError) as err:
            self.log.warning("No model answers for graders: cannot read %s (%s)", path, err)
            return nb, resources
        models = {c.metadata["nbgrader"]["grade_id"]: (c.source, c.metadata["nbgrader"].get("points"))
                  for c in source.cells if c.cell_type == "markdown"
                  and c.get("metadata", {}).get("nbgrader", {}).get("solution")
                  and c.metadata["nbgrader"].get("grade")}
        cells = [c for c in nb.cells if c.get("metadata", {}).get("week7", {}).get("kind") != MODEL_ANSWER]
        out = []
        for cell in cells:
            out.append(cell)
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if grade_id in models and cell.get("cell_type") == "markdown":
                text, points = models[grade_id]
                worth = f", {points:g} points" if points is not None else ""
                out.append(v4.new_markdown_cell(
                    f"> **Model answer ({grade_id}{worth}; graders only, never in the feedback):**\n>\n"
                    + "\n".join(f"> {line}" if line else ">" for line in text.splitlines()),
                    metadata={"week7": {"kind": MODEL_ANSWER, "grade_id": grade_id}}))
        nb.cells = out
        return nb, resources


class FeedbackTitles(FeedbackPreprocessor):
    """Feedback: each graded cell's title in the table of contents, e.g. "masks (18 points)"
    or "Q1 q1_positions (written, 5 points)", read by the FeedbackExporter's template."""

    def preprocess(self, nb, resources):
        written = 0
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if not meta.get("grade"):
                continue
            points = meta.get("points")
            worth = f"{float(points):g} points" if points is not None else "ungraded"
            grade_id = meta.get("grade_id", "")
            if cell.get("cell_type") == "markdown":
                written += 1
                title = f"Q{written} {grade_id} (written, {worth})"
            else:
                part = grade_id.removesuffix("_tests")
                title = f"{part} ({worth})"
            cell.metadata.setdefault("week7", {})["title"] = title
        return nb, resources


FEEDBACK_CSS = """
/* week7: long lines wrap instead of running off the page */
div.output_area pre, div.output_text pre, div.output_subarea pre, div.input_area pre, .highlight pre {
  white-space: pre-wrap;
  word-wrap: break-word;
  overflow-wrap: anywhere;
}
div.output_subarea { max-width: 100%; overflow-x: auto; }
"""


class FeedbackStyle(FeedbackPreprocessor):
    """Feedback: CSS inlined into the page's <head> (nbgrader's template renders resources.inlining.css)."""

    def preprocess(self, nb, resources):
        inlining = resources.setdefault("inlining", {})
        inlining["css"] = list(inlining.get("css", [])) + [FEEDBACK_CSS]
        return nb, resources


TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")


class FeedbackExporter(HTMLExporter):
    """generate_feedback's exporter: template `week7_feedback` (nbgrader's feedback template with
    the part names in its table of contents). Its own class, so the formgrader's HTMLExporter
    settings are untouched."""

    def __init__(self, config=None, **kwargs):
        import nbgrader
        from traitlets.config import Config

        nbgrader_templates = os.path.join(os.path.dirname(os.path.abspath(nbgrader.__file__)),
                                          "server_extensions", "formgrader", "templates")
        config = Config(config) if config is not None else Config()
        # Set before the exporter resolves its template paths; this class's section beats HTMLExporter's.
        config.FeedbackExporter.template_name = "week7_feedback"
        config.FeedbackExporter.extra_template_basedirs = [TEMPLATES, nbgrader_templates]
        # ... and nbgrader's template root on the loader's path, so ours can extend 'feedback/index.html.j2'
        # (the CSS folder GenerateFeedback sets for HTMLExporter is kept: the page includes bootstrap from it).
        given = list(config.HTMLExporter.get("extra_template_paths", []))
        config.FeedbackExporter.extra_template_paths = given + [nbgrader_templates]
        super().__init__(config=config, **kwargs)


__all__ = ["FeedbackExporter", "FeedbackStyle", "FeedbackTitles", "HideHiddenTests", "IsolatedExecute",
           "MatchesRecord", "ModelAnswers", "RestoreCellMetadata", "RestoreDeletedCells"]
