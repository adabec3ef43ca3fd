"""The C library, opened once, and the checked ways the sandbox calls the kernel through it.

Nothing here touches a Linux-only symbol when imported: the package is imported (never called) where grading
cannot run, to say so.
"""
from __future__ import annotations

import ctypes
import errno
import os
import signal

from .flags import CLONE_VM
from .numbers import number

# use_errno: ctypes keeps each call's errno, so ctypes.get_errno() after a failure is that call's own.
LIBC = ctypes.CDLL(None, use_errno=True)


def check(result: int, what: str) -> int:
    """``result`` of a C library call that answers -1 and sets errno when it fails: OSError with that errno."""
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    """prctl(2); every argument after the option is an unsigned long to the kernel. OSError when it fails."""
    args = [ctypes.c_ulong(arg) for arg in (arg2, arg3, arg4, arg5)]
    return check(LIBC.prctl(ctypes.c_int(option), *args), f"prctl({option}, {arg2})")


def syscall(name: str, *args: object) -> int:
    """The system call ``name`` by its number on this machine (numbers.py). Python ints go as longs (a register
    each); pass other widths and pointers as ctypes values. OSError when it fails, ENOSYS where there is no such
    call."""
    nr = number(name)
    if nr is None:
        raise OSError(errno.ENOSYS, f"{name}: no such system call on this machine")
    values = [ctypes.c_long(arg) if isinstance(arg, int) else arg for arg in args]
    return check(LIBC.syscall(ctypes.c_long(nr), *values), name)


_EXIT_STACK = ctypes.create_string_buffer(1 << 16)  # exiting_child's stack: glibc's clone trampoline, then _exit


def exiting_child() -> int:
    """A child that does nothing but exit(0), its pid: libc's clone() running _exit on a stack of its own, sharing
    the caller's memory (CLONE_VM: nothing copied, ~0.07 ms) without vfork's wait (CLONE_VFORK, as posix_spawn
    uses: the caller is held until the child execs or exits, however long a signal stops it). Reap it with waitpid.
    Only libc runs in the child; the caller may keep running meanwhile (nothing of its memory is written)."""
    top = (ctypes.addressof(_EXIT_STACK) + len(_EXIT_STACK) - 256) & ~0xF  # the stack grows down, 16-aligned
    exit_now = ctypes.cast(LIBC._exit, ctypes.c_void_p).value
    return check(int(LIBC.clone(ctypes.c_void_p(exit_now), ctypes.c_void_p(top), ctypes.c_int(CLONE_VM | signal.SIGCHLD),
                                ctypes.c_void_p(0))), "clone")
