"""grade-all's typed records, each owning its JSON and CSV forms: a class row and the record that marks a result finished.

    ClassRow      one student's line of grades.csv, and the ``row`` of their record.json
    BatchRecord   <stem>_feedback/<student>/record.json, written last: a finished result, reused on a rerun

Nothing else builds or reads these dicts and cells: the batch, the merge of shards, the LMS export, the hand
scores and the class report all hold ``ClassRow`` objects (issue 30). The JSON forms are the ones version 1 wrote
(a flat row, one key per column), so results of earlier runs are still reused.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from ..assignment import PART_IDS as PARTS
from ..engine.safe_text import csv_cell, csv_text
from ..engine.submission_file import SubmissionStatus

Cell = str | int | float | None  # a CSV cell's value: text, a number, or empty

FIELDS = ("student", "total", "status", "seconds", "sha256", "notebook", "detail")
TAIL = ("total", "status", "seconds", "notebook", "sha256", "detail")  # the CSV's last columns, in this order
WRITTEN = re.compile(r"q\d+")  # hand-scored written answers (grade-all --hand): q1, q2, ..


def _number(value: Any) -> float | None:
    """A float from a JSON value or a CSV cell; None for empty or not a number."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    try:
        return float(text) if text else None
    except ValueError:
        return None


def cell(value: Cell) -> str | int:
    """A CSV cell: numbers as numbers; text escaped and never read as a formula (safe_text.csv_cell)."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:g}" if value == round(value, 6) else f"{value:.6g}"
    if isinstance(value, int):
        return value
    return csv_cell(value)


@dataclass
class ClassRow:
    """One student's grades: each part's points (None: not graded, or the grader failed), the total, how it went.

    A grader fault is never a student's grade: its row has ``total`` None (an empty cell, never a 0), and the LMS
    export leaves it out.
    """

    student: str
    status: str
    total: float | None = None
    seconds: float | None = 0.0
    sha256: str = ""
    notebook: str = ""  # relative to the submissions folder
    detail: str = ""  # the first line of what went wrong, if anything
    parts: dict[str, float | None] = field(default_factory=dict)
    written: dict[str, float | None] = field(default_factory=dict)  # q1.. from grade-all --hand
    hand_comment: str = ""  # the TA's comment (hand.csv); not a column of grades.csv

    def value(self, column: str) -> Cell:
        """The value under ``column`` (a field, a part id or a written question), None when it has none."""
        if column in self.parts:
            return self.parts[column]
        if column in self.written:
            return self.written[column]
        if column in FIELDS:
            return getattr(self, column)  # type: ignore[no-any-return]
        return None

    # ---- record.json's "row": flat, one key per column (version 1's form) ------------------------------

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {name: getattr(self, name) for name in FIELDS}
        data.update(self.parts)
        data.update(self.written)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ClassRow:
        """ValueError when ``data`` is not a row (no student or status)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("student"), str) \
                or not isinstance(data.get("status"), str):
            raise ValueError("not a grade-all row")
        return cls(student=data["student"], status=data["status"], total=_number(data.get("total")),
                   seconds=_number(data.get("seconds")), sha256=str(data.get("sha256") or ""),
                   notebook=str(data.get("notebook") or ""), detail=str(data.get("detail") or ""),
                   parts={p: _number(data[p]) for p in PARTS if p in data},
                   written={k: _number(v) for k, v in data.items() if WRITTEN.fullmatch(k)})

    # ---- grades.csv ----------------------------------------------------------------------------------

    def cells(self, columns: list[str]) -> dict[str, str | int]:
        return {name: cell(self.value(name)) for name in columns}

    @classmethod
    def from_cells(cls, raw: Mapping[str, str | None]) -> ClassRow:
        """A row of a grades CSV this module wrote: numbers back as floats (None when empty), text unescaped."""
        text = {name: csv_text(value or "") for name, value in raw.items() if name}  # as given to csv_cell
        status = text.get("status", "")
        total = _number(text.get("total"))
        if total is None and status != SubmissionStatus.GRADER_ERROR:  # a grader fault has no score
            total = 0.0
        return cls(student=text.get("student", ""), status=status, total=total, seconds=_number(text.get("seconds")),
                   sha256=text.get("sha256", ""), notebook=text.get("notebook", ""), detail=text.get("detail", ""),
                   parts={p: _number(text[p]) for p in PARTS if p in text},
                   written={k: _number(v) for k, v in text.items() if WRITTEN.fullmatch(k)})

    def differs(self, other: ClassRow) -> bool:
        """What a merge counts as changed: the total, the status, a part or the notebook's sha256."""
        return any(cell(self.value(k)) != cell(other.value(k)) for k in ("total", "status", "sha256", *PARTS))

    def with_hand(self, scores: Mapping[str, Any], points: Mapping[str, float]) -> ClassRow:
        """This row with the hand scores of ``points``' questions (None: left empty) added to the total."""
        written = {key: scores.get(key) for key in points}
        total = float(self.total or 0.0) + sum(v for v in written.values() if v is not None)
        return replace(self, written=written, total=total, hand_comment=str(scores.get("comment", "") or ""))


def columns(rows: list[ClassRow] = ()) -> list[str]:  # type: ignore[assignment]
    """grades.csv's columns: the student, the parts, the hand-scored questions (if any), then TAIL."""
    written = sorted({k for row in rows for k in row.written}, key=lambda k: int(k[1:]))
    return ["student", *PARTS, *written, *TAIL]


@dataclass(frozen=True)
class BatchRecord:
    """record.json: the row of a finished result and what it was graded from (the notebook's and grader's keys).

    Written last, after results.json and feedback.txt: a record means the result is complete, and a rerun reuses it
    while the notebook's sha256 and the grader's key are the same and it is not a grader error.
    """

    student: str
    sha256: str
    key: str
    row: ClassRow
    finished: str
    VERSION = 1

    def to_json(self) -> str:
        return json.dumps({"version": self.VERSION, "student": self.student, "sha256": self.sha256, "key": self.key,
                           "row": self.row.to_json(), "finished": self.finished}, indent=2) + "\n"

    @classmethod
    def load(cls, path: Path) -> BatchRecord | None:
        """The record at ``path``; None when there is none or it is not one (then the result is graded again)."""
        try:
            data = json.loads(path.read_text())
            return cls(student=str(data["student"]), sha256=str(data["sha256"]), key=str(data["key"]),
                       row=ClassRow.from_json(data["row"]), finished=str(data.get("finished") or ""))
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def reusable(self, sha256: str, key: str) -> bool:
        return self.sha256 == sha256 and self.key == key and self.row.status != SubmissionStatus.GRADER_ERROR
