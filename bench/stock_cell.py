"""The bench's baseline only, never used to grade: nbgrader's stock way of grading this assignment.

A course without this package puts the hidden tests in the notebook's test cells and lets
`nbgrader autograde` run them in the student's own kernel, all or nothing per cell. This
module is that cell's body: the part's hidden suite, in-process, against the notebook's
globals. bench.py swaps it into a copy of the course (course-stock), so the stock
nbgrader row of bench/results.md pays what such a course pays: the notebook's cells,
then every part's checks, in one kernel per student.
"""
from autograder.engine.plugin import run_suites
from autograder.engine.student import LocalTransport, Student

HOOK = "from stock_cell import grade_part"  # replaces the release's hook line in the stock course


def grade_part(part, namespace):
    results = run_suites(Student(LocalTransport(namespace)), [part])
    lost = [f"{r.title}: {r.message}" for r in results if r.score < r.points]
    assert not lost, "\n".join(lost)  # nbgrader: a test cell that raises scores 0
