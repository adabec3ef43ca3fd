"""This assignment in nbgrader: the plain nbgrader commands, its grades from the sandbox.

    python -m autograder install-nbgrader COURSE      once per course (install.py)
    nbgrader autograde week7_attention                 ... and every other nbgrader command, as usual

  install.py        the one install step: two lines in the course's nbgrader_config.py, the kernel
                    spec, the assignment in source/ and the gradebook (generate_assignment)
  config.py         those lines' function: this package's preprocessors in nbgrader's lists, and the
                    settings c.SandboxGrading.* (feedback level, the service's idle time)
  preprocessors.py  per assignment (others are untouched): metadata repair, SandboxGrade (the grading
                    service grades the submitted bytes), the isolated kernel, model answers for graders
  feedback.py       generate_feedback: no hidden tests, part titles, wrapping
  service.py        the course's grading service: a warm Grader behind a private Unix socket (address.py)
  client.py         how nbgrader's process reaches it (and starts it)
  record.py         a submission's bytes and its sandboxed grade, kept in COURSE/isolated/<student>/
  kernel.py         the Jupyter kernel nbgrader runs for this notebook (`week7-isolated`): it runs no
                    code, it answers each test cell with the recorded part score (kernelspec.py)
  course.py         `make nbgrader-autograde`: nbgrader autograde with a progress bar, the gradebook
                    checked against the records, generate_feedback, export (a convenience)
  hand.py           hand scores of the written answers into the gradebook

This module stays light (no nbgrader, no torch): the kernel imports it.
"""
import re

from ...assignment import NAME, PART_IDS as PARTS

ASSIGNMENT = NAME
KERNEL_NAME = "week7-isolated"
RECORDS = "isolated"  # COURSE/isolated/<student>/{submitted.ipynb,record.json}: never shown to students
BEGIN, END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
# The hook line solutions/release/build.py writes into each test cell (inside the hidden region).
HOOK = re.compile(r"^grade_part\((['\"])(\w+)\1, globals\(\)\)\s*$", re.M)


def part_of(grade_id):
    """The part a graded cell belongs to (its grade_id is `<part>_tests`), or None."""
    if not isinstance(grade_id, str):
        return None
    part = grade_id[:-len("_tests")] if grade_id.endswith("_tests") else None
    return part if part in PARTS else None


def hooked_part(code):
    """The part whose test-cell hook line `code` holds, or None."""
    match = HOOK.search(code or "")
    return match.group(2) if match and match.group(2) in PARTS else None
