"""How a notebook becomes a score: read it, run it in a worker, run the hidden suites, total.

Flows do not call grade_notebook themselves: they grade through engine/grader.py's Grader,
which owns the worker template it needs.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..assignment import PART_IDS as PARTS
from ..assignment import served
from . import secret
from .catalog import catalog
from .plugin import Status, TestResult, run_suites
from .student import Student
from .submission_file import NOT_A_NOTEBOOK
from ..settings import Limits
from .supervisor import CellReport, WorkerSession

if TYPE_CHECKING:
    from .template import Template


@dataclass
class GradeReport:
    submission: str
    results: list[TestResult]  # one per hidden test of the parts graded
    cells: list[CellReport] = field(default_factory=list)  # each cell that failed or was skipped
    problem: str = ""  # why the notebook could not be graded at all, for the student
    seconds: float = 0.0
    sha256: str = ""  # of the notebook's bytes as graded
    executed: list[CellReport] = field(default_factory=list)  # every cell that ran, in notebook order

    @property
    def score(self) -> float:
        return sum(r.score for r in self.results)

    @property
    def max_score(self) -> float:
        return sum(r.points for r in self.results)

    def grader_faults(self) -> list[TestResult]:
        """The checks the grader itself failed on (never the student's doing): a report with any gives no score."""
        return [r for r in self.results if r.status is Status.GRADER_ERROR]

    def by_part(self) -> dict[str, tuple[float, float]]:
        """{part: (score, points)} in notebook order."""
        parts: dict[str, tuple[float, float]] = {}
        for r in self.results:
            got, top = parts.get(r.part, (0.0, 0.0))
            parts[r.part] = (got + r.score, top + r.points)
        return {p: parts[p] for p in PARTS if p in parts}


class NotebookError(Exception):
    """The file is not a notebook we can run; the message is for the student, ``kind`` its grades.csv status."""

    def __init__(self, message: str, kind: str = NOT_A_NOTEBOOK) -> None:
        super().__init__(message)
        self.kind = kind


def read_code_cells(path: str | os.PathLike[str], notebook_mib: int) -> list[str]:
    """The code of each cell of the notebook at ``path``, read the one way every flow reads an upload.

    Only a regular file within ``notebook_mib`` (Limits.notebook_mib) is read (engine/submission_file.py: no
    symbolic link, FIFO, device or directory); anything else raises NotebookError with the message every flow
    shows.
    """
    return read_submission(path, notebook_mib)[0]


def read_submission(path: str | os.PathLike[str], notebook_mib: int,
                    data: bytes | None = None) -> tuple[list[str], str]:
    """(code of each cell, sha256 of the bytes those cells came from): the file is read once, within
    ``notebook_mib`` (Limits.notebook_mib), so the probes drawn from the hash are those of the very bytes that
    run. ``data``: the bytes of ``path`` the caller already read (and hashed): those are parsed, and the file is
    not read again."""
    import hashlib

    from .submission_file import SubmissionFileError, read_notebook

    path = Path(path)
    if data is None:
        try:
            data = read_notebook(path, notebook_mib)
        except SubmissionFileError as err:
            raise NotebookError(str(err), err.kind) from None
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise NotebookError(f"{path.name} is not a text file, so it cannot be a Jupyter notebook") from err
    try:
        nb = _plain_v4(raw)
        if nb is None:  # anything unusual (other versions, bad JSON, odd shapes): nbformat decides
            import nbformat  # costs seconds (jsonschema's format checkers), so only when needed
            nb = nbformat.reads(raw, as_version=4)  # type: ignore[no-untyped-call]  # nbformat: not annotated
    except Exception as err:  # nbformat raises several kinds for bad JSON
        raise NotebookError(f"{path.name} is not a valid Jupyter notebook (it does not parse as notebook JSON: "
                            f"{str(err).splitlines()[0][:200] if str(err) else type(err).__name__})") from err
    cells = nb.get("cells")
    if not isinstance(cells, list):
        raise NotebookError(f"{path.name} has no list of cells")
    return [_runnable(c) for c in cells], hashlib.sha256(data).hexdigest()


def _plain_v4(raw: str | bytes) -> dict[str, Any] | None:
    """The notebook dict of a well-formed v4 notebook, read as nbformat would read it; else None.

    nbformat.reads parses the same JSON, joins list sources and strips transient keys,
    none of which changes the code cells we run. Anything it could convert, repair or
    reject is left to nbformat itself, so its messages stay the students' messages.
    """
    try:
        nb = json.loads(raw)
    except ValueError:
        return None
    if not (isinstance(nb, dict) and type(nb.get("nbformat")) is int and nb["nbformat"] == 4
            and isinstance(nb.get("metadata"), dict) and isinstance(nb.get("cells"), list)):
        return None
    for cell in nb["cells"]:
        if not (isinstance(cell, dict) and isinstance(cell.get("metadata"), dict)
                and _text(cell.get("source", "")) and _mimebundles(cell.get("attachments", {}))):
            return None
        if cell.get("cell_type") == "code":
            outputs = cell.get("outputs", [])
            if not isinstance(outputs, list) or not all(
                    isinstance(o, dict) and _mimebundles({"data": o.get("data", {})}) and _text(o.get("text", ""))
                    for o in outputs):
                return None
    return nb


def _text(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))


def _mimebundles(bundles: object) -> bool:
    return isinstance(bundles, dict) and all(isinstance(b, dict) for b in bundles.values())


def _runnable(cell: object) -> str:
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


def failed_everywhere(submission: str | os.PathLike[str], message: str, parts: Iterable[str] | None = None,
                      started: float | None = None) -> GradeReport:
    """Every check of ``parts`` failed with ``message``: a notebook that cannot be run at all (no worker needed)."""
    results = [TestResult(t.nodeid, t.part, t.title, t.points, 0.0, Status.FAILED, message)
               for t in catalog() if parts is None or t.part in parts]
    return GradeReport(str(submission), results, problem=message,
                       seconds=time.monotonic() - started if started else 0.0)


def grade_notebook(path: str | os.PathLike[str], template: Template, parts: Iterable[str] | None = None,
                   limits: Limits | None = None, hide: Iterable[str] = (), data: bytes | None = None) -> GradeReport:
    """One notebook's report, its workers forked from ``template`` (engine/grader.py's, for flows);
    ``data``: the notebook's bytes when the caller has read them (the report is of those, never of a
    later version of the file)."""
    started = time.monotonic()
    limits = limits or Limits()
    try:
        cells, digest = read_submission(path, limits.notebook_mib, data)
    except (NotebookError, OSError) as err:
        return failed_everywhere(path, str(err), parts, started)
    import torch  # the suites' own computations: one thread, like the worker and the reference run
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors; a second thread only adds OpenMP hand-offs (10x slower when busy)
    session = WorkerSession(template, cells, limits, hide=hide)
    try:
        session.prefetch()  # the worker runs the notebook while pytest collects
        served().use_submission(secret.submission_base(secret.load(), digest))
        results = run_suites(Student(session, limits), parts)
        cells_run = session.execution_report()
    finally:
        served().use_submission(0)
        session.close()
        torch.set_num_threads(threads)
    problems = [c for c in cells_run if c.error or c.fatal]
    return GradeReport(str(path), results, problems, session.broken, time.monotonic() - started,
                       sha256=digest, executed=cells_run)

