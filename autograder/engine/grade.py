"""How a notebook becomes a score: read it, run it in a worker, run the hidden suites, total."""
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .. import PARTS
from .catalog import catalog
from .plugin import TestResult, run_suites
from .student import Student
from .supervisor import Limits, WorkerSession


@dataclass
class GradeReport:
    submission: str
    results: list  # TestResult per hidden test
    cells: list = field(default_factory=list)  # CellReport per cell that failed or was skipped
    problem: str = ""  # why the notebook could not be graded at all, for the student
    seconds: float = 0.0

    @property
    def score(self):
        return sum(r.score for r in self.results)

    @property
    def max_score(self):
        return sum(r.points for r in self.results)

    def by_part(self):
        parts = {}
        for r in self.results:
            got, top = parts.get(r.part, (0.0, 0.0))
            parts[r.part] = (got + r.score, top + r.points)
        return {p: parts[p] for p in PARTS if p in parts}


class NotebookError(Exception):
    """The file is not a notebook we can run; the message is for the student."""


def read_code_cells(path):
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise NotebookError(f"{path.name} is not a text file, so it cannot be a Jupyter notebook") from err
    try:
        nb = nbformat.reads(raw, as_version=4)
    except Exception as err:  # noqa: BLE001 - nbformat raises several kinds for bad JSON
        raise NotebookError(f"{path.name} is not a valid Jupyter notebook (it does not parse as notebook JSON: "
                            f"{str(err).splitlines()[0][:200]})") from err
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise NotebookError(f"{path.name} has no list of cells")
    return [_runnable(c) for c in cells]


def _runnable(cell):
    """The code to run for a notebook cell: "" for Markdown and for the package's own test cells.

    Positions are kept, so "cell 7" in the feedback is the 7th cell of the notebook.
    Autograder test cells hold our hidden-test hook (or, in a submission, its
    placeholder); like nbgrader, the grader does not run what a student put there.
    """
    if not isinstance(cell, dict) or cell.get("cell_type") != "code":
        return ""
    meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell.get("metadata"), dict) else {}
    if isinstance(meta, dict) and meta.get("grade") and not meta.get("solution"):
        return ""
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source if isinstance(source, str) else ""


def failed_everywhere(submission, message, parts=None, started=None):
    results = [TestResult(t.nodeid, t.part, t.title, t.points, 0.0, "failed", message)
               for t in catalog() if parts is None or t.part in parts]
    return GradeReport(str(submission), results, problem=message,
                       seconds=time.monotonic() - started if started else 0.0)


def grade_notebook(path, zygote, parts=None, limits=None, hide=()):
    started = time.monotonic()
    try:
        cells = read_code_cells(path)
    except (NotebookError, OSError) as err:
        return failed_everywhere(path, str(err), parts, started)
    session = WorkerSession(zygote, cells, limits or Limits(), hide=hide)
    try:
        results = run_suites(Student(session), parts)
        cells_run = session.execution_report()
    finally:
        session.close()
    problems = [c for c in cells_run if c.error or c.fatal]
    return GradeReport(str(path), results, problems, session.broken, time.monotonic() - started)
