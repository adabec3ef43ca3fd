"""Hand scores of the written answers into an nbgrader gradebook.

    python -m autograder.flows.nbgrader.hand COURSE hand.csv [--dry-run]

hand.csv is the file `python -m autograder written` starts (student,q1,q2,q3,comment). Each
score becomes the manual score of that question's answer cell (grade_id q1_positions, ...)
in COURSE/gradebook.db, exactly what the formgrader stores when a TA types a score there
(``manual_score``, and ``needs_manual_grade`` cleared); the comment becomes the manual
comment of the first question's answer cell. An empty score leaves the gradebook as it is.
Every change is printed (old -> new); students in the CSV without an autograded submission
in the gradebook are an error, and nothing is written then. Run `nbgrader export` (or
`make nbgrader-autograde`, which ends with it) afterwards for grades.csv.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import ASSIGNMENT

if TYPE_CHECKING:
    from ..written.extract import Question


def _fmt(value: float | None) -> str:
    return "empty" if value is None else f"{value:g}"


def write_hand(course: str | os.PathLike[str], hand: Mapping[str, Mapping[str, Any]], questions: Sequence[Question],
               dry_run: bool = False) -> list[str]:
    """Write ``hand`` ({student: {"q1": float|None, ..., "comment": str}}) into COURSE/gradebook.db.

    ``questions``: [Question] (extract.questions()). Returns the list of changes as text lines;
    raises LookupError (nothing written) when a student or an answer cell is not in the gradebook.
    """
    from nbgrader.api import Gradebook, MissingEntry

    changes: list[str] = []
    missing: list[str] = []
    with Gradebook(f"sqlite:///{Path(course).resolve() / 'gradebook.db'}") as gradebook:
        for student, entry in sorted(hand.items()):
            try:
                gradebook.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, student)
            except MissingEntry:
                missing.append(f"{student}: no submission of {ASSIGNMENT} in the gradebook (autograde it first)")
                continue
            for q in questions:
                value = entry.get(q.key)
                if value is None:
                    continue
                try:
                    grade = gradebook.find_grade(q.grade_id, ASSIGNMENT, ASSIGNMENT, student)
                except MissingEntry:
                    missing.append(f"{student}: no grade cell {q.grade_id} in the gradebook")
                    continue
                if value > grade.max_score + 1e-9:
                    missing.append(f"{student}: {q.key} = {value:g} is above the cell's {grade.max_score:g} points")
                    continue
                if grade.manual_score is None or abs(grade.manual_score - value) > 1e-9 or grade.needs_manual_grade:
                    changes.append(f"{student} {q.grade_id}: {_fmt(grade.manual_score)} -> {value:g}")
                    grade.manual_score = value
                    grade.needs_manual_grade = False
            comment = entry.get("comment") or ""
            if comment and questions:
                try:
                    cell = gradebook.find_comment(questions[0].grade_id, ASSIGNMENT, ASSIGNMENT, student)
                except MissingEntry:
                    missing.append(f"{student}: no comment cell {questions[0].grade_id} in the gradebook")
                else:
                    if cell.manual_comment != comment:
                        changes.append(f"{student} comment on {questions[0].grade_id}: "
                                       f"{cell.manual_comment!r} -> {comment!r}")
                        cell.manual_comment = comment
        if missing:
            gradebook.db.rollback()
            raise LookupError("nothing written:\n  " + "\n  ".join(missing))
        if dry_run:
            gradebook.db.rollback()
        else:
            gradebook.db.commit()
    return changes


def read_back(course: str | os.PathLike[str], questions: Iterable[Question],
              students: Iterable[str]) -> dict[str, dict[str, float | None]]:
    """{student: {"q1": manual score or None, ...}} from the gradebook (for checks and tests)."""
    from nbgrader.api import Gradebook, MissingEntry

    out: dict[str, dict[str, float | None]] = {}
    with Gradebook(f"sqlite:///{Path(course).resolve() / 'gradebook.db'}") as gradebook:
        for student in students:
            scores: dict[str, float | None] = {}
            for q in questions:
                try:
                    scores[q.key] = gradebook.find_grade(q.grade_id, ASSIGNMENT, ASSIGNMENT, student).manual_score
                except MissingEntry:
                    scores[q.key] = None
            out[student] = scores
    return out


@dataclass(frozen=True)
class HandOptions:
    course: str
    hand: str
    dry_run: bool


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder.flows.nbgrader.hand", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.set_defaults(handler=run, options=HandOptions)
    parser.add_argument("course", help="the nbgrader course folder (with gradebook.db)")
    parser.add_argument("hand", help="hand.csv: student,q1,q2,q3,comment")
    parser.add_argument("--dry-run", action="store_true", help="print what would change, write nothing")
    return parser


def main(argv: list[str] | None = None) -> int:
    from ...command_line import run as run_command

    return run_command(parser(), argv, "nbgrader-hand")


def run(options: HandOptions) -> int:
    from ..written.extract import questions as written_questions
    from ..written.hand import HandScoreError, load_hand

    if not (Path(options.course) / "gradebook.db").is_file():
        print(f"{options.course} has no gradebook.db", file=sys.stderr)
        return 2
    qs = written_questions()
    try:
        hand = load_hand(options.hand, points={q.key: q.points for q in qs})
        changes = write_hand(options.course, hand, qs, options.dry_run)
    except (HandScoreError, LookupError) as err:
        print(str(err).strip("'\""), file=sys.stderr)
        return 2
    for line in changes:
        print(("would change " if options.dry_run else "") + line)
    print(f"{len(changes)} change(s) {'to make' if options.dry_run else 'written'} in {Path(options.course) / 'gradebook.db'}"
          + ("" if options.dry_run or not changes else "; run `nbgrader export` for grades.csv"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
