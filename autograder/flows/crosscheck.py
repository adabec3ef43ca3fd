"""`python -m autograder crosscheck COURSE_DIR`: regrade the recorded submissions, compare with gradebook.db.

`nbgrader autograde` (through the course's grading service) keeps, for each student, the
exact bytes it graded and their sha256 in COURSE/isolated/<student>/ (see
flows/nbgrader/record.py). This regrades those bytes with the isolated grader (one shared
worker template, the course folder hidden from the worker) and compares every part with
the gradebook. A mismatch is any of:

* no record, a record whose copy no longer has its sha256, or a submission under
  submitted/ that is no longer the recorded one (autograde again);
* no gradebook entry, or an empty grade for a part (never read as 0);
* a part whose gradebook points differ from the regrade (or from the record).

Exit status 1 on any mismatch.
"""
from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..settings import Settings, add_options

if TYPE_CHECKING:
    import argparse

    from ..engine.grader import Grader


Mismatch = tuple[str, float | None, float | None]  # (part, the gradebook's score, the isolated grader's)


def crosscheck(course: str | Path, student_ids: Sequence[str] | None = None, hide: Iterable[str] = (),
               log: Callable[[str], object] = print,
               settings: Settings | None = None) -> dict[str, list[Mismatch]]:
    """{student: [(part, gradebook, isolated), ...]} of every student with a mismatch, regraded with ``settings``."""
    from ..engine.grader import Grader

    with Grader(settings) as grader:  # first: its template must not inherit the gradebook or the roster
        return _crosscheck(Path(course).resolve(), student_ids, hide, log, grader)


def _crosscheck(course: Path, student_ids: Sequence[str] | None, hide: Iterable[str], log: Callable[[str], object],
                grader: Grader) -> dict[str, list[Mismatch]]:
    from .nbgrader import ASSIGNMENT
    from .nbgrader.course import compare, gradebook_points, students
    from .nbgrader.record import Unreadable, load_record, read_submission, record_dir, sha256

    differ: dict[str, list[Mismatch]] = {}
    ids = student_ids or students(course)
    if not ids:
        log(f"no submissions under {course / 'submitted'}/<student>/{ASSIGNMENT}/")
        return differ
    log(f"cross-checking {len(ids)} submission(s) of {course}")
    book = gradebook_points(course, ids)
    for student in ids:
        started = time.monotonic()
        rows: list[Mismatch] = []
        record = load_record(course, student)
        copy = record_dir(course, student) / "submitted.ipynb"
        try:
            data = copy.read_bytes()
        except OSError:
            data = None
        if record is None or data is None:
            rows.append(("(no isolated record)", None, None))
        elif not record.get("sha256") or sha256(data) != record["sha256"]:
            rows.append(("(recorded copy altered or unreadable)", None, None))
        else:
            try:
                current = sha256(read_submission(course, student, grader.limits.notebook_mib))
            except Unreadable:
                current = None
            if current != record["sha256"]:
                rows.append(("(submitted/ changed since autograde)", None, None))
        isolated = {}
        if not rows:
            assert record is not None  # no rows: a record was read
            report = grader.grade(copy, hide=[str(course), *hide])
            isolated = {part: got for part, (got, _) in report.by_part().items()}
            recorded = {p: v.get("score") for p, v in record.get("parts", {}).items()}
            rows += [(f"{part} (record)", r, i) for part, r, i in compare(recorded, isolated)]
        graded = book.get(student)
        if graded is None:
            rows.append(("(not in the gradebook)", None, sum(isolated.values()) if isolated else None))
        elif isolated:
            rows += compare({p: s for p, (s, _) in graded.items()}, isolated)
        if rows:
            differ[student] = rows
        total = f"{sum(isolated.values()):>6g}" if isolated else "     -"
        log(f"  {student:<24}isolated {total}  {'DIFFERS' if rows else 'same'}  "
            f"({time.monotonic() - started:.1f} s)")
    return differ


@dataclass(frozen=True)
class CrosscheckOptions:
    """`crosscheck`'s own options (what it regrades with is the Settings)."""
    course: str
    student: list[str] | None
    hide: list[str]


def run(settings: Settings, options: CrosscheckOptions) -> int:
    course = Path(options.course)
    if not (course / "gradebook.db").exists():
        print(f"{course} has no gradebook.db: build the course (`make release`) and autograde it first",
              file=sys.stderr)
        return 2
    differ = crosscheck(course, options.student, options.hide, settings=settings)
    if not differ:
        print("every gradebook agrees with the isolated grader")
        return 0
    print(f"{len(differ)} student(s) whose gradebook does not match the isolated grader:")

    def fmt(v: float | None) -> str:
        return "missing" if v is None else f"{v:g}"

    for student, rows in differ.items():
        print(f"  {student}")
        for part, ours, theirs in rows:
            print(f"    {part:<14} gradebook {fmt(ours):>8}   isolated {fmt(theirs):>8}")
    return 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("crosscheck", help="regrade an nbgrader course with the isolated grader",
                                   description=__doc__)
    parser.add_argument("course", help="nbgrader course directory (with gradebook.db and submitted/)")
    parser.add_argument("--student", action="append", help="only this student (repeatable)")
    parser.add_argument("--hide", action="append", default=[], help="extra directory the worker must not see")
    add_options(parser)
    parser.set_defaults(handler=run, options=CrosscheckOptions)


def compare(gradebook: Mapping[str, float | None],
            isolated: Mapping[str, float | None]) -> list[Mismatch]:  # kept for callers of the old module
    from .nbgrader.course import compare as _compare
    return _compare(gradebook, isolated)
