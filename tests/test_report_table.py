"""The terminal table (autograder/engine/report.py ``table``): one line per distinct reason, fast and pure.

A missing or broken function fails many checks of a part with the same message; the table says it
once ("3 checks: ..."), keeps different reasons apart, and at "checks" lists every failed check by
title. No worker, no suites: reports are built by hand.
"""
import pytest

from autograder.engine.grade import GradeReport
from autograder.engine import plugin
from autograder.engine.report import table

MISSING = "`sdpa_mask` is not defined in your notebook"


def _report():
    results = [
        plugin.TestResult("t1", "masks", "blocked is bool", 1.0, 0.0, "failed", MISSING, hint="define it"),
        plugin.TestResult("t2", "masks", "allowed is the complement", 2.0, 0.0, "failed", MISSING, hint="define it"),
        plugin.TestResult("t3", "masks", "additive matches", 1.0, 0.0, "failed", MISSING, hint="define it"),
        plugin.TestResult("t4", "masks", "padding mask shape", 1.0, 0.0, "failed", "shape (2, 5), expected (2, 1, 1, 5)"),
        plugin.TestResult("t5", "masks", "sdpa polarity", 1.0, 1.0, "passed"),
        plugin.TestResult("t6", "positions", "table shape", 2.0, 0.0, "grader-error", "internal", internal="Traceback"),
        plugin.TestResult("t7", "positions", "even columns", 2.0, 2.0, "passed"),
    ]
    return GradeReport("nb.ipynb", results, seconds=0.5)


def _check_lines(text):
    return [line.strip() for line in text.splitlines() if line.strip().startswith("x ")]


def test_identical_failures_are_one_line_with_their_count():
    lines = _check_lines(table(_report(), width=200, level="values"))
    assert lines[0] == f"x 3 checks: {MISSING}"
    assert lines[1] == "x padding mask shape: shape (2, 5), expected (2, 1, 1, 5)"  # alone: its title


def test_the_hint_is_part_of_the_reason_at_hints():
    lines = _check_lines(table(_report(), width=200, level="hints"))
    assert lines[0] == f"x 3 checks: {MISSING} define it"
    assert sum(line.startswith("x 3 checks") for line in lines) == 1


def test_checks_level_lists_every_failed_check_by_title():
    lines = _check_lines(table(_report(), width=200, level="checks"))
    assert lines == ["x blocked is bool", "x allowed is the complement", "x additive matches",
                     "x padding mask shape", "x table shape (autograder failed on this check)"]


def test_score_level_has_no_check_lines_and_the_totals_add_up():
    text = table(_report(), width=200, level="score")
    assert _check_lines(text) == []
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines()[2:] if " / " in line}
    assert rows["masks"] == ["1", "/", "6"] and rows["positions"] == ["2", "/", "4"] and rows["total"] == ["3", "/", "10"]


@pytest.mark.parametrize("level", ["values", "hints"])
def test_a_grader_fault_never_groups_with_a_students_failure(level):
    lines = _check_lines(table(_report(), width=200, level=level))
    assert lines[-1] == f"x table shape: {plugin.GRADER_FAILED}"  # alone, and never its internal text
    assert not any("internal" in line or "Traceback" in line for line in lines)
