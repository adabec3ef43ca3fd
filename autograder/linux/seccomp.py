"""seccomp filters: the classic BPF the kernel runs on each system call's struct seccomp_data, what a filter
answers, and the prctl calls that install one (linux/seccomp.h, linux/filter.h, linux/audit.h)."""
from __future__ import annotations

import ctypes
from collections.abc import Sequence

from .flags import PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP
from .libc import prctl

SECCOMP_MODE_FILTER = 2
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000  # | an errno: the call fails with it, unmade

# struct seccomp_data's arch for each machine of numbers.MACHINES (AUDIT_ARCH_X86_64, AUDIT_ARCH_AARCH64)
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000  # set in the number of a call through x86_64's x32 ABI

# The classic BPF instructions a filter needs (BPF_LD | BPF_W | BPF_ABS, BPF_JMP | BPF_JEQ | BPF_K, ...)
BPF_LD_W_ABS = 0x20  # load the 32-bit word of seccomp_data at offset k
BPF_JEQ_K = 0x15
BPF_JGE_K = 0x35
BPF_JSET_K = 0x45  # jump if the word & k
BPF_RET_K = 0x06  # answer k

# struct seccomp_data: int nr, __u32 arch, __u64 instruction_pointer, __u64 args[6]
SECCOMP_DATA_NR = 0
SECCOMP_DATA_ARCH = 4
SECCOMP_DATA_ARGS = 16

Row = tuple[int, int, int, int]  # one instruction: (code, jt, jf, k)


def seccomp_data_arg(index: int, high: bool = False) -> int:
    """Where argument ``index``'s low (or ``high``) 32 bits are: both machines are little-endian."""
    return SECCOMP_DATA_ARGS + 8 * index + (4 if high else 0)


class SockFilter(ctypes.Structure):
    """struct sock_filter: one instruction."""
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class SockFprog(ctypes.Structure):
    """struct sock_fprog: the program prctl(PR_SET_SECCOMP) reads."""
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def install(rows: Sequence[Row], no_new_privs: bool = True) -> None:
    """Install ``rows`` as a filter on this thread and everything it will start; OSError if the kernel refuses.

    ``no_new_privs`` first: what lets a process without CAP_SYS_ADMIN install a filter, and no setuid program
    can undo it."""
    instructions = (SockFilter * len(rows))(*[SockFilter(*row) for row in rows])
    program = SockFprog(len(rows), instructions)
    if no_new_privs:
        prctl(PR_SET_NO_NEW_PRIVS, 1)
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(program))
