"""What an nbgrader autograder cell runs: one part's hidden suite, inside the student's kernel.

nbgrader executes test cells in the student's own kernel, so here (unlike the CLI) the
student's code shares the process with the checks; `python -m autograder crosscheck`
regrades with the isolated grader and lists any gradebook that differs. The cell's
value is the part's score: nbgrader reads a numeric result as partial credit. Nothing
is written to stderr, because nbgrader zeroes a cell that writes there.
"""
import sys
import warnings

from ..engine.plugin import run_suites
from ..engine.student import LocalTransport, Student


def grade_part(part, namespace):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        saved_err, sys.stderr = sys.stderr, sys.stdout
        try:
            results = run_suites(Student(LocalTransport(dict(namespace))), [part])
        finally:
            sys.stderr = saved_err
    score = sum(r.score for r in results)
    total = sum(r.points for r in results)
    print(f"Part {part}: {score:g} / {total:g}")
    for r in results:
        mark = "ok  " if r.status == "passed" else "FAIL"
        print(f"  {mark} {r.title} ({r.score:g}/{r.points:g})" + (f": {r.message}" if r.message else ""))
    return score
