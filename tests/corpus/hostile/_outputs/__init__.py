"""Hostile cases against the reports, graded by tests/test_outputs.py through `grade`, `grade-all` and Gradescope.

Same format as the cases of tests/corpus/hostile/ (ATTACKS, KEEPS, REPLACE, ADD, NEVER,
EXPECT; see its __init__), kept in this sub-package because they are graded by the output
tests rather than by test_hostile.py's campaign. A case about the *upload* rather than
the notebook's content has instead:

    UPLOAD   {"name": file name of the upload, "kind": "symlink" | "fifo" | "directory" | "copy",
              "target": for a symlink, a path relative to the grader's root (its own source)}
    STATUS   the grades.csv status it must get
    MESSAGE  what the feedback must say

Placeholders: __MARKER__ (unique per run; the grader runs with LMS_TOKEN=<it>).
"""
import importlib
import pkgutil


def case_names():
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def load(name):
    return importlib.import_module(f"{__name__}.{name}")


def notebook_cases():
    return [load(n) for n in case_names() if not hasattr(load(n), "UPLOAD")]


def upload_cases():
    return [load(n) for n in case_names() if hasattr(load(n), "UPLOAD")]
