"""The nbgrader flow, confined: the isolated grader decides, nbgrader keeps the books.

    python -m autograder.flows.nbgrader COURSE_DIR [--feedback LEVEL]   (`make nbgrader-autograde`)

  record.py         read each submission once, keep its bytes and the isolated grade (build/course/isolated/)
  course.py         the flow: grade every submission in the sandbox, then the real `nbgrader autograde`,
                    check the gradebook against the records, generate_feedback, export
  kernel.py         the Jupyter kernel nbgrader runs (`week7-isolated`): it runs no code, it answers
                    each test cell with the recorded part score and replays other cells' recorded output
  preprocessors.py  what nbgrader_config.py names: metadata repair, the kernel guard, feedback clean-up

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
