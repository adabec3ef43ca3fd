"""Every `make` command the README tells instructors, TAs and students to type exists, and the quick ones work.

Each command is taken from the README itself (code blocks and inline `make ...`), so a
renamed target or a README typo fails here. `make -n` checks that make can plan it;
the quick ones are also run for real and their output checked. The slow ones are
covered elsewhere through the commands they wrap: release (test_release), test-part
(its pytest markers), nbgrader-autograde and crosscheck (test_nbgrader_flow),
gradescope (test_gradescope), bench (not a test: it only measures).
"""
import csv
import json
import re
import shutil
import subprocess

import pytest

from autograder.assignment import NAME, ROOT
from tests.points import total
README = (ROOT / "README.md").read_text()
PLACEHOLDERS = {"path/to/notebook.ipynb": f"assignments/{NAME}/{NAME}.ipynb",
                "path.ipynb": f"assignments/{NAME}/{NAME}.ipynb",
                "submissions/": "build/readme-submissions/", "PART=…": "PART=masks"}


def readme_make_commands():
    """Every `make …` command line of the README, comments stripped."""
    found = re.findall(r"(?m)^(?:# or: )?(make [^#\n`]*)", README) + re.findall(r"`(make [^`]+)`", README)
    commands = []
    for command in found:
        command = command.strip()
        for placeholder, value in PLACEHOLDERS.items():
            command = command.replace(placeholder, value)
        if command not in commands:
            commands.append(command)
    return commands


def make(command, dry=False):
    args = command.split()[1:]
    return subprocess.run(["make", *(["-n"] if dry else []), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=900)


def test_readme_names_the_main_commands():
    commands = readme_make_commands()
    for target in ("make release", "make test", "make autograde", "make grade-all", "make nbgrader-autograde",
                   "make crosscheck", "make gradescope", "make student-ci-check", "make smoke", "make bench"):
        assert any(c == target or c.startswith(target + " ") for c in commands), f"README lost `{target}`"


@pytest.mark.parametrize("command", readme_make_commands())
def test_make_can_plan_every_readme_command(command):
    run = make(command, dry=True)
    assert run.returncode == 0, f"`{command}` from the README: make -n failed\n{run.stderr[-2000:]}"
    assert "No rule to make target" not in run.stderr


@pytest.mark.slow
def test_quick_readme_commands_work(tmp_path, solution_notebook):
    out = tmp_path / "results.json"
    run = make(f"make autograde SUBMISSION={solution_notebook} OUT={out}")
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(out.read_text())["score"] == total()

    folder = ROOT / "build" / "readme-submissions"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    shutil.copy(solution_notebook, folder / "ada.ipynb")
    grades = tmp_path / "grades.csv"
    run = make(f"make grade-all SUBMISSIONS={folder} GRADES={grades} JOBS=1")
    shutil.rmtree(folder, ignore_errors=True)
    assert run.returncode == 0, run.stderr[-2000:]
    (row,) = csv.DictReader(grades.open())
    assert row["student"] == "ada" and float(row["total"]) == total() and row["status"] == "graded"

    run = make("make student-ci-check")  # the released notebook: stubs only
    assert run.returncode != 0 and "0 / 7 parts pass" in run.stdout + run.stderr, run.stdout[-2000:]
    run = make(f"make student-ci-check NOTEBOOK={solution_notebook}")
    assert run.returncode == 0 and "7 / 7 parts pass" in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]

    run = make("make smoke")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "max prefix change before training: 0.00e+00" in run.stdout and "2.0794" in run.stdout, run.stdout[-2000:]
