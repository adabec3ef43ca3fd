"""`python -m autograder crosscheck COURSE_DIR`: regrade nbgrader's submissions with the isolated grader.

nbgrader runs the hidden suites inside the student's own kernel (see nbgrader_cell); the
CLI grader runs them against a sandboxed worker. Both should give every part the same
points. This regrades each `COURSE_DIR/submitted/<student>/week7_attention/*.ipynb` with
the CLI's engine (one shared worker template) and lists every student whose gradebook
points differ, part by part. Exit status 1 when any differs or was never autograded.
"""
import sys
import time
from pathlib import Path

TOLERANCE = 1e-6


def compare(gradebook, isolated):
    """[(part, gradebook score, isolated score)] where they differ; a missing part counts as None."""
    parts = sorted(set(gradebook) | set(isolated))
    out = []
    for part in parts:
        ours, theirs = gradebook.get(part), isolated.get(part)
        if ours is None or theirs is None or abs(ours - theirs) > TOLERANCE:
            out.append((part, ours, theirs))
    return out


def crosscheck(course, student_ids=None, hide=(), log=print):
    """{student: [(part, gradebook, isolated), ...]} of every student whose points differ."""
    from ..engine.grade import grade_notebook
    from ..engine.template import Zygote
    from .nbgrader_course import ASSIGNMENT, gradebook_points, students

    zygote = Zygote()  # first: forked from this process, it must not inherit the gradebook or the roster
    course = Path(course).resolve()
    differ = {}
    try:
        ids = student_ids or students(course)
        if not ids:
            log(f"no submissions under {course / 'submitted'}/<student>/{ASSIGNMENT}/")
            return differ
        log(f"cross-checking {len(ids)} submission(s) of {course}")
        book = gradebook_points(course, ids)
        for student in ids:
            notebook = course / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
            started = time.monotonic()
            report = grade_notebook(notebook, zygote, hide=[str(course), *hide])
            isolated = {part: got for part, (got, _) in report.by_part().items()}
            if book.get(student) is None:
                differ[student] = [("(not autograded by nbgrader)", None, report.score)]
            else:
                found = compare({p: s for p, (s, _) in book[student].items()}, isolated)
                if found:
                    differ[student] = found
            log(f"  {student:<24}isolated {report.score:>6g}  "
                f"{'DIFFERS' if student in differ else 'same'}  ({time.monotonic() - started:.1f} s)")
    finally:
        zygote.close()
    return differ


def _run(args):
    course = Path(args.course)
    if not (course / "gradebook.db").exists():
        print(f"{course} has no gradebook.db: build the course (`make release`) and autograde it first",
              file=sys.stderr)
        return 2
    differ = crosscheck(course, args.student, args.hide)
    if not differ:
        print("every gradebook agrees with the isolated grader")
        return 0
    print(f"{len(differ)} student(s) whose gradebook points differ from the isolated grader:")
    for student, rows in differ.items():
        print(f"  {student}")
        for part, ours, theirs in rows:
            fmt = lambda v: "missing" if v is None else f"{v:g}"  # noqa: E731
            print(f"    {part:<14} gradebook {fmt(ours):>8}   isolated {fmt(theirs):>8}")
    return 1


def register(subparsers):
    parser = subparsers.add_parser("crosscheck", help="regrade an nbgrader course with the isolated grader",
                                   description=__doc__)
    parser.add_argument("course", help="nbgrader course directory (with gradebook.db and submitted/)")
    parser.add_argument("--student", action="append", help="only this student (repeatable)")
    parser.add_argument("--hide", action="append", default=[], help="extra directory the worker must not see")
    parser.set_defaults(handler=_run)
