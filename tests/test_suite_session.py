"""engine/suite_session.py: one pytest session per grading process, its tests run once per submission.

What it must keep: nothing of one submission reaches the next (every fixture, the training run's
included, is torn down after each run), and a session that did not tear down, or whose run was
interrupted, is never used again.
"""
import json
import subprocess
import sys

import pytest

import solutions.reference as reference
from autograder.assignment import ROOT
from autograder.engine import suite_session
from autograder.engine.plugin import GradingPlugin, Status, run_suites
from autograder.engine.student import LocalTransport, Student
from tests.points import total


@pytest.fixture
def fresh_session():
    """This process's shared session, thrown away before and after the test."""
    for old in suite_session._current:
        old.close()
    suite_session._current.clear()
    yield
    for old in suite_session._current:
        old.close()
    suite_session._current.clear()


def _reference():
    return Student(LocalTransport(vars(reference)))


def test_a_run_tears_down_every_fixture_and_the_session_is_reused(fresh_session):
    first = run_suites(_reference())
    session = suite_session.shared()
    assert sum(r.score for r in first) == total()
    assert session._leftovers() == [], "a run left fixtures set up: the next submission would see them"
    second = run_suites(_reference())
    assert suite_session.shared() is session, "the session should serve every submission of a process"
    assert [(r.nodeid, r.score) for r in first] == [(r.nodeid, r.score) for r in second]


def test_one_part_runs_only_its_tests(fresh_session):
    results = run_suites(_reference(), ["masks"])
    assert results and {r.part for r in results} == {"masks"}
    assert all(r.status is Status.PASSED for r in results)


def test_an_interrupted_run_breaks_the_session_and_the_next_one_is_new(fresh_session):
    class Interrupt:
        seen = 0

        def pytest_runtest_setup(self, item):
            Interrupt.seen += 1
            if Interrupt.seen == 3:
                raise KeyboardInterrupt

    session = suite_session.shared()
    plugin = GradingPlugin(_reference())
    session.config.pluginmanager.register(Interrupt())
    with pytest.raises(KeyboardInterrupt):
        session.run(plugin.student, plugin)
    assert session.broken
    again = suite_session.shared()
    assert again is not session
    assert sum(r.score for r in run_suites(_reference())) == total()


def test_a_run_that_leaves_a_fixture_set_up_is_never_reused(fresh_session, monkeypatch):
    session = suite_session.shared()
    monkeypatch.setattr(suite_session.SuiteSession, "_leftovers", lambda self: ["fixture run"])
    run_suites(_reference(), ["positions"])
    assert "fixture run" in session.broken
    monkeypatch.undo()
    assert suite_session.shared() is not session


GRADE_IN_ONE_PROCESS = """
import json, sys
from autograder.engine.grader import Grader
out = []
with Grader() as g:
    for path in sys.argv[1:]:
        out.append({r.nodeid: r.score for r in g.grade(path).results})
print(json.dumps(out))
"""


@pytest.mark.slow
def test_each_submission_of_a_batch_gets_its_own_fixtures(tmp_path, solution_notebook, student_notebook):
    """A notebook with a broken mask (its training run fails) graded between two correct ones scores what it
    scores alone, and the correct ones score alike: no training run (a session-scoped fixture) crosses."""
    import nbformat

    from tests.flows.submissions import submissions

    sources = submissions(nbformat.read(student_notebook, as_version=4), nbformat.read(solution_notebook, as_version=4))
    paths = {}
    for name in ("solution", "mask_diag"):
        paths[name] = tmp_path / f"{name}.ipynb"
        paths[name].write_text(sources[name])
    run = subprocess.run([sys.executable, "-c", GRADE_IN_ONE_PROCESS, paths["solution"], paths["mask_diag"],
                          paths["solution"]], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    first, broken, again = json.loads(run.stdout.strip().splitlines()[-1])
    alone = tmp_path / "alone.json"
    subprocess.run([sys.executable, "-m", "autograder", "grade", paths["mask_diag"], "--out", alone], cwd=ROOT,
                   check=True, capture_output=True, timeout=600)
    by_test = {t["name"]: t["score"] for t in json.loads(alone.read_text())["tests"]}
    assert sum(first.values()) == sum(again.values()) == total()
    assert first == again
    assert sum(broken.values()) == sum(by_test.values()) < total()
    training = [nodeid for nodeid in broken if "test_training" in nodeid]
    assert training and sum(broken[n] for n in training) < sum(first[n] for n in training), \
        "the broken mask's training checks passed: it was given the previous submission's training run"
