"""The authoring guide, followed as written (issue 29): a new assignment without touching the engine.

docs/authoring.md holds one command per ```bash block. ``test_following_the_guide`` runs those commands in the
guide's order, each as ``bash -c`` from the root of a fresh clone of this checkout (HEAD plus the uncommitted
changes to tracked files), with the guide's example name (week8_rnn) replaced by a throwaway one, so the guide
cannot drift from what works: a command renamed, a step dropped or an output changed fails here. What the
commands make is graded for real: the reference notebook 100, the blank 0, and one deliberate mistake loses
points in its own part only. `git status` of the clone shows the scaffold and the release added only the
assignment's own folders, and nothing under autograder/ changed.

The clone uses this checkout's venv (a symlink; a fresh venv is test_readme's job), with the clone first on
PYTHONPATH: processes started outside its root (nbgrader in build/course) import the clone's packages, which
hold the throwaway assignment, rather than the checkout the venv's editable install points at.
"""
import csv
import json
import os
import re
import subprocess
import time
import uuid
import zipfile

import nbformat
import pytest

from autograder.assignment import ROOT
from autograder.authoring import scaffold
from autograder.authoring.check import reference_notebook
from tests.fresh import fresh_clone, shell_env

GUIDE = ROOT / "docs" / "authoring.md"
EXAMPLE = "week8_rnn"  # the guide's name for the assignment
# A mistake a student could make in part `scale`: the mean and deviation over dim 1, not the last dimension.
# Right for a 2-D input (two tests of three), wrong for a 3-D one.
DIM_ONE = '''
def standardize(x):
    centred = x - x.mean(dim=1, keepdim=True)
    return centred / centred.pow(2).mean(dim=1, keepdim=True).sqrt()
'''


def guide_commands(text=None):
    """The command of each ```bash block of the guide, in order (comment lines and trailing comments dropped)."""
    text = GUIDE.read_text() if text is None else text
    commands = []
    for block in re.findall(r"(?ms)^```bash\n(.*?)^```", text):
        lines = [re.split(r"\s+#\s", line.strip())[0] for line in block.splitlines()
                 if line.strip() and not line.strip().startswith("#")]
        assert len(lines) == 1, f"each ```bash block of docs/authoring.md holds one command, this one: {block!r}"
        commands.append(lines[0])
    return commands


# What each step of the guide is recognised by (a piece of its command), in the guide's order.
STEPS = ["new-assignment", "git status --short autograder/", "-m pytest", "release --update", "check-assignment",
         "autograder grade ", "grade-all", "autograder gradescope", "make student-repo", "public_checks.py"]


def step_of(command):
    found = [step for step in STEPS if step in command]
    assert len(found) == 1, f"the guide's command {command!r} matches the steps {found} (tests/test_authoring.py STEPS)"
    return found[0]


# ---- fast --------------------------------------------------------------------------------------------------------

def test_the_guide_has_each_step_once_in_order():
    assert [step_of(command) for command in guide_commands()] == STEPS
    assert all(EXAMPLE in command or "git status" in command for command in guide_commands())


def test_names_are_checked():
    assert scaffold.name_problem("week8_rnn") == ""
    for bad in ("Week8", "week8-rnn", "8week", "week8_", "_week8", "class", "x" * 41, "", "week 8"):
        assert scaffold.name_problem(bad), bad
    assert "week8_rnn" in scaffold.name_problem("Week8-RNN")  # the suggestion


def test_the_scaffold_refuses_a_taken_name_and_writes_nothing(tmp_path):
    (tmp_path / "solutions" / "week8_rnn").mkdir(parents=True)
    with pytest.raises(ValueError, match="already exists"):
        scaffold.scaffold("week8_rnn", root=tmp_path)
    with pytest.raises(ValueError, match="not a valid assignment name"):
        scaffold.scaffold("Week9", root=tmp_path)
    assert [p.name for p in (tmp_path / "solutions").iterdir()] == ["week8_rnn"]


def test_the_scaffold_fills_in_every_template(tmp_path):
    package = scaffold.scaffold("week9_demo", root=tmp_path)
    files = sorted(p.relative_to(package).as_posix() for p in package.rglob("*") if p.is_file())
    assert files == sorted(scaffold.rendered("week9_demo")), files
    assert "notebook/week9_demo.md" in files and "suites/tolerances.py" in files and "served.py" in files
    for path in package.rglob("*"):
        if path.is_file():
            text = path.read_text()
            assert "__NAME__" not in text and "__TITLE__" not in text, path
            if path.suffix == ".py":
                compile(text, str(path), "exec")
    suites = package / "suites"
    for part in ("scale", "distances"):
        suite = (suites / f"test_{part}.py").read_text()
        assert f'pytestmark = pytest.mark.part("{part}")' in suite and "@pytest.mark.points(" in suite
    assert (package / "reference" / "scale.py").read_text().count("### BEGIN SOLUTION") == 1


def test_the_cli_lists_the_authoring_commands():
    from autograder import cli
    usage = cli.parser().format_help()
    assert "new-assignment" in usage and "check-assignment" in usage


# ---- slow: the guide, for real -----------------------------------------------------------------------------------

def _class(clone, name):
    """submissions/: ann (the reference answers), ben (the blank student notebook), cy (one mistake, part scale)."""
    student = clone / "assignments" / name / f"{name}.ipynb"
    instructor = clone / "build" / "course" / "source" / name / f"{name}.ipynb"
    solved = nbformat.read(instructor, as_version=4)
    wrong = reference_notebook(nbformat.read(student, as_version=4), solved)
    for cell in wrong.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "scale_solution":
            cell.source = DIM_ONE.strip()
    folder = clone / "submissions"
    folder.mkdir()
    nbformat.write(reference_notebook(nbformat.read(student, as_version=4), solved), folder / "ann.ipynb")
    nbformat.write(nbformat.read(student, as_version=4), folder / "ben.ipynb")
    nbformat.write(wrong, folder / "cy.ipynb")


def _status(clone, *paths):
    return subprocess.run(["git", "status", "--short", "--untracked-files=normal", "--", *paths], cwd=clone,
                          capture_output=True, text=True, check=True).stdout


@pytest.mark.slow
def test_following_the_guide(tmp_path):
    name = f"week99_guide{uuid.uuid4().hex[:8]}"  # never a real assignment's name
    clone = fresh_clone(tmp_path / "checkout")
    os.symlink(ROOT / ".venv", clone / ".venv")
    env = dict(shell_env(), PYTHONPATH=str(clone))
    package, student = clone / "solutions" / name, clone / "assignments" / name / f"{name}.ipynb"
    took = {}
    for written in guide_commands():
        command, step = written.replace(EXAMPLE, name), step_of(written)
        if step == "grade-all":
            _class(clone, name)
        start = time.monotonic()
        run = subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True, timeout=300)
        took[step] = round(time.monotonic() - start, 1)
        out = run.stdout + run.stderr
        expected = 1 if step == "public_checks.py" else 0  # the blank notebook fails its public checks
        assert run.returncode == expected, f"`{command}` exited {run.returncode}:\n{out[-4000:]}"

        if step == "new-assignment":
            assert (package / "__init__.py").is_file() and (package / "notebook" / f"{name}.md").is_file(), out
            # Only the new package appeared; nothing of the engine (or anything else) changed.
            assert _status(clone).splitlines() == [f"?? solutions/{name}/"], _status(clone)
        elif step == "git status --short autograder/":
            assert run.stdout == "", f"the scaffold changed the engine:\n{run.stdout}"
        elif step == "-m pytest":
            assert re.search(r"\b6 passed\b", run.stdout), run.stdout[-2000:]
        elif step == "release --update":
            assert "Release ready." in run.stdout and "scale 40, distances 60 (total 100" in run.stdout, out[-3000:]
            assert student.is_file() and (clone / "assignments" / name / "student-ci-parts.json").is_file()
            cells = nbformat.read(student, as_version=4).cells
            stubs = [c.source for c in cells if c.metadata.get("nbgrader", {}).get("solution")]
            assert len(stubs) == 2 and all("raise NotImplementedError()" in s for s in stubs), stubs
        elif step == "check-assignment":
            for line in ("no leaks, the parts agree, the committed files are current", "reference        100 / 100",
                         "blank            0 / 100", f"{name}: ready"):
                assert line in run.stdout, f"{line!r} not in:\n{out[-3000:]}"
        elif step == "autograder grade ":
            result = json.loads((clone / "results.json").read_text())
            assert result["score"] == 0 and sum(t["max_score"] for t in result["tests"]) == 100, result["output"]
        elif step == "grade-all":
            rows = {row["student"]: row for row in csv.DictReader((clone / f"grades_{name}.csv").open())}
            points = {s: {part: float(rows[s][part]) for part in ("scale", "distances", "total")} for s in rows}
            assert points["ann"] == {"scale": 40, "distances": 60, "total": 100}, points
            assert points["ben"] == {"scale": 0, "distances": 0, "total": 0}, points
            # The mistake costs points in its own part only: the 3-D test of `scale`.
            assert 0 < points["cy"]["scale"] < 40 and points["cy"]["distances"] == 60, points
        elif step == "autograder gradescope":
            with zipfile.ZipFile(clone / "build" / "gradescope" / f"{name}.zip") as archive:
                assert archive.read("assignment.txt").decode().strip() == f"solutions.{name}"
                assert f"solutions/{name}/suites/test_scale.py" in archive.namelist()
        elif step == "make student-repo":
            repo = clone / "build" / "student-repo"
            assert (repo / f"{name}.ipynb").is_file(), out[-2000:]
            # The assignment's own parts file and notebook name, with no step of the author's (the outside check of
            # issue 29 found week 7's parts checked against a new assignment's notebook).
            parts = json.loads((repo / ".github" / "scripts" / "parts.json").read_text())["parts"]
            assert list(parts) == ["scale", "distances"], list(parts)
            assert f"NOTEBOOK: {name}.ipynb" in (repo / ".github" / "workflows" / "grade.yml").read_text()
        elif step == "public_checks.py":
            assert "0 / 2 parts pass" in run.stdout, out[-3000:]

    # The engine untouched; the assignment's own folders (and what the grading commands wrote, all ignored) only.
    assert _status(clone, "autograder") == ""
    assert sorted(_status(clone).splitlines()) == sorted([f"?? solutions/{name}/",
                                                          f"?? assignments/{name}/"]), _status(clone)
    print("seconds per step:", took)
