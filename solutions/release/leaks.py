"""What must never reach the student notebook, and a check that finds it."""
import inspect
import re

from autograder.assignment import PARTS
from solutions.release.build import GENERATED_NOTE, REFERENCE_MODULE, reference

MARKERS = tuple(dict.fromkeys(("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS",
                               "autograder.flows", "grade_part(", "solutions.reference", REFERENCE_MODULE)))


def reference_body_lines(min_length=16):
    """Distinctive code lines of the reference solutions (the bodies between the markers)."""
    lines = set()
    for names in PARTS.values():
        for name in names:
            source = inspect.getsource(getattr(reference, name))
            body = source.split("### BEGIN SOLUTION", 1)[1].split("### END SOLUTION", 1)[0]
            for line in body.splitlines():
                line = line.strip()
                if len(line) >= min_length and not line.startswith("#"):
                    lines.add(line)
    return lines


def given_lines(source_notebook):
    """Lines the student is meant to see anyway: every non-solution cell of the instructor notebook."""
    return {line.strip() for cell in source_notebook.cells
            if not cell.metadata.get("nbgrader", {}).get("solution") for line in cell.source.splitlines()}


def find_leaks(notebook, source_notebook=None):
    """List of human-readable problems; empty when the student notebook is clean."""
    problems = []
    bodies = reference_body_lines() - (given_lines(source_notebook) if source_notebook is not None else set())
    for index, cell in enumerate(notebook.cells):
        text = cell.source
        for marker in MARKERS:
            if marker in text:
                problems.append(f"cell {index}: contains {marker!r}")
        for line in text.splitlines():
            if line.strip() in bodies:
                problems.append(f"cell {index}: contains a line of the reference solution: {line.strip()!r}")
        if GENERATED_NOTE in text or "edit that file, not this notebook" in text:
            problems.append(f"cell {index}: holds the instructor banner (instructor notebook only)")
        if cell.get("outputs"):
            problems.append(f"cell {index}: has outputs (the release must be output-free)")
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and cell.cell_type == "code" and re.search(r"\S", _strip_comments(text)):
            problems.append(f"cell {index}: graded cell {meta.get('grade_id')} still holds test code")
    return problems


def _strip_comments(text):
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
