"""The grader's side of the sandbox: start the warm template, fork workers, enforce the limits.

Every limit is enforced from here, outside the student's process: wall-clock budgets
by waiting with a deadline and SIGKILLing the worker's whole PID namespace (or process
group), reply sizes by refusing oversized frames unread.
"""
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..sandbox import confine, wire
from .student import WorkerLost, lab_source

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


class Zygote:
    """One warm template process per grading process, shared by every submission it grades."""

    def __init__(self, slot=0):
        self.slot = slot
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        env = dict(os.environ, GRADING="1", MPLBACKEND="Agg", OMP_NUM_THREADS="1", PYTHONHASHSEED="0",
                   PYTHONDONTWRITEBYTECODE="1")
        self.process = subprocess.Popen([sys.executable, "-m", "autograder.sandbox.zygote", str(theirs.fileno())],
                                        pass_fds=[theirs.fileno()], env=env, cwd=ROOT,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        theirs.close()
        self.control = ours
        setup = json.dumps({"lab_source": lab_source()}).encode()
        ours.sendall(struct.pack(">Q", len(setup)) + setup)
        self.warm = False  # it warms up in the background while the grader collects its suites

    def _wait_warm(self):
        if not self.warm:
            if self.control.recv(1) != b"W":
                raise RuntimeError("the worker template failed to start (see the messages above)")
            self.warm = True

    def fork(self, config):
        self._wait_warm()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        socket.send_fds(self.control, [json.dumps(config).encode()], [theirs.fileno()])
        theirs.close()
        (pid,) = struct.unpack(">q", self.control.recv(8, socket.MSG_WAITALL))
        if pid <= 0:
            ours.close()
            raise RuntimeError("the worker template could not start a worker")
        return pid, ours

    def close(self):
        self.control.close()
        self.process.kill()
        self.process.wait()


class WorkerSession:
    """Transport for `Student`: one submission, as many fresh workers as it takes.

    The first worker's cell results are the notebook's execution report. A cell that
    kills or hangs its worker is recorded and skipped by every later worker.
    """

    def __init__(self, zygote, cells, limits=None, hide=()):
        self.zygote, self.cells, self.limits = zygote, list(cells), limits or Limits()
        self.deadline = None  # the budget starts with the first worker, not with the template's warm-up
        self.reports, self.skip, self.restarts = {}, set(), 0
        self.poisoned = {}  # function name -> why it is not called again
        self.hide = [str(p) for p in hide]
        self.pid = self.sock = None
        self.workdir = None
        self.broken = ""  # set when no worker can be brought up any more

    # ---- worker lifecycle -------------------------------------------------------------
    def _config(self):
        isolated = confine.can_isolate()
        if not isolated:
            self.workdir = tempfile.mkdtemp(prefix="week7-worker-")
        keep = sorted({sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))})
        # /autograder: Gradescope's tree (source, results, submission), whatever ROOT is.
        return {"isolated": isolated, "uid": 61000 + self.zygote.slot, "workdir": self.workdir,
                "hide": ["/autograder", str(ROOT), "/root", *self.hide], "keep": keep,
                "memory_mib": self.limits.memory_mib, "file_mib": self.limits.file_mib,
                "disk_mib": self.limits.disk_mib, "processes": self.limits.processes}

    def _remaining(self, cap):
        if self.deadline is None:
            self.deadline = time.monotonic() + self.limits.submission_seconds
        return max(0.0, min(cap, self.deadline - time.monotonic()))

    def _start(self):
        while True:
            if self.broken:
                raise WorkerLost(self.broken)
            if self.restarts >= self.limits.max_restarts:
                self.broken = "the notebook crashed or hung its worker too many times; grading stopped"
                raise WorkerLost(self.broken)
            if self._remaining(1) <= 0:
                self.broken = f"the submission's time budget of {self.limits.submission_seconds:.0f} s ran out"
                raise WorkerLost(self.broken)
            self.restarts += 1
            self.pid, self.sock = self.zygote.fork(self._config())
            self._send({"op": "init", "cells": self.cells, "skip": sorted(self.skip)})
            current = None
            try:
                while True:
                    event = self._receive(self._remaining(self.limits.cell_seconds))
                    kind = event.get("event")
                    if kind == "cell_start" and isinstance(event.get("index"), int):
                        current = event["index"]
                    elif kind == "cell_end" and current is not None:
                        self.reports.setdefault(current, CellReport(current, _error(event.get("error")),
                                                                    str(event.get("output", ""))[:20000]))
                        current = None
                    elif kind == "ready":
                        return
                    else:
                        raise WorkerLost("sent an unusable reply (out of order)")
            except WorkerLost as lost:
                self.kill()
                if current is None:
                    raise
                self.skip.add(current)
                self.reports[current] = CellReport(current, None, "", f"it {lost}; the cell was skipped")

    def _send(self, message):
        try:  # a worker that stops reading must not hang the grader on a full socket buffer
            self.sock.settimeout(max(1.0, self._remaining(self.limits.call_seconds)))
            self.sock.sendall(wire.encode(message))
        except OSError as err:
            raise WorkerLost("stopped responding (it exited)") from err

    def _receive(self, timeout):
        end = time.monotonic() + timeout

        def read_exactly(n):
            chunks, left = [], n
            while left:
                wait = end - time.monotonic()
                if wait <= 0:
                    raise WorkerLost(f"ran past its time limit ({timeout:.0f} s)")
                self.sock.settimeout(wait)
                try:
                    chunk = self.sock.recv(min(left, 1 << 20))
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

    def kill(self):
        """SIGKILL the worker with everything it started (its PID namespace or process group)."""
        if self.pid:
            for target in ((self.pid,) if confine.can_isolate() else (-self.pid, self.pid)):
                try:
                    os.kill(target, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            _wait_gone(self.pid)
        if self.sock is not None:
            self.sock.close()
        self.pid = self.sock = None
        if self.workdir:
            import shutil
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None

    # ---- transport ----------------------------------------------------------------------
    def request(self, message, timeout=None):
        name = message.get("name", "training")
        if name in self.poisoned:
            raise WorkerLost(self.poisoned[name])
        for attempt in (1, 2):
            if self.sock is None:
                self._start()
            try:
                self._send(message)
                break
            except WorkerLost:  # it died between calls (a timer, a thread): not this function's doing
                self.kill()  # never keep a dead socket: every later call would fail on it
                if attempt == 2:
                    raise
        limit = timeout or self.limits.call_seconds
        try:
            reply = self._receive(self._remaining(limit))
            if reply.get("event") != "reply":
                raise WorkerLost("sent an unusable reply (out of order)")
        except WorkerLost as lost:
            self.kill()
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
        if self.sock is None and not self.reports and not self.broken:
            try:
                self._start()
            except WorkerLost:
                pass
        return [self.reports[i] for i in sorted(self.reports)]

    def close(self):
        self.kill()


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
