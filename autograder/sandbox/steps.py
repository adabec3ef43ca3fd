"""A worker's confinement as named steps, one job each, in the order they run (as nsjail's containProc).

    mode            keeper (outside; it never runs student code)        worker (before the first cell)
    namespaces      Budget, NewPidNamespace, Watch                      JoinBudget, NewSession, PrivateNamespaces,
                                                                        OwnRoot, CleanEnvironment, OwnUid,
                                                                        FreshKeyrings, SyscallFilter, ProcessLimits,
                                                                        CloseDescriptors
    user namespace  Budget, UserNamespace, NewPidNamespace, Watch       JoinBudget, NewSession, PrivateNamespaces,
                                                                        OwnRoot, CleanEnvironment, NoCapabilities,
                                                                        FreshKeyrings, SyscallFilter, ProcessLimits,
                                                                        CloseDescriptors
    landlock        Budget, Scratch, Watch (as the worker's uid)        JoinBudget, NewSession, CleanEnvironment,
                                                                        OwnUid (where CAP_SETUID allows),
                                                                        FreshKeyrings, Landlock, SyscallFilter,
                                                                        ProcessLimits, CloseDescriptors
    none            Budget, Scratch, Watch                              JoinBudget, NewSession, CleanEnvironment,
                                                                        ProcessLimits, CloseDescriptors

``plan(config)`` gives the lists; keeper/template.py runs them: a keeper step's ``run`` before it forks the worker,
the worker's in the worker, the watchdog Watch made while the keeper reaps, and every keeper step's ``undo`` after. A step that fails raises, and the worker
never starts: a confinement failure is the grader's fault, never a student's grade.

Each step declares the guarantees it enforces (``provides``, guarantees.py); OUTSIDE declares what enforces one
from outside a worker's plan (the template: it dies with its keepers, forgets the grader, sweeps stale groups; the
grading process's time limits), NOT_BOUNDED what a mode does not bound and why.
``python -m autograder plan`` prints the table they make (plan_report.py; docs/security.md quotes it).
"""
from __future__ import annotations

import fcntl
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import ClassVar

from ..linux.flags import CLONE_NEWCGROUP, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUSER
from ..linux.flags import CLONE_NEWUTS
from . import confine, identity, landlock, syscalls
from .keeper import budget
from .config import WorkerConfig
from .confinement import Mode, map_to_root
from .guarantees import (CGROUP, NO_CGROUP, OWN_UID, SCRATCH_ONLY, SIGNAL_SCOPE, TCP_SCOPE,
                         Guarantee as G, Outside, Provides, part)


@dataclass
class Context:
    """What the steps of one worker share: its config, uid, control group and work directory."""
    config: WorkerConfig
    keeper: int  # the keeper's pid: it names the tree (uid, control group, scratch directory)
    uid: int = field(init=False)
    group: budget.Group | None = None
    work: str = ""  # the worker's work directory (HOME, cwd)
    tmp: str = ""  # its TMPDIR
    keeper_fds: list[int] = field(default_factory=list)  # held by the keeper alone: closed in the worker at fork
    worker: int = 0  # the worker's pid, once the keeper has forked it
    worker_fd: int = -1  # the worker's socket to the grader: the one descriptor it keeps (CloseDescriptors)
    watchdog: budget.Watchdog | None = None  # where one samples the tree (Watch): the keeper's loop runs it

    def __post_init__(self) -> None:
        self.uid = identity.worker_uid(self.keeper)


CONFINED = frozenset(Mode) - {Mode.NONE}


class Step:
    """One job of the confinement; ``run`` raises if it cannot be done. ``provides``: the guarantees
    (guarantees.py) it enforces, each with where it holds: ``python -m autograder plan`` prints them per mode."""
    provides: ClassVar[tuple[Provides, ...]] = ()

    @classmethod
    def purpose(cls) -> str:
        """Its docstring's first paragraph, on one line."""
        return " ".join((cls.__doc__ or "").split("\n\n")[0].split())

    def run(self, ctx: Context) -> None:
        raise NotImplementedError

    def undo(self, ctx: Context) -> None:
        """What the keeper cleans up after the worker is gone (most steps leave nothing)."""

    def __repr__(self) -> str:
        return type(self).__name__


# ---- the keeper's steps ------------------------------------------------------------------------------
class Budget(Step):
    """A control group for the whole tree (budget.py), where the cgroup tree is writable; else the watchdog."""
    provides = (Provides(G.MEMORY, CGROUP), Provides(G.PROCESSES, CGROUP), Provides(G.CPU_CORE, CGROUP),
                Provides(G.KERNEL_MEMORY, part("pipe buffers charged, with a control group")),
                Provides(G.KERNEL_STATE, CGROUP))  # undo removes the group


    def run(self, ctx: Context) -> None:
        ctx.group = budget.Group.create(budget.group_name(ctx.keeper), ctx.config.memory_mib, ctx.config.processes)

    def undo(self, ctx: Context) -> None:
        if ctx.group is not None:
            ctx.group.remove()


class UserNamespace(Step):
    """A user namespace where the keeper (and so the worker) is root, mapped to the grader's own uid outside:
    the worker's mounts and namespaces are its own, and none of it is a privilege on the machine."""
    provides = (Provides(G.PRIVILEGE),)


    def run(self, ctx: Context) -> None:
        uid, gid = os.geteuid(), os.getegid()
        confine.unshare(CLONE_NEWUSER)
        map_to_root(uid, gid)


class NewPidNamespace(Step):
    """The next fork, the worker, is PID 1 of a new PID namespace: killing it kills all it started."""
    provides = (Provides(G.SIGNALS), Provides(G.NEXT_SUBMISSION, part("nothing it started outlives it")))


    def run(self, ctx: Context) -> None:
        confine.unshare(CLONE_NEWPID)


SCRATCH_PREFIX = "autograder-worker-"
STALE_AFTER = 60.0  # seconds untouched before an unlocked scratch directory is another keeper's leftover


class Scratch(Step):
    """Without namespaces: a private work directory (0700, the worker's own uid where it has one).

    The keeper holds a lock on it while it lives, so that a keeper killed outright (SIGKILL, the OOM killer:
    no clean-up runs) leaves a directory the next one recognises as nobody's and removes (``sweep``)."""
    provides = (Provides(G.NEXT_SUBMISSION, SCRATCH_ONLY),)  # undo removes it; a dead keeper's is swept


    def run(self, ctx: Context) -> None:
        parent = ctx.config.scratch_parent or tempfile.gettempdir()
        sweep(parent)
        ctx.work = tempfile.mkdtemp(prefix=SCRATCH_PREFIX, dir=parent)
        lock = os.open(ctx.work, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        ctx.keeper_fds.append(lock)
        fcntl.flock(lock, fcntl.LOCK_EX)
        if ctx.config.own_uid:
            os.chown(ctx.work, ctx.uid, ctx.uid)
        ctx.tmp = ctx.work

    def undo(self, ctx: Context) -> None:
        remove_tree(ctx.work)
        for fd in ctx.keeper_fds:
            os.close(fd)
        ctx.keeper_fds.clear()


class Watch(Step):
    """The keeper samples the tree ten times a second and kills it past its memory or processes (without a
    control group), or past its scratch directory's size and entries (without namespaces); once the worker is
    gone, it kills whatever of its tree is left (no PID namespace to do it).

    ``run`` makes the watchdog (budget.Watchdog) where something needs one; the keeper's loop
    (template._watch) samples it while it reaps, and ``undo`` kills the leftovers, before the steps before it
    undo theirs (the scratch directory is removed with nothing left writing in it)."""
    provides = (Provides(G.MEMORY, NO_CGROUP, CONFINED), Provides(G.PROCESSES, NO_CGROUP),
                Provides(G.MEMORY, part("what its processes map, without a control group"), frozenset({Mode.NONE})),
                Provides(G.DISK, SCRATCH_ONLY, frozenset({Mode.LANDLOCK, Mode.NONE})),
                Provides(G.NEXT_SUBMISSION, part("the processes it left")))

    def __init__(self, read_as_worker: bool = False) -> None:
        # Root in a container has no CAP_SYS_PTRACE: as root it could read neither the worker's memory nor its
        # open files in /proc, and the watchdog saw nothing (red team of issue 22: 1.5 GiB of unnamed files past
        # the cap). Where the worker has a uid of its own and stays dumpable (mode landlock), the keeper reads them
        # as that uid (template.watch), and goes back for the clean-up.
        self.read_as_worker = read_as_worker

    def run(self, ctx: Context) -> None:
        config, scratch = ctx.config, ctx.work or None  # a work directory on the host's file system: no namespaces
        if ctx.group is not None and scratch is None:
            return  # the control group bounds the tree, and its root is its own: nothing to sample
        ctx.watchdog = budget.Watchdog(os.getpid(), config.memory_mib, config.processes, disk_mib=config.disk_mib,
                                       scratch=scratch, tree=ctx.group is None,
                                       starts_per_second=config.starts_per_second,
                                       scratch_entries=config.scratch_entries, file_mib=config.file_mib)

    def undo(self, ctx: Context) -> None:
        if ctx.worker:
            budget.kill_descendants(os.getpid(), ctx.worker)


def sweep(parent: str, now: float | None = None) -> list[str]:
    """Remove the scratch directories in ``parent`` that no keeper holds; return their paths.

    A flock is seen across PID namespaces (a pid is not), so a directory we can lock has no living keeper.
    Only real directories (never a symlink) of ours, or of a worker uid when we are root, untouched for
    ``STALE_AFTER`` seconds (a keeper locks its directory a moment after making it) are candidates.
    """
    now = time.time() if now is None else now
    me = os.geteuid()
    removed: list[str] = []
    try:
        entries = [e for e in os.scandir(parent) if e.name.startswith(SCRATCH_PREFIX)]
    except OSError:
        return removed
    for entry in entries:
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        owner_ok = info.st_uid == me or (me == 0 and info.st_uid >= identity.UID_BASE)
        if not stat.S_ISDIR(info.st_mode) or not owner_ok or now - info.st_mtime < STALE_AFTER:
            continue
        try:
            fd = os.open(entry.path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # a living keeper holds it
            os.close(fd)
            continue
        try:
            if os.path.samestat(os.fstat(fd), info):  # still the directory we looked at
                remove_tree(entry.path)
                removed.append(entry.path)
        finally:
            os.close(fd)
    return removed


def remove_tree(path: str) -> None:
    """Remove a worker's scratch directory whatever it holds: coreutils' rm works through file descriptors, so
    depth (1,100 nested folders made shutil.rmtree recurse too deep, red team of issue 22) and path length do
    not stop it. A folder the worker made unwritable or unlistable (0o500, 0o300: rm cannot empty it, even as
    its owner) is opened up, then rm runs again; chmod -R leaves the symlinks it meets alone. shutil is the
    fallback where there are no coreutils."""
    rm = ["rm", "-rf", "--one-file-system", "--", path]
    _run(rm)
    if os.path.lexists(path):
        _run(["chmod", "-R", "u+rwX", "--", path])
        _run(rm)
    if not os.path.lexists(path):
        return
    try:
        shutil.rmtree(path, ignore_errors=True)
    except RecursionError:
        pass


def _run(command: list[str]) -> None:
    try:
        subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=120, check=False)
    except (OSError, subprocess.SubprocessError):
        pass


# ---- the worker's steps ------------------------------------------------------------------------------
class JoinBudget(Step):
    """Into the tree's control group first, before a line of the notebook exists in its memory."""
    provides = (Provides(G.MEMORY, CGROUP), Provides(G.PROCESSES, CGROUP), Provides(G.CPU_CORE, CGROUP))


    def run(self, ctx: Context) -> None:
        if ctx.group is not None:
            ctx.group.join()


class NewSession(Step):
    """Its own session and process group: killpg(0) from student code reaches only the worker's tree."""
    provides = (Provides(G.SIGNALS, part("killpg(0) reaches its own tree only")),)


    def run(self, ctx: Context) -> None:
        os.setsid()


class PrivateNamespaces(Step):
    """Its own mount, network, IPC and UTS namespaces (and cgroup namespace, once inside its group), and a
    host name that is not the machine's."""
    provides = (Provides(G.NETWORK), Provides(G.NEXT_SUBMISSION, part("IPC and host name")),
                Provides(G.KERNEL_STATE, part("IPC objects go with the namespace")))


    def run(self, ctx: Context) -> None:
        confine.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
                        | (CLONE_NEWCGROUP if ctx.group is not None else 0))
        confine.name_host()


class OwnRoot(Step):
    """A root file system of its own (pivot_root): the system and the Python installation read-only, fresh
    /proc (its sysctls read-only) and /dev, private tmpfs scratch; nothing else of the machine, hidden code covered."""
    provides = (Provides(G.SECRETS), Provides(G.WRITES), Provides(G.NEXT_SUBMISSION), Provides(G.DISK))


    def run(self, ctx: Context) -> None:
        ctx.work = confine.build_filesystem(ctx.config, ctx.uid if ctx.config.own_uid else os.geteuid())
        ctx.tmp = "/tmp"


class CleanEnvironment(Step):
    """Into its work directory, with exactly identity.WORKER_ENVIRONMENT and nothing of the grader's."""
    provides = (Provides(G.SECRETS, part("the grader's environment")),)


    def run(self, ctx: Context) -> None:
        os.chdir(ctx.work)
        identity.set_environment(identity.worker_environment(ctx.work, ctx.tmp, os.environ))


class OwnUid(Step):
    """A uid of its own (100000 + the keeper's pid), no supplementary groups, no way back; not dumpable, except
    where its keeper watches it without namespaces, reading its /proc files as its uid (template.watch). Where it
    cannot have one (landlock without CAP_SETUID, or a Python other uids cannot read), it keeps the grader's uid
    and gives up every capability that uid holds. Never root's uid: as root that mode is refused
    (confinement._why_not_landlock)."""
    provides = (Provides(G.PRIVILEGE, OWN_UID), Provides(G.SIGNALS, OWN_UID))


    def __init__(self, dumpable: bool = False) -> None:
        self.dumpable = dumpable  # where its keeper reads its /proc files as its uid (Watch(read_as_worker=True))

    def run(self, ctx: Context) -> None:
        if ctx.config.own_uid:
            confine.drop_privileges(ctx.uid, dumpable=self.dumpable)
        elif identity.holds_capabilities():
            identity.drop_capabilities()


class NoCapabilities(Step):
    """Root of its user namespace, with every capability dropped for good (no setuid program can return them)."""
    provides = (Provides(G.PRIVILEGE),)


    def run(self, ctx: Context) -> None:
        identity.drop_capabilities()


class FreshKeyrings(Step):
    """A new session keyring of its own; the uid's user keyrings never made (identity.fresh_keyrings)."""
    provides = (Provides(G.KERNEL_STATE), Provides(G.NEXT_SUBMISSION, part("keyrings")))


    def run(self, ctx: Context) -> None:
        identity.fresh_keyrings()


class Landlock(Step):
    """Read the system and Python (not the hidden code), write its work directory, reach no other process."""
    provides = (Provides(G.SECRETS), Provides(G.WRITES), Provides(G.SIGNALS, SIGNAL_SCOPE),
                Provides(G.NETWORK, TCP_SCOPE), Provides(G.PRIVILEGE, part("no new privileges: no setuid program")))


    def run(self, ctx: Context) -> None:
        config = ctx.config
        rules = landlock.grants([*confine.SYSTEM_PATHS, *config.keep, "/proc", "/sys/devices/system/cpu"],
                                config.hidden)
        rules += [landlock.Rule(ctx.work, landlock.WRITE)]
        rules += [landlock.Rule(f"/dev/{name}", landlock.DEVICE) for name in confine.DEVICES
                  if name not in ("tty", *confine.READ_ONLY_DEVICES)]
        # /dev/zero only to read: opened for writing and mapped shared, it is shared anonymous memory (syscalls.py)
        rules += [landlock.Rule(f"/dev/{name}", landlock.LANDLOCK_ACCESS_FS_READ_FILE) for name in confine.READ_ONLY_DEVICES]
        landlock.restrict(rules, config.landlock_abi)


class SyscallFilter(Step):
    """The system calls it may make from here on (syscalls.py), with its mode's policy."""
    provides = (Provides(G.NETWORK), Provides(G.KERNEL_MEMORY), Provides(G.KERNEL_STATE),
                Provides(G.SIGNALS, part("no ptrace, process_vm_*, pidfd_getfd")),
                Provides(G.MEMORY, part("no memory no process maps: memfd, IPC, io_uring")),
                Provides(G.WRITES, part("no metadata calls Landlock does not govern"), frozenset({Mode.LANDLOCK})))


    def __init__(self, shared: bool = False) -> None:
        self.shared = shared  # it shares the grader's files and, maybe, its uid (no namespaces)

    def run(self, ctx: Context) -> None:
        shared = self.shared
        syscalls.install_filter(syscalls.Policy(metadata=not shared,
                                                truncate_by_path=not shared or ctx.config.landlock_abi >= 3,
                                                self_only=shared, own_group=not shared))


class ProcessLimits(Step):
    """Per-process limits (address space, file size, open files, core dumps; processes of its own uid)."""
    provides = (Provides(G.PROCESSES), Provides(G.MEMORY, part("each process's address space")),
                Provides(G.DISK, part("each file it writes")),
                Provides(G.KERNEL_MEMORY, part("512 descriptors a process")))


    def __init__(self, per_uid: bool | None = None) -> None:
        # The processes of its uid are its own to count where that uid is: its user namespace's root, or a uid of
        # its own (None: where the config gives it one); never where it keeps the grader's.
        self.per_uid = per_uid

    def run(self, ctx: Context) -> None:
        confine.set_limits(ctx.config, per_uid=ctx.config.own_uid if self.per_uid is None else self.per_uid)


class CloseDescriptors(Step):
    """Last: every descriptor but its standard streams and its socket to the grader is closed."""
    provides = (Provides(G.SECRETS, part("no descriptor of the template's")),)

    def run(self, ctx: Context) -> None:
        confine.close_other_fds(keep={ctx.worker_fd})


@dataclass(frozen=True)
class Plan:
    keeper: tuple[Step, ...]
    worker: tuple[Step, ...]


def plan(config: WorkerConfig) -> Plan:
    """The steps of ``config.mode``, keeper's then worker's: the one place that reads the mode (each step is given
    what differs by mode here, when the plan is built)."""
    common = (JoinBudget(), NewSession())
    if config.mode is Mode.NAMESPACES:
        return Plan((Budget(), NewPidNamespace(), Watch()),
                    (*common, PrivateNamespaces(), OwnRoot(), CleanEnvironment(), OwnUid(), FreshKeyrings(),
                     SyscallFilter(), ProcessLimits(), CloseDescriptors()))
    if config.mode is Mode.USER_NAMESPACE:
        return Plan((Budget(), UserNamespace(), NewPidNamespace(), Watch()),
                    (*common, PrivateNamespaces(), OwnRoot(), CleanEnvironment(), NoCapabilities(), FreshKeyrings(),
                     SyscallFilter(), ProcessLimits(per_uid=True), CloseDescriptors()))
    if config.mode is Mode.LANDLOCK:  # no namespaces: the keeper reads the worker's /proc as the worker's uid
        return Plan((Budget(), Scratch(), Watch(read_as_worker=config.own_uid)),
                    (*common, CleanEnvironment(), OwnUid(dumpable=True), FreshKeyrings(), Landlock(),
                     SyscallFilter(shared=True), ProcessLimits(), CloseDescriptors()))
    return Plan((Budget(), Scratch(), Watch()),
                (*common, CleanEnvironment(), ProcessLimits(per_uid=False), CloseDescriptors()))


# What enforces a guarantee from outside plan(): the keeper's and the template's own code, and the grading process.
OUTSIDE: tuple[Outside, ...] = (
    Outside("keeper dies with the template", "sandbox.keeper.template.keep", "PR_SET_PDEATHSIG",
            "A keeper takes SIGTERM when its template dies, and kills its tree before cleaning up.",
            (Provides(G.NEXT_SUBMISSION, part("no tree outlives the grading process")),)),
    Outside("template forgets the grader", "sandbox.keeper.template.forget_the_grader", "identity.scrub_environment",
            "Before any worker is forked, the template's environment and command line are the worker's, in "
            "memory too (/proc/PID/environ, /proc/PID/cmdline).",
            (Provides(G.SECRETS, part("the grader's environment and command line")),)),
    Outside("template drops the grader's frames", "sandbox.keeper.template.become_template", "identity.forget_callers",
            "The grader's frames the template was forked in (its parsed options among their locals) are emptied.",
            (Provides(G.SECRETS, part("the grader's frames")),)),
    Outside("stale groups swept", "sandbox.keeper.template.serve", "budget.sweep",
            "The control groups of keepers killed before their clean-up are removed when a template starts.",
            (Provides(G.KERNEL_STATE, CGROUP),)),
    Outside("time limits", "engine.supervisor.WorkerSession._remaining", "submission_seconds",
            "The grading process kills a worker past its call, cell or submission time.",
            (Provides(G.TIME),)),
)

# A guarantee a mode gives only in part, or not at all: why. tests/test_plan.py fails on a guarantee that a mode's
# steps and OUTSIDE do not enforce whatever the machine, unless it is here, and on a reason here for one they do.
UNCONFINED = "nothing confines the worker (--unsafe-no-sandbox: notebooks you trust only)"
NOT_BOUNDED: dict[Mode, dict[G, str]] = {
    Mode.NAMESPACES: {G.CPU_CORE: "beyond the time limits"},
    Mode.USER_NAMESPACE: {G.CPU_CORE: "beyond the time limits"},
    Mode.LANDLOCK: {G.CPU_CORE: "beyond the time limits",
                    G.PRIVILEGE: "it keeps the grader's uid (with no capability), less what Landlock and seccomp "
                                 "take away"},
    Mode.NONE: {G.CPU_CORE: "beyond the time limits",
                G.MEMORY: "without a control group, memory no process maps (memfd, IPC) goes unseen",
                **{g: UNCONFINED for g in (G.SECRETS, G.WRITES, G.NETWORK, G.SIGNALS, G.PRIVILEGE, G.KERNEL_MEMORY,
                                           G.KERNEL_STATE, G.DISK, G.NEXT_SUBMISSION)}},
}


def describe() -> str:
    """Every mode's steps, one line each side (what docs/security.md's table shows)."""
    lines = []
    for mode in Mode:
        steps = plan(WorkerConfig(mode=mode))
        lines.append(f"{mode}: keeper {', '.join(map(repr, steps.keeper))}; worker {', '.join(map(repr, steps.worker))}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(describe(), file=sys.stdout)
