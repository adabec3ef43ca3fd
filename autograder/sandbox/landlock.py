"""Landlock: the worker's file system and its reach over other processes, where there are no namespaces.

Landlock (Linux >= 5.13) lets an unprivileged process restrict itself and everything it starts,
for good. The worker handles every file-system right its kernel knows, then grants:

* read (and execute) beneath the system directories and the Python installation, minus the
  package's hidden code where it lies inside them (``grants`` walks around it);
* read and write beneath its own scratch directory, and the character devices it needs;
* no TCP bind or connect (ABI >= 4; sockets are refused by seccomp anyway);
* no signal to, and no abstract Unix socket of, a process outside its domain (ABI >= 6): the
  grader, the keeper and other submissions' workers are all outside it.

ptrace (and every /proc file that needs it: environ, mem, fd, maps) of a process outside the
domain is refused from ABI 1 on. What Landlock does not govern (chmod, chown, utimes, xattrs;
truncate before ABI 3) the worker's seccomp Policy refuses (syscalls.py).
"""
from __future__ import annotations

import ctypes
import errno
import os
from dataclasses import dataclass

_CREATE, _ADD_RULE, _RESTRICT = 444, 445, 446  # the same numbers on x86_64 and aarch64
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2

# Rights on files and directories, by the ABI that introduced them.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = (
    1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12)
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15  # ABI 2, 3, 5
FS_RIGHTS = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2  # ABI 4
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2  # ABI 6

READ = EXECUTE | READ_FILE | READ_DIR
WRITE = READ | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO | MAKE_SYM \
    | REFER | TRUNCATE
DEVICE = READ_FILE | WRITE_FILE | IOCTL_DEV


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True)


def _syscall(nr, *args):
    result = _libc.syscall(ctypes.c_long(nr), *args)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock ({nr}): {os.strerror(err)}")
    return result


def abi_version():
    """The Landlock ABI this kernel offers (0: none, or disabled)."""
    try:
        return _syscall(_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    except OSError:
        return 0


@dataclass(frozen=True)
class Rule:
    path: str
    access: int


def grants(kept, hidden, access=READ):
    """Rules giving ``access`` beneath every ``kept`` tree except beneath the ``hidden`` paths.

    Landlock only adds rights, so a hidden directory inside a kept tree (the hidden suites in a
    site-packages, where the package is installed as a wheel) is walked around: each directory on
    the way to it gets READ_DIR alone (its names may be listed), each sibling the full ``access``.
    """
    hidden = [os.path.realpath(h) for h in hidden]
    rules, seen = [], set()

    def visit(path, inside):
        path = os.path.realpath(path)  # a rule follows links: decide on what it would really grant
        if path in seen or any(path == h or path.startswith(h + os.sep) for h in inside):
            return
        seen.add(path)
        if not any(h.startswith(path + os.sep) for h in inside):
            rules.append(Rule(path, access))
        elif os.path.isdir(path):
            rules.append(Rule(path, READ_DIR & access))
            for entry in sorted(os.listdir(path)):
                visit(os.path.join(path, entry), inside)

    for tree in kept:
        if os.path.exists(tree):
            tree = os.path.realpath(tree)
            # Only what is hidden inside a kept tree is walked around: a kept tree inside a hidden one (the
            # venv in the checkout) is kept, as asked.
            visit(tree, [h for h in hidden if h.startswith(tree + os.sep)])
    return rules


def restrict(rules, abi):
    """Restrict this process (and what it will start) to ``rules``: every right the kernel knows is handled,
    TCP is refused, signals and abstract sockets stay inside the domain. OSError if it cannot."""
    if abi < 1:
        raise OSError(errno.ENOSYS, "this kernel has no Landlock")
    if _libc.prctl(38, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")  # what an unprivileged restrict needs
    handled = FS_RIGHTS[min(abi, 5)]
    attr = _RulesetAttr(handled, (NET_BIND_TCP | NET_CONNECT_TCP) if abi >= 4 else 0,
                        (SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL) if abi >= 6 else 0)
    size = ctypes.sizeof(_RulesetAttr) if abi >= 6 else (16 if abi >= 4 else 8)
    ruleset = _syscall(_CREATE, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    try:
        for rule in rules:
            try:
                fd = os.open(rule.path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # gone since the rules were drawn up: nothing to grant
            try:
                allowed = rule.access & handled
                if not os.path.isdir(rule.path):
                    allowed &= EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # rights a file can have
                beneath = _PathBeneath(allowed, fd)
                _syscall(_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(beneath),
                         ctypes.c_uint32(0))
            finally:
                os.close(fd)
        _syscall(_RESTRICT, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
