"""Run the hidden suites in this process and turn each test into a scored, student-facing result."""
from __future__ import annotations

import dataclasses
import os
import traceback
from collections.abc import Generator, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import pytest

from .catalog import catalog
from .faults import GraderFault, SubmissionFault, WorkerLost
from .suite_items import TestInfo, describe

if TYPE_CHECKING:
    from .student import Student

GRADER_FAILED = "Autograder failed on this check; your instructor has the details. It is not your fault."

# What students are shown, least to most (--feedback): declared in autograder/settings.py.
from ..settings import DEFAULT_FEEDBACK as DEFAULT_FEEDBACK, FEEDBACK_LEVELS as FEEDBACK_LEVELS  # noqa: E402
# Calls per function kept to rule diagnosed causes out (the assignment's misconception library): what the diagnosis
# needs to see, not a limit on the submission (its calls all run; the rest are only not kept).
HISTORY_PER_FUNCTION = 12


class Status(StrEnum):
    """How a check ended. A StrEnum: it is its value wherever it is written (JSON, CSV, f-strings),
    so results.json, record.json and grades.csv read exactly as they did with plain strings."""
    PASSED = "passed"
    FAILED = "failed"  # the submission's doing: a wrong value, an error, a worker it lost
    GRADER_ERROR = "grader-error"  # ours: never a silent zero (the student is told it is not their fault)


@dataclass
class TestResult:
    nodeid: str
    part: str
    title: str
    points: float
    score: float
    status: Status
    message: str = ""  # what was found (values); at level "hints" followed by ``hint``
    internal: str = ""  # traceback for instructors only; never shown to students
    hint: str = ""  # a likely cause, shown only at feedback level "hints"
    cause: str = ""  # the diagnosed mistake (solutions.week7_attention.diagnosis), shown only at level "hints"

    def __post_init__(self) -> None:
        self.status = Status(self.status)  # "passed" from a caller or a file becomes Status.PASSED; a typo raises

    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-ready (the status as its string), in declaration order."""
        return {**dataclasses.asdict(self), "status": self.status.value}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TestResult:
        """The inverse of to_dict; keys it does not know are ignored (a newer writer's extras)."""
        return cls(**{f.name: data[f.name] for f in dataclasses.fields(cls) if f.name in data})

    def feedback(self, level: str = DEFAULT_FEEDBACK) -> str:
        """The text a student sees for this check at feedback ``level`` ("" when the level shows none)."""
        if self.status is Status.PASSED or level in ("score", "checks"):
            return ""
        if level == "values" or not (self.hint or self.cause):
            return self.message
        text = f"{self.message} {self.hint}".strip()
        return f"{text}\nLikely cause: {self.cause}" if self.cause else text


class GradingPlugin:
    def __init__(self, student: Student) -> None:
        self.results: dict[str, TestResult]
        self.student, self.results = student, {}
        # Diagnosis of failed checks (solutions.week7_attention.diagnosis): the student's calls, as the grader sent
        # them and as they were answered, are recorded by Student.calls for each check.
        self.shared_calls: dict[str, list[Any]] = {}  # part -> calls made while setting up its checks (shared fixtures, e.g. training)
        self.history: dict[str, list[Any]] = {}  # function -> a few of its calls from any check (they rule causes out)
        self.failed_calls: list[tuple[TestResult, list[Any]]] = []  # (TestResult, the calls its check made), diagnosed when the session ends

    def _recorded(self) -> list[Any]:
        calls = vars(self.student).get("calls")  # not getattr: Student.__getattr__ names student functions
        return calls if isinstance(calls, list) else []

    def pytest_runtest_logstart(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        """Each check starts with an empty record of the student's calls."""
        self._recorded().clear()

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        """Once the submission is out of budget or workers, skip the check's own reference work."""
        broken = getattr(getattr(self.student, "_transport", None), "broken", "")
        if broken:
            raise WorkerLost(broken)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item,
                                  call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
        outcome = yield
        report = outcome.get_result()
        info = describe(item)
        recorded = list(self._recorded())
        if call.when == "setup":
            self.shared_calls.setdefault(info.part, []).extend(recorded)
        if call.when == "call" or (call.when == "setup" and report.failed):
            result = self._result(info, call.excinfo, call.when)
            self.results[item.nodeid] = result
            if result.status is Status.FAILED:
                self.failed_calls.append((result, recorded if call.when == "call" else []))
            for sent in recorded:
                kept = self.history.setdefault(sent.name, [])
                if len(kept) < HISTORY_PER_FUNCTION and not any(sent is k for k in kept):
                    kept.append(sent)

    def finish(self) -> None:
        """Give each failed check its likely cause (TestResult.cause), or none when unsure; then let
        its hint follow the cause (solutions.week7_attention.diagnosis.hints).

        Done once every check has run, so that calls from later checks can rule causes out too
        (the suites run in file order: multihead before softmax_read). A check's calls are its own
        plus those made while setting up checks of its part (the training run is set up once). The
        diagnosis never runs student code, and a fault in it never costs the student anything.
        A diagnosed cause takes the place of the check's static hint; a check whose failure may come
        from a function that fails its own checks (assignment.USES) names that function instead.
        """
        failed, self.failed_calls = self.failed_calls, []
        checks = [(result, self._calls_of(result, own)) for result, own in failed]
        if os.environ.get("AUTOGRADER_NO_DIAGNOSIS"):  # only for measuring what the diagnosis costs (make bench)
            failed = []
        try:
            if failed:
                from ..assignment import misconceptions
                diagnoser = misconceptions().Diagnoser()  # type: ignore[no-untyped-call]  # the assignment's library; none: no causes
            for result, calls in (checks if failed else []):
                try:
                    result.cause = diagnoser.diagnose(calls, result.part, self.history)[0] if calls else ""
                except Exception:  # noqa: BLE001 - feedback is best effort; the score never depends on it
                    result.cause = ""
        except Exception:  # noqa: BLE001 - the library itself failed to load: no causes, same scores
            pass
        try:
            from ..assignment import misconceptions
            hints = misconceptions().hints  # type: ignore[no-untyped-call]  # assignment.py: not annotated
            Check, follow_the_cause = hints.Check, hints.follow_the_cause
            follow_the_cause([Check.from_calls(result, calls) for result, calls in checks])
        except Exception:  # noqa: BLE001 - hints are best effort: the static ones stay, same scores
            pass
        finally:
            self.shared_calls, self.history = {}, {}

    def _calls_of(self, result: TestResult, own: list[Any]) -> list[Any]:
        """The calls a failed check made: its part's shared setup calls, then its own."""
        calls = list(self.shared_calls.get(result.part, []))
        return calls + [c for c in own if not any(c is d for d in calls)]

    @staticmethod
    def _result(info: TestInfo, excinfo: pytest.ExceptionInfo[BaseException] | None, when: str) -> TestResult:
        if excinfo is None:
            return TestResult(info.nodeid, info.part, info.title, info.points, info.points, Status.PASSED)
        err = excinfo.value
        internal = "".join(traceback.format_exception(type(err), err, err.__traceback__))
        if isinstance(err, GraderFault):  # our machinery, not the submission: never a silent zero
            return TestResult(info.nodeid, info.part, info.title, info.points, 0.0, Status.GRADER_ERROR,
                              GRADER_FAILED, internal)
        if isinstance(err, SubmissionFault) or (when == "call" and isinstance(err, AssertionError)):
            message = str(err).strip() or "the check failed"
            return TestResult(info.nodeid, info.part, info.title, info.points, 0.0, Status.FAILED, message,
                              hint=str(getattr(err, "hint", "") or ""))
        if when == "call":  # a value of the wrong kind made the check itself stumble
            message = (f"your function's result could not be checked ({type(err).__name__}: "
                       f"{str(err).splitlines()[0][:200] if str(err) else ''}); check its type and shape")
            return TestResult(info.nodeid, info.part, info.title, info.points, 0.0, Status.FAILED, message, internal)
        return TestResult(info.nodeid, info.part, info.title, info.points, 0.0, Status.GRADER_ERROR,
                          GRADER_FAILED, internal)


def run_suites(student: Any, parts: Iterable[str] | None = None) -> list[TestResult]:
    """Run the hidden tests of ``parts`` (all by default) against ``student``; one TestResult per test.

    The tests run in this process's one pytest session (engine/suite_session.py: configured
    and collected once, every fixture torn down after each run), which also records the
    catalog from its own collection, so the suites are not collected twice.
    """
    from .suite_session import shared

    plugin = GradingPlugin(student)
    session = shared()
    log = session.run(student, plugin, parts)
    plugin.finish()  # the diagnosis: once every check of this run is in
    wanted = [t for t in catalog() if parts is None or t.part in parts]
    results = []
    for test in wanted:
        found = plugin.results.get(test.nodeid)
        if found is None:
            found = TestResult(test.nodeid, test.part, test.title, test.points, 0.0, Status.GRADER_ERROR, GRADER_FAILED,
                               f"test did not run:\n{log[-4000:]}")
        results.append(found)
    return results
