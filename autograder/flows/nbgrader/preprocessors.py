"""The nbgrader preprocessors config.py puts in a course: each acts on the notebooks of the assignments the
course grades in the sandbox only (those its nbgrader_config.py names: ``REGISTERED``).

Every class here is a no-op, or exactly the nbgrader class it extends, for any other
assignment of the course (``ours(resources)`` is None), so the course's other weeks are
autograded as nbgrader alone would. For one of ours, everything (its kernel, its grading service,
its records) is that assignment's, found by the name nbgrader gives the notebook's assignment.

  generate_assignment
    IsolatedKernelspec   (before SaveCells) the gradebook records the assignment's isolated kernel for it
    StudentKernelspec    (after SaveCells) ... while the released copy keeps the student's `python3`
  autograde, sanitize
    RestoreCellMetadata  (first) every cell's nbgrader metadata from the instructor notebook
    SandboxGrade         asks the course's grading service to grade the submitted bytes (or find a
                         current record of them)
    RestoreDeletedCells  OverwriteCells: a deleted test cell comes back (nbgrader 0.9.6's own crashes
                         here); an untouched test cell is restored without a "checksum has changed" warning
  autograde
    IsolatedExecute      nbgrader's Execute; this notebook only ever in that isolated kernel, which
                         starts while the service grades; the grade is waited for before the first
                         cell (the file must still be what was graded), and the progress logged
    IsolatedIgnorePattern  IgnorePattern, on for this notebook (any stderr would zero a test cell)
    SafeMarkdown         student markup that could run in the formgrader (a script, an event handler) shown
                         as text instead
    ModelAnswers         (last) graders see the model answer under each written answer
"""
import logging
import os
import re
import time
import weakref
from typing import TYPE_CHECKING, Any, cast

import nbformat
from nbformat import NotebookNode, v4
from nbgrader.api import Gradebook
from nbgrader.preprocessors import ClearHiddenTests, Execute, IgnorePattern, NbGraderPreprocessor, OverwriteCells

from ... import notebook_meta
from . import Graded, registered
from .kernelspec import display_name

if TYPE_CHECKING:
    from jupyter_client.manager import KernelManager

    from .client import Asked

# What a preprocessor returns: the notebook and nbconvert's resources (a dict), as it was handed them. nbgrader is
# not annotated: what its preprocessors (the base classes here) return is cast to this.
Processed = tuple[NotebookNode, dict[str, Any]]

STUDENT_KERNELSPEC = {"display_name": "Python 3", "language": "python", "name": "python3"}


def isolated_kernelspec(kernel: str) -> dict[str, str]:
    """What the isolated kernel spec ``kernel`` calls itself (kernelspec.py installs it)."""
    return {"display_name": display_name(kernel), "language": "python", "name": kernel}


def ours(resources: object) -> Graded | None:
    """The assignment graded in the sandbox a notebook belongs to, or None (nbgrader's own). nbgrader names the
    assignment by its folder and its command line, never by anything the student submits; the course's
    nbgrader_config.py names the package that grades it (config.grade_in_sandbox)."""
    if not isinstance(resources, dict) or not isinstance(resources.get("nbgrader"), dict):
        return None
    return registered(resources["nbgrader"].get("assignment"))


def course_of(resources: dict[str, Any]) -> str:
    """The course folder: where nbgrader's gradebook is (sqlite:///COURSE/gradebook.db)."""
    db_url: str = resources["nbgrader"]["db_url"]
    return os.path.dirname(db_url.removeprefix("sqlite:///"))


# ---- generate_assignment -------------------------------------------------------------------------
class IsolatedKernelspec(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader: not annotated
    """Before SaveCells: the gradebook keeps the assignment's isolated kernel (Graded.kernel) as the notebook's.

    nbgrader's OverwriteKernelspec gives every submission the gradebook's kernelspec at
    autograde time, and plain nbgrader runs a notebook in its kernelspec's kernel. So even
    a course whose nbgrader_config.py lost the line config.py asks for runs no submission
    of this assignment in `python3`: it runs in the isolated kernel, which executes nothing.
    """

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        assignment = ours(resources)
        if assignment:
            resources.setdefault("autograder", {})["kernelspec"] = nb.metadata.get("kernelspec")
            nb.metadata["kernelspec"] = isolated_kernelspec(assignment.kernel)
        return nb, resources


class StudentKernelspec(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader: not annotated
    """After SaveCells: the released notebook opens in the student's own `python3`."""

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        if ours(resources):
            nb.metadata["kernelspec"] = resources.get("autograder", {}).get("kernelspec") or dict(STUDENT_KERNELSPEC)
        return nb, resources


# ---- autograde: sanitize -----------------------------------------------------------------------------
class RestoreCellMetadata(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader: not annotated
    """Make each cell's nbgrader metadata the instructor's, whatever the student did to it.

    nbgrader trusts the submission's metadata: a duplicated grade_id, a test cell re-marked
    as a solution, a grade cell with no grade_id, a changed cell type or an old schema
    version make `nbgrader autograde` fail for that student (so the gradebook has no
    entry). Here a cell whose grade_id the instructor notebook holds gets the instructor's
    metadata and cell type back (for a repeated grade_id the last cell keeps it, as
    nbgrader's DeduplicateIds does); any other nbgrader metadata is dropped, so the cell
    is an ordinary cell. Points never depend on it: they come from the isolated grader.
    """

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        if not ours(resources):
            return nb, resources
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


def new_cell(cell_type: str, source: str, **fields: Any) -> NotebookNode:
    """A new nbformat v4 cell: ``cell_type`` code or markdown, any other raw (``fields``: its metadata ...)."""
    make = v4.new_code_cell if cell_type == "code" else v4.new_markdown_cell if cell_type == "markdown" else \
        v4.new_raw_cell
    cell: NotebookNode = make(source, **fields)  # type: ignore[no-untyped-call]  # nbformat: not annotated
    return cell


def _set_type(cell: NotebookNode, cell_type: str) -> None:
    source, meta, cell_id = cell.get("source", ""), cell.get("metadata", {}), cell.get("id")
    new = new_cell(cell_type, source, metadata=meta)
    cell.clear()
    cell.update(new)  # type: ignore[no-untyped-call]  # nbformat: not annotated
    if cell_id is not None:
        cell["id"] = cell_id


class SandboxGrade(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader: not annotated
    """Ask for the sandboxed grade of the file nbgrader is autograding, before anything else happens to it.

    Runs in the sanitize step, when nbgrader has just read submitted/<student>/...: the
    course's grading service (client.py) reads those bytes itself and grades them in the
    sandbox, or answers at once with the current record of them (same bytes, grader and
    feedback level). The answer is read by IsolatedExecute once the kernel is up (both run
    side by side). The request also names the students nbgrader will autograde next in this
    run (the service grades them while nbgrader works on this one).
    """

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        assignment = ours(resources)
        if not assignment:
            return nb, resources
        from . import client
        from .sandbox_grading import SandboxGrading

        settings = SandboxGrading(parent=self)
        course, student, name = course_of(resources), resources["nbgrader"]["student"], assignment.name
        queue, force = self._run(name)
        then = [s for s in queue[queue.index(student) + 1:]
                if force or not os.path.exists(os.path.join(course, "autograded", s, name))] \
            if student in queue else []
        old = ASKED.pop((course, name, student), None)
        if old is not None:
            old[0].close()
        asked = client.Asked(course, client.grade_request(student, settings.settings().to_dict(), then, name),
                             settings.service_idle, assignment)
        ASKED[(course, name, student)] = (asked, queue, time.monotonic(), self.parent)
        return nb, resources

    def _run(self, name: str) -> tuple[list[str], bool]:
        """(students nbgrader autogrades in this run, in its order; whether it was --force), from the converter."""
        converter = getattr(self.parent, "parent", None)
        found = getattr(converter, "assignments", None) or {}
        queue = [os.path.basename(os.path.dirname(os.path.normpath(path))) for path in sorted(found)
                 if os.path.basename(os.path.normpath(path)) == name]
        return queue, bool(getattr(converter, "force", False))


# (course, assignment, student) -> (the request SandboxGrade sent, the run's students, when, the run's exporter)
ASKED: "dict[tuple[str, str, str], tuple[Asked, list[str], float, object]]" = {}
# The run's exporter -> when its first submission started (one run's elapsed time, for the progress line).
_STARTED: "weakref.WeakKeyDictionary[object, float]" = weakref.WeakKeyDictionary()


def sandboxed_grade(resources: dict[str, Any], log: "logging.Logger | logging.LoggerAdapter[Any]") -> dict[str, Any]:
    """Wait for the grade SandboxGrade asked for; check that the submitted file is still what was graded; log
    the run's progress. Raises (this student's autograde fails) when the grade cannot be had."""
    from . import client
    from .. import progress
    from .record import read_submission, sha256

    course, student, name = course_of(resources), resources["nbgrader"]["student"], resources["nbgrader"]["assignment"]
    asked, queue, clock, exporter = ASKED.pop((course, name, student))
    reply = client.checked(asked.reply())
    if sha256(read_submission(course, student, asked.settings.limits.notebook_mib, name)) != reply["sha256"]:
        raise RuntimeError(f"{student}'s submission changed while it was graded in the sandbox: autograde again")
    done = queue.index(student) + 1 if student in queue else 1
    started = _STARTED.setdefault(exporter, clock) if exporter is not None else clock
    log.info("%s", progress.line(done, max(len(queue), done), time.monotonic() - started, name,
                                 f"{student}: {reply['score']:g} / {reply['max_score']:g} "
                                 f"({'current record' if reply.get('cached') else 'graded in the sandbox'})"))
    return reply


class RestoreDeletedCells(OverwriteCells):  # type: ignore[misc]  # nbgrader: not annotated
    """OverwriteCells whose `add_missing_cells` works for this notebook (other notebooks: OverwriteCells).

    nbgrader 0.9.6 puts a missing test cell after the cell that precedes it in the source,
    but only indexes the submission's grade and solution cells: when that cell is a
    read-only one (here every test cell follows a `check` cell) autograde dies with a
    KeyError, and its index arithmetic drifts after the first insertion. Here a missing
    test cell goes right after the nearest preceding source cell still in the submission.
    """

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        self.sandboxed = bool(ours(resources))
        if self.sandboxed:
            self.add_missing_cells = True  # for this assignment only; the course's setting stays for the others
        return cast(Processed, super().preprocess(nb, resources))

    def preprocess_cell(self, cell: NotebookNode, resources: dict[str, Any], index: int) -> Processed:
        """An untouched locked cell holds the *released* source (hidden tests cleared), while the
        gradebook keeps the instructor's (hidden tests included) and its checksum: nbgrader then
        warns "checksum has changed" for every test cell of every student and restores it. Here a
        cell that is exactly its released version gets the instructor's source first, silently;
        a cell the student really changed is still reported and restored by nbgrader."""
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id is not None and getattr(self, "sandboxed", True):
            try:
                source = self.gradebook.find_source_cell(grade_id, self.notebook_id, self.assignment_id)
            except Exception:  # noqa: BLE001 - MissingEntry (or any gradebook trouble): nbgrader's own handling below
                source = None
            if source is not None and source.locked and cell.get("source") != source.source \
                    and cell.get("source") == released_source(source.source, source.cell_type):
                cell.source = source.source
        return cast(Processed, super().preprocess_cell(cell, resources, index))

    def add_missing_grade_cells(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        if not getattr(self, "sandboxed", True):
            return cast(Processed, super().add_missing_grade_cells(nb, resources))
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


def released_source(source: str, cell_type: str = "code") -> str:
    """What `nbgrader generate_assignment` leaves of a locked cell's source (hidden tests cleared)."""
    cell = new_cell("code" if cell_type == "code" else "markdown", source)
    ClearHiddenTests()._remove_hidden_test_region(cell)
    cleared: str = cell.source  # a NotebookNode's attributes are not annotated
    return cleared


# ---- autograde -------------------------------------------------------------------------------------
class IsolatedExecute(Execute):  # type: ignore[misc]  # nbgrader: not annotated
    """nbgrader's Execute; our assignments' notebooks run only in their isolated kernel (Graded.kernel),
    which runs no code.

    Other notebooks run as nbgrader runs them (their kernelspec, the course's settings).
    For this one the kernel is forced whatever the notebook or a configuration says, and a
    kernel manager for any other kernel is refused.
    """

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any] | None = None,
                   km: "KernelManager | None" = None) -> Processed:
        assignment = ours(resources)
        self.isolated_kernel = assignment.kernel if assignment else None  # the kernel it must run in
        # (resources are there whenever ours() found the assignment in them)
        self.waiting = assignment is not None and resources is not None and (
            course_of(resources), assignment.name, resources["nbgrader"]["student"]) in ASKED
        return cast(Processed, super().preprocess(nb, resources, km))

    def preprocess_cell(self, cell: NotebookNode, resources: dict[str, Any], index: int) -> Processed:
        if getattr(self, "waiting", False):  # the kernel is up: now the grade it replays must be there
            self.waiting = False
            sandboxed_grade(resources, self.log)
        return cast(Processed, super().preprocess_cell(cell, resources, index))

    def create_kernel_manager(self) -> "KernelManager":
        # Here, not in preprocess: nbclient re-initialises its settings when preprocess starts.
        kernel = getattr(self, "isolated_kernel", None)
        if kernel:
            self.kernel_name = kernel
            self.timeout = 60  # the kernel answers from the record at once; silence is a fault (the cell scores 0)
            self.interrupt_on_timeout = True
        # nbclient's KernelManager, through nbgrader's Execute (not annotated)
        km = cast("KernelManager", super().create_kernel_manager())
        if kernel and km.kernel_name != kernel:
            raise RuntimeError(f"refusing to run a sandboxed assignment's submission in kernel {km.kernel_name!r}")
        return km


# Any stderr output zeroes a nbgrader test cell; the isolated kernel writes none. Kept as a guard.
IGNORED_STDERR = r"(?mi)\b\w*warning\b|^\[W[\d ]"


class IsolatedIgnorePattern(IgnorePattern):  # type: ignore[misc]  # nbgrader: not annotated
    """IgnorePattern, on with IGNORED_STDERR for this notebook; the course's own settings for the others."""

    def __call__(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        if ours(resources):
            self.enabled, self.pattern = True, IGNORED_STDERR
        return cast(Processed, super().__call__(nb, resources))


def instructor_notebook(resources: dict[str, Any]) -> tuple[NotebookNode | None, str]:
    """(the instructor notebook in COURSE/source/, None) of the notebook being autograded; (None, why) if unreadable."""
    info = resources["nbgrader"]
    path = os.path.join(course_of(resources), "source", info["assignment"], f"{info['notebook']}.ipynb")
    try:
        return nbformat.read(path, as_version=4), ""  # type: ignore[no-untyped-call]  # nbformat: not annotated
    except (OSError, ValueError) as err:
        return None, f"cannot read {path} ({err})"


class SafeMarkdown(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader: not annotated
    """Autograde, before ModelAnswers: the autograded notebook shows graders no student markup that could run.

    The formgrader renders the autograded notebook with nbconvert's HTMLExporter, unsanitised, on the Jupyter
    server's origin with the grader's session: an `<img onerror=...>` in a written answer ran script there that
    read the instructor notebook through /api/contents and ran code in a new kernel as the instructor (red team
    of issue 23). A Markdown cell the student wrote (any not identical to one of the instructor notebook) is
    kept as it is when what it renders is inside the written answers' allow-list (flows/written/render.py),
    else shown as text: a note and its source in a code block, which nothing renders. A raw cell loses the
    format that would make nbconvert paste it into the page as HTML; widget state (an HTML widget sets
    innerHTML) goes. Code cells' outputs are the isolated kernel's, which sends text only. The submitted copy
    is never changed; generate_feedback renders this same notebook, so students see their answer the same way.
    """

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        if not ours(resources):
            return nb, resources
        from ..written.render import unsafe_markup

        source, _ = instructor_notebook(resources)
        trusted = {c.source for c in source.cells} if source is not None else set()
        nb.metadata.pop("widgets", None)
        for cell in nb.cells:
            source = cell.get("source", "")
            if source in trusted:
                continue
            if cell.get("cell_type") == "raw":
                for key in ("raw_mimetype", "format"):
                    cell.get("metadata", {}).pop(key, None)
            elif cell.get("cell_type") == "markdown":
                why = unsafe_markup(source, cell.get("attachments"))
                if why:
                    self.log.warning("Showing a Markdown cell as text: it holds %s", why)
                    cell["source"] = as_text(source, why)
                    cell.pop("attachments", None)
        return nb, resources


def as_text(source: str, why: str) -> str:
    """Markdown that shows ``source`` verbatim in a code block (a fence longer than any run of backticks in it)."""
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", source)), default=0))
    return (f"*Shown as text by the grader: this cell holds {why}, which the grading pages do not render.*\n\n"
            f"{fence}text\n{source}\n{fence}")


MODEL_ANSWER = "model_answer"  # metadata autograder.kind of the graders-only cells ModelAnswers adds


class ModelAnswers(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader: not annotated
    """Autograde, last: under each written answer, a graders-only cell with the model answer.

    The formgrader shows graders the autograded notebook; nbgrader keeps no model answer for a
    written (Markdown solution) cell: its gradebook holds the released stub. The instructor
    notebook in COURSE/source/ holds it, so it is copied from there, by grade_id, into a plain
    Markdown cell (no nbgrader metadata: no grade, no checksum) marked autograder.kind =
    "model_answer". HideHiddenTests removes these cells from the feedback students get.
    """

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        if not ours(resources):
            return nb, resources
        source, problem = instructor_notebook(resources)
        if source is None:
            self.log.warning("No model answers for graders: %s", problem)
            return nb, resources
        models = {c.metadata["nbgrader"]["grade_id"]: (c.source, c.metadata["nbgrader"].get("points"))
                  for c in source.cells if c.cell_type == "markdown"
                  and c.get("metadata", {}).get("nbgrader", {}).get("solution")
                  and c.metadata["nbgrader"].get("grade")}
        cells = [c for c in nb.cells if notebook_meta.cell_kind(c) != MODEL_ANSWER]
        out = []
        for cell in cells:
            out.append(cell)
            grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
            if grade_id in models and cell.get("cell_type") == "markdown":
                text, points = models[grade_id]
                worth = f", {points:g} points" if points is not None else ""
                out.append(new_cell(
                    "markdown",
                    f"> **Model answer ({grade_id}{worth}; graders only, never in the feedback):**\n>\n"
                    + "\n".join(f"> {line}" if line else ">" for line in text.splitlines()),
                    metadata={notebook_meta.KEY: {"kind": MODEL_ANSWER, "grade_id": grade_id}}))
        nb.cells = out
        return nb, resources


__all__ = ["IsolatedExecute", "IsolatedIgnorePattern", "IsolatedKernelspec", "ModelAnswers", "RestoreCellMetadata",
           "RestoreDeletedCells", "SafeMarkdown", "SandboxGrade", "StudentKernelspec"]
