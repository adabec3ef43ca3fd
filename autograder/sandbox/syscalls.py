"""The system calls a worker may make: an allow-list, installed as a seccomp filter before the first cell runs.

Every call a notebook, Python, PyTorch and NumPy need is listed in ALLOWED, by what it is for;
anything else answers ENOSYS, as on a kernel without it, so a library that tries something new
falls back instead of crashing. A few calls are answered EPERM, as an unprivileged user's would be:

* REFUSED: the key calls (keyrings are shared by uid and uids come back: a note for a later
  submission, or a poisoned keyring that made the next worker fail to start, red team round 3);
  new namespaces, mounts and sockets (round 6: a tmpfs of the worker's own, and 6 GiB queued in
  socket buffers, where no control group can be made; the worker's one socket to the grader is
  inherited); ptrace and the cross-process memory calls; capset;
* clone with a CLONE_NEW* flag (clone3, whose flags a filter cannot read, answers ENOSYS and
  glibc falls back to clone); fscrypt's key ioctls (they add keys too); every prctl option but a few
  (PRCTL_ALLOWED: PR_SET_DUMPABLE blinded the watchdog); fcntl's record locks, leases and directory
  notifications (FCNTL_REFUSED: kernel memory nothing counts);
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

NUMBERS is the one table of system-call numbers (from the kernel's unistd tables).
"""
import ctypes
import errno
import platform
from dataclasses import dataclass

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
X32_SYSCALL_BIT = 0x40000000
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
MACHINES = tuple(AUDIT_ARCH)

# {name: (x86_64 number, aarch64 number or None where the architecture has no such call)}
NUMBERS = {
    "accept": (43, 202), "accept4": (288, 242), "access": (21, None), "add_key": (248, 217), "alarm": (37, None),
    "arch_prctl": (158, None), "bind": (49, 200), "bpf": (321, 280), "brk": (12, 214), "capget": (125, 90),
    "capset": (126, 91), "chdir": (80, 49), "chmod": (90, None), "chown": (92, None), "clock_getres": (229, 114),
    "clock_gettime": (228, 113), "clock_nanosleep": (230, 115), "clone": (56, 220), "clone3": (435, 435),
    "close": (3, 57), "close_range": (436, 436), "connect": (42, 203), "copy_file_range": (326, 285),
    "dup": (32, 23), "dup2": (33, None), "dup3": (292, 24), "epoll_create": (213, None), "epoll_create1": (291, 20),
    "epoll_ctl": (233, 21), "epoll_pwait": (281, 22), "epoll_pwait2": (441, 441), "epoll_wait": (232, None),
    "eventfd": (284, None), "eventfd2": (290, 19), "execve": (59, 221), "execveat": (322, 281), "exit": (60, 93),
    "exit_group": (231, 94), "faccessat": (269, 48), "faccessat2": (439, 439), "fadvise64": (221, 223),
    "fallocate": (285, 47), "fchdir": (81, 50), "fchmod": (91, 52), "fchmodat": (268, 53), "fchown": (93, 55),
    "fchownat": (260, 54), "fcntl": (72, 25), "fdatasync": (75, 83), "fgetxattr": (193, 10), "flistxattr": (196, 13),
    "flock": (73, 32), "fork": (57, None), "fremovexattr": (199, 16), "fsconfig": (431, 431), "fsetxattr": (190, 7),
    "fsmount": (432, 432), "fsopen": (430, 430), "fspick": (433, 433), "fstat": (5, 80), "fstatfs": (138, 44),
    "fsync": (74, 82), "ftruncate": (77, 46), "futex": (202, 98), "futex_waitv": (449, 449),
    "futimesat": (261, None), "get_mempolicy": (239, 236), "get_robust_list": (274, 100), "getcpu": (309, 168),
    "getcwd": (79, 17), "getdents": (78, None), "getdents64": (217, 61), "getegid": (108, 177),
    "geteuid": (107, 175), "getgid": (104, 176), "getgroups": (115, 158), "getitimer": (36, 102),
    "getpeername": (52, 205), "getpgid": (121, 155), "getpgrp": (111, None), "getpid": (39, 172),
    "getppid": (110, 173), "getpriority": (140, 141), "getrandom": (318, 278), "getresgid": (120, 150),
    "getresuid": (118, 148), "getrlimit": (97, 163), "getrusage": (98, 165), "getsid": (124, 156),
    "getsockname": (51, 204), "getsockopt": (55, 209), "gettid": (186, 178), "gettimeofday": (96, 169),
    "getuid": (102, 174), "getxattr": (191, 8), "inotify_add_watch": (254, 27), "inotify_init": (253, None), "inotify_init1": (294, 26),
    "inotify_rm_watch": (255, 28), "io_uring_setup": (425, 425), "ioctl": (16, 29), "ioprio_get": (252, 31),
    "ioprio_set": (251, 30), "kcmp": (312, 272), "keyctl": (250, 219), "kill": (62, 129), "lchown": (94, None),
    "lgetxattr": (192, 9), "link": (86, None), "linkat": (265, 37), "listen": (50, 201), "listxattr": (194, 11),
    "llistxattr": (195, 12), "lremovexattr": (198, 15), "lseek": (8, 62), "lsetxattr": (189, 6), "lstat": (6, None),
    "madvise": (28, 233), "mbind": (237, 235), "membarrier": (324, 283), "memfd_create": (319, 279),
    "mincore": (27, 232), "mkdir": (83, None), "mkdirat": (258, 34), "mknodat": (259, 33), "mlock": (149, 228),
    "mlock2": (325, 284), "mlockall": (151, 230), "mmap": (9, 222), "mount": (165, 40), "mount_setattr": (442, 442),
    "move_mount": (429, 429), "mprotect": (10, 226), "mq_open": (240, 180), "mremap": (25, 216), "msgget": (68, 186),
    "msync": (26, 227), "munlock": (150, 229), "munlockall": (152, 231), "munmap": (11, 215), "nanosleep": (35, 101),
    "newfstatat": (262, 79), "open": (2, None), "open_tree": (428, 428), "openat": (257, 56), "openat2": (437, 437),
    "pause": (34, None), "perf_event_open": (298, 241), "personality": (135, 92), "pidfd_getfd": (438, 438),
    "pidfd_open": (434, 434), "pidfd_send_signal": (424, 424), "pipe": (22, None), "pipe2": (293, 59),
    "pivot_root": (155, 41), "pkey_alloc": (330, 289), "pkey_free": (331, 290), "pkey_mprotect": (329, 288),
    "poll": (7, None), "ppoll": (271, 73), "prctl": (157, 167), "pread64": (17, 67), "preadv": (295, 69),
    "preadv2": (327, 286), "prlimit64": (302, 261), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "pselect6": (270, 72), "ptrace": (101, 117), "pwrite64": (18, 68), "pwritev": (296, 70), "pwritev2": (328, 287),
    "read": (0, 63), "readahead": (187, 213), "readlink": (89, None), "readlinkat": (267, 78), "readv": (19, 65),
    "recvfrom": (45, 207), "recvmmsg": (299, 243), "recvmsg": (47, 212), "removexattr": (197, 14),
    "rename": (82, None), "renameat": (264, 38), "renameat2": (316, 276), "request_key": (249, 218),
    "rmdir": (84, None), "rseq": (334, 293), "rt_sigaction": (13, 134), "rt_sigpending": (127, 136),
    "rt_sigprocmask": (14, 135), "rt_sigqueueinfo": (129, 138), "rt_sigreturn": (15, 139),
    "rt_sigsuspend": (130, 133), "rt_sigtimedwait": (128, 137), "rt_tgsigqueueinfo": (297, 240),
    "sched_get_priority_max": (146, 125), "sched_get_priority_min": (147, 126), "sched_getaffinity": (204, 123),
    "sched_getattr": (315, 275), "sched_getparam": (143, 121), "sched_getscheduler": (145, 120),
    "sched_rr_get_interval": (148, 127), "sched_setaffinity": (203, 122), "sched_setattr": (314, 274),
    "sched_setparam": (142, 118), "sched_setscheduler": (144, 119), "sched_yield": (24, 124), "select": (23, None),
    "semget": (64, 190), "sendfile": (40, 71), "sendmmsg": (307, 269), "sendmsg": (46, 211), "sendto": (44, 206),
    "set_mempolicy": (238, 237), "set_robust_list": (273, 99), "set_tid_address": (218, 96), "setitimer": (38, 103),
    "setns": (308, 268), "setpgid": (109, 154), "setpriority": (141, 140), "setsid": (112, 157),
    "setsockopt": (54, 208), "setxattr": (188, 5), "shmget": (29, 194), "shutdown": (48, 210),
    "sigaltstack": (131, 132), "signalfd": (282, None), "signalfd4": (289, 74), "socket": (41, 198),
    "socketpair": (53, 199), "splice": (275, 76), "stat": (4, None), "statfs": (137, 43), "statx": (332, 291),
    "symlink": (88, None), "symlinkat": (266, 36), "sync_file_range": (277, 84), "sysinfo": (99, 179),
    "tee": (276, 77), "tgkill": (234, 131), "time": (201, None), "timer_create": (222, 107),
    "timer_delete": (226, 111), "timer_getoverrun": (225, 109), "timer_gettime": (224, 108),
    "timer_settime": (223, 110), "timerfd_create": (283, 85), "timerfd_gettime": (287, 87),
    "timerfd_settime": (286, 86), "times": (100, 153), "tkill": (200, 130), "truncate": (76, 45), "umask": (95, 166),
    "umount2": (166, 39), "uname": (63, 160), "unlink": (87, None), "unlinkat": (263, 35), "unshare": (272, 97),
    "userfaultfd": (323, 282), "utime": (132, None), "utimensat": (280, 88), "utimes": (235, None),
    "vfork": (58, None), "wait4": (61, 260), "waitid": (247, 95), "write": (1, 64), "writev": (20, 66),
}

# What a worker may call, by what it is for.
ALLOWED = {
    "files": """read write readv writev pread64 pwrite64 preadv pwritev preadv2 pwritev2 open openat openat2 close
        close_range lseek stat fstat lstat newfstatat statx statfs fstatfs access faccessat faccessat2 getdents
        getdents64 readlink readlinkat getcwd chdir fchdir mkdir mkdirat rmdir unlink unlinkat rename renameat
        renameat2 link linkat symlink symlinkat mknodat ftruncate fsync fdatasync sync_file_range fallocate flock
        fcntl dup dup2 dup3 pipe pipe2 umask sendfile copy_file_range splice tee ioctl fadvise64 readahead
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
               "epoll_create", "epoll_create1")
# epoll instances: a watch is kernel memory per (instance, fd) pair, bounded only by the per-uid
# fs.epoll.max_user_watches (5.5 M here, ~1 GiB of slab, shared with the grader where the worker has its uid); no
# notebook needs one (poll and select remain, and Python's subprocess and multiprocessing use them). Without an
# instance, epoll_ctl and epoll_wait have nothing to act on.
# prctl, by its option (an int: the kernel reads the low 32 bits of the register alone, so the filter does too).
# Allowed: reading what a process is (name, dumpability, seccomp, no_new_privs, the bounding set) and what a
# library does to itself (a thread's name, a parent-death signal). Everything else is refused with EPERM, first
# PR_SET_DUMPABLE (4): a process not dumpable hides its memory and files from a keeper without CAP_SYS_PTRACE
# (issue 27: a 6 GiB tree counted as 0), and PR_SET_VMA (0x53564D41), whose names of anonymous mappings are
# kernel memory (glibc ignores the refusal). Honest grades make no prctl call at all once the filter is in.
PRCTL_ALLOWED = {"PR_SET_PDEATHSIG": 1, "PR_GET_PDEATHSIG": 2, "PR_GET_DUMPABLE": 3, "PR_SET_NAME": 15,
                 "PR_GET_NAME": 16, "PR_GET_SECCOMP": 21, "PR_CAPBSET_READ": 23, "PR_GET_NO_NEW_PRIVS": 39}
# fcntl, by its command (an unsigned int, the low 32 bits too): a byte-range lock is a struct in the kernel per
# range, and a process may hold one every other byte of every file it can open (issue 27: 96 children pinned
# 5 GiB of unreclaimable slab, counted by no PSS and no per-user limit); a lease and a directory notification are
# the same kind of state on files the grader shares. Locks answer ENOLCK ("no locks available", as on a file
# system without them; SQLite then reports it cannot lock), the other two EPERM. flock(2) stays: one lock per
# open file, bounded by RLIMIT_NOFILE times the process cap.
FCNTL_REFUSED = {"F_SETLK": (6, errno.ENOLCK), "F_SETLKW": (7, errno.ENOLCK), "F_OFD_SETLK": (37, errno.ENOLCK),
                 "F_OFD_SETLKW": (38, errno.ENOLCK), "F_SETLEASE": (1024, errno.EPERM),
                 "F_NOTIFY": (1026, errno.EPERM)}
# clone's flags (its first argument) that make a namespace: NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET.
CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
# fscrypt's ioctls put keys into a filesystem's keyring, charged to the caller's uid (red team, round 4):
# _IOWR('f', 23..25, ...) from linux/fscrypt.h.
KEY_IOCTLS = {"FS_IOC_ADD_ENCRYPTION_KEY": 0xC0506617, "FS_IOC_REMOVE_ENCRYPTION_KEY": 0xC0406618,
              "FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS": 0xC0406619}


ARGUMENTS_LOOKED_AT = ("clone", "ioctl", "prctl", "fcntl")  # allowed, with a look at one argument (_blocks)


@dataclass(frozen=True)
class Policy:
    """What a confinement mode adds to the allow-list (confinement.py chooses)."""
    metadata: bool = True  # chmod, chown, utimes, xattr changes
    truncate_by_path: bool = True
    self_only: bool = False  # SELF_ONLY calls on the caller only (else on any process the uid reaches)
    own_group: bool = True  # setsid, setpgid (else refused: the tree stays in the worker's process group)


def allowed(policy):
    names = [name for group in ALLOWED.values() for name in group.split()]
    names += list(METADATA) if policy.metadata else []
    names += list(TRUNCATE_BY_PATH) if policy.truncate_by_path else []
    names += [] if policy.self_only else list(SELF_ONLY)
    names += list(OWN_GROUP) if policy.own_group else []
    return names


_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06  # classic BPF opcodes
_NR_OFFSET, _ARCH_OFFSET = 0, 4  # struct seccomp_data: nr, arch, then args[6] from 16 (8 bytes each)
ALLOW, EPERM, ENOSYS = SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | errno.EPERM, SECCOMP_RET_ERRNO | errno.ENOSYS


def _arg(n, high=False):
    return 16 + 8 * n + (4 if high else 0)  # little-endian: the low 32 bits first


def _when(nr, block):
    """If the call is ``nr``, run ``block`` (which ends in a return); else go on after it."""
    return [(_JEQ_K, 0, len(block), nr)] + block


def _arguments_are(required):
    """A block: ALLOW when every argument {index: value} has that value (all 64 bits), else EPERM."""
    checks = []
    for index, value in required.items():
        checks += [(_LD_W_ABS, 0, 0, _arg(index)), (_JEQ_K, 0, "deny", value & 0xFFFFFFFF),
                   (_LD_W_ABS, 0, 0, _arg(index, True)), (_JEQ_K, 0, "deny", value >> 32)]
    checks += [(_RET_K, 0, 0, ALLOW)]
    deny = len(checks)
    block = [(code, jt, deny - i - 1 if jf == "deny" else jf, k) for i, (code, jt, jf, k) in enumerate(checks)]
    return block + [(_RET_K, 0, 0, EPERM)]


def _blocks(machine, policy):
    numbers = {name: pair[MACHINES.index(machine)] for name, pair in NUMBERS.items()}

    def each(names, block):
        return [row for name in names if numbers[name] is not None for row in _when(numbers[name], block())]

    clone = [(_LD_W_ABS, 0, 0, _arg(0)), (_JSET_K, 0, 1, CLONE_NEW_FLAGS), (_RET_K, 0, 0, EPERM),
             (_RET_K, 0, 0, ALLOW)]
    ioctl = [(_LD_W_ABS, 0, 0, _arg(1))]
    for i, cmd in enumerate(KEY_IOCTLS.values()):
        ioctl.append((_JEQ_K, len(KEY_IOCTLS) - i, 0, cmd))
    ioctl += [(_RET_K, 0, 0, ALLOW), (_RET_K, 0, 0, EPERM)]
    prctl = [(_LD_W_ABS, 0, 0, _arg(0))]
    for i, option in enumerate(PRCTL_ALLOWED.values()):
        prctl.append((_JEQ_K, len(PRCTL_ALLOWED) - i, 0, option))
    prctl += [(_RET_K, 0, 0, EPERM), (_RET_K, 0, 0, ALLOW)]
    fcntl = [(_LD_W_ABS, 0, 0, _arg(1))]
    for command, error in FCNTL_REFUSED.values():
        fcntl += [(_JEQ_K, 0, 1, command), (_RET_K, 0, 0, SECCOMP_RET_ERRNO | error)]
    fcntl += [(_RET_K, 0, 0, ALLOW)]
    rows = _when(numbers["clone"], clone) + _when(numbers["ioctl"], ioctl) + _when(numbers["prctl"], prctl)
    rows += _when(numbers["fcntl"], fcntl)
    if policy.self_only:
        for name, required in SELF_ONLY.items():
            rows += _when(numbers[name], _arguments_are(required))
    rows += each([n for n in allowed(policy) if n not in ARGUMENTS_LOOKED_AT], lambda: [(_RET_K, 0, 0, ALLOW)])
    rows += each(REFUSED + (() if policy.metadata else METADATA) + (() if policy.own_group else OWN_GROUP),
                 lambda: [(_RET_K, 0, 0, EPERM)])
    return rows


def program(machine, policy=Policy()):
    """The filter as (code, jt, jf, k) rows: another ABI -> EPERM; then one small block per listed call, each
    ending in its answer (so every jump is short); anything unlisted -> ENOSYS."""
    head = [(_LD_W_ABS, 0, 0, _ARCH_OFFSET), (_JEQ_K, 1, 0, AUDIT_ARCH[machine]), (_RET_K, 0, 0, EPERM),
            (_LD_W_ABS, 0, 0, _NR_OFFSET), (_JGE_K, 0, 1, X32_SYSCALL_BIT), (_RET_K, 0, 0, EPERM)]
    return head + _blocks(machine, policy) + [(_RET_K, 0, 0, ENOSYS)]


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def install_filter(policy=Policy()):
    """Install the filter in this process (and everything it will start); raises OSError if it cannot."""
    machine = platform.machine()
    if machine not in AUDIT_ARCH:
        raise OSError(errno.ENOSYS, f"no seccomp table for {machine}: cannot install the worker's system-call filter")
    rows = program(machine, policy)
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


def number(name, machine=None):
    """The system call's number on this machine (None where it has none)."""
    return NUMBERS[name][MACHINES.index(machine or platform.machine())]
