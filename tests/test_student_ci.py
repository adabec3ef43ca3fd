"""The student repositories' GitHub Actions workflow: it parses, has the expected steps, and its commands work here."""
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import nbformat
import pytest
import yaml

from autograder import PARTS
from tests.batch.submissions import filled

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "templates" / "student-ci"
WORKFLOW = TEMPLATE / ".github" / "workflows" / "grade.yml"


@pytest.fixture(scope="module")
def workflow():
    doc = yaml.safe_load(WORKFLOW.read_text())
    (job,) = doc["jobs"].values()
    return doc, job


def step(job, words):
    found = [s for s in job["steps"] if words in s.get("name", "").lower()]
    assert len(found) == 1, [s.get("name") for s in job["steps"]]
    return found[0]


def test_workflow_parses_and_has_the_expected_steps(workflow):
    doc, job = workflow
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as True
    assert {"push", "pull_request"} <= set(triggers)
    assert job["runs-on"].startswith("ubuntu")
    uses = [s.get("uses", "") for s in job["steps"]]
    assert any(u.startswith("actions/checkout@") for u in uses)
    python = step(job, "set up python")
    assert python["with"]["python-version"] == f"{sys.version_info.major}.{sys.version_info.minor}"
    install = step(job, "install")["run"]
    assert "torch==2.13.0" in install and "download.pytorch.org/whl/cpu" in install
    assert "-r requirements.txt" in install
    assert "torch==2.13.0" in (ROOT / "requirements.txt").read_text().splitlines()
    assert "public_checks.py" in step(job, "public checks")["run"]
    assert "GITHUB_STEP_SUMMARY" in step(job, "vendored")["run"]
    assert "GRADING" not in WORKFLOW.read_text().replace("GRADING unset", "")


def test_makefile_runs_the_workflows_command(workflow):
    _, job = workflow
    command = step(job, "public checks")["run"].strip().replace("$NOTEBOOK", "$$NOTEBOOK")
    assert command.replace("python ", "", 1) in (ROOT / "Makefile").read_text()


def student_repo(tmp_path, notebook_text):
    repo = tmp_path / "repo"
    shutil.copytree(TEMPLATE, repo)
    shutil.copy(ROOT / "requirements.txt", repo)
    (repo / "week7_attention.ipynb").write_text(notebook_text)
    return repo


def run_step(job, name, repo, summary):
    env = {k: v for k, v in os.environ.items() if k != "GRADING"}
    env.update(job.get("env", {}), GITHUB_STEP_SUMMARY=str(summary),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}")
    return subprocess.run(["bash", "-e", "-c", step(job, name)["run"]], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=900)


@pytest.mark.slow
def test_public_checks_fail_on_the_released_stubs(workflow, tmp_path, student_notebook):
    _, job = workflow
    repo = student_repo(tmp_path, student_notebook.read_text())
    summary = tmp_path / "summary.md"
    proc = run_step(job, "public checks", repo, summary)
    assert proc.returncode == 1, proc.stderr[-2000:]
    text = summary.read_text()
    assert "0 / 7 parts pass" in text
    for part in PARTS:
        assert f"| {part} | ❌ fail |" in text
    suite = ET.parse(repo / "public-checks.xml").getroot()
    assert suite.get("tests") == "7" and suite.get("failures") == "7"
    assert "NotImplementedError" in suite.find("testcase/failure").get("message")
    assert (repo / "executed.ipynb").exists()


@pytest.mark.slow
def test_public_checks_pass_on_a_finished_notebook_and_the_vendored_grade_step_works(
        workflow, tmp_path, student_notebook, solution_notebook):
    _, job = workflow
    done = filled(nbformat.read(student_notebook, as_version=4), nbformat.read(solution_notebook, as_version=4))
    repo = student_repo(tmp_path, nbformat.writes(done))
    summary = tmp_path / "summary.md"
    proc = run_step(job, "public checks", repo, summary)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "7 / 7 parts pass" in summary.read_text() and "100 / 100 points" in summary.read_text()
    # Where the package is vendored (here it is importable from the venv), the grade step adds the real score.
    proc = run_step(job, "vendored", repo, summary)
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = summary.read_text()
    assert "### Autograder" in text and "total" in text and "100 / 100" in text
    suite = ET.parse(repo / "grade.xml").getroot()
    assert suite.get("failures") == "0"
