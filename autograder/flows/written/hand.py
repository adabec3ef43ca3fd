"""Hand scores of the written answers: the CSV ``student,q1,q2,q3,comment``.

``python -m autograder written`` writes a template with every student and empty scores; TAs
fill it in; ``load_hand`` reads it back (every problem reported with its line, all at once);
``merge_hand`` adds the columns to grade-all's rows; autograder/flows/nbgrader/hand.py writes
it into an nbgrader gradebook. An empty score means "not graded yet" (None), never 0.
"""
import csv
import io
import math
import os
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ...engine.safe_text import csv_cell
from ..records import ClassRow

if TYPE_CHECKING:
    from .extract import Question


class HandScoreError(ValueError):
    """hand.csv cannot be used as it is; the message lists every problem with its line."""


def question_points(qs: "Iterable[Question] | None" = None) -> dict[str, float]:
    """{"q1": 5.0, ...} from the released notebook's written-answer cells."""
    from .extract import questions

    return {q.key: q.points for q in (qs or questions())}


def template(students: Iterable[str], points: Mapping[str, float]) -> str:
    """The text of a blank hand.csv for ``students`` (columns student, q1.., comment)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", *points, "comment"])
    for student in students:
        writer.writerow([csv_cell(student), *([""] * len(points)), ""])
    return out.getvalue()


def load_hand(path: str | os.PathLike[str], students: Iterable[str] | None = None,
              points: Mapping[str, float] | None = None) -> dict[str, dict[str, Any]]:
    """{student: {"q1": float | None, ..., "comment": str}} from the CSV at ``path``.

    ``students``: the known student ids (a name outside them is an error); ``points``: the
    most each question is worth (default: the released notebook's). Raises HandScoreError
    listing every unknown or doubled student, non-numeric, negative or too-high score and
    missing column.
    """
    points = points or question_points()
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as err:
        raise HandScoreError(f"{path}: cannot be read ({err})") from None
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in (reader.fieldnames or [])]
    reader.fieldnames = header
    missing = [c for c in ["student", *points] if c not in header]
    if missing:
        raise HandScoreError(f"{path}: missing column(s) {', '.join(missing)}; the header must be "
                             f"student,{','.join(points)},comment")
    known = set(students) if students is not None else None
    problems, hand = list[str](), dict[str, dict[str, Any]]()
    for line, row in enumerate(reader, start=2):
        student = (row.get("student") or "").strip()
        if student.startswith("'") and known is not None and student not in known and student[1:] in known:
            student = student[1:]  # the quote csv_cell puts before a formula-like name
        if not student:
            if any((row.get(k) or "").strip() for k in header):
                problems.append(f"line {line}: no student name")
            continue
        if known is not None and student not in known:
            problems.append(f"line {line}: unknown student {student!r} (not among the submissions)")
            continue
        if student in hand:
            problems.append(f"line {line}: student {student!r} appears twice")
            continue
        entry: dict[str, Any] = {}
        for key, top in points.items():
            raw = (row.get(key) or "").strip()
            if not raw:
                entry[key] = None
                continue
            try:
                value = float(raw.replace(",", ".")) if raw.count(",") == 1 and "." not in raw else float(raw)
            except ValueError:
                problems.append(f"line {line}: {student} {key} = {raw!r} is not a number")
                continue
            if not math.isfinite(value) or value < 0:
                problems.append(f"line {line}: {student} {key} = {raw!r} must be between 0 and {top:g}")
            elif value > top + 1e-9:
                problems.append(f"line {line}: {student} {key} = {value:g} is above the question's {top:g} points")
            else:
                entry[key] = value
        entry["comment"] = (row.get("comment") or "").strip()
        hand[student] = entry
    if problems:
        raise HandScoreError(f"{path}: {len(problems)} problem(s)\n  " + "\n  ".join(problems))
    return hand


def hand_columns(columns: Iterable[str], points: Collection[str]) -> list[str]:
    """grade-all's CSV columns with the written questions right after the last part (before total)."""
    cols = [c for c in columns if c not in points]
    at = cols.index("total") if "total" in cols else len(cols)
    return cols[:at] + list(points) + cols[at:]


def merge_hand(rows: list[ClassRow], hand: dict[str, dict[str, Any]], points: dict[str, float]) -> list[ClassRow]:
    """grade-all rows with the hand scores: q1.. columns and a total that includes them (ClassRow.with_hand).

    Returns new rows (the rows are not changed). A student absent from ``hand`` or a question
    left empty gets an empty cell and adds nothing to the total; ``hand_comment`` holds the TA's
    comment. Students in ``hand`` without a row are an error (HandScoreError).
    """
    names = {row.student for row in rows}
    stray = sorted(set(hand) - names)
    if stray:
        raise HandScoreError(f"hand scores for student(s) with no row: {', '.join(stray)}")
    return [row.with_hand(hand.get(row.student, {}), points) for row in rows]
