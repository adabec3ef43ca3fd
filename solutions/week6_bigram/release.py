"""Week 6's release: the shared release tooling (solutions/release) run for this assignment.

    AUTOGRADER_ASSIGNMENT=solutions.week6_bigram python -m solutions.week6_bigram.release [--update]

builds the instructor notebook from notebook/week6_bigram.md and reference/, runs the real
``nbgrader generate_assignment`` into build/course/, fails if the student notebook would leak
(solution code, hidden tests, a line of a reference body, outputs) or if the parts of
assignment.py, the notebook source and the suites disagree, and fails while the committed student
notebook (assignments/week6_bigram/week6_bigram.ipynb) or its student-CI parts file
(assignments/week6_bigram/student-ci-parts.json: `make student-repo` puts it into the student-CI template)
differs from what the sources generate (``--update`` rewrites them).
"""
import os
import sys

from autograder.plugin_api import ASSIGNMENT_VARIABLE

PACKAGE = __spec__.name.rsplit(".", 1)[0]  # this assignment's package, run as a module or imported
if __name__ == "__main__" and not os.environ.get(ASSIGNMENT_VARIABLE):
    # The shared tooling reads the current assignment: this one, for this command.
    os.environ[ASSIGNMENT_VARIABLE] = PACKAGE

from solutions.release.__main__ import build_course  # noqa: E402,F401  (Assignment.release names this module)


def main(argv=None):
    from autograder.assignment import ASSIGNMENT
    if ASSIGNMENT.package != PACKAGE:
        print(f"the current assignment is {ASSIGNMENT.package}: set {ASSIGNMENT_VARIABLE}={PACKAGE}", file=sys.stderr)
        return 2
    from solutions.release.__main__ import main as release
    from solutions.release.student_ci import ci_parts
    return release(argv, ci_parts=ci_parts())


if __name__ == "__main__":
    sys.exit(main())
