"""Where grading cannot run at all (macOS, Windows): `grade` and `grade-all` say so plainly and how to grade, and
write nothing; the commands that need no sandbox keep working.

`grade` and `grade-all` run in this process with sys.platform set to "darwin" (the probe's first question).
The commands that must keep working are run for real with the Linux-only code made unimportable: what runs
and confines workers (memfd, prctl, namespaces, Landlock, seccomp, /proc).
"""
import csv
import subprocess
import sys

import pytest

from autograder import cli
from autograder.flows import batch_pool  # noqa: F401 - its psutil loads for the real platform, before the test fakes one
from autograder.assignment import PART_IDS, ROOT, STUDENT_NOTEBOOK
from autograder.sandbox import confinement

# What runs or confines student code (memfd, prctl, namespaces, Landlock, seccomp, /proc): Linux only.
LINUX_ONLY = ("autograder.sandbox.keeper.template", "autograder.sandbox.worker.serve", "autograder.sandbox.steps",
              "autograder.sandbox.confine", "autograder.sandbox.landlock", "autograder.sandbox.keeper.budget",
              "autograder.engine.supervisor", "autograder.engine.template", "autograder.linux")
WITHOUT_LINUX = f"""
import runpy, sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.startswith({LINUX_ONLY!r}):
            raise ImportError(f"{{name}} is Linux-only and must not be needed here")
sys.meta_path.insert(0, Refuse())
sys.argv = ["autograder", *sys.argv[1:]]
runpy.run_module("autograder", run_name="__main__")
"""


@pytest.fixture
def macos(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(confinement, "_probed", {})


def test_grade_says_it_needs_linux_and_how(macos, tmp_path, capsys):
    out = tmp_path / "results.json"
    assert cli.main(["grade", str(STUDENT_NOTEBOOK), "--out", str(out)]) == 2 and not out.exists()
    said = capsys.readouterr().err
    for words in ("darwin", "Linux", "Docker", "Gradescope"):
        assert words in said, said


def test_grade_all_says_it_before_grading_anything(macos, tmp_path, capsys):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "alice.ipynb").write_bytes(STUDENT_NOTEBOOK.read_bytes())
    assert cli.main(["grade-all", str(folder), "--out", str(tmp_path / "grades.csv")]) == 2
    assert "Linux" in capsys.readouterr().err and not (tmp_path / "grades.csv").exists()


def without_linux(*args):
    return subprocess.run([sys.executable, "-c", WITHOUT_LINUX, *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_the_class_report_and_written_answers_need_no_sandbox(tmp_path):
    grades = tmp_path / "grades.csv"
    with open(grades, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", *PART_IDS, "total", "status", "seconds", "notebook", "sha256", "detail"])
        writer.writerow(["alice", *[1] * len(PART_IDS), len(PART_IDS), "graded", 1, "alice.ipynb", "0" * 64, ""])
    run = without_linux("class-report", grades, "--out", tmp_path / "report.html")
    assert run.returncode == 0, run.stderr
    assert "alice" in (tmp_path / "report.html").read_text()
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "alice.ipynb").write_bytes(STUDENT_NOTEBOOK.read_bytes())
    run = without_linux("written", folder, "--out", tmp_path / "written", "--no-pdf")
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "written" / "hand.csv").exists()
