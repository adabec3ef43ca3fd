"""Makefile targets' own behaviour, run with a stand-in for the venv's Python (not the tiers themselves)."""
import re
import subprocess

from autograder.assignment import ROOT


def _fake_python(tmp_path, status):
    """A stand-in for .venv/bin/python that records its arguments, takes 0.3 s, and exits with ``status``."""
    script = tmp_path / "python"
    script.write_text(f'#!/bin/sh\necho "$*" >> "{tmp_path}/calls"\nsleep 0.3\nexit {status}\n')
    script.chmod(0o755)
    return script


def _test_fast(tmp_path, status):
    # -o: the venv counts as installed and up to date, whatever the files it is built from.
    return subprocess.run(["make", "--no-print-directory", "-o", ".venv/.installed", "test-fast",
                           f"PY={_fake_python(tmp_path, status)}"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_test_fast_prints_the_wall_time_it_took(tmp_path):
    run = _test_fast(tmp_path, 0)
    assert run.returncode == 0, run.stdout + run.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert [c.split()[:3] for c in calls] == [["-m", "pytest", "solutions/week7_attention/suites"], ["-m", "pytest", "tests"]]
    took = re.search(r"^make test-fast: (\d+\.\d) s wall time$", run.stdout, re.M)
    assert took, run.stdout
    assert 0.6 <= float(took.group(1)) < 30, took.group(0)


def test_test_fast_prints_the_time_and_fails_when_a_run_fails(tmp_path):
    run = _test_fast(tmp_path, 1)
    assert run.returncode != 0
    assert re.search(r"^make test-fast: \d+\.\d s wall time$", run.stdout, re.M), run.stdout
    assert len((tmp_path / "calls").read_text().splitlines()) == 1  # the suites failed: the tests do not run


def test_nbgrader_autograde_keeps_every_assignment_line_of_the_course(tmp_path):
    """The outside check of issue 29: `make nbgrader-autograde` copied the config template over the course's, which
    dropped a released week 5's `grade_in_sandbox` line; a later plain `nbgrader autograde` gave its honest
    submissions 0. The target leaves the file to release.refresh_config (tests/test_release.py: each assignment's line
    kept), which the stand-in Python here does not run: the file must come out as it went in."""
    config = ROOT / "build" / "course" / "nbgrader_config.py"
    before = config.read_text()
    line = "grade_in_sandbox(c, 'solutions.week5_layers')  # a later release's line\n"
    config.write_text(before + line)
    try:
        from autograder.flows.nbgrader import CURRENT
        spec = f".venv/share/jupyter/kernels/{CURRENT.kernel}/kernel.json"
        run = subprocess.run(["make", "--no-print-directory", "-o", ".venv/.installed", "-o", spec,
                              "nbgrader-autograde", f"PY={_fake_python(tmp_path, 0)}"],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
        after = config.read_text()
    finally:
        config.write_text(before)
    assert run.returncode == 0, run.stdout + run.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert "refresh_config" in calls[0] and calls[1].startswith("-m autograder.flows.nbgrader build/course"), calls
    assert after.endswith(line), "the target rewrote the course's nbgrader_config.py"
