"""An nbgrader course of an instructor's own, as the nbgrader tests use it.

`nbgrader quickstart` makes the course (its own nbgrader_config.py, a header notebook every
assignment gets), docs/nbgrader.md's one install step puts this assignment in it (`python -m autograder
install-nbgrader COURSE`), and a second, ordinary assignment (week0_basics: a function to write,
test cells of its own, run by nbgrader in the python3 kernel) is released the nbgrader way.
Commands run as an instructor types them: the venv's `nbgrader` on PATH, from the course folder,
no variable of the package's own (no PYTHONHASHSEED, no JUPYTER_PATH).
"""
from __future__ import annotations

import contextlib
import copy
import os
import subprocess
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.assignment import ROOT

BIN = Path(sys.executable).parent
ORDINARY = "week0_basics"  # the course's other assignment: nbgrader alone grades it


def shell_env() -> dict[str, str]:
    """An instructor's shell with this venv activated."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONHASHSEED", "JUPYTER_PATH", "PYTHONPATH")}
    env["PATH"] = str(BIN) + os.pathsep + env.get("PATH", "")
    env["VIRTUAL_ENV"] = str(BIN.parent)
    return env


def nbgrader(course: Path, *args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    """`nbgrader ARGS` typed in the course folder (the venv's console script)."""
    return subprocess.run([str(BIN / "nbgrader"), *args], cwd=course, env=shell_env(), capture_output=True,
                          text=True, timeout=timeout)


def ok(run: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert run.returncode == 0, f"{run.args} exited {run.returncode}:\n{run.stdout[-3000:]}\n{run.stderr[-6000:]}"
    return run


def _meta(grade_id, **kind):
    return {"nbgrader": {"grade_id": grade_id, "schema_version": 3, "grade": False, "solution": False,
                         "locked": False, **kind}}


def ordinary_source() -> nbformat.NotebookNode:
    """week0_basics: write double(x); two test cells (1 point each), one with a hidden test, one naming its kernel."""
    cells = [
        new_markdown_cell("# Week 0\nWrite `double(x)`.", metadata=_meta("intro", locked=True)),
        new_code_cell("def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION",
                      metadata=_meta("double", solution=True)),
        new_code_cell("assert double(2) == 4\n### BEGIN HIDDEN TESTS\nassert double(10) == 20\n### END HIDDEN TESTS",
                      metadata=_meta("test_double", grade=True, locked=True, points=1)),
        new_code_cell("import sys\nprint('kernel', type(get_ipython()).__name__, sys.version_info[:2])\n"
                      "assert double(-1) == -2", metadata=_meta("test_negative", grade=True, locked=True, points=1)),
    ]
    return new_notebook(cells=cells, metadata={"kernelspec": {"display_name": "Python 3", "language": "python",
                                                              "name": "python3"}})


def ordinary_answers() -> dict[str, str]:
    """What three students write for week0_basics: right (2/2), half right (1/2), raising (0/2)."""
    return {"alice": "def double(x):\n    return 2 * x", "bob": "def double(x):\n    return abs(2 * x)",
            "carol": "def double(x):\n    raise ValueError('not today')"}


def instructor_course(base: Path) -> Path:
    """quickstart + the install step + week0_basics released: a course nothing has been graded in."""
    ok(nbgrader(base, "quickstart", "ml101"))
    course = base / "ml101"
    ok(subprocess.run([str(BIN / "python"), "-m", "autograder", "install-nbgrader", str(course)], cwd=ROOT,
                      env=shell_env(), capture_output=True, text=True, timeout=600))
    source = course / "source" / ORDINARY / f"{ORDINARY}.ipynb"
    source.parent.mkdir(parents=True)
    nbformat.write(ordinary_source(), source)
    ok(nbgrader(course, "generate_assignment", ORDINARY))
    return course


def submit_ordinary(course: Path) -> None:
    released = nbformat.read(course / "release" / ORDINARY / f"{ORDINARY}.ipynb", as_version=4)
    for student, answer in ordinary_answers().items():
        nb = copy.deepcopy(released)
        for cell in nb.cells:
            if cell.metadata.get("nbgrader", {}).get("grade_id") == "double":
                cell.source = answer
        path = course / "submitted" / student / ORDINARY / f"{ORDINARY}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, path)


def without_our_lines(course: Path) -> None:
    """The course's nbgrader_config.py as it was before the install step."""
    from autograder.flows.nbgrader.install import config_lines

    config = course / "nbgrader_config.py"
    text, lines = config.read_text(), config_lines()
    assert lines in text
    config.write_text(text.replace(lines, ""))


@contextlib.contextmanager
def services(*courses: Path):
    """Stop the courses' grading services when done (they otherwise wait their idle time, 10 minutes)."""
    from autograder.flows.nbgrader import client

    try:
        yield
    finally:
        for course in courses:
            client.stop(course)
