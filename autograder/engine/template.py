"""The grader's handle on its warm worker template (sandbox/zygote.py): start it, ask it for workers.

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
from collections import deque
from pathlib import Path

from .student import GraderFault, lab_source

ROOT = Path(__file__).resolve().parents[2]
HIDDEN_CODE = (ROOT / "autograder" / "suites", ROOT / "solutions" / "reference")


def may_fork_template():
    """True when a fork of this process carries nothing a worker must not read, and our hash seed is fixed."""
    if sys.flags.hash_randomization:
        return False
    hidden = tuple(f"{path}{os.sep}" for path in HIDDEN_CODE)
    return not any(str(getattr(module, "__file__", None) or "").startswith(hidden)
                   for module in list(sys.modules.values()))


def load_shared_torch():
    """Import what the grader, the template and every worker all need, once, before the fork.

    Besides ``import torch`` itself: PyTorch loads torch.distributed.tensor and sympy (~0.8 s)
    on the first torch.testing.assert_close (the notebook's public checks) or the first
    masked nn.MultiheadAttention call (the suites). Loaded here, a cold grade pays that
    once instead of three times over on two cores.
    """
    import torch
    torch.testing.assert_close(torch.zeros(1), torch.zeros(1))


class Pending:
    """A requested worker: our end of its socket now, its pid once the template has forked it."""

    def __init__(self, sock):
        self.sock, self.pid = sock, None


class Zygote:
    def __init__(self, slot=0):
        self.slot = slot
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.control, self.process, self.pid, self.exited = ours, None, None, False
        self.waiting = deque()  # Pending requests the template has not answered yet, oldest first
        self.forked = may_fork_template()
        if self.forked:
            load_shared_torch()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:  # the template; become_template never returns
                try:
                    ours.close()
                    from ..sandbox import zygote
                    zygote.become_template(theirs, lab_source())
                finally:
                    os._exit(70)
            self.pid = pid
        else:
            env = dict(os.environ, GRADING="1", MPLBACKEND="Agg", OMP_NUM_THREADS="1", PYTHONHASHSEED="0",
                       PYTHONDONTWRITEBYTECODE="1")
            self.process = subprocess.Popen([sys.executable, "-m", "autograder.sandbox.zygote",
                                             str(theirs.fileno())], pass_fds=[theirs.fileno()], env=env,
                                            cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
            self.pid = self.process.pid
            setup = json.dumps({"lab_source": lab_source()}).encode()
            ours.sendall(struct.pack(">Q", len(setup)) + setup)
        theirs.close()

    # ---- workers ------------------------------------------------------------------------
    def request(self, config):
        """Ask for a fresh confined worker; ``config["warm"]``: only from a warmed-up template."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            socket.send_fds(self.control, [json.dumps(config).encode()], [theirs.fileno()])
        except OSError as err:
            ours.close()
            raise GraderFault("the worker template is gone (see the messages above)") from err
        finally:
            theirs.close()
        pending = Pending(ours)
        self.waiting.append(pending)
        return pending

    def wait(self, pending):
        """Block until the template has answered ``pending`` (and every request before it)."""
        while pending.pid is None:
            self._answer()

    def poll(self):
        """Collect, without blocking, the answers that have already arrived."""
        while self.waiting and select.select([self.control], [], [], 0)[0]:
            self._answer()

    def _answer(self):
        try:
            reply = self.control.recv(8, socket.MSG_WAITALL)
        except OSError:
            reply = b""
        pid = struct.unpack(">q", reply)[0] if len(reply) == 8 else 0
        pending = self.waiting.popleft()
        if pid <= 0:
            pending.sock.close()
            raise GraderFault("the worker template could not start a worker (see the messages above)")
        pending.pid = pid

    def fork(self, config):
        """A fresh confined worker, waited for: (pid, socket)."""
        pending = self.request(config)
        self.wait(pending)
        return pending.pid, pending.sock

    # ---- the template itself ----------------------------------------------------------------
    def alive(self):
        if self.process is not None:
            return self.process.poll() is None
        if not self.exited:
            try:
                self.exited = os.waitpid(self.pid, os.WNOHANG)[0] != 0
            except ChildProcessError:
                self.exited = True
        return not self.exited

    def close(self):
        self.control.close()
        for pending in self.waiting:
            pending.sock.close()
        self.waiting.clear()
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
