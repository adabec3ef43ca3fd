"""Landlock (linux/landlock.h): its access rights, by the ABI that brought them, its structures and its three
system calls."""
from __future__ import annotations

import ctypes

from .libc import syscall

LANDLOCK_CREATE_RULESET_VERSION = 1  # landlock_create_ruleset's flag: answer the ABI version instead
LANDLOCK_RULE_PATH_BENEATH = 1

# Rights on files and directories: ABI 1 ...
LANDLOCK_ACCESS_FS_EXECUTE = 1 << 0
LANDLOCK_ACCESS_FS_WRITE_FILE = 1 << 1
LANDLOCK_ACCESS_FS_READ_FILE = 1 << 2
LANDLOCK_ACCESS_FS_READ_DIR = 1 << 3
LANDLOCK_ACCESS_FS_REMOVE_DIR = 1 << 4
LANDLOCK_ACCESS_FS_REMOVE_FILE = 1 << 5
LANDLOCK_ACCESS_FS_MAKE_CHAR = 1 << 6
LANDLOCK_ACCESS_FS_MAKE_DIR = 1 << 7
LANDLOCK_ACCESS_FS_MAKE_REG = 1 << 8
LANDLOCK_ACCESS_FS_MAKE_SOCK = 1 << 9
LANDLOCK_ACCESS_FS_MAKE_FIFO = 1 << 10
LANDLOCK_ACCESS_FS_MAKE_BLOCK = 1 << 11
LANDLOCK_ACCESS_FS_MAKE_SYM = 1 << 12
LANDLOCK_ACCESS_FS_REFER = 1 << 13  # ABI 2
LANDLOCK_ACCESS_FS_TRUNCATE = 1 << 14  # ABI 3
LANDLOCK_ACCESS_FS_IOCTL_DEV = 1 << 15  # ABI 5
LANDLOCK_ACCESS_NET_BIND_TCP = 1 << 0  # ABI 4
LANDLOCK_ACCESS_NET_CONNECT_TCP = 1 << 1  # ABI 4
LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
LANDLOCK_SCOPE_SIGNAL = 1 << 1  # ABI 6

# The rights a rule on a file (not a directory) may hold; the kernel refuses the others (EINVAL).
FILE_RIGHTS = (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE
               | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)
_LAST_FS_RIGHT = {1: LANDLOCK_ACCESS_FS_MAKE_SYM, 2: LANDLOCK_ACCESS_FS_REFER, 3: LANDLOCK_ACCESS_FS_TRUNCATE,
                  4: LANDLOCK_ACCESS_FS_TRUNCATE, 5: LANDLOCK_ACCESS_FS_IOCTL_DEV}  # ABI 4 added network rights


def fs_rights(abi: int) -> int:
    """Every file-system right ABI ``abi`` (>= 1) knows."""
    return (_LAST_FS_RIGHT[min(abi, max(_LAST_FS_RIGHT))] << 1) - 1


class RulesetAttr(ctypes.Structure):
    """struct landlock_ruleset_attr, whose size tells the kernel which fields the caller knows (ruleset_size)."""
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


def ruleset_size(abi: int) -> int:
    """The size of the RulesetAttr fields ABI ``abi`` knows: fs; fs and net from ABI 4; all three from ABI 6."""
    return ctypes.sizeof(RulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)


class PathBeneathAttr(ctypes.Structure):
    """struct landlock_path_beneath_attr (packed)."""
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi_version() -> int:
    """The Landlock ABI this kernel offers (0: none, or disabled)."""
    try:
        return syscall("landlock_create_ruleset", None, ctypes.c_size_t(0),
                       ctypes.c_uint32(LANDLOCK_CREATE_RULESET_VERSION))
    except OSError:
        return 0


def create_ruleset(attr: RulesetAttr, abi: int) -> int:
    """A new ruleset's file descriptor, handling what ``attr`` says (as much of it as ABI ``abi`` knows)."""
    return syscall("landlock_create_ruleset", ctypes.byref(attr), ctypes.c_size_t(ruleset_size(abi)),
                   ctypes.c_uint32(0))


def add_path_rule(ruleset: int, parent_fd: int, allowed: int) -> None:
    """Grant ``allowed`` beneath the file or directory open as ``parent_fd``."""
    beneath = PathBeneathAttr(allowed, parent_fd)
    syscall("landlock_add_rule", ctypes.c_int(ruleset), ctypes.c_int(LANDLOCK_RULE_PATH_BENEATH),
            ctypes.byref(beneath), ctypes.c_uint32(0))


def restrict_self(ruleset: int) -> None:
    """Confine this thread, and what it will start, to ``ruleset`` for good (no_new_privs must be set)."""
    syscall("landlock_restrict_self", ctypes.c_int(ruleset), ctypes.c_uint32(0))
