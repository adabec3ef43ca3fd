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

import errno
import os
from collections.abc import Iterable
from dataclasses import dataclass

from ..linux import landlock as kernel
from ..linux.flags import PR_SET_NO_NEW_PRIVS

from ..linux.landlock import (LANDLOCK_ACCESS_FS_EXECUTE, LANDLOCK_ACCESS_FS_IOCTL_DEV, LANDLOCK_ACCESS_FS_MAKE_DIR,
                              LANDLOCK_ACCESS_FS_MAKE_FIFO, LANDLOCK_ACCESS_FS_MAKE_REG, LANDLOCK_ACCESS_FS_MAKE_SOCK,
                              LANDLOCK_ACCESS_FS_MAKE_SYM, LANDLOCK_ACCESS_FS_READ_DIR,
                              LANDLOCK_ACCESS_FS_READ_FILE as LANDLOCK_ACCESS_FS_READ_FILE,  # re-exported: steps.py
                              LANDLOCK_ACCESS_FS_REFER, LANDLOCK_ACCESS_FS_REMOVE_DIR,
                              LANDLOCK_ACCESS_FS_REMOVE_FILE, LANDLOCK_ACCESS_FS_TRUNCATE,
                              LANDLOCK_ACCESS_FS_WRITE_FILE, LANDLOCK_ACCESS_NET_BIND_TCP,
                              LANDLOCK_ACCESS_NET_CONNECT_TCP, LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET,
                              LANDLOCK_SCOPE_SIGNAL)
from ..linux.libc import prctl

# What the sandbox grants: reading (and running), writing a work directory, using a device.
READ = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR
WRITE = (READ | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE
         | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK
         | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM | LANDLOCK_ACCESS_FS_REFER
         | LANDLOCK_ACCESS_FS_TRUNCATE)
DEVICE = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_IOCTL_DEV


@dataclass(frozen=True)
class Rule:
    path: str
    access: int


def grants(kept: Iterable[str], hidden: Iterable[str], access: int = READ) -> list[Rule]:
    """Rules giving ``access`` beneath every ``kept`` tree except beneath the ``hidden`` paths.

    Landlock only adds rights, so a hidden directory inside a kept tree (the hidden suites in a
    site-packages, where the package is installed as a wheel) is walked around: each directory on
    the way to it gets READ_DIR alone (its names may be listed), each sibling the full ``access``.
    """
    hidden = [os.path.realpath(h) for h in hidden]
    rules, seen = list[Rule](), set[str]()

    def visit(path: str, inside: list[str]) -> None:
        path = os.path.realpath(path)  # a rule follows links: decide on what it would really grant
        if path in seen or any(path == h or path.startswith(h + os.sep) for h in inside):
            return
        seen.add(path)
        if not any(h.startswith(path + os.sep) for h in inside):
            rules.append(Rule(path, access))
        elif os.path.isdir(path):
            rules.append(Rule(path, LANDLOCK_ACCESS_FS_READ_DIR & access))
            for entry in sorted(os.listdir(path)):
                visit(os.path.join(path, entry), inside)

    for tree in kept:
        if os.path.exists(tree):
            tree = os.path.realpath(tree)
            # Only what is hidden inside a kept tree is walked around: a kept tree inside a hidden one (the
            # venv in the checkout) is kept, as asked.
            visit(tree, [h for h in hidden if h.startswith(tree + os.sep)])
    return rules


def restrict(rules: Iterable[Rule], abi: int) -> None:
    """Restrict this process (and what it will start) to ``rules``: every right the kernel knows is handled,
    TCP is refused, signals and abstract sockets stay inside the domain. OSError if it cannot."""
    if abi < 1:
        raise OSError(errno.ENOSYS, "this kernel has no Landlock")
    prctl(PR_SET_NO_NEW_PRIVS, 1)  # what an unprivileged restrict needs
    handled = kernel.fs_rights(abi)
    attr = kernel.RulesetAttr(handled,
                              (LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP) if abi >= 4 else 0,
                              (LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL) if abi >= 6 else 0)
    ruleset = kernel.create_ruleset(attr, abi)
    try:
        for rule in rules:
            try:
                fd = os.open(rule.path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # gone since the rules were drawn up: nothing to grant
            try:
                allowed = rule.access & handled
                if not os.path.isdir(rule.path):
                    allowed &= kernel.FILE_RIGHTS
                kernel.add_path_rule(ruleset, fd, allowed)
            finally:
                os.close(fd)
        kernel.restrict_self(ruleset)
    finally:
        os.close(ruleset)
