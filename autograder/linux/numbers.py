"""System-call numbers, by name, on each architecture the sandbox knows (the kernel's unistd tables:
arch/x86/entry/syscalls/syscall_64.tbl, include/uapi/asm-generic/unistd.h for aarch64)."""
from __future__ import annotations

import platform

MACHINES = ("x86_64", "aarch64")  # platform.machine() of each column of NUMBERS

# {name: (x86_64 number, aarch64 number or None where the architecture has no such call)}
NUMBERS: dict[str, tuple[int, int | None]] = {
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
    "landlock_add_rule": (445, 445), "landlock_create_ruleset": (444, 444), "landlock_restrict_self": (446, 446),
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
    "vfork": (58, None), "vmsplice": (278, 75), "wait4": (61, 260), "waitid": (247, 95), "write": (1, 64), "writev": (20, 66),
}


def number(name: str, machine: str | None = None) -> int | None:
    """The call's number on ``machine`` (this one by default); None where it has none, or the table no column."""
    machine = machine or platform.machine()
    if machine not in MACHINES:
        return None
    return NUMBERS[name][MACHINES.index(machine)]
