"""Grading processes for `grade-all`: N spawned processes, each owning one warm `Grader(slot=k)`.

The grading processes hold the hidden suites; student code only ever runs in the
sandboxed workers their template forks (fresh ones for each submission, never reused).
Tasks go down and results come back as JSON bytes, so the batch parent never
unpickles anything: what crosses is plain data by construction.
"""
import json
import multiprocessing
import os
import signal
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any

import psutil

from ..settings import Settings

if TYPE_CHECKING:
    from ..engine.grade import GradeReport
    from ..engine.grader import Grader


# Replaced by the batch parent with each student's own name in feedback.txt (identical
# notebooks of several students are graded once; the table must not name one of them).
# Printable, so that the table's own escaping leaves it as it is.
SUBMISSION_TOKEN = "<<submission>>"


def _send(conn: Connection, message: Any) -> None:
    conn.send_bytes(json.dumps(message).encode())


# ---- inside a grading process ----------------------------------------------------------

def serve(slot: int, conn: Connection, options: dict[str, Any]) -> None:
    """Entry point of a grading process: grade tasks one by one until the parent hangs up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    # One compute thread: idle OpenMP threads of N grading processes spin and starve the
    # workers (measured: two jobs on two cores graded at half speed). Set before torch loads.
    os.environ["OMP_NUM_THREADS"] = "1"
    from ..engine.catalog import catalog
    from ..engine.grader import Grader
    import torch

    torch.set_num_threads(1)

    try:
        with Grader(Settings.from_dict(options["settings"]), slot=slot) as grader:
            catalog()  # collect the hidden suites (after the fork) while the template warms up
            _send(conn, {"event": "ready", "pid": os.getpid()})
            while True:
                try:
                    task = json.loads(conn.recv_bytes())
                except EOFError:
                    break
                _send(conn, {"event": "start", "id": task["id"]})
                _send(conn, {"event": "done", "id": task["id"], "result": grade_one(task, grader, options)})
    except (BrokenPipeError, ConnectionResetError, EOFError):
        pass


def grade_one(task: dict[str, Any], grader: "Grader", options: dict[str, Any]) -> dict[str, Any]:
    """Grade one notebook; return a JSON-able dict (never raises)."""
    started = time.monotonic()
    try:
        return _grade_one(task, grader, options)
    except Exception:  # noqa: BLE001 - a grader fault (or a report that cannot be rendered) is one row
        return grader_error("the grader hit an internal error", traceback.format_exc(), time.monotonic() - started)


def _grade_one(task: dict[str, Any], grader: "Grader", options: dict[str, Any]) -> dict[str, Any]:
    import hashlib

    from ..engine import report as rep
    from ..engine.grade import NotebookError, failed_everywhere, read_submission
    from ..engine.plugin import Status
    from ..engine.submission_file import SubmissionFileError, SubmissionStatus as Row, read_notebook

    # The file is read once, here: its status, its grade and the sha256 the batch records are all of these
    # bytes. Read again, a file replaced in between would give a row whose hash is one version's and whose
    # points are another's (and a rerun would reuse those points for the wrong version).
    path, settings = task["path"], grader.settings
    try:
        data = read_notebook(path, settings.limits.notebook_mib)
    except SubmissionFileError as err:
        data, status, problem = None, Row(err.kind), str(err)
    if data is not None:
        try:
            read_submission(path, settings.limits.notebook_mib, data)
            status = Row.GRADED
        except NotebookError as err:
            status = Row(err.kind)
        report = grader.grade(path, hide=options["hide"], data=data)
    else:
        report = failed_everywhere(path, problem, settings.parts or None)
    level = grader.feedback
    internal = [f"{r.nodeid}\n{r.internal}" for r in report.results
                if r.internal and (r.status is Status.GRADER_ERROR or options.get("debug"))]
    if status is Row.GRADED:
        if any(r.status is Status.GRADER_ERROR for r in report.results):
            status = Row.GRADER_ERROR
        elif report.problem:
            status = Row.INCOMPLETE  # the worker broke (time budget, crashes); points are partial
    report.submission = SUBMISSION_TOKEN
    return {"status": status, "score": report.score, "max_score": report.max_score,
            "sha256": hashlib.sha256(data).hexdigest() if data is not None else "",
            "by_part": {part: [got, top] for part, (got, top) in report.by_part().items()},
            "problem": report.problem, "seconds": round(report.seconds, 2),
            "gradescope": rep.gradescope(report, settings.visibility, level=level, confinement=grader.confinement),
            "table": rep.table(report, level=level), "internal": internal, "checks": checks(report)}


def checks(report: "GradeReport") -> list[dict[str, Any]]:
    """Every check with its full reason, for the instructor's class report (whatever the students' level)."""
    from ..engine.plugin import Status
    from ..engine.safe_text import student as safe

    out = []
    for r in report.results:
        check = r.to_dict()
        del check["internal"]  # tracebacks go to the run's log (the result's "internal"), not into the report
        failed = r.status is not Status.PASSED
        check.update(message=safe(r.message, multiline=True) if failed else "",
                     hint=safe(r.hint, multiline=True) if failed and r.hint else "",
                     cause=safe(r.cause) if failed and r.cause else "")
        out.append(check)
    return out


def grader_error(message: str, internal: str, seconds: float) -> dict[str, Any]:
    from ..engine import report as rep
    from ..engine.submission_file import SubmissionStatus as Row

    return {"status": Row.GRADER_ERROR, "score": 0.0, "max_score": None, "by_part": {}, "problem": message,
            "seconds": round(seconds, 2), "gradescope": rep.crash_results(message, seconds),
            "table": f"{SUBMISSION_TOKEN}\n\n  ! Autograder failed: {message}\n  (score 0; your instructor has "
                     f"the details. It is not your fault.)",
            "internal": [internal]}


# ---- in the batch parent ---------------------------------------------------------------

class _Slot:
    def __init__(self, index: int, process: BaseProcess, conn: Connection) -> None:
        self.index, self.process, self.conn = index, process, conn
        # Tasks sent to it and not answered yet, oldest first: the next one waits in its pipe, so
        # it starts grading as soon as it has sent a result, while the parent writes that result.
        self.inflight: deque[dict[str, Any]] = deque()
        self.started: float | None = None  # monotonic time its grading process said "start" for the oldest
        self.sent: float | None = None  # monotonic time the oldest was sent (covers a grading process stuck starting)

    @property
    def task(self) -> dict[str, Any] | None:
        """The task it is grading (or about to), or None."""
        return self.inflight[0] if self.inflight else None


class Pool:
    """`jobs` grading processes; `run(tasks, on_result)` grades every task exactly once."""

    def __init__(self, jobs: int, options: dict[str, Any], context: str = "spawn") -> None:
        self.context: Any = multiprocessing.get_context(context)  # typeshed's BaseContext has no Process
        self.options = options
        # The worker's own budget stops student code; this only catches a grader that hangs.
        self.deadline = Settings.from_dict(options["settings"]).limits.grade_wait
        self.slots = [self._spawn(k) for k in range(jobs)]

    def _spawn(self, index: int) -> _Slot:
        ours, theirs = self.context.Pipe(duplex=True)
        process = self.context.Process(target=serve, args=(index, theirs, self.options),
                                       name=f"grader-{index}", daemon=True)
        process.start()
        theirs.close()
        return _Slot(index, process, ours)

    IN_FLIGHT = 2  # tasks per grading process: the one it grades and the next

    def run(self, tasks: Iterable[dict[str, Any]],
            on_result: Callable[[dict[str, Any], dict[str, Any]], object]) -> None:
        queue = deque(tasks)
        tries: dict[str, int] = {}
        while queue or any(s.task for s in self.slots):
            for slot in self.slots:
                # A second task only while there is enough left for every process: at the end of the
                # queue, a task waiting behind another would make an idle process wait too.
                while queue and (not slot.inflight or (len(slot.inflight) < self.IN_FLIGHT
                                                       and len(queue) > len(self.slots))):
                    task = queue.popleft()
                    if not slot.inflight:
                        slot.started, slot.sent = None, time.monotonic()
                    slot.inflight.append(task)
                    try:
                        _send(slot.conn, {k: task[k] for k in ("id", "path")})
                    except OSError:
                        pass  # noticed below as a dead process
            busy = [s for s in self.slots if s.task]
            wait([s.conn for s in busy] + [s.process.sentinel for s in busy], timeout=1.0)
            for slot in busy:
                lost = self._drain(slot, on_result)
                now = time.monotonic()
                if not lost and ((slot.started and now - slot.started > self.deadline)
                                 or (slot.task and now - slot.sent > 2 * self.deadline)):  # type: ignore[operator]
                    lost = f"the grading process took more than {self.deadline:.0f} s and was stopped"
                if lost:
                    task, waiting = slot.task, list(slot.inflight)[1:]  # type: ignore[assignment]  # see report
                    self._replace(slot)
                    queue.extendleft(reversed(waiting))  # never started: no try counted against them
                    tries[task["id"]] = tries.get(task["id"], 0) + 1
                    if tries[task["id"]] < 2:
                        queue.appendleft(task)  # once more, on a fresh grading process
                    else:
                        on_result(task, grader_error(lost, lost, 0.0))

    def _drain(self, slot: _Slot, on_result: Callable[[dict[str, Any], dict[str, Any]], object]) -> str:
        """Read every message waiting from the slot; return why it is lost, or ''."""
        try:
            while slot.task and slot.conn.poll():
                message = json.loads(slot.conn.recv_bytes())
                if message["event"] == "start":
                    slot.started = time.monotonic()
                elif message["event"] == "done" and message["id"] == slot.task["id"]:
                    task, slot.started, slot.sent = slot.inflight.popleft(), None, time.monotonic()
                    on_result(task, message["result"])
        except (EOFError, OSError, ValueError):
            return "the grading process exited unexpectedly"
        if slot.task and not slot.process.is_alive():
            return f"the grading process exited unexpectedly (exit code {slot.process.exitcode})"
        return ""

    def _replace(self, slot: _Slot) -> None:
        _kill_tree(slot.process)
        slot.conn.close()
        fresh = self._spawn(slot.index)
        slot.process, slot.conn, slot.started = fresh.process, fresh.conn, None
        slot.inflight.clear()

    def close(self, force: bool = False) -> None:
        """Hang up on every grading process; they close their template and exit."""
        for slot in self.slots:
            if force:
                _kill_tree(slot.process)
            slot.conn.close()
        for slot in self.slots:
            slot.process.join(timeout=30)
            if slot.process.is_alive():
                _kill_tree(slot.process)
                slot.process.join(timeout=5)


def _kill_tree(process: BaseProcess) -> None:
    """SIGKILL a grading process and everything under it (its template and any worker)."""
    try:
        root = psutil.Process(process.pid)
        victims = root.children(recursive=True) + [root]
    except psutil.Error:
        victims = []
    for victim in victims:
        try:
            victim.kill()
        except psutil.Error:
            pass
    process.join(timeout=5)
