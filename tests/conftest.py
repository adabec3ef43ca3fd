"""Shared fixtures of the package's own tests, and one marker per graded part.

`pytest tests -m masks` (or `make test-part PART=masks`) runs only what concerns a part.
"""
import subprocess
import sys

import pytest

from autograder.assignment import INSTRUCTOR_NOTEBOOK as SOLUTION_NB, PART_IDS as PARTS, ROOT, STUDENT_NOTEBOOK as STUDENT_NB


def pytest_configure(config):
    # Derived from the assignment's facts (autograder.assignment.PARTS), the parts' one home; the static markers (slow) and the test
    # paths are in pyproject.toml [tool.pytest.ini_options].
    for part in PARTS:
        config.addinivalue_line("markers", f"{part}: concerns the graded part `{part}`")


@pytest.fixture(scope="session")
def solution_notebook():
    """The instructor notebook with every solution, built fresh from the sources."""
    subprocess.run([sys.executable, "-m", "solutions.release", "--source-only"], cwd=ROOT, check=True,
                   capture_output=True)
    return SOLUTION_NB


@pytest.fixture(scope="session")
def student_notebook():
    return STUDENT_NB


@pytest.fixture(scope="session")
def small_class(tmp_path_factory, solution_notebook, student_notebook):
    """tests/batch/small_class.py graded once by the real `grade-all … --roster … --lms canvas --lms moodle`.

    Returns (submissions folder, roster path, grades.csv path, the completed process).
    """
    from tests.batch.small_class import build

    base = tmp_path_factory.mktemp("small_class")
    folder = base / "submissions"
    folder.mkdir()
    roster = build(folder, student_notebook, solution_notebook)
    out = base / "out" / "grades.csv"
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(folder), "--out", str(out),
                           "--jobs", "2", "--roster", str(roster), "--lms", "canvas", "--lms", "moodle"],
                          cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return folder, roster, out, proc


@pytest.fixture(scope="session")
def wheel_installs(tmp_path_factory):
    """tests/wheel_env.py's two installs (the wheel's venv, the Gradescope image), building in the background."""
    from tests.wheel_env import Background

    installs = Background(tmp_path_factory.mktemp("wheel"))
    yield installs
    installs.close()


@pytest.fixture(scope="session", autouse=True)
def _start_the_installs_early(request):
    """When tests/test_wheel.py is selected, its installs start with the session's first test, not its own."""
    if any(item.nodeid.startswith("tests/test_wheel.py") for item in request.session.items):
        request.getfixturevalue("wheel_installs")


@pytest.fixture(autouse=True)
def _working_directory_setting_kept():
    """A command run in this process (cli.main) fixes $AUTOGRADER_WORKDIR for the processes it starts; it must not
    outlive the test, or every later subprocess (a recipe's copy of the package) would build into this checkout."""
    import os

    from autograder.assignment import WORKDIR_VARIABLE

    before = os.environ.get(WORKDIR_VARIABLE)
    yield
    if before is None:
        os.environ.pop(WORKDIR_VARIABLE, None)
    else:
        os.environ[WORKDIR_VARIABLE] = before
