"""What a worker is, and what it carries: its uid and keyrings, its environment, its command line.

Nothing may cross from the grader to a worker, or from one submission to the next:

* a uid of its own: 100000 + its keeper's pid, unique among live workers on the machine
  (the keeper lives exactly as long as the worker tree), so concurrent `grade` commands
  never share one, and RLIMIT_NPROC, file ownership and signals are per tree;
* a fresh anonymous session keyring (the inherited one is the grader's), gone with the tree; the
  uid's user keyrings are never made (see fresh_keyrings), so no grade leaves keys behind;
* an environment of exactly WORKER_ENVIRONMENT (below, the one place it is named), and no
  trace of the grader's: os.environ, posix.environ and the C environ are rebuilt, the
  old values are overwritten in memory, and so are the argument and environment strings
  on the initial stack that /proc/PID/cmdline and /proc/PID/environ show (a forked process
  keeps its parent's). The template scrubs itself once (scrub_process); every worker it
  forks inherits the result.
"""
import ctypes
import errno
import os
import sys
from collections.abc import Mapping, Sequence
from types import FrameType

from ..linux.flags import (KEYCTL_JOIN_SESSION_KEYRING, LINUX_CAPABILITY_VERSION_3, PR_CAP_AMBIENT,
                           PR_CAP_AMBIENT_CLEAR_ALL, PR_CAPBSET_DROP, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS,
                           PR_SET_SECUREBITS, SECBIT_KEEP_CAPS_LOCKED, SECBIT_NO_CAP_AMBIENT_RAISE,
                           SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED, SECBIT_NO_SETUID_FIXUP, SECBIT_NO_SETUID_FIXUP_LOCKED,
                           SECBIT_NOROOT, SECBIT_NOROOT_LOCKED)
from ..linux.libc import prctl, syscall

UID_BASE = 100000

# The worker's whole environment: name -> value (None: filled in per worker by worker_environment).
WORKER_ENVIRONMENT: dict[str, str | None] = {
    "HOME": None,  # its work directory
    "TMPDIR": None,  # /tmp (its private tmpfs), or the work directory without root
    "PATH": None,  # the venv's bin, then the system's
    "LANG": "C.UTF-8",
    "GRADING": "1",
    "MPLBACKEND": "Agg",
    "OMP_NUM_THREADS": "1",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
}
# Kept from the grader's environment when set, because libraries already loaded misbehave
# without them (see the machine notes on OpenBLAS); they hold no secret.
FROM_GRADER = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def worker_uid(keeper_pid: int) -> int:
    return UID_BASE + keeper_pid


def worker_environment(home: str, tmpdir: str, inherited: Mapping[str, str]) -> dict[str, str]:
    env = dict(WORKER_ENVIRONMENT, HOME=home, TMPDIR=tmpdir,
               PATH=f"{os.path.dirname(sys.executable)}:{SYSTEM_PATH}")
    env.update({name: inherited[name] for name in FROM_GRADER if name in inherited})
    return env  # type: ignore[return-value]  # every None of WORKER_ENVIRONMENT is filled in above


def set_environment(env: Mapping[str, str]) -> None:
    """Make ``env`` the whole environment: Python's view (os.environ is posix.environ) and the C one."""
    for name in list(os.environ):
        if name not in env:
            del os.environ[name]  # unsetenv() too
    os.environ.update(env)


def _wipe(objects: Sequence[str | bytes]) -> None:
    """Overwrite bytes/str objects in place when nothing else refers to them (so no one sees the change)."""
    for i in range(len(objects)):
        value = objects[i]
        # References: the list, `value` and getrefcount's argument: nothing else holds it.
        if len(value) > 1 and sys.getrefcount(value) <= 3:
            if isinstance(value, bytes):
                ctypes.memset(id(value) + bytes.__basicsize__ - 1, 0, len(value))
            elif isinstance(value, str) and value.isascii():
                ctypes.memset(id(value) + sys.getsizeof("") - 1, 0, len(value))
        del value


def scrub_environment(keep: Mapping[str, str]) -> None:
    """Forget the grader's environment: every value not in ``keep`` is overwritten, then removed."""
    import posix
    doomed = {k: v for k, v in posix.environ.items()}  # os.environ._data is this very dict on POSIX
    for name in list(os.environ):
        del os.environ[name]
    values = [v for k, v in doomed.items() if os.fsdecode(k) not in keep or os.fsdecode(v) != keep[os.fsdecode(k)]]
    doomed.clear()
    _wipe(values)
    os.environ.update(keep)


def forget_callers(frame: FrameType | None) -> None:
    """Empty the locals of ``frame`` and every frame above it (a process that never returns into them).

    A template forked from the grading process runs on top of the grader's call stack, so
    its parsed command line (argparse's Namespace: the notebook, --out, --hide ...) sits
    in those frames, one ``sys._getframe().f_back`` walk away from every worker. The
    strings they held are overwritten when nothing else holds them (sys.argv's among them).
    """
    argv = [*sys.argv, *sys.orig_argv]
    sys.argv = ["autograder-template"]
    sys.orig_argv[:] = sys.argv
    while frame is not None:
        if frame.f_code.co_name != "<module>":  # module frames' locals are module globals: left alone
            names = list(frame.f_locals)
            held = [v for v in frame.f_locals.values()]
            held += [v for obj in held if type(obj).__name__ == "Namespace" for v in vars(obj).values()]
            for name in names:
                _set_local(frame, name, None)
            texts = [v for v in held if isinstance(v, (str, bytes))]
            del held
            _wipe(texts)
        frame = frame.f_back
    _wipe(argv)


def _set_local(frame: FrameType, name: str, value: object) -> None:
    if sys.version_info >= (3, 13):  # f_locals writes through (PEP 667)
        frame.f_locals[name] = value
        return
    frame.f_locals[name] = value
    ctypes.pythonapi.PyFrame_LocalsToFast(ctypes.py_object(frame), ctypes.c_int(1))


def _stat_fields() -> list[int]:
    with open("/proc/self/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state); arg_start..env_end are fields 48..51.
    return [int(f) for f in fields[45:49]]


def scrub_process(name: str = "autograder-worker") -> bool:
    """Overwrite the initial stack's argument and environment strings; clear sys.argv and sys.orig_argv.

    /proc/PID/cmdline and /proc/PID/environ read these ranges of the process's memory,
    which a fork copies: without this, every worker would show the grader's command line
    and its environment as it was when the grader started.
    """
    sys.argv = [name]
    sys.orig_argv[:] = [name]  # a list attribute of sys: cleared in place
    try:
        arg_start, arg_end, env_start, env_end = _stat_fields()
    except (OSError, ValueError):
        return False
    title = name.encode()[: max(0, arg_end - arg_start - 1)]
    with open("/proc/self/mem", "r+b", buffering=0) as mem:
        mem.seek(arg_start)
        mem.write(title + b"\0" * (arg_end - arg_start - len(title)))
        mem.seek(env_start)
        mem.write(b"\0" * (env_end - env_start))
    return True


# ---- keyrings ----------------------------------------------------------------------------------------------
def fresh_keyrings() -> bool:
    """After setuid: a new anonymous session keyring (the one a worker inherits is the grader's).

    Nothing else. A uid's user and user-session keyrings are made the first time they are looked up
    (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING, or a search with no session keyring), and from
    Linux 5.3 they then stay in the user namespace's registry until that namespace ends: for the machine's,
    never. Clearing them looked them up, so every grade left two keyrings of its worker uid in
    /proc/key-users (1,066 uids after a few hundred grades). Nothing can reach them without a lookup: student
    code has no key system call (syscalls.KEY_CALLS, refused in every mode that has a uid of its own), no
    trusted step between setuid and the filter looks a key up, and with a session keyring of its own a
    search never falls back to the user-session one. The session keyring goes when the tree's last process
    does, and the uid's entry in /proc/key-users with it.
    """
    try:
        syscall("keyctl", KEYCTL_JOIN_SESSION_KEYRING, ctypes.c_char_p(None))
    except OSError as err:
        # ENOSYS: a kernel without keys; EPERM: a host whose seccomp profile refuses the key calls (Docker's
        # default), to the worker as much as to us. Either way nothing can be carried over in a keyring.
        if err.errno in (errno.ENOSYS, errno.EPERM):
            return False
        raise
    return True


# ---- capabilities (mode user namespace: root of its namespace, with no power) --------------------------------
# noroot, no_setuid_fixup, keep_caps off, no_cap_ambient_raise: each with its lock bit
SECUREBITS_LOCKED = (SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED
                     | SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)


def holds_capabilities() -> bool:
    """Does this process hold any capability (permitted, effective, inheritable or ambient)? Root does; a worker
    that keeps a non-root grader's uid holds none, and cannot drop a bounding set it has no CAP_SETPCAP for."""
    with open("/proc/self/status") as status:
        return any(int(value, 16) for name, _, value in (line.partition(":") for line in status)
                   if name in ("CapInh", "CapPrm", "CapEff", "CapAmb"))


def drop_capabilities() -> None:
    """Give up every capability for good: bounding and ambient sets emptied, securebits locked so that uid 0
    regains nothing, effective/permitted/inheritable cleared, no_new_privs set.

    It stays dumpable: a forked worker's memory belongs to the machine's user namespace (it was never exec'd),
    so a non-dumpable one could be read by no keeper without CAP_SYS_PTRACE there, and the watchdog was blind
    to it (a 4.5 GiB tree went unseen). Dumpable, it is readable by its own uid outside: the grader's."""
    with open("/proc/sys/kernel/cap_last_cap") as handle:
        last = int(handle.read())
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    for cap in range(last + 1):
        prctl(PR_CAPBSET_DROP, cap)
    prctl(PR_SET_SECUREBITS, SECUREBITS_LOCKED)
    header = (ctypes.c_uint32 * 2)(LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # two {effective, permitted, inheritable} words, all zero
    syscall("capset", header, data)
    prctl(PR_SET_DUMPABLE, 1)
