"""How a worker is confined on this machine: probed once per grading process, never assumed from "am I root".

The strongest mode the machine allows is taken (steps.py lists what each mode does):

    namespaces       root with CAP_SYS_ADMIN (a VM, a privileged container): the worker gets its own
                     PID, mount, network, IPC, UTS and cgroup namespaces, a root file system of its
                     own, a uid of its own, a control group when the cgroup tree is writable
    user namespace   unprivileged user namespaces (most Linux desktops and many clusters): the same
                     isolation from inside a user namespace, where the worker is "root" without any
                     capability; memory by control group only where one is delegated to us
    landlock         neither (Docker's default, Kubernetes pods, Ubuntu 24.04's restricted user
                     namespaces): Landlock (the file system and, from ABI 6, signals), the seccomp
                     policy for what Landlock does not cover, a uid of its own where CAP_SETUID allows
    none             nothing confines the worker: refused unless the instructor opts in for trusted
                     notebooks (--unsafe-no-sandbox); never taken silently

Each test runs in a forked child (the probe never changes this process) and takes milliseconds.
"""
from __future__ import annotations

import enum
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..linux.flags import (CAP_CHOWN, CAP_KILL, CAP_SETGID, CAP_SETUID, CAP_SYS_ADMIN, CLONE_NEWIPC, CLONE_NEWNET,
                           CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWUSER, CLONE_NEWUTS, MS_PRIVATE, MS_REC)
from ..linux import landlock
from ..linux.libc import LIBC, check
from .keeper import budget

UNSAFE_OPT_IN = "--unsafe-no-sandbox"


class Mode(enum.StrEnum):
    NAMESPACES = "namespaces"
    USER_NAMESPACE = "user namespace"
    LANDLOCK = "landlock"
    NONE = "none"


class ConfinementUnavailable(Exception):
    """No mode can confine a worker here (or the one asked for cannot): the message says why and what to do."""


@dataclass(frozen=True)
class Confinement:
    """The mode a grading process confines its workers with, and what it rests on."""
    mode: Mode
    budget: str = "watchdog"  # what bounds the worker tree's memory and processes: "cgroup v1|v2" or "watchdog"
    landlock_abi: int = 0
    own_uid: bool = False  # each worker gets a uid of its own (else it keeps the grader's)
    passed_over: tuple[str, ...] = field(default=())  # why each stronger mode was not taken

    def line(self) -> str:
        """One line for the CLI, results.json, grades.csv's log and make bench."""
        if self.mode is Mode.NONE:
            return f"confinement: NONE ({UNSAFE_OPT_IN}: student code runs unconfined; trusted notebooks only)"
        parts = [str(self.mode)]
        if self.mode is Mode.LANDLOCK:
            parts[0] = f"landlock (ABI {self.landlock_abi}) + seccomp"
            parts.append("own uid" if self.own_uid else "grader's uid")
        parts.append(self.budget)
        return "confinement: " + " + ".join(parts)


# ---- the tests, each in a child --------------------------------------------------------------------------

def _in_child(test: Callable[[], object]) -> str:
    """Run ``test()`` in a forked child: "" if it returned, else why it failed (an errno name or text)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            test()
            message = b""
        except BaseException as err:  # noqa: BLE001 - whatever stopped it is the answer
            message = (str(err) or type(err).__name__).encode()[:400] or b"failed"
        try:
            os.write(write, message or b"\0")
        finally:
            os._exit(0)
    os.close(write)
    answer = b""
    while chunk := os.read(read, 512):
        answer += chunk
    os.close(read)
    os.waitpid(pid, 0)
    return "" if answer == b"\0" else (answer.decode(errors="replace") or "the test process died")


def _mount_tmpfs() -> None:
    check(LIBC.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate /")
    check(LIBC.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, b"size=1m"), "mount tmpfs")


def _namespaces_test() -> None:
    check(LIBC.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS), "unshare")
    _mount_tmpfs()


def map_to_root(uid: int, gid: int) -> None:
    """In a new user namespace: this process is root there, and that root is ``uid``/``gid`` outside."""
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)


def _user_namespace_test() -> None:
    uid, gid = os.geteuid(), os.getegid()
    check(LIBC.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS),
          "unshare")
    map_to_root(uid, gid)
    _mount_tmpfs()  # Ubuntu 24.04 lets unshare succeed but leaves the namespace without capabilities
    pid = os.fork()  # PID 1 of the new namespace mounts its /proc, as a worker does
    if pid == 0:
        code = 0 if LIBC.mount(b"proc", b"/tmp", b"proc", 0, None) == 0 else 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise OSError("mounting /proc in the new PID namespace was refused")


def _seccomp_test() -> None:
    from . import syscalls
    syscalls.install_filter(syscalls.Policy(metadata=False, truncate_by_path=False, self_only=True, own_group=False))


def _capabilities() -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16)
    return 0


def python_trees(hidden: list[str] | tuple[str, ...] = ()) -> tuple[str, ...]:
    """What a worker must read to run Python: the installation and every other site directory on the import path
    (one a .pth file added, say), outside the ``hidden`` trees. Not the working directory or a home: only trees
    named site-packages or dist-packages. Kept trees are read-only wherever they are."""
    python = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    real = [os.path.realpath(h) for h in hidden]
    for entry in sys.path:
        path = os.path.realpath(entry) if entry else ""
        if os.path.basename(path) in ("site-packages", "dist-packages") and os.path.isdir(path) \
                and not any(path == p or path.startswith(p + os.sep) for p in python) \
                and not any(path == h or path.startswith(h + os.sep) for h in real):
            python.add(path)
    return tuple(sorted(python))


def _open_to_others(path: str) -> bool:
    """Can another uid reach and read ``path`` (every folder above it searchable by others)? A Python under a
    private home (root's pyenv in /root, 0700) cannot run as a uid of the worker's own without namespaces."""
    import stat
    path = os.path.realpath(path)
    try:
        if not os.stat(path).st_mode & stat.S_IROTH:
            return False
        while True:
            if not os.stat(path).st_mode & stat.S_IXOTH:
                return False
            if path == os.path.dirname(path):
                return True
            path = os.path.dirname(path)
    except OSError:
        return False


def _has(caps: int, *which: int) -> bool:
    return all(caps >> cap & 1 for cap in which)


# ---- the probe -----------------------------------------------------------------------------------------
_probed: dict[tuple[str, bool], Confinement] = {}
NAMES = {"namespaces": Mode.NAMESPACES, "user-namespace": Mode.USER_NAMESPACE, "landlock": Mode.LANDLOCK,
         "none": Mode.NONE}


def probe(ask: str = "auto", unsafe: bool = False) -> Confinement:
    """The confinement this process grades with (``ask``: "auto" or one mode by its NAMES key).

    Raises ConfinementUnavailable when nothing (or not the mode asked for) can be built here, with
    the reasons and what to do; Mode.NONE only with ``unsafe`` (the loudly named opt-in).
    """
    key = (ask, unsafe)
    if key not in _probed:
        _probed[key] = _probe(ask, unsafe)
    return _probed[key]


def _probe(ask: str, unsafe: bool) -> Confinement:
    if not sys.platform.startswith("linux"):
        raise ConfinementUnavailable(
            f"Grading runs student code in a Linux sandbox (namespaces, Landlock, seccomp); this is {sys.platform}. "
            "Grade on Linux: a Linux machine or VM, a Docker container (docker run ... python -m autograder grade), "
            "or Gradescope (make gradescope). release, written and class-report work here.")
    if ask not in NAMES and ask != "auto":
        raise ConfinementUnavailable(f"unknown confinement {ask!r}: one of auto, {', '.join(NAMES)}")
    if NAMES.get(ask) is Mode.NONE or (ask == "auto" and os.environ.get("AUTOGRADER_UNSAFE_NO_SANDBOX")):
        if not unsafe:
            raise ConfinementUnavailable(f"confinement 'none' runs student code unconfined: say so with {UNSAFE_OPT_IN}")
        return Confinement(Mode.NONE, budget.mechanism())
    caps, reasons = _capabilities(), list[str]()
    abi = landlock.abi_version()
    own_uid = _has(caps, CAP_SETUID, CAP_SETGID, CAP_CHOWN, CAP_KILL) and all(map(_open_to_others, python_trees()))

    for mode, why_not in ((Mode.NAMESPACES, _why_not_namespaces), (Mode.USER_NAMESPACE, _why_not_user_namespace),
                          (Mode.LANDLOCK, lambda: _why_not_landlock(abi, own_uid))):
        if ask != "auto" and NAMES[ask] is not mode:
            continue
        reason = why_not(caps) if mode is Mode.NAMESPACES else why_not()  # type: ignore[call-arg]  # caps: namespaces'
        if not reason:
            return Confinement(mode, budget.mechanism(), abi,
                               own_uid if mode is Mode.LANDLOCK else mode is Mode.NAMESPACES, tuple(reasons))
        reasons.append(f"{mode}: {reason}")
    if unsafe and ask == "auto":
        return Confinement(Mode.NONE, budget.mechanism(), abi, False, tuple(reasons))
    raise ConfinementUnavailable(refusal(reasons, ask))


def _why_not_namespaces(caps: int) -> str:
    if os.geteuid() != 0:
        return "not root"
    if not _has(caps, CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID):
        return "root without CAP_SYS_ADMIN (a container's default capabilities)"
    failed = _in_child(_namespaces_test)
    return f"namespaces refused ({failed})" if failed else ""


def _why_not_user_namespace() -> str:
    if os.geteuid() == 0:  # red team 12: its root is the machine's uid 0 outside, the owner of /etc/shadow
        return ("as root, its worker would be the machine's uid 0 to every file it sees (/etc/shadow among them); "
                "root grades in mode namespaces")
    failed = _in_child(_user_namespace_test)
    return f"unprivileged user namespaces refused ({failed})" if failed else ""


def _why_not_landlock(abi: int, own_uid: bool) -> str:
    if abi < 1:
        return "no Landlock in this kernel (Linux >= 5.13 with Landlock enabled in the LSM list)"
    if os.geteuid() == 0 and not own_uid:  # red team 12: uid 0 reads what only root may (/etc/shadow)
        unreadable = [path for path in python_trees() if not _open_to_others(path)]
        return ("as root, a worker without a uid of its own would be the machine's uid 0 to every file it may read "
                "(/etc/shadow among them); a uid of its own needs CAP_SETUID, CAP_SETGID, CAP_CHOWN and CAP_KILL and "
                "a Python other users can read" + (f" ({unreadable[0]} is not)" if unreadable else ""))
    if abi < 6 and not own_uid:
        return (f"Landlock ABI {abi} cannot stop signals to the grader (ABI 6, Linux >= 6.12), and without "
                "CAP_SETUID the worker cannot get a uid of its own")
    failed = _in_child(_seccomp_test)
    return f"seccomp filters refused ({failed})" if failed else ""


def refusal(reasons: Sequence[str], ask: str = "auto") -> str:
    what = "cannot build the confinement asked for" if ask != "auto" else "allows none of the ways it is built"
    return ("Grading runs student code in a sandbox, and this machine " + what + ":\n"
            + "".join(f"  - {r}\n" for r in reasons)
            + "What to do: grade as root in a VM or a container started with --cap-add SYS_ADMIN; or allow "
              "unprivileged user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04 "
              "kernel.apparmor_restrict_unprivileged_userns=0); or use a kernel with Landlock (>= 5.13; >= 6.12 "
              "when not root). Only to grade notebooks you trust (never students'): " + UNSAFE_OPT_IN + ".")
