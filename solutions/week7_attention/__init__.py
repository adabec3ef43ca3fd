"""Week 7 (attention and transformers) as a plug-in of the grading engine: the first assignment package.

The engine (``autograder/``) imports nothing from here by name: it finds this package by the
discovery rule of ``autograder/plugin_api.py`` (``$AUTOGRADER_ASSIGNMENT``, default this package)
and reads ``ASSIGNMENT`` below. The package holds

    assignment.py   the facts (name, parts and graded functions, which calls which)
    suites/         the hidden pytest files, points beside each test; tolerances.py, verdicts.py
    diagnosis/      the misconception library (a failed check's likely cause and its hint)
    served/         what student functions are handed: the lab model served to a replica in the
                    worker, the probe models, the smoke-training lane and the reference runs

and points at the rest of week 7, which stays where the release tooling and the tests expect it
for now: ``solutions/reference/`` (the answers), ``solutions/lab/`` (the given lab),
``solutions/notebook/`` (the notebook source), ``solutions/release/`` (``make release``).

Why under ``solutions/`` and not beside the student notebook in ``assignments/week7_attention/``:
everything here except ``served/`` is hidden content, and ``solutions/`` is already the package
that is never shown to a sandboxed worker (``autograder.assignment.private()``), never handed
to students, and whose names the release's leak check looks for; ``assignments/`` holds only
what students may receive (the released notebook), so handing that folder out stays safe.

Standard library only (and ``autograder.plugin_api``): the Makefile reads the facts with the
system Python, before PyTorch is installed.
"""
from autograder.plugin_api import Assignment

from .assignment import KERNEL, NAME, PARTS, USES

_HERE = "solutions/week7_attention"

ASSIGNMENT = Assignment(
    name=NAME,
    parts=PARTS,
    uses=USES,
    package=__name__,
    suites=f"{_HERE}/suites",
    reference="solutions/reference",
    lab="solutions/lab/lab.py",
    notebook_source=f"solutions/notebook/{NAME}.md",
    student_notebook=f"assignments/{NAME}/{NAME}.ipynb",
    served=f"{__name__}.served",
    facts=f"{_HERE}/assignment.py",
    diagnosis=f"{__name__}.diagnosis",
    release="solutions.release.__main__",
    kernel=KERNEL,
    hidden=(f"{_HERE}/suites", "solutions/reference"),
    lab_code=("solutions/lab",),
    # What the grader reads at grading time besides the engine: the solutions package's own small
    # modules, the reference, the lab and this package.
    grader_code=("solutions/__init__.py", "solutions/_shapes.py", "solutions/reference", "solutions/lab", _HERE),
    # The reference smoke run's numbers: the reference, the lab and the optimizer it is trained with.
    reference_run=("solutions/_shapes.py", "solutions/reference", "solutions/lab", f"{_HERE}/served/eager_adamw.py"),
)
