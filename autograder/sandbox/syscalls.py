"""The system calls a worker may not make: a seccomp filter, installed before the first cell runs.

Namespaces give a worker its own processes, files, network and IPC, but the kernel's key
store is shared by uid, and uids come back: a worker's uid is 100000 + its keeper's pid,
and pids wrap (pid_max is 32768 here). A notebook that could call keyctl() could leave a
note in its uid's keyrings for a later submission, or take away the permission to clear
them, so that the next worker given that uid fails to start and every check of an honest
student reads "Autograder failed" (red team round 3: seven students of one batch, and the
poison outlived the batch). So once the worker has made its own keyrings (identity.py), it
loses the three key system calls for good (and fscrypt's key ioctls, which add keys too); the
filter is inherited by anything it starts.

Also refused: every system call of another ABI (the 32-bit int 0x80 entry, x32 numbers),
which would otherwise reach the same calls under other numbers. A refused call fails with
EPERM, as an unprivileged user's would. And calls that give a process memory no mapping
shows (memfd_create, shmget, msgget, mq_open, io_uring_setup, userfaultfd, bpf, perf_event_open)
answer ENOSYS, as on a kernel without them: where no control group can be made, the memory
watchdog (budget.py) sees only mappings and the scratch mounts.

Red team, round 6, both where no control group can be made: a cell made a user and mount
namespace of its own (unshare, after setting itself dumpable again) and mounted an 8 GiB tmpfs
that no watchdog looks at (6 GiB held past the 4 GiB cap); another queued 6 GiB in AF_UNIX
socket buffers (8 MiB a socket, 512 sockets a process, 256 processes). A worker needs neither
(its one socket to the grader is inherited), so new namespaces (unshare, setns, clone with a
CLONE_NEW* flag; clone3, whose flags a filter cannot read, answers ENOSYS and glibc falls back
to clone), mounts and new sockets are refused with EPERM.
"""
import ctypes
import errno
import platform

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
X32_SYSCALL_BIT = 0x40000000
# {name: (x86_64 number, aarch64 number)} from the kernel's unistd tables.
_NUMBERS = {
    "add_key": (248, 217), "request_key": (249, 218), "keyctl": (250, 219), "ioctl": (16, 29),
    "memfd_create": (319, 279), "shmget": (29, 194), "msgget": (68, 186), "mq_open": (240, 180),
    "io_uring_setup": (425, 425), "userfaultfd": (323, 282), "bpf": (321, 280), "perf_event_open": (298, 241),
    "unshare": (272, 97), "setns": (308, 268), "mount": (165, 40), "umount2": (166, 39), "pivot_root": (155, 41),
    "open_tree": (428, 428), "move_mount": (429, 429), "fsopen": (430, 430), "fsconfig": (431, 431),
    "fsmount": (432, 432), "fspick": (433, 433), "mount_setattr": (442, 442), "socket": (41, 198),
    "socketpair": (53, 199), "clone": (56, 220), "clone3": (435, 435),
}
# machine: (audit arch of its native ABI, {name: number})
NATIVE = {machine: (arch, {name: pair[i] for name, pair in _NUMBERS.items()})
          for i, (machine, arch) in enumerate((("x86_64", 0xC000003E), ("aarch64", 0xC00000B7)))}
KEY_CALLS = ("add_key", "request_key", "keyctl")
# New namespaces, mounts and sockets (round 6, see above): refused with EPERM.
CONFINING_CALLS = ("unshare", "setns", "mount", "umount2", "pivot_root", "open_tree", "move_mount", "fsopen",
                   "fsconfig", "fsmount", "fspick", "mount_setattr", "socket", "socketpair")
DENIED_CALLS = KEY_CALLS + CONFINING_CALLS
# clone's flags (its first argument) that make a namespace: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
# Memory a process holds without mapping it: a memfd filled with write() (64 MiB each, 512 of them per
# process) or a System V segment is no part of any process's PSS, so where no control group can be
# made the watchdog never saw it (red team, round 5: 6 GiB held past the 4 GiB cap). They answer
# ENOSYS, as on a kernel without them, so libraries that try them fall back (asmjit, in PyTorch,
# goes on to /dev/shm, which is a bounded private tmpfs the watchdog counts).
UNSUPPORTED_CALLS = ("memfd_create", "shmget", "msgget", "mq_open", "io_uring_setup", "userfaultfd", "bpf",
                     "perf_event_open", "clone3")
# fscrypt's ioctls put keys into a filesystem's keyring, charged to the caller's uid (red team, round 4:
# refused here only because this disk has no "encrypt" feature): _IOWR('f', 23..25, ...) from linux/fscrypt.h.
KEY_IOCTLS = {"FS_IOC_ADD_ENCRYPTION_KEY": 0xC0506617, "FS_IOC_REMOVE_ENCRYPTION_KEY": 0xC0406618,
              "FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS": 0xC0406619}
_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06  # classic BPF opcodes
_NR_OFFSET, _ARCH_OFFSET, _ARG0_OFFSET, _ARG1_OFFSET = 0, 4, 16, 24  # struct seccomp_data: nr, arch, args[0], args[1] (low 32 bits)


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def program(arch, numbers):
    """The filter as (code, jt, jf, k) rows: another ABI, a key, namespace, mount or socket call, a clone
    with a CLONE_NEW* flag, or an fscrypt key ioctl -> EPERM; an unmapped-memory call or clone3 -> ENOSYS;
    anything else allowed. Jumps are written to labels and resolved here."""
    rows = [(_LD_W_ABS, 0, 0, _ARCH_OFFSET), (_JEQ_K, 0, "deny", arch),
            (_LD_W_ABS, 0, 0, _NR_OFFSET), (_JGE_K, "deny", 0, X32_SYSCALL_BIT)]
    rows += [(_JEQ_K, "deny", 0, numbers[name]) for name in DENIED_CALLS]
    rows += [(_JEQ_K, "unsupported", 0, numbers[name]) for name in UNSUPPORTED_CALLS]
    rows += [(_JEQ_K, "clone", 0, numbers["clone"]),
             (_JEQ_K, "ioctl", 0, numbers["ioctl"]), (_RET_K, 0, 0, SECCOMP_RET_ALLOW),
             ("clone",), (_LD_W_ABS, 0, 0, _ARG0_OFFSET), (_JSET_K, "deny", 0, CLONE_NEW_FLAGS),
             (_RET_K, 0, 0, SECCOMP_RET_ALLOW),
             ("ioctl",), (_LD_W_ABS, 0, 0, _ARG1_OFFSET)]
    rows += [(_JEQ_K, "deny", 0, cmd) for cmd in KEY_IOCTLS.values()]
    rows += [(_RET_K, 0, 0, SECCOMP_RET_ALLOW), ("unsupported",), (_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.ENOSYS),
             ("deny",), (_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.EPERM)]
    labels, code = {}, []
    for row in rows:
        if len(row) == 1:
            labels[row[0]] = len(code)
        else:
            code.append(row)
    return [(op, _offset(jt, labels, i), _offset(jf, labels, i), k) for i, (op, jt, jf, k) in enumerate(code)]


def _offset(target, labels, i):
    """A jump to a label, as classic BPF counts it: instructions skipped after the next one."""
    return labels[target] - i - 1 if isinstance(target, str) else target


def install_filter():
    """Install the filter in this process (and everything it will start); raises OSError if it cannot."""
    arch, numbers = NATIVE.get(platform.machine(), (None, None))
    if arch is None:
        raise OSError(errno.ENOSYS, f"no seccomp table for {platform.machine()}: cannot install the worker's system-call filter")
    rows = program(arch, numbers)
    instructions = (_Instruction * len(rows))(*[_Instruction(*row) for row in rows])
    prog = _Program(len(rows), instructions)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    # no_new_privs: required to install a filter without CAP_SYS_ADMIN, and no setuid program can undo it.
    for args in ((PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0),
                 (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.cast(ctypes.pointer(prog), ctypes.c_void_p).value, 0, 0)):
        if libc.prctl(*args) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"prctl({args[0]}): {errno.errorcode.get(err, err)}")
