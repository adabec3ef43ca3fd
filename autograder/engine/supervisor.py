"""The grader's side of the sandbox: one submission's worker, every limit on it, and what it observes.

Every limit is enforced from here, outside the student's process: wall-clock budgets by
waiting with a deadline and SIGKILLing the worker's whole PID namespace (or process
group), reply sizes by refusing oversized frames unread.

A worker's life (WorkerState), one at a time per submission:

    REQUESTED --template forks it--> FORKED --arena fd + Init--> RUNNING_NOTEBOOK
        --Ready--> READY --Call ... Reply--> READY ... --kill--> GONE

A worker that dies or hangs while running a cell is replaced; the new one skips that
cell. One that dies during a call is replaced, and the function it was running is not
called again.

What the grader learns about a call is split by trust (see sandbox/wire/protocol.py): the
return value is the student's word and is treated as data; whether a tensor argument
was written into (the call arena is shared memory) and the train/eval mode a model was
left in (models stay here; the worker only has a stand-in) the grader sees for itself.
"""
import enum
import fcntl
import mmap
import os
import signal
import socket
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from ..assignment import ASSIGNMENT, private, served
from ..settings import Limits
from ..sandbox.wire import protocol, values as wire
from ..sandbox.config import WorkerConfig
from ..sandbox.confinement import Mode, python_trees
from .call_result import CallResult
from .faults import GraderFault, SubmissionFault, WorkerLost

if TYPE_CHECKING:
    from ..plugin_api import ModelServer
    from .template import Pending, Template

# A fresh worker's first message (confinement and start-up). Not one of the Limits: no student code runs yet, so
# silence then is the sandbox's fault, never the submission's.
START_SECONDS = 120.0


@dataclass
class CellReport:
    index: int
    error: dict[str, str] | None = None  # {"type", "message"} of what the cell raised
    output: str = ""
    fatal: str = ""  # the cell killed or hung its worker and is skipped from then on


class WorkerState(enum.Enum):
    REQUESTED = "requested"  # asked of the template, not forked yet
    FORKED = "forked"  # has a pid; not given the notebook yet
    RUNNING_NOTEBOOK = "running notebook"  # Init sent; cells running
    READY = "ready"  # answering calls
    GONE = "gone"  # killed, or lost


class Worker:
    def __init__(self, pending: "Pending") -> None:
        self.pending, self.sock = pending, pending.sock
        self.state = WorkerState.REQUESTED
        self.heard = False  # it sent anything at all (silence before the first cell is the sandbox's fault)
        self.current: int | None = None  # the cell it is running
        self.pending_cells: list[int] = []  # the cells it must still announce, in order (set when it gets the notebook)

    @property
    def pid(self) -> int:
        return self.pending.pid  # type: ignore[return-value]  # read once the template has forked it (Template.wait)


class Arena:
    """Shared memory (a memfd) for one call's tensor arguments, mapped here and in the worker.

    Its size is sealed before the worker gets it: the worker may write into it (that is how
    the grader sees an input modified in place), but a worker that could shrink the file
    would make the grader's next write into its own mapping a SIGBUS, killing the grading
    process (red team, round 4: `os.ftruncate` on the arena's fd from a notebook cell).
    """

    ALIGN = 64
    SEALS = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL

    def __init__(self, mib: int) -> None:
        self.fd = os.memfd_create("autograder-call-arena", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        os.ftruncate(self.fd, mib << 20)
        fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, self.SEALS)
        self.map = mmap.mmap(self.fd, mib << 20)
        self.size, self.used = mib << 20, 0

    def place(self, tensor: torch.Tensor) -> tuple[wire.SharedTensor, bytes]:
        """Copy ``tensor`` in; return (its SharedTensor, the bytes placed)."""
        with torch._C.DisableTorchFunctionSubclass():
            t = tensor.detach().to("cpu").contiguous().as_subclass(torch.Tensor)
        raw = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        offset = self.used
        if offset + len(raw) > self.size:
            # Our own probes are tiny: only values the student's functions returned (a shifted
            # batch passed on to their loss) can be this large.
            raise SubmissionFault(f"the values passed on from your functions are too large ({(offset + len(raw)) / 2**20:.0f} MiB; "
                                  f"the limit is {self.size >> 20} MiB)")
        self.map[offset:offset + len(raw)] = raw
        self.used = -(-(offset + len(raw)) // self.ALIGN) * self.ALIGN
        return wire.SharedTensor(offset, wire.DTYPE_NAMES[t.dtype], tuple(t.shape)), raw

    def unchanged(self, spec: wire.SharedTensor, raw: bytes) -> bool:
        return self.map[spec.offset:spec.offset + len(raw)] == raw

    def reset(self) -> None:
        self.used = 0

    def close(self) -> None:
        self.map.close()
        os.close(self.fd)


class WorkerSession:
    """Transport for `Student`: one submission, as many fresh workers as it takes.

    The execution report holds each cell's first result from any worker (a cell that
    killed or hung a worker is recorded as such and skipped by every later worker).
    Time limits count from when the grader waits for an answer.
    """

    def __init__(self, template: "Template", cells: Iterable[str], limits: Limits | None = None,
                 hide: Iterable[object] = ()) -> None:
        self.template, self.cells, self.limits = template, list(cells), limits or Limits()
        self.deadline: float | None = None  # the budget starts with the first worker, not with the template's start
        self.reports: dict[int, CellReport]
        self.skip: set[int]
        self.reports, self.skip, self.restarts = {}, set(), 0
        self.output_kept = 0  # characters of cell output kept so far (Limits.output_chars)
        self.poisoned: dict[str, str] = {}  # function name -> why it is not called again
        self.model_seconds = 0.0  # the grader's CPU time spent running lab models for this submission
        self.hide = [str(p) for p in hide]
        self.worker: Worker | None = None
        self.arena = Arena(self.limits.arena_mib)
        self.broken = ""  # set when no worker can be brought up any more (the submission's doing)
        self.fault = ""  # set when the sandbox itself cannot start a worker (ours)

    # ---- worker life cycle --------------------------------------------------------------
    def _config(self) -> WorkerConfig:
        """The worker's WorkerConfig: this machine's confinement and the submission's limits."""
        confinement = self.template.confinement
        # Never visible: private() (the checkout, or an installed package's two folders in site-packages, and the
        # working data with the secret), Gradescope's tree (source, results, submission: /autograder, wherever the
        # package is), root's home, and the flow's own (--hide).
        hidden = sorted({*map(str, private()), "/autograder", "/root", *self.hide})
        keep = python_trees(hidden)
        return WorkerConfig(mode=confinement.mode, limits=self.limits, keep=tuple(keep), hidden=tuple(hidden),
                            own_uid=confinement.own_uid, landlock_abi=confinement.landlock_abi)

    def _remaining(self, cap: float) -> float:
        if self.deadline is None:
            self.deadline = time.monotonic() + self.limits.submission_seconds
        return max(0.0, min(cap, self.deadline - time.monotonic()))

    def prefetch(self, parts: object = None) -> None:
        """Start the worker now, so it runs the notebook while the grader collects its suites."""
        if self.worker is None:
            try:
                self._boot(self._launch())
            except WorkerLost:
                self.kill()  # started again when a check needs it, which reports why

    def _launch(self) -> Worker:
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
        self.worker = Worker(self.template.request(self._config()))
        self.restarts += 1  # only workers that exist count against the submission (a GraderFault is ours)
        return self.worker

    def _boot(self, worker: Worker) -> None:
        """REQUESTED -> FORKED -> RUNNING_NOTEBOOK: hand the forked worker the arena and the notebook."""
        if worker.state is WorkerState.REQUESTED:
            try:
                self.template.wait(worker.pending)
            except GraderFault:
                self._forget(worker)  # never waited for again; a later need asks for a new one
                raise
            worker.state = WorkerState.FORKED
        if worker.state is WorkerState.FORKED:
            try:
                socket.send_fds(worker.sock, [b"A"], [self.arena.fd])
            except OSError as err:
                raise WorkerLost("stopped responding (it exited)") from err
            self._send(worker, protocol.Init(self.cells, output_chars=self.limits.cell_output_chars, skip=sorted(self.skip)))
            worker.pending_cells = [i for i, source in enumerate(self.cells) if i not in self.skip and source.strip()]
            worker.state = WorkerState.RUNNING_NOTEBOOK

    def _forget(self, worker: Worker) -> None:
        if self.worker is worker:
            self.worker = None
        worker.state = WorkerState.GONE
        worker.sock.close()

    def _ready(self) -> Worker:
        """The worker, READY: launched if needed, booted, its notebook run."""
        while True:
            worker = self.worker or self._launch()
            try:
                self._boot(worker)
                while worker.state is not WorkerState.READY:
                    # Nothing of the student's runs before a worker's first message (it confines itself,
                    # then announces the first cell): on a loaded machine that may take a while, and
                    # silence then is the sandbox's, so it gets START_SECONDS rather than a cell's limit.
                    wait = self.limits.cell_seconds if worker.heard else max(self.limits.cell_seconds, START_SECONDS)
                    event = self._receive(worker, self._remaining(wait),
                                          (protocol.CellStart, protocol.CellEnd, protocol.Ready))
                    worker.heard = True
                    # The worker's word on which cell it runs is checked against the notebook: cells
                    # are announced once each, in order, none made up, so a notebook cannot make the
                    # grader keep more reports (or text) than it has cells.
                    if isinstance(event, protocol.CellStart) and worker.current is None and worker.pending_cells \
                            and event.index == worker.pending_cells[0]:
                        worker.current = worker.pending_cells.pop(0)
                    elif isinstance(event, protocol.CellEnd) and worker.current == event.index:
                        self._report(event)
                        worker.current = None
                    elif isinstance(event, protocol.Ready) and worker.current is None and not worker.pending_cells:
                        worker.state = WorkerState.READY
                    else:
                        raise WorkerLost("sent an unusable reply (out of order)")
                return worker
            except WorkerLost as lost:
                self.kill()
                if not worker.heard and self._remaining(1) > 0:
                    # It speaks before it runs a line of the notebook: silence is the sandbox's failure,
                    # and the next worker would fare no better.
                    self.fault = (f"a fresh worker {lost} before it ran the notebook; the sandbox could not "
                                  f"start it (see the messages above)")
                    raise GraderFault(self.fault) from None
                if worker.current is None:
                    raise
                self.skip.add(worker.current)
                # Its first result stands: a cell that one worker ran to the end and a later one died in (a
                # watchdog's kill that came late, on a loaded machine) keeps what it printed the first time.
                self.reports.setdefault(worker.current, CellReport(worker.current, None, "",
                                                                   f"it {lost}; the cell was skipped"))

    def _report(self, event: protocol.CellEnd) -> None:
        """Keep a cell's first result; its text within Limits.cell_output_chars (the worker was told so, and is not
        trusted to have kept to it) and what is left of Limits.output_chars for the whole notebook."""
        if event.index in self.reports:
            return
        room = max(0, self.limits.output_chars - self.output_kept)
        printed = str(event.output)
        output = printed[:min(self.limits.cell_output_chars, room)]
        self.output_kept += len(output)
        dropped = len(printed) - len(output) + min(max(0, event.dropped), 1 << 53)  # the worker's word: a number
        note = f"\n[... {dropped} more characters of output dropped]" if dropped else ""
        self.reports[event.index] = CellReport(event.index, _error(event.error), output + note)

    def _send(self, worker: Worker, record: object) -> None:
        """Send ``record`` (or a frame already encoded) to the worker."""
        frame = record if isinstance(record, bytes) else wire.encode(protocol.to_wire(record))
        try:  # a worker that stops reading must not hang the grader on a full socket buffer
            worker.sock.settimeout(max(1.0, self._remaining(self.limits.call_seconds)))
            worker.sock.sendall(frame)
        except (OSError, wire.WireError) as err:
            raise WorkerLost("stopped responding (it exited)") from err

    def _receive(self, worker: Worker, timeout: float, expected: Sequence[type[Any]],
                 limit: float | None = None) -> Any:
        """The worker's next message, one of ``expected``; reading and decoding count against ``timeout``.

        ``limit``: the limit to name when it runs out (the call's, not what was left of it).
        """
        end = time.monotonic() + timeout
        sock = worker.sock
        timeout = limit or timeout

        def read_exactly(n: int) -> bytes:
            chunks, left = list[bytes](), n
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
            message = protocol.parse(wire.read_frame(read_exactly, max_bytes=self.limits.reply_mib << 20), expected)
        except WorkerLost:
            raise
        except Exception as err:  # whatever the bytes say (deep nesting, bad sizes), it is the worker's fault
            raise WorkerLost(f"sent an unusable reply: {str(err)[:200]}") from err
        if time.monotonic() > end:
            raise WorkerLost(f"ran past its time limit ({timeout:.0f} s)")
        return message

    def kill(self, wait: bool = True) -> None:
        """SIGKILL the worker with everything it started (its PID namespace or process group).

        ``wait``: until it is gone (a replacement is about to start). At the end of a grade there
        is no need: SIGKILL cannot be caught, its keeper reaps it and removes its control group,
        and the next submission's worker has a uid and namespaces of its own.
        """
        worker, self.worker = self.worker, None
        if worker is None or worker.state is WorkerState.GONE:
            return
        try:
            self.template.wait(worker.pending)  # a worker still being forked is killed once it exists
        except GraderFault:
            self._forget(worker)
            return
        # PID 1 of its own namespace takes every process of it along; without one, its process group (the
        # keeper sweeps whatever left the group).
        pid_namespace = self.template.confinement.mode in (Mode.NAMESPACES, Mode.USER_NAMESPACE)
        for target in ((worker.pid,) if pid_namespace else (-worker.pid, worker.pid)):
            try:
                os.kill(target, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if wait:
            _wait_gone(worker.pid)
        self._forget(worker)

    # ---- transport ----------------------------------------------------------------------
    def call(self, name: str, args: list[Any], kwargs: dict[str, Any], grad: bool = False,
             timeout: float | None = None) -> CallResult:
        """Run the student's ``name`` in the worker: a CallResult (value as data, the rest observed here)."""
        if name in self.poisoned:
            raise WorkerLost(self.poisoned[name])
        self.arena.reset()
        placed: list[tuple[int | None, wire.SharedTensor, bytes]]  # (argument index, where it is, its bytes)
        placed, models = [], served().model_server(self.limits, self.limits.model_seconds - self.model_seconds)
        wire_args = [self._outgoing(a, placed, models, i) for i, a in enumerate(args)]
        wire_kwargs = {k: self._outgoing(v, placed, models, None) for k, v in kwargs.items()}
        try:  # the grader's own message: what it cannot send is the assignment's doing, never the student's
            frame = wire.encode(protocol.to_wire(protocol.Call(name, wire_args, wire_kwargs, bool(grad))))
        except wire.WireError as err:
            raise GraderFault(unsendable(name, [*args, *kwargs.values()], err)) from None
        for attempt in (1, 2):
            worker = self._ready()
            try:
                self._send(worker, frame)
                break
            except WorkerLost:  # it died between calls (a timer, a thread): not this function's doing
                self.kill()  # never keep a dead socket: every later call would fail on it
                if attempt == 2:
                    raise
        # A caller's timeout (what is left of a longer run) can only shorten a call: every call of a
        # student function, wherever it comes from, stays within the one per-call limit of the settings.
        limit = min(timeout, self.limits.call_seconds) if timeout else self.limits.call_seconds
        end = time.monotonic() + self._remaining(limit)
        try:
            reply = self._exchange(worker, models, end, limit)
        except WorkerLost as lost:
            self.kill()
            why = f"`{name}` {lost}"
            # Whatever lost the worker (a hang, an exit, an oversized or forged reply) would
            # lose the next one too: each restart re-runs the notebook and spends the shared
            # restart budget that the other parts still need.
            self.poisoned[name] = why + "; it is not called again"
            raise WorkerLost(why) from None
        finally:
            self.model_seconds += models.seconds
        mutated = sorted(i for i, spec, raw in placed if i is not None and not self.arena.unchanged(spec, raw))
        models.settle(reply.models)
        seen: dict[str, Any] = dict(mutated=mutated, modes=models.modes(), forward_modes=models.forward_modes)
        if not reply.ok:
            return CallResult(False, error=_error(reply.error) or {}, **seen)
        return CallResult(True, reply.value, reply.grad, **seen)

    def _outgoing(self, value: Any, placed: list[tuple[int | None, wire.SharedTensor, bytes]], models: "ModelServer",
                  index: int | None) -> Any:
        if isinstance(value, torch.Tensor):
            spec, raw = self.arena.place(value)
            placed.append((index, spec, raw))
            return spec
        if served().is_model(value):  # it stays here; the worker gets a replica (sandbox/replica.py)
            return models.outgoing(value)
        return value

    def _exchange(self, worker: Worker, models: "ModelServer", end: float, limit: float) -> protocol.Reply:
        """Serve the worker's forward passes until its Reply (lab_models.py notes what each ran in)."""
        for _ in range(self.limits.model_passes + 1):
            message = self._receive(worker, max(0.0, end - time.monotonic()), (protocol.ModelOp, protocol.Reply),
                                    limit)
            if isinstance(message, protocol.Reply):
                return message
            self._send(worker, models.serve(message))
        raise WorkerLost(f"asked the model more than {self.limits.model_passes} times in one call")

    def execution_report(self) -> list[CellReport]:
        """The notebook's cell results; runs it now if no check needed a worker (so its errors are known)."""
        if not self.reports and not self.broken:
            try:
                self._ready()
            except (WorkerLost, GraderFault):  # already reported by the checks that needed a worker
                pass
        return [self.reports[i] for i in sorted(self.reports)]

    def close(self) -> None:
        self.kill(wait=False)
        self.arena.close()


def unsendable(name: str, arguments: list[Any], err: Exception) -> str:
    """Why a check's call of ``name`` cannot reach the worker, for the instructor: a suite handed it a value the wire
    does not carry (a model the assignment's served module does not serve, most often: docs/authoring.md, "Handing
    students a model or a module"). A grader error, so that the notebook is not given a silent 0."""
    modules = sorted({type(a).__name__ for a in arguments if isinstance(a, torch.nn.Module)})
    said = f"a check calls `{name}` with a value the worker cannot be sent"
    if not modules:
        said += f" ({str(err).replace('returned to the grader', 'sent')})"
    else:
        said += (f": {', '.join(modules)} is a torch.nn.Module that {ASSIGNMENT.served}.is_model() does not claim. "
                 "A model a student function receives stays in the grader and reaches the worker as a replica: "
                 "see docs/authoring.md, \"Handing students a model or a module\"")
    return said


def _error(error: object) -> dict[str, str] | None:
    """A worker's error report, reduced to the text fields the reports read."""
    if not isinstance(error, dict):
        return None
    clean = {"type": str(error.get("type") or "Error")[:100], "message": str(error.get("message", ""))[:500]}
    clean.update({key: str(error[key])[:500] for key in ("where", "function", "base") if key in error})
    return clean


def _wait_gone(pid: int, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end and os.path.exists(f"/proc/{pid}"):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return
        except OSError:
            return
        time.sleep(0.005)
