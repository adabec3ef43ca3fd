"""The grader's side of the sandbox: one submission's workers, and every limit on them.

Every limit is enforced from here, outside the student's process: wall-clock budgets
by waiting with a deadline and SIGKILLing the worker's whole PID namespace (or process
group), reply sizes by refusing oversized frames unread.
"""
import os
import signal
import socket
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ..sandbox import confine, wire
from .student import GraderFault, WorkerLost

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Limits:
    call_seconds: float = 10.0  # one call of a graded function
    cell_seconds: float = 30.0  # one notebook cell at start-up
    submission_seconds: float = 300.0  # everything for one submission
    memory_mib: int = 4096  # address space of the worker (PyTorch alone maps ~1.5 GiB)
    reply_mib: int = 64  # largest reply the grader will read
    file_mib: int = 64  # largest file the worker may write
    disk_mib: int = 256  # its private /tmp
    processes: int = 256  # processes and threads of its uid
    max_restarts: int = 12  # workers one submission may use up


@dataclass
class CellReport:
    index: int
    error: dict = None
    output: str = ""
    fatal: str = ""  # the cell killed or hung its worker and is skipped from then on


class _Worker:
    """One worker of a lane: requested from the template, then booted (cells sent), then ready."""

    def __init__(self, pending):
        self.pending, self.sock = pending, pending.sock
        self.booted = self.ready = self.heard = False  # heard: it sent anything at all
        self.current = None  # the cell it is running, while it runs the notebook

    @property
    def pid(self):
        return self.pending.pid

    @property
    def failed(self):
        return self.pending.failed


class WorkerSession:
    """Transport for `Student`: one submission, as many fresh workers as it takes.

    Two lanes, each a fresh worker that ran the whole notebook: one answers the function
    calls, the other does the lab's training run. The training lane needs the template
    warm (PyTorch's optimizer first imports torch._dynamo, ~1 s); the calls lane does
    not, so on a cold start the function parts are graded while the template warms up.
    The training worker gets the notebook only once the calls worker has run it, so a
    cell that hangs or kills is run into once. Separate lanes also mean the training run
    never sees state left by earlier calls.

    The execution report holds each cell's first result from any lane (a cell that
    killed or hung a worker is recorded as such and skipped by every later worker).
    Time limits count from when the grader waits for an answer.
    """

    def __init__(self, zygote, cells, limits=None, hide=()):
        self.zygote, self.cells, self.limits = zygote, list(cells), limits or Limits()
        self.deadline = None  # the budget starts with the first worker (grade start), not with the template's start
        self.reports, self.skip, self.restarts = {}, set(), 0
        self.poisoned = {}  # function name -> why it is not called again
        self.hide = [str(p) for p in hide]
        self.workers = {}  # lane -> _Worker
        self.workdirs = []
        self.broken = ""  # set when no worker can be brought up any more (the submission's doing)
        self.fault = ""  # set when the sandbox itself cannot start a worker (ours)

    # ---- worker lifecycle -------------------------------------------------------------
    def _config(self, lane):
        isolated = confine.can_isolate()
        workdir = None
        if not isolated:
            workdir = tempfile.mkdtemp(prefix="week7-worker-")
            self.workdirs.append(workdir)
        keep = sorted({sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))})
        # /autograder: Gradescope's tree (source, results, submission), whatever ROOT is.
        return {"isolated": isolated, "uid": 61000 + self.zygote.slot, "workdir": workdir,
                "warm": lane == "training",
                "hide": ["/autograder", str(ROOT), "/root", *self.hide], "keep": keep,
                "memory_mib": self.limits.memory_mib, "file_mib": self.limits.file_mib,
                "disk_mib": self.limits.disk_mib, "processes": self.limits.processes}

    def _remaining(self, cap):
        if self.deadline is None:
            self.deadline = time.monotonic() + self.limits.submission_seconds
        return max(0.0, min(cap, self.deadline - time.monotonic()))

    @staticmethod
    def lane_of(part):
        return "training" if part == "training" else "calls"

    def prefetch(self, parts):
        """Start the workers these parts need now, so they run the notebook while the grader collects its suites."""
        for lane in sorted({self.lane_of(p) for p in parts}):  # "calls" first: the template forks it at once
            if lane not in self.workers:
                worker = self._launch(lane)
                if lane == "calls":  # the template forks it at once (it warms up afterwards)
                    try:
                        self._boot(worker)
                    except WorkerLost:
                        self.kill(lane)  # started again when a check needs it, which reports why
        self._progress()

    def _launch(self, lane):
        if self.fault:
            raise GraderFault(self.fault)
        if self.broken:
            raise WorkerLost(self.broken)
        if self.restarts >= self.limits.max_restarts:
            self.broken = "the notebook crashed or hung its worker too many times; grading stopped"
            raise WorkerLost(self.broken)
        if self._remaining(1) <= 0:
            self.broken = f"the submission's time budget of {self.limits.submission_seconds:.0f} s ran out"
            raise WorkerLost(self.broken)
        worker = self.workers[lane] = _Worker(self.zygote.request(self._config(lane)))
        self.restarts += 1  # only workers that exist count against the submission (a GraderFault is ours)
        return worker

    def _boot(self, worker):
        """Hand a forked worker the notebook (once the template has answered for it)."""
        if not worker.booted:
            try:
                self.zygote.wait(worker.pending)
            except GraderFault:
                self._forget(worker)  # never waited for again; a later need asks for a new one
                raise
            worker.booted = True
            self._send(worker, {"op": "init", "cells": self.cells, "skip": sorted(self.skip)})

    def _progress(self):
        """Boot every worker the template has forked meanwhile (the training lane after its warm-up).

        Not before the calls lane has run the whole notebook: by then every cell that hangs
        or kills a worker is known and skipped, instead of being run into a second time.
        """
        self.zygote.poll()
        calls = self.workers.get("calls")
        for lane, worker in list(self.workers.items()):
            if worker.failed:
                self._forget(worker)  # the lane asks again when it is needed, and reports it then
            elif worker.pid is not None and not worker.booted and (worker is calls or calls is None or calls.ready):
                try:
                    self._boot(worker)
                except WorkerLost:
                    self.kill(lane)  # it is started again when its lane is next needed

    def _forget(self, worker):
        for lane, known in list(self.workers.items()):
            if known is worker:
                del self.workers[lane]
        worker.sock.close()

    def _start(self, lane="calls"):
        """The lane's worker, ready: launched if needed, booted, its notebook run."""
        while True:
            worker = self.workers.get(lane) or self._launch(lane)
            try:
                self._boot(worker)
                while not worker.ready:
                    event = self._receive(worker, self._remaining(self.limits.cell_seconds))
                    worker.heard = True
                    kind = event.get("event")
                    if kind == "cell_start" and isinstance(event.get("index"), int):
                        worker.current = event["index"]
                    elif kind == "cell_end" and worker.current is not None:
                        self.reports.setdefault(worker.current, CellReport(
                            worker.current, _error(event.get("error")), str(event.get("output", ""))[:20000]))
                        worker.current = None
                    elif kind == "ready":
                        worker.ready = True
                    else:
                        raise WorkerLost("sent an unusable reply (out of order)")
                return worker
            except WorkerLost as lost:
                self.kill(lane)
                if not worker.heard and self._remaining(1) > 0:
                    # It speaks before it runs a line of the notebook: silence is the sandbox's failure,
                    # and the next worker would fare no better.
                    self.fault = (f"a fresh worker {lost} before it ran the notebook; the sandbox could not "
                                  f"start it (see the messages above)")
                    raise GraderFault(self.fault) from None
                if worker.current is None:
                    raise
                self.skip.add(worker.current)
                self.reports[worker.current] = CellReport(worker.current, None, "",
                                                          f"it {lost}; the cell was skipped")

    def _send(self, worker, message):
        try:  # a worker that stops reading must not hang the grader on a full socket buffer
            worker.sock.settimeout(max(1.0, self._remaining(self.limits.call_seconds)))
            worker.sock.sendall(wire.encode(message))
        except OSError as err:
            raise WorkerLost("stopped responding (it exited)") from err

    def _receive(self, worker, timeout):
        end = time.monotonic() + timeout
        sock = worker.sock

        def read_exactly(n):
            chunks, left = [], n
            while left:
                wait = end - time.monotonic()
                if wait <= 0:
                    raise WorkerLost(f"ran past its time limit ({timeout:.0f} s)")
                sock.settimeout(wait)
                try:
                    chunk = sock.recv(min(left, 1 << 20))
                except socket.timeout as err:
                    raise WorkerLost(f"ran past its time limit ({timeout:.0f} s)") from err
                except OSError as err:
                    raise WorkerLost("exited unexpectedly") from err
                if not chunk:
                    raise WorkerLost("exited unexpectedly (for example sys.exit, os._exit, or a memory limit)")
                chunks.append(chunk)
                left -= len(chunk)
            return b"".join(chunks)

        try:
            message = wire.read_frame(read_exactly, max_bytes=self.limits.reply_mib << 20)
        except WorkerLost:
            raise
        except Exception as err:  # noqa: BLE001 - whatever the bytes say (deep nesting, bad sizes), it is the worker's fault
            raise WorkerLost(f"sent an unusable reply: {str(err)[:200]}") from err
        if not isinstance(message, dict):
            raise WorkerLost("sent an unusable reply (not a message)")
        return message

    def kill(self, lane):
        """SIGKILL a lane's worker with everything it started (its PID namespace or process group)."""
        worker = self.workers.pop(lane, None)
        if worker is None:
            return
        try:
            self.zygote.wait(worker.pending)  # a worker still being forked is killed once it exists
        except GraderFault:
            worker.sock.close()
            return
        for target in ((worker.pid,) if confine.can_isolate() else (-worker.pid, worker.pid)):
            try:
                os.kill(target, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _wait_gone(worker.pid)
        worker.sock.close()

    # ---- transport ----------------------------------------------------------------------
    def request(self, message, timeout=None):
        name = message.get("name", "training")
        lane = "training" if message.get("op") == "train" else "calls"
        if name in self.poisoned:
            raise WorkerLost(self.poisoned[name])
        self._progress()
        for attempt in (1, 2):
            worker = self._start(lane)
            try:
                self._send(worker, message)
                break
            except WorkerLost:  # it died between calls (a timer, a thread): not this function's doing
                self.kill(lane)  # never keep a dead socket: every later call would fail on it
                if attempt == 2:
                    raise
        limit = timeout or self.limits.call_seconds
        try:
            reply = self._receive(worker, self._remaining(limit))
            if reply.get("event") != "reply":
                raise WorkerLost("sent an unusable reply (out of order)")
        except WorkerLost as lost:
            self.kill(lane)
            why = f"`{name}` {lost}" if name != "training" else f"the training run {lost}"
            # Whatever lost the worker (a hang, an exit, an oversized or forged reply) would
            # lose the next one too: each restart re-runs the notebook and spends the shared
            # restart budget that the other parts still need.
            self.poisoned[name] = why + "; it is not called again"
            raise WorkerLost(why) from None
        if not reply.get("ok"):
            reply["error"] = _error(reply.get("error")) or {}
        return reply

    def execution_report(self):
        """The notebook's cell results; runs it now if no check needed a worker (so its errors are known)."""
        if not self.reports and not self.broken:
            try:
                self._start(next(iter(self.workers), "calls"))
            except (WorkerLost, GraderFault):  # already reported by the checks that needed a worker
                pass
        return [self.reports[i] for i in sorted(self.reports)]

    def close(self):
        for lane in list(self.workers):
            self.kill(lane)
        import shutil
        for workdir in self.workdirs:
            shutil.rmtree(workdir, ignore_errors=True)
        self.workdirs = []


def _error(error):
    """A worker's error report, reduced to the text fields the reports read."""
    if not isinstance(error, dict):
        return None
    clean = {"type": str(error.get("type") or "Error")[:100], "message": str(error.get("message", ""))[:500]}
    clean.update({key: str(error[key])[:500] for key in ("where", "function") if key in error})
    return clean


def _wait_gone(pid, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end and os.path.exists(f"/proc/{pid}"):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return
        except OSError:
            return
        time.sleep(0.005)
