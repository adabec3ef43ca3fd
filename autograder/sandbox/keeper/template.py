"""The worker template: PyTorch imported once, workers forked from it on request, one fresh worker each.

Normally it is forked from the grading process right after ``import torch`` (see
engine/template.py), so a cold grade pays for one import of PyTorch, not two; it sheds
the grader's fds, signals and output first (become_template). When that fork is not
allowed it is started as ``python -m autograder.sandbox.keeper.template FD`` instead. It warms up
(PyTorch's first calls of the layers the checks use) once, early, and may fork a grade's
first worker before that. Workers never train: the lab's smoke run happens in the grader. It never runs student code itself and never holds the
hidden suites; each fork is confined (confine.py) before it reads a single cell, and no
fork is ever reused.

Control protocol on the control socket: the grader sends a wire frame with the worker's
config and, alongside it, the worker's socket via SCM_RIGHTS; the template answers with
the worker's pid (as seen from the grader's PID namespace), in the order asked.
"""
import json
import os
import signal
import socket
import struct
import sys
import time
import types
from typing import NoReturn

import torch

from ... import assignment
from ...assignment import served
from ...linux.flags import PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG
from ...linux.libc import prctl
from .. import confine, identity, steps
from ..config import CLEAN_UP_SECONDS, WorkerConfig
from ..worker import serve as worker
from . import budget

ROOT = str(assignment.ROOT)


KEEPERS: set[int] = set()  # the keepers this template forked and has not reaped yet


def reap(*_: object) -> None:
    try:
        while (pid := os.waitpid(-1, os.WNOHANG)[0]) > 0:
            KEEPERS.discard(pid)
    except ChildProcessError:
        KEEPERS.clear()


def finish() -> None:
    """The grader hung up: end what still runs and wait for every keeper's clean-up, so that once the grader
    has seen us exit, no worker's process, control group or scratch directory is left (a keeper that the
    template's death left to clean up alone was still removing a deep scratch directory after the grade)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # no reaping behind our back: each pid stays ours
    reap()
    for pid in KEEPERS:  # unreaped, so still our children: the signal reaches no one else
        try:
            os.kill(pid, signal.SIGTERM)  # a keeper with a worker kills its tree; one cleaning up ignores it
        except OSError:
            pass
    end = time.monotonic() + CLEAN_UP_SECONDS
    while KEEPERS and time.monotonic() < end:
        reap()
        time.sleep(0.01)


def start_worker(config: WorkerConfig, worker_fd: int, control: socket.socket, lab: types.ModuleType) -> int:
    """Fork a keeper, which forks the confined worker; return the worker's pid in our PID namespace."""
    report_r, report_w = os.pipe()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # reaped only once it is in KEEPERS
    pid = os.fork()
    if pid:  # the template
        KEEPERS.add(pid)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        os.close(report_w)
        data = os.read(report_r, 64)
        os.close(report_r)
        return int(data or b"-1")
    try:  # the keeper
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})  # the worker's mask is the default one
        os.close(report_r)
        control.close()
        keep(config, worker_fd, report_w, lab)
    except BaseException as err:  # noqa: BLE001 - a confinement failure must never run student code
        try:
            os.write(2, f"worker confinement failed: {err!r}\n".encode())
        finally:
            os._exit(70)


def keep(config: WorkerConfig, worker_fd: int, report_w: int, lab: types.ModuleType) -> NoReturn:
    """The keeper's life: its steps (steps.py), fork the worker, watch it, clean up after it.

    It lives exactly as long as the worker's tree, so its pid names the tree: the uid
    (identity.worker_uid), the control group (budget.group_name) and the scratch directory
    are unique while it lives. It is the tree's subreaper; it leaves the grader's process
    group (a killpg of the grader must not stop it before it has cleaned up) and takes
    SIGTERM when the template dies, which kills the tree. It never runs student code.
    """
    me, template = os.getpid(), os.getppid()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, lambda *_: budget.kill_descendants(me, ctx_group[0]))
    os.setpgid(0, 0)
    prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != template:  # the template died before we could hear of it
        os._exit(0)
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    ctx, plan = steps.Context(config, me, worker_fd=worker_fd), steps.plan(config)
    done: list[steps.Step] = []
    ctx_group: list[int | None] = [None]  # the worker's process group, once it exists (the SIGTERM handler's)
    try:
        for step in plan.keeper:
            step.run(ctx)
            done.append(step)
        worker_pid = os.fork()
        if worker_pid == 0:
            try:
                os.close(report_w)
                for fd in ctx.keeper_fds:  # the scratch lock is the keeper's: a worker that released it could
                    os.close(fd)           # have its directory swept as a dead keeper's while it runs
                run_worker(ctx, plan, worker_fd, lab)  # never returns
            except BaseException as err:  # noqa: BLE001 - a step that failed: no student code has run
                os.write(2, f"worker confinement failed: {err!r}\n".encode())
            os._exit(70)
        ctx_group[0] = ctx.worker = worker_pid  # it makes its own session (and group) first thing
        os.close(worker_fd)
        os.write(report_w, str(worker_pid).encode())
        os.close(report_w)
        watch(worker_pid, ctx, plan)
    finally:
        # The tree is gone (watch returns once it is): from here a SIGTERM (the template's end) must not stop the
        # clean-up half-way, as its handler's kill_descendants would the rm of the scratch directory.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for step in reversed(done):  # each one, whatever the one before did
            try:
                step.undo(ctx)
            except BaseException as err:  # noqa: BLE001 - the keeper must exit, and say why something stayed
                os.write(2, f"worker clean-up: {step!r} failed: {err!r}\n".encode())
    os._exit(0)


def watch(worker: int, ctx: steps.Context, plan: steps.Plan) -> None:
    """Reap until the tree is gone, sampling it with the watchdog the plan's Watch step made, if it made one
    (as the worker's uid where that step says so: steps.Watch)."""
    watch_as = any(isinstance(step, steps.Watch) and step.read_as_worker for step in plan.keeper)
    if watch_as:
        confine.read_as(ctx.uid)
    try:
        _watch(worker, ctx)
    finally:
        if watch_as:
            confine.read_as(os.getuid())


def _watch(worker: int, ctx: steps.Context) -> None:
    watchdog = ctx.watchdog
    if watchdog is not None:
        watchdog.attach(worker)
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG if watchdog else 0)
        except ChildProcessError:
            return
        if pid == worker:  # what it left goes with it (steps.Watch.undo); then the keeper is done
            return
        elif pid and watchdog:
            watchdog.reaped += 1  # an orphan of the tree, come back to us (see budget.Watchdog._churn)
        elif pid == 0:
            if not watchdog.check():  # type: ignore[union-attr]  # pid 0: only with WNOHANG, with a watchdog
                os.write(2, f"worker tree killed at its budget: {watchdog.fired}\n".encode())  # type: ignore[union-attr]
                watchdog = None
            else:
                time.sleep(budget.SAMPLE_SECONDS)


def run_worker(ctx: steps.Context, plan: steps.Plan, worker_fd: int, lab: types.ModuleType) -> NoReturn:
    """The worker's steps, in order (steps.py); the first line of the notebook comes after the last one."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for step in plan.worker:  # the last closes every descriptor but the worker's socket (steps.CloseDescriptors)
        step.run(ctx)
    worker.silence_stdio()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    worker.main_from_fd(worker_fd, lab)


def serve(control: socket.socket, lab_source: str) -> NoReturn:
    """The template's life: fork workers on request until the grader hangs up.

    It warms up once: right after answering a first request that came at once (a cold
    grade: the worker and the grader get on with the submission meanwhile), or as soon
    as nobody has asked for half a second (a batch collecting its suites).
    """
    import select
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # never outlive the grading process
    budget.mechanism()  # decided while the grader's environment (AUTOGRADER_NO_CGROUPS) is still readable
    forget_the_grader()
    budget.sweep()  # groups of keepers that were SIGKILLed before they could remove them
    torch.set_num_threads(1)  # workers forked before the warm-up compute on one thread too
    lab = worker.load_lab(lab_source)
    served()  # the assignment's served module, imported before any fork: a confined worker can no longer read it
    prctl(PR_SET_CHILD_SUBREAPER, 1)  # orphaned workers come back to us
    signal.signal(signal.SIGCHLD, reap)
    warm = False

    def warm_once() -> None:
        nonlocal warm
        if not warm:
            served().warm_up(lab)  # the assignment's (plugin_api.Served)
            warm = True

    if not select.select([control], [], [], 0.5)[0]:
        warm_once()
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 1 << 16, 1)
        except InterruptedError:
            continue
        if not message:
            finish()
            break
        pid = start_worker(WorkerConfig.from_json(message), fds[0], control, lab)
        os.close(fds[0])
        control.sendall(struct.pack(">q", pid))
        warm_once()  # a first worker forked cold is on its way; now the template catches up
    os._exit(0)


def forget_the_grader() -> None:
    """Keep nothing of the grader's environment or command line: not in os.environ, nor in memory.

    Every worker is forked from here and inherits the result (identity.py says why the
    memory matters: /proc/PID/environ and /proc/PID/cmdline read the initial stack).
    """
    env = identity.worker_environment(ROOT, "/tmp", os.environ)
    identity.scrub_environment(env)
    identity.scrub_process("autograder-template")


def become_template(control: socket.socket, lab_source: str) -> NoReturn:
    """In a child just forked from the grading process: drop what is the grader's, then serve.

    The grader forks before it loads any hidden suite or reference code (checked by
    engine/template.py:may_fork_template) and before it reads any grade, so the memory a
    worker inherits holds PyTorch, pytest and the public engine. The grader's frames we
    were called from (its parsed command line among their locals) are emptied: we never
    return into them, and a worker could otherwise walk up to them.
    """
    identity.forget_callers(sys._getframe(1))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the grader's; it closes us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # stderr stays: a confinement failure must be visible
    os.close(devnull)
    confine.close_other_fds(keep={control.fileno()})
    sys.dont_write_bytecode = True
    os.chdir(ROOT)
    serve(control, lab_source)  # ends in os._exit; the forking code reports anything raised


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    length = struct.unpack(">Q", control.recv(8, socket.MSG_WAITALL))[0]
    setup = json.loads(control.recv(length, socket.MSG_WAITALL))
    serve(control, setup["lab_source"])


if __name__ == "__main__":
    main()
