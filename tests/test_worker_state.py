"""A worker starts from the same state however its template came to be: same submission, same score.

The worker template is forked from the grading process (the usual case) or started as a
fresh interpreter (when the grading process already holds hidden code); it forks a
submission's first worker before or after its warm-up, which itself draws random numbers.
None of that may show: a notebook that draws without seeding gets the same numbers in a
cold `grade`, in the second submission of a `grade-all` (warm template), and under a
template started as a fresh interpreter; and it computes on one thread in each.
"""
import json
import os
import re
import subprocess
import sys

import nbformat
import pytest

from autograder.sandbox.confinement import probe

from autograder.assignment import ROOT
from tests.points import total
DRAWS = re.compile(r"unseeded draws: \[[^\]]*\] [0-9.e-]+ on \d+ threads?")
CELL = '''import random
raise RuntimeError(f"unseeded draws: {torch.rand(3).tolist()} {random.random()} on {torch.get_num_threads()} threads")'''

pytestmark = pytest.mark.slow


def _cli(*args):
    run = subprocess.run([sys.executable, "-m", "autograder", *map(str, args)], cwd=ROOT, capture_output=True,
                         text=True, timeout=600, env={k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"})
    assert run.returncode == 0, run.stderr[-3000:]
    return run


def _draws(text):
    found = DRAWS.findall(text)
    assert found, f"the notebook's draws are not in the feedback:\n{text[:2000]}"
    return found[0]


def _scores(results):
    return [(t["name"], t["score"]) for t in results["tests"]]


@pytest.fixture(scope="module")
def notebook(solution_notebook, tmp_path_factory):
    nb = nbformat.read(str(solution_notebook), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(CELL))
    path = tmp_path_factory.mktemp("state") / "draws.ipynb"
    nbformat.write(nb, str(path))
    return path


def test_cold_batch_and_fresh_template_draw_the_same(notebook, tmp_path):
    # Cold: one `grade`, its template forked from the grading process (PYTHONHASHSEED unset: it re-executes).
    cold_out = tmp_path / "cold.json"
    _cli("grade", notebook, "--out", cold_out)
    cold = json.loads(cold_out.read_text())

    # Batch: the second submission is forked from a template that has warmed up (and drawn numbers).
    folder = tmp_path / "batch"
    folder.mkdir()
    for name in ("a", "b"):
        (folder / f"{name}.ipynb").write_bytes(notebook.read_bytes())
    _cli("grade-all", folder, "--out", tmp_path / "grades.csv", "--jobs", 1)
    batch = [json.loads((tmp_path / "grades_feedback" / name / "results.json").read_text()) for name in ("a", "b")]

    # Fresh interpreter: this process holds the reference, so the template may not be forked from it.
    import solutions.reference  # noqa: F401
    from autograder.engine import report
    from autograder.engine.grade import grade_notebook
    from autograder.engine.template import Template, may_fork_template
    assert not may_fork_template(), "a process that holds hidden code must never be forked into a worker"
    template = Template(probe())
    try:
        assert not template.forked
        fresh = report.gradescope(grade_notebook(notebook, template))
    finally:
        template.close()

    draws = [_draws(r["output"]) for r in (cold, *batch, fresh)]
    assert len(set(draws)) == 1, f"unseeded draws differ between cold, batch and fresh-template grades: {draws}"
    assert draws[0].endswith("on 1 threads"), draws[0]
    assert _scores(cold) == _scores(batch[0]) == _scores(batch[1]) == _scores(fresh)
    assert cold["score"] == total()


# ---- when the grader's own machinery fails, no student loses a point for it -------------------------------
def _grade_with(template, notebook):
    from autograder.engine.grade import grade_notebook
    try:
        return grade_notebook(notebook, template)
    finally:
        template.close()


def test_a_dead_template_is_a_grader_fault_not_a_hang(notebook):
    import signal
    import time

    from autograder.engine.student import GraderFault
    from autograder.engine.template import Template
    template = Template(probe())
    os.kill(template.pid, signal.SIGKILL)
    started = time.monotonic()
    with pytest.raises(GraderFault):
        _grade_with(template, notebook)  # the CLI turns this into a valid "Autograder failed" results.json
    assert time.monotonic() - started < 30


def test_a_model_the_assignment_does_not_serve_is_a_grader_fault_that_says_so():
    """An instructor's suite that hands a function a module its served.is_model() does not claim (the outsider who
    wrote week8_norms from the guide: nn.LayerNorm with the scaffold's served module) used to be told nothing: the
    grader could not encode its own message, blamed the worker ("stopped responding"), and the honest notebook got
    0 in that part. It is the grader's error, before any worker is asked, and it names the module and the fix."""
    import torch

    from autograder.engine.faults import GraderFault
    from autograder.engine.supervisor import WorkerSession
    from autograder.engine.template import Template
    template = Template(probe())
    session = WorkerSession(template, ["def f(m):\n    return 1\n"])
    try:
        with pytest.raises(GraderFault) as raised:
            session.call("f", [torch.nn.LayerNorm(3)], {})
        said = str(raised.value)
        assert "LayerNorm is a torch.nn.Module" in said and "is_model()" in said and "docs/authoring.md" in said, said
        assert session.worker is None and session.restarts == 0  # no worker blamed, none started
        assert session.call("f", [torch.ones(2)], {}).value == 1  # and the session still grades
    finally:
        session.close()
        template.close()


def test_a_sandbox_that_cannot_start_workers_is_never_the_students_fault(notebook):
    import dataclasses

    from autograder.engine.template import Template
    template = Template(probe())
    request = template.request
    # A worker that cannot be confined exits before it reads the notebook (a kept tree is missing).
    template.request = lambda config: request(dataclasses.replace(config, keep=(*config.keep, "/nonexistent/keep")))
    report = _grade_with(template, notebook)
    statuses = {r.status for r in report.results}
    assert statuses == {"grader-error"}, [(r.title, r.message) for r in report.results if r.status != "grader-error"]
    assert not report.problem, "a broken sandbox must not be reported as the notebook crashing its workers"
