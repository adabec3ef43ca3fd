"""engine/grader.py's Grader, the one entry point of every flow, and the engine's typed records.

The Grader's life cycle is checked with a stand-in template (no fork, no worker): it starts
before a flow reads any grade data, a dead template is replaced before the next grade, and it
is closed however the block is left. One test starts real templates in a fresh interpreter, to
check that the entry point itself loads nothing that would stop the template from forking.
"""
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from autograder.assignment import NAME, ROOT
from autograder.engine import grader as grader_module, plugin, report as rep
from autograder.engine.grade import GradeReport
from autograder.engine.grader import Grader
from autograder.engine.plugin import Status

Result = plugin.TestResult  # under another name: pytest would try to collect a class named Test* here


class FakeTemplate:
    """Stands in for engine/template.py's Template: records when it is started and closed."""

    started = []

    def __init__(self, confinement=None, slot=0):
        self.slot, self.dead, self.closed = slot, False, False
        FakeTemplate.started.append(self)
        EVENTS.append("template started")

    def alive(self):
        return not self.dead and not self.closed

    def close(self):
        self.closed = True
        EVENTS.append("template closed")


EVENTS = []


@pytest.fixture
def fake(monkeypatch):
    """Grader with FakeTemplate; grade_notebook records the template and options it was given."""
    EVENTS.clear()
    FakeTemplate.started = []
    graded = []

    def grade_notebook(path, template, parts=None, limits=None, hide=(), data=None):
        assert template.alive(), "a grade was given a dead template"
        EVENTS.append(f"graded {path}")
        graded.append({"path": path, "template": template, "parts": parts, "limits": limits, "hide": list(hide)})
        return GradeReport(str(path), [])

    monkeypatch.setattr(grader_module, "Template", FakeTemplate)
    monkeypatch.setattr(grader_module, "grade_notebook", grade_notebook)
    return graded


# ---- the life cycle ---------------------------------------------------------------------------------------
def test_the_template_starts_on_entering_and_closes_on_leaving(fake):
    with Grader(slot=3, hide=["/course"]) as g:
        assert EVENTS == ["template started"] and g.template.slot == 3
        g.grade("a.ipynb", parts=["masks"], hide=["/more"])
        g.grade("b.ipynb")
    assert EVENTS == ["template started", "graded a.ipynb", "graded b.ipynb", "template closed"]
    assert fake[0]["parts"] == ["masks"] and fake[0]["hide"] == ["/course", "/more"] and fake[1]["hide"] == ["/course"]
    assert fake[0]["template"] is fake[1]["template"], "one template serves every grade of a flow"
    assert g.template is None


def test_the_template_is_closed_when_the_block_raises(fake):
    with pytest.raises(KeyboardInterrupt):
        with Grader() as g:
            g.grade("a.ipynb")
            raise KeyboardInterrupt
    assert FakeTemplate.started[0].closed and EVENTS[-1] == "template closed"


def test_a_dead_template_is_replaced_before_the_next_grade(fake):
    with Grader(slot=1) as g:
        g.grade("a.ipynb")
        first = g.template
        first.dead = True  # killed by the last submission, or stuck (Template.failed)
        g.grade("b.ipynb")
        assert first.closed, "the dead template is closed (its socket, its process) before a new one starts"
        assert fake[1]["template"] is not first and fake[1]["template"].slot == 1
        g.grade("c.ipynb")
    assert len(FakeTemplate.started) == 2 and all(t.closed for t in FakeTemplate.started)


def test_grading_outside_the_block_is_refused(fake):
    with pytest.raises(RuntimeError, match="before any grade data is read"):
        Grader().grade("a.ipynb")
    with Grader() as g:
        pass
    with pytest.raises(RuntimeError):
        g.grade("a.ipynb")
    assert not fake


def test_an_unknown_feedback_level_is_refused_before_anything_starts(fake):
    from autograder.settings import Settings, SettingsError
    with pytest.raises(SettingsError, match="feedback"):
        Grader(Settings(feedback="everything"))
    assert EVENTS == []


# ---- the flows open the block before they read any grade data ----------------------------------------------
def test_crosscheck_starts_the_template_before_it_reads_the_roster_or_the_gradebook(fake, monkeypatch, tmp_path):
    from autograder.flows import crosscheck
    from autograder.flows.nbgrader import course

    monkeypatch.setattr(course, "students", lambda c: EVENTS.append("roster read") or ["alice"])
    monkeypatch.setattr(course, "gradebook_points", lambda c, ids: EVENTS.append("gradebook read") or {})
    crosscheck.crosscheck(tmp_path, log=lambda line: None)
    assert EVENTS[:3] == ["template started", "roster read", "gradebook read"] and EVENTS[-1] == "template closed"


def test_the_nbgrader_grading_service_starts_the_template_before_it_reads_a_request(fake, monkeypatch):
    """The course's grading service (what `nbgrader autograde` asks for grades) forks its template before it
    reads any request, submission or record; it grades what it is asked, and closes the template when it stops."""
    import tempfile
    import threading

    from autograder.flows.nbgrader import address, client, service

    base = Path(tempfile.mkdtemp(prefix="w7", dir="/tmp"))  # short: a socket's path has at most 107 bytes
    monkeypatch.setattr(address, "BASE", base)
    read = service.read_message
    monkeypatch.setattr(service, "read_message", lambda conn: EVENTS.append("request read") or read(conn))
    course = base / "course"
    notebook = course / "submitted" / "alice" / NAME / f"{NAME}.ipynb"
    notebook.parent.mkdir(parents=True)
    notebook.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    serving = threading.Thread(target=service.main, args=([str(course), "--idle", "60"],))
    serving.start()
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                sock = client._connect(address.socket_path(course))
                break
            except (FileNotFoundError, ConnectionRefusedError):
                assert time.monotonic() < deadline and serving.is_alive()
                time.sleep(0.05)
        with sock:
            client.send_message(sock, {"op": "grade", "student": "alice", "feedback": "checks", "then": []})
            reply = client.read_message(sock)
        assert reply["ok"] and not reply["cached"], reply
    finally:
        with client._connect(address.socket_path(course)) as sock:
            client.send_message(sock, {"op": "stop"})
            client.read_message(sock)
        serving.join(timeout=60)
        shutil.rmtree(base, ignore_errors=True)
    graded = f"graded {course / 'isolated' / 'alice' / 'submitted.ipynb'}"
    assert EVENTS == ["template started", "request read", graded, "request read", "template closed"], EVENTS


def test_the_entry_point_loads_nothing_that_stops_the_template_forking(tmp_path):
    """A real Grader, in a fresh interpreter as every flow runs: forked when nothing hidden is loaded, not otherwise.

    The entry point imports the engine it grades with; if that ever pulled in a hidden suite, the
    reference or the secret, the template would silently start as a second interpreter (slower,
    and the rule "fork before any grade data" would have lost its point). With the secret
    loaded, the template's own guard still refuses to fork.
    """
    code = (
        "from autograder.engine.grader import Grader\n"
        "from autograder.engine import secret\n"
        "with Grader() as g:\n"
        "    forked = g.template.forked\n"
        "secret.load()\n"
        "with Grader() as g:\n"
        "    after_secret = g.template.forked\n"
        "print(forked, after_secret)\n")
    env = dict(os.environ, PYTHONHASHSEED="0", AUTOGRADER_SECRET_FILE=str(tmp_path / "secret.key"))
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.split() == ["True", "False"], run.stdout + run.stderr[-2000:]


# ---- statuses and records ------------------------------------------------------------------------------------
def test_a_status_writes_as_its_string_everywhere():
    assert [s.value for s in Status] == ["passed", "failed", "grader-error"]
    assert json.dumps([Status.PASSED, Status.GRADER_ERROR]) == '["passed", "grader-error"]'
    assert f"{Status.FAILED}" == str(Status.FAILED) == "failed" and Status.FAILED == "failed"
    assert Result("t", "masks", "title", 1.0, 0.0, "grader-error").status is Status.GRADER_ERROR
    with pytest.raises(ValueError):
        Result("t", "masks", "title", 1.0, 0.0, "crashed")  # a typo is an error, not a fourth status


def test_a_test_result_round_trips_through_json():
    result = Result("suites/test_masks.py::t[a]", "masks", "blocked is bool", 2.0, 0.0, Status.FAILED,
                        "found True", "Traceback ...", "check the diagonal", "diagonal blocked")
    data = result.to_dict()
    assert list(data) == ["nodeid", "part", "title", "points", "score", "status", "message", "internal", "hint",
                          "cause"]
    assert type(data["status"]) is str and data["status"] == "failed"  # plain JSON, whatever reads it back
    back = Result.from_dict(json.loads(json.dumps(data)))
    assert back == result and back.status is Status.FAILED
    assert Result.from_dict({**data, "added_later": 1}) == result  # a newer writer's extra key is ignored


def test_the_class_reports_checks_keep_their_shape():
    """batch_pool.checks serialises through Result.to_dict: the same keys, in the same order, as before."""
    from autograder.flows.batch_pool import checks

    report = GradeReport("nb.ipynb", [Result("a", "masks", "x", 1.0, 1.0, "passed", internal="tb"),
                                      Result("b", "masks", "y", 2.0, 0.0, "failed", "wrong", "tb", "hint", "c")])
    got = checks(report)
    assert [list(c) for c in got] == [["nodeid", "part", "title", "points", "score", "status", "message", "hint",
                                       "cause"]] * 2
    assert got[0]["message"] == "" and got[1]["message"] == "wrong" and got[1]["cause"] == "c"
    assert json.dumps([c["status"] for c in got]) == '["passed", "failed"]'


def test_the_crash_results_total_comes_from_the_suites(monkeypatch):
    monkeypatch.setattr(rep, "part_points", lambda: {"masks": 7.0, "positions": 5.5})
    data = rep.crash_results("boom", 1.234)
    assert data["tests"][0]["max_score"] == 12.5 and data["score"] == 0.0 and data["execution_time"] == 1.23

    def broken():
        raise RuntimeError("collecting the hidden suites failed")
    monkeypatch.setattr(rep, "part_points", broken)
    data = rep.crash_results("boom")  # the crash may be the suites': still a valid results.json
    assert "max_score" not in data["tests"][0] and data["tests"][0]["name"] == "Autograder failed"
