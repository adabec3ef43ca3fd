"""The grader's handle on its warm worker template (sandbox/keeper/template.py): start it, ask it for workers.

One template per grading process, shared by every submission that process grades. It is
forked from this process right after ``import torch`` when that is safe: no hidden suite
or reference code loaded yet (a worker inherits the template's memory), and a fixed
string-hash seed (workers inherit ours; a student's set of strings must iterate the same
way on every regrade). Otherwise it is started as a fresh interpreter, which costs a
second ``import torch`` (~2 s).

Fork requests are asynchronous: ``request(config)`` returns at once with our end of the
new worker's socket, and the template answers requests in order. A request for a warm
worker (the training lane) is answered only once the template has warmed up, so the
grader keeps grading other parts in the meantime.
"""
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time
from collections import deque
from typing import TYPE_CHECKING

from ..assignment import HIDDEN, ROOT, module_prefixes
from ..sandbox.config import CLEAN_UP_SECONDS
from .student import GraderFault, lab_source

if TYPE_CHECKING:
    from ..sandbox.config import WorkerConfig
    from ..sandbox.confinement import Confinement

HIDDEN_CODE = tuple(ROOT / entry for entry in HIDDEN)
HIDDEN_MODULES = module_prefixes(HIDDEN)  # type: ignore[no-untyped-call]  # assignment.py: not annotated


def may_fork_template() -> bool:
    """True when a fork of this process carries no hidden code nor the secret, and our hash seed is fixed
    (and asserts kept)."""
    if sys.flags.hash_randomization or sys.flags.optimize:
        return False
    if getattr(sys.modules.get("autograder.engine.secret"), "loaded", False):
        return False
    hidden = tuple(f"{path}{os.sep}" for path in HIDDEN_CODE)
    for name, module in list(sys.modules.items()):
        if name.startswith(HIDDEN_MODULES):
            return False
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and os.path.realpath(path).startswith(hidden):
            return False
    return True


def load_shared_torch() -> None:
    """Import what the grader, the template and every worker all need, once, before the fork.

    Besides ``import torch`` itself: PyTorch loads torch.distributed.tensor and sympy (~0.8 s)
    on the first torch.testing.assert_close (the notebook's public checks) or the first
    masked nn.MultiheadAttention call (the suites). Loaded here, a cold grade pays that
    once instead of three times over on two cores.
    """
    import torch
    torch.set_num_threads(1)  # every worker computes on one thread, forked cold or warm
    torch.testing.assert_close(torch.zeros(1), torch.zeros(1))


# Watchdogs on the template itself, the grader's own machinery (no student code runs in it): not Limits.
CLOSE_SECONDS = CLEAN_UP_SECONDS + 5.0  # the template's own bound for its keepers' clean-up, and a margin
ANSWER_SECONDS = 120.0  # a template answers at once, or after its warm-up (~1-2 s); silence means it is stuck


class Pending:
    """A requested worker: our end of its socket now, its pid once the template has forked it."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock: socket.socket = sock
        self.pid: int | None = None
        self.failed = ""  # why the template could not start it


class Template:
    def __init__(self, confinement: "Confinement", slot: int = 0) -> None:
        self.slot = slot
        self.confinement = confinement  # sandbox/confinement.py: how its workers are confined (probed by the Grader)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.process: subprocess.Popen[bytes] | None
        self.pid: int  # set in both branches below
        self.control, self.process, self.pid, self.exited = ours, None, None, False  # type: ignore[assignment]
        self.waiting: deque[Pending] = deque()  # Pending requests the template has not answered yet, oldest first
        self.failed = ""  # set once the template is dead or stuck: every request fails at once
        self.forked = may_fork_template()
        if self.forked:
            load_shared_torch()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:  # the template; become_template never returns
                try:
                    ours.close()
                    from ..sandbox.keeper import template as template_process
                    template_process.become_template(theirs, lab_source())
                except BaseException:  # noqa: BLE001 - say why, then never return into the grader
                    import traceback
                    traceback.print_exc()
                finally:
                    os._exit(70)
            self.pid = pid
        else:
            env = dict(os.environ, GRADING="1", MPLBACKEND="Agg", OMP_NUM_THREADS="1", PYTHONHASHSEED="0",
                       PYTHONDONTWRITEBYTECODE="1")
            self.process = subprocess.Popen([sys.executable, "-m", "autograder.sandbox.keeper.template",
                                             str(theirs.fileno())], pass_fds=[theirs.fileno()], env=env,
                                            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
            self.pid = self.process.pid
            setup = json.dumps({"lab_source": lab_source()}).encode()
            ours.sendall(struct.pack(">Q", len(setup)) + setup)
        theirs.close()

    # ---- workers ------------------------------------------------------------------------
    def request(self, config: "WorkerConfig") -> Pending:
        """Ask for a fresh worker confined as ``config`` (sandbox/config.py WorkerConfig) says."""
        if self.failed:
            raise GraderFault(self.failed)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(self.control, [config.to_json()], [theirs.fileno()])
        except OSError as err:
            ours.close()
            self.failed = "the worker template is gone (see the messages above)"
            raise GraderFault(self.failed) from err
        finally:
            theirs.close()
        pending = Pending(ours)
        self.waiting.append(pending)
        return pending

    def wait(self, pending: Pending) -> None:
        """Block until the template has answered ``pending``; GraderFault if it could not start it."""
        while pending.pid is None and not pending.failed:
            if not self.waiting:  # answered and failed before, or never ours
                pending.failed = pending.failed or self.failed or "the worker template did not start this worker"
                break
            self._answer(ANSWER_SECONDS)
        if pending.failed:
            raise GraderFault(pending.failed)

    def poll(self) -> None:
        """Collect, without blocking, the answers that have already arrived."""
        while self.waiting and select.select([self.control], [], [], 0)[0]:
            self._answer(ANSWER_SECONDS)

    def _answer(self, timeout: float) -> None:
        """Read the template's next answer. A dead or silent template fails every request still waiting."""
        reply = b""
        if select.select([self.control], [], [], timeout)[0]:
            try:
                reply = self.control.recv(8, socket.MSG_WAITALL)
            except OSError:
                pass
            why = "the worker template is gone (see the messages above)"
        else:
            why = f"the worker template did not answer within {timeout:.0f} s"
        if len(reply) != 8:
            self.failed = why
            while self.waiting:
                pending = self.waiting.popleft()
                pending.failed = why
                pending.sock.close()
            return
        pending = self.waiting.popleft()
        pid = struct.unpack(">q", reply)[0]
        if pid > 0:
            pending.pid = pid
        else:
            pending.failed = "the worker template could not start a worker (see the messages above)"
            pending.sock.close()

    # ---- the template itself ----------------------------------------------------------------
    def alive(self) -> bool:
        if self.failed:
            return False
        if self.process is not None:
            return self.process.poll() is None
        if not self.exited:
            try:
                self.exited = os.waitpid(self.pid, os.WNOHANG)[0] != 0
            except ChildProcessError:
                self.exited = True
        return not self.exited

    def close(self) -> None:
        self.control.close()
        for pending in self.waiting:
            pending.sock.close()
        self.waiting.clear()
        # Hung up on, the template ends its workers and waits for their keepers' clean-up (scratch directories,
        # control groups) before it exits; only one that does not is killed.
        end = time.monotonic() + CLOSE_SECONDS
        while self.alive() and time.monotonic() < end:
            time.sleep(0.01)
        if self.process is not None:
            self.process.kill()
            self.process.wait()
        elif not self.exited:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.exited = True
