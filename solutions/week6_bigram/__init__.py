"""Week 6 (tokens and a bigram language model) as a plug-in of the grading engine: the second assignment package.

Graded with ``AUTOGRADER_ASSIGNMENT=solutions.week6_bigram python -m autograder grade NOTEBOOK``. The
engine (``autograder/``) imports nothing from here by name: it reads ``ASSIGNMENT`` below, found by
the discovery rule of ``autograder/plugin_api.py``. Everything of week 6 lives in this folder:

    assignment.py   the facts (name, parts and graded functions, which calls which)
    lab.py          the given lab code (public; the notebook holds a copy): the corpus, BigramLM, its training loop
    reference/      the answers, with ### BEGIN/END SOLUTION inside each body (hidden)
    suites/         the hidden pytest files, points beside each test; tolerances.py (hidden)
    served/         what student functions are handed: a BigramLM replica in the worker, whose
                    train/eval flags, weights, gradients and forward passes go back to the grader
    notebook/       the notebook source instructors edit (week6_bigram.md)
    release.py      builds the course and the student notebook with the shared release tooling

and the released student notebook lies in ``assignments/week6_bigram/``. No misconception library:
a failed check keeps its static hint.

Standard library only (and ``autograder.plugin_api``).
"""
from autograder.plugin_api import Assignment

from .assignment import NAME, PARTS, USES

_HERE = "solutions/week6_bigram"

ASSIGNMENT = Assignment(
    name=NAME,
    parts=PARTS,
    uses=USES,
    package=__name__,
    suites=f"{_HERE}/suites",
    reference=f"{_HERE}/reference",
    lab=f"{_HERE}/lab.py",
    notebook_source=f"{_HERE}/notebook/{NAME}.md",
    student_notebook=f"assignments/{NAME}/{NAME}.ipynb",
    served=f"{__name__}.served",
    facts=f"{_HERE}/assignment.py",
    release=f"{__name__}.release",
    hidden=(f"{_HERE}/suites", f"{_HERE}/reference"),
    lab_code=(f"{_HERE}/lab.py",),
    # What the grader reads at grading time besides the engine: the solutions package's own module and this package.
    grader_code=("solutions/__init__.py", _HERE),
    # No reference run: nothing is trained while grading.
    reference_run=(),
)
