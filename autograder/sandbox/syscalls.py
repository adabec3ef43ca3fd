"""The system calls a worker may make: an allow-list, installed as a seccomp filter before the first cell runs.

Every call a notebook, Python, PyTorch and NumPy need is listed in ALLOWED, by what it is for;
anything else answers ENOSYS, as on a kernel without it, so a library that tries something new
falls back instead of crashing. A few calls are answered EPERM, as an unprivileged user's would be:

* REFUSED: the key calls (keyrings are shared by uid and uids come back: a note for a later
  submission, or a poisoned keyring that made the next worker fail to start, red team round 3);
  new namespaces, mounts and sockets (round 6: a tmpfs of the worker's own, and 6 GiB queued in
  socket buffers, where no control group can be made; the worker's one socket to the grader is
  inherited); ptrace and the cross-process memory calls; capset;
* clone with a CLONE_NEW* flag or CLONE_PARENT, or a thread with open files of its own (clone3, whose flags a filter cannot read, answers ENOSYS and
  glibc falls back to clone); fscrypt's key ioctls (they add keys too) and the ioctls that change an inode's
  metadata through a read-only descriptor; every prctl option but a few
  (PRCTL_ALLOWED: PR_SET_DUMPABLE blinded the watchdog); fcntl's record locks, leases and directory
  notifications (FCNTL_REFUSED: kernel memory nothing counts); mmap of shared anonymous memory (its kernel
  object keeps every page written after all but one page are unmapped, and a keeper cannot read its size);
* every call of another ABI (the 32-bit int 0x80 entry, x32 numbers), which would otherwise
  reach the same calls under other numbers.

UNSUPPORTED calls answer ENOSYS on purpose: they give a process memory no mapping shows (memfd,
System V and POSIX IPC, io_uring, userfaultfd, bpf, perf; round 5: 6 GiB in memfds went unseen
by the memory watchdog), and System V semaphores outlive the worker where there is no IPC
namespace of its own; inotify, whose instances are few per uid (128: a worker of the grader's uid
took them all) and whose watches pin kernel memory (libraries that watch files fall back to polling).

Where the worker shares the grader's uid and file system (confinement by Landlock, without
namespaces), a Policy takes more away: calls that act on another process by pid (prlimit64,
sched_set*, setpriority, ioprio_set) only on the caller itself; the calls that change a file's
metadata (chmod, chown, utimes, xattrs), which Landlock does not govern, on nothing; and setsid
and setpgid, so that everything the worker starts stays in its process group, which is killed
at once.

The system-call numbers, flags and BPF are the Linux layer's (autograder/linux/): this module is policy.
"""
import errno
import platform
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..linux import flags
from ..linux.flags import CLONE_NEW_FLAGS
from ..linux.numbers import NUMBERS, number
from ..linux.seccomp import (AUDIT_ARCH, BPF_JEQ_K, BPF_JGE_K, BPF_JSET_K, BPF_LD_W_ABS, BPF_RET_K,
                             SECCOMP_DATA_ARCH, SECCOMP_DATA_NR, SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO,
                             X32_SYSCALL_BIT, Row, install, seccomp_data_arg)

# What a worker may call, by what it is for.
ALLOWED = {
    "files": """read write readv writev pread64 pwrite64 preadv pwritev preadv2 pwritev2 open openat openat2 close
        close_range lseek stat fstat lstat newfstatat statx statfs fstatfs access faccessat faccessat2 getdents
        getdents64 readlink readlinkat getcwd chdir fchdir mkdir mkdirat rmdir unlink unlinkat rename renameat
        renameat2 link linkat symlink symlinkat mknodat ftruncate fsync fdatasync sync_file_range fallocate flock
        fcntl dup dup2 dup3 pipe pipe2 umask copy_file_range ioctl fadvise64 readahead
        getxattr lgetxattr fgetxattr listxattr llistxattr flistxattr""",
    "waiting": """poll ppoll select pselect6 epoll_ctl epoll_wait epoll_pwait
        epoll_pwait2 eventfd eventfd2 timerfd_create timerfd_settime timerfd_gettime signalfd signalfd4""",
    "memory": """mmap munmap mprotect mremap madvise brk msync mincore mlock mlock2 munlock mlockall munlockall
        membarrier get_mempolicy set_mempolicy mbind pkey_alloc pkey_free pkey_mprotect""",
    "processes": """clone fork vfork execve execveat exit exit_group wait4 waitid kill tkill tgkill
        rt_sigqueueinfo rt_tgsigqueueinfo pidfd_open pidfd_send_signal getpid getppid gettid getpgid
        getpgrp getsid getuid geteuid getgid getegid getresuid getresgid getgroups capget prctl
        arch_prctl set_tid_address set_robust_list get_robust_list rseq futex futex_waitv sched_yield
        sched_getaffinity sched_getparam sched_getscheduler sched_get_priority_max sched_get_priority_min
        sched_getattr sched_rr_get_interval getpriority ioprio_get personality""",
    "signals and time": """rt_sigaction rt_sigprocmask rt_sigreturn rt_sigpending rt_sigsuspend rt_sigtimedwait
        sigaltstack pause alarm setitimer getitimer timer_create timer_settime timer_gettime timer_getoverrun
        timer_delete nanosleep clock_nanosleep clock_gettime clock_getres gettimeofday time times getrusage
        getrlimit""",
    "information": "uname sysinfo getrandom getcpu",
    "the grader's socket": """sendmsg recvmsg sendto recvfrom sendmmsg recvmmsg shutdown getsockopt setsockopt
        getsockname getpeername""",
}
# Allowed on the caller itself only: {name: {argument: the value it must have}}. setpriority(PRIO_PROCESS=0, 0)
# and ioprio_set(IOPRIO_WHO_PROCESS=1, 0) name the caller; PRIO_USER with 0 names every process of its uid
# (red team of issue 22: the grading process reniced to 15).
SELF_ONLY = {"prlimit64": {0: 0}, "sched_setaffinity": {0: 0}, "sched_setparam": {0: 0},
             "sched_setscheduler": {0: 0}, "sched_setattr": {0: 0}, "setpriority": {0: 0, 1: 0},
             "ioprio_set": {0: 1, 1: 0}}
# Leaving the worker's process group: where it has no PID namespace, the group is how its tree is killed at once
# (red team of issue 22: a child in a group of its own, changing pids by forking, outlived its grade).
OWN_GROUP = ("setsid", "setpgid")
# File metadata: harmless on a root of read-only mounts, refused where the worker shares the grader's files.
METADATA = ("chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat", "utime", "utimes", "futimesat",
            "utimensat", "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr")
TRUNCATE_BY_PATH = ("truncate",)  # Landlock governs it from ABI 3 on
REFUSED = ("add_key", "request_key", "keyctl", "unshare", "setns", "mount", "umount2", "pivot_root", "open_tree",
           "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "socket", "socketpair",
           "connect", "bind", "listen", "accept", "accept4", "ptrace", "process_vm_readv", "process_vm_writev",
           "kcmp", "pidfd_getfd", "capset")
KEY_CALLS = ("add_key", "request_key", "keyctl")
UNSUPPORTED = ("memfd_create", "shmget", "msgget", "semget", "mq_open", "io_uring_setup", "userfaultfd", "bpf",
               "perf_event_open", "clone3", "inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch",
               "epoll_create", "epoll_create1", "landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self",
               "splice", "tee", "vmsplice", "sendfile")
# splice, tee, vmsplice and sendfile put pages into pipes: a pipe slot holds a whole page-cache folio (1 MiB on ext4)
# or a user page, after the file is deleted and the page unmapped, where no PSS, mapping, fd or file shows it (issue
# 27: 6 GiB held in docker-root and k8s-pod, docs/history.md: pipe_folios). Python's shutil falls back to read and
# write without sendfile.
# epoll instances: a watch is kernel memory per (instance, fd) pair, bounded only by the per-uid
# fs.epoll.max_user_watches (5.5 M here, ~1 GiB of slab, shared with the grader where the worker has its uid); no
# notebook needs one (poll and select remain, and Python's subprocess and multiprocessing use them). Without an
# instance, epoll_ctl and epoll_wait have nothing to act on. Landlock's calls are the sandbox's own (landlock.py,
# before the filter): a notebook has no use for them.
# prctl, by its option (an int: the kernel reads the low 32 bits of the register alone, so the filter does too).
# Allowed: reading what a process is (name, dumpability, seccomp, no_new_privs, the bounding set) and what a
# library does to itself (a thread's name, a parent-death signal). Everything else is refused with EPERM, first
# PR_SET_DUMPABLE: a process not dumpable hides its memory and files from a keeper without CAP_SYS_PTRACE
# (issue 27: a 6 GiB tree counted as 0), and PR_SET_VMA, whose names of anonymous mappings are
# kernel memory (glibc ignores the refusal). Honest grades make no prctl call at all once the filter is in.
PRCTL_ALLOWED = {name: getattr(flags, name) for name in ("PR_SET_PDEATHSIG", "PR_GET_PDEATHSIG", "PR_GET_DUMPABLE",
                                                      "PR_SET_NAME", "PR_GET_NAME", "PR_GET_SECCOMP",
                                                      "PR_CAPBSET_READ", "PR_GET_NO_NEW_PRIVS")}
# fcntl, by its command (an unsigned int, the low 32 bits too): a byte-range lock is a struct in the kernel per
# range, and a process may hold one every other byte of every file it can open (issue 27: 96 children pinned
# 5 GiB of unreclaimable slab, counted by no PSS and no per-user limit); a lease and a directory notification are
# the same kind of state on files the grader shares. Locks answer ENOLCK ("no locks available", as on a file
# system without them; SQLite then reports it cannot lock), the other two EPERM. flock(2) stays: one lock per
# open file, bounded by RLIMIT_NOFILE times the process cap.
FCNTL_REFUSED = {"F_SETLK": (flags.F_SETLK, errno.ENOLCK), "F_SETLKW": (flags.F_SETLKW, errno.ENOLCK),
                 "F_OFD_SETLK": (flags.F_OFD_SETLK, errno.ENOLCK), "F_OFD_SETLKW": (flags.F_OFD_SETLKW, errno.ENOLCK),
                 "F_SETLEASE": (flags.F_SETLEASE, errno.EPERM), "F_NOTIFY": (flags.F_NOTIFY, errno.EPERM)}
# fscrypt's ioctls put keys into a filesystem's keyring, charged to the caller's uid (red team, round 4).
KEY_IOCTLS = {name: getattr(flags, name) for name in ("FS_IOC_ADD_ENCRYPTION_KEY", "FS_IOC_REMOVE_ENCRYPTION_KEY",
                                                   "FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS")}
# Ioctls by which a file's owner changes it through a descriptor opened only to read: inode flags and attributes,
# its generation, an encryption policy, verity, shared blocks. Landlock governs ioctls on devices only, so a worker
# that keeps the grader's uid changed the files it may read (red team 12); refused in every mode (EPERM).
METADATA_IOCTLS = {name: getattr(flags, name) for name in (
    "FS_IOC_SETFLAGS", "FS_IOC32_SETFLAGS", "FS_IOC_SETVERSION", "FS_IOC32_SETVERSION", "EXT4_IOC_SETVERSION",
    "EXT4_IOC32_SETVERSION", "FS_IOC_FSSETXATTR", "FS_IOC_SET_ENCRYPTION_POLICY", "FS_IOC_ENABLE_VERITY",
    "FIDEDUPERANGE")}
IOCTL_REFUSED = {**KEY_IOCTLS, **METADATA_IOCTLS}


# clone: a namespace of its own, or a child given the caller's parent (a process that changes pid so leaves no orphan
# for the keeper to count: docs/history.md, parent_hop). glibc's fork and pthread_create use neither.
CLONE_REFUSED = CLONE_NEW_FLAGS | flags.CLONE_PARENT
# A thread with a table of open files of its own (CLONE_THREAD without CLONE_FILES): /proc/PID/fd shows the process's
# main table only, so a file it alone keeps open, unlinked, is seen by nobody (red team 7, hidden_fd_table: 4.5 GiB on
# the host's disk, or in a tmpfs /tmp, past the cap at score 100). glibc's pthread_create always shares the table.
# fallocate with FALLOC_FL_KEEP_SIZE allocates past a file's end without RLIMIT_FSIZE's check (red team 7,
# preallocated: 2 GiB behind each file charged 64 MiB): it answers EOPNOTSUPP, as on a file system without it, and
# callers fall back (posix_fallocate uses mode 0).
# mmap, by its flags: MAP_SHARED|MAP_ANONYMOUS makes a shmem object that keeps every page written while one page of it
# stays mapped. The watchdog charged such an object up to the end of what is mapped; unmapped but for its first page,
# two 2.5 GiB objects were charged 4 KiB each and held 5 GiB past the cap for 15 s at score 100 (red team 6,
# docs/history.md: shared_window); a keeper without CAP_SYS_ADMIN cannot read the object's size (map_files). No
# honest grade maps shared anonymous memory: Python's multiprocessing maps files, PyTorch shares memory through
# files or memfds. EPERM, as mmap answers where a policy forbids. (Shared /dev/zero is the same object: the worker
# may only read /dev/zero, and a read-only mapping of it allocates nothing.)
MMAP_SHARED_ANONYMOUS = flags.MAP_SHARED | flags.MAP_ANONYMOUS
ARGUMENTS_LOOKED_AT = ("clone", "ioctl", "prctl", "fcntl", "mmap", "fallocate")  # allowed, with a look at one argument (_blocks)


@dataclass(frozen=True)
class Policy:
    """What a confinement mode adds to the allow-list (confinement.py chooses)."""
    metadata: bool = True  # chmod, chown, utimes, xattr changes
    truncate_by_path: bool = True
    self_only: bool = False  # SELF_ONLY calls on the caller only (else on any process the uid reaches)
    own_group: bool = True  # setsid, setpgid (else refused: the tree stays in the worker's process group)


def allowed(policy: Policy) -> list[str]:
    names = [name for group in ALLOWED.values() for name in group.split()]
    names += list(METADATA) if policy.metadata else []
    names += list(TRUNCATE_BY_PATH) if policy.truncate_by_path else []
    names += [] if policy.self_only else list(SELF_ONLY)
    names += list(OWN_GROUP) if policy.own_group else []
    return names


ALLOW, EPERM, ENOSYS = SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | errno.EPERM, SECCOMP_RET_ERRNO | errno.ENOSYS


def _when(nr: int, block: list[Row]) -> list[Row]:
    """If the call is ``nr``, run ``block`` (which ends in a return); else go on after it."""
    return [(BPF_JEQ_K, 0, len(block), nr)] + block


def _arguments_are(required: Mapping[int, int]) -> list[Row]:
    """A block: ALLOW when every argument {index: value} has that value (all 64 bits), else EPERM."""
    checks: list[tuple[int, int, Any, int]] = []  # jf: a count, or "deny" until the block's length is known
    for index, value in required.items():
        checks += [(BPF_LD_W_ABS, 0, 0, seccomp_data_arg(index)), (BPF_JEQ_K, 0, "deny", value & 0xFFFFFFFF),
                   (BPF_LD_W_ABS, 0, 0, seccomp_data_arg(index, True)), (BPF_JEQ_K, 0, "deny", value >> 32)]
    checks += [(BPF_RET_K, 0, 0, ALLOW)]
    deny = len(checks)
    block = [(code, jt, deny - i - 1 if jf == "deny" else jf, k) for i, (code, jt, jf, k) in enumerate(checks)]
    return block + [(BPF_RET_K, 0, 0, EPERM)]


def _blocks(machine: str, policy: Policy) -> list[Row]:
    # None for a call this machine lacks: each() skips those; the calls looked at by argument and SELF_ONLY's exist
    # on every machine of AUDIT_ARCH.
    numbers: dict[str, int] = {name: number(name, machine) for name in NUMBERS}  # type: ignore[misc]

    def each(names: Sequence[str], block: Callable[[], list[Row]]) -> list[Row]:
        return [row for name in names if numbers[name] is not None for row in _when(numbers[name], block())]

    clone = [(BPF_LD_W_ABS, 0, 0, seccomp_data_arg(0)), (BPF_JSET_K, 0, 1, CLONE_REFUSED), (BPF_RET_K, 0, 0, EPERM),
             (BPF_JSET_K, 0, 2, flags.CLONE_THREAD), (BPF_JSET_K, 1, 0, flags.CLONE_FILES), (BPF_RET_K, 0, 0, EPERM),
             (BPF_RET_K, 0, 0, ALLOW)]
    fallocate = [(BPF_LD_W_ABS, 0, 0, seccomp_data_arg(1)), (BPF_JSET_K, 0, 1, flags.FALLOC_FL_KEEP_SIZE),
                 (BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.EOPNOTSUPP), (BPF_RET_K, 0, 0, ALLOW)]
    ioctl = [(BPF_LD_W_ABS, 0, 0, seccomp_data_arg(1))]
    for i, cmd in enumerate(IOCTL_REFUSED.values()):
        ioctl.append((BPF_JEQ_K, len(IOCTL_REFUSED) - i, 0, cmd))
    ioctl += [(BPF_RET_K, 0, 0, ALLOW), (BPF_RET_K, 0, 0, EPERM)]
    prctl = [(BPF_LD_W_ABS, 0, 0, seccomp_data_arg(0))]
    for i, option in enumerate(PRCTL_ALLOWED.values()):
        prctl.append((BPF_JEQ_K, len(PRCTL_ALLOWED) - i, 0, option))
    prctl += [(BPF_RET_K, 0, 0, EPERM), (BPF_RET_K, 0, 0, ALLOW)]
    fcntl = [(BPF_LD_W_ABS, 0, 0, seccomp_data_arg(1))]
    for command, error in FCNTL_REFUSED.values():
        fcntl += [(BPF_JEQ_K, 0, 1, command), (BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | error)]
    fcntl += [(BPF_RET_K, 0, 0, ALLOW)]
    rows = _when(numbers["clone"], clone) + _when(numbers["ioctl"], ioctl) + _when(numbers["prctl"], prctl)
    rows += _when(numbers["fcntl"], fcntl)
    # flags & MAP_ANONYMOUS, then flags & MAP_SHARED: both -> EPERM (the flags are an int: the low 32 bits)
    mmap = [(BPF_LD_W_ABS, 0, 0, seccomp_data_arg(3)), (BPF_JSET_K, 0, 2, flags.MAP_ANONYMOUS),
            (BPF_JSET_K, 0, 1, flags.MAP_SHARED), (BPF_RET_K, 0, 0, EPERM), (BPF_RET_K, 0, 0, ALLOW)]
    rows += _when(numbers["mmap"], mmap) + _when(numbers["fallocate"], fallocate)
    if policy.self_only:
        for name, required in SELF_ONLY.items():
            rows += _when(numbers[name], _arguments_are(required))
    rows += each([n for n in allowed(policy) if n not in ARGUMENTS_LOOKED_AT], lambda: [(BPF_RET_K, 0, 0, ALLOW)])
    rows += each(REFUSED + (() if policy.metadata else METADATA) + (() if policy.own_group else OWN_GROUP),
                 lambda: [(BPF_RET_K, 0, 0, EPERM)])
    return rows


def program(machine: str, policy: Policy = Policy()) -> list[Row]:
    """The filter as (code, jt, jf, k) rows: another ABI -> EPERM; then one small block per listed call, each
    ending in its answer (so every jump is short); anything unlisted -> ENOSYS."""
    head = [(BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_ARCH), (BPF_JEQ_K, 1, 0, AUDIT_ARCH[machine]), (BPF_RET_K, 0, 0, EPERM),
            (BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_NR), (BPF_JGE_K, 0, 1, X32_SYSCALL_BIT), (BPF_RET_K, 0, 0, EPERM)]
    return head + _blocks(machine, policy) + [(BPF_RET_K, 0, 0, ENOSYS)]


def install_filter(policy: Policy = Policy()) -> None:
    """Install the filter in this process (and everything it will start); raises OSError if it cannot."""
    machine = platform.machine()
    if machine not in AUDIT_ARCH:
        raise OSError(errno.ENOSYS, f"no seccomp table for {machine}: cannot install the worker's system-call filter")
    install(program(machine, policy))
