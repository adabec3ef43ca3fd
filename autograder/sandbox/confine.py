"""The primitives confinement steps are made of (steps.py): namespaces, the worker's own root, limits.

build_filesystem gives a worker in a mount namespace of its own (modes namespaces and user
namespace) a root of its own: pivot_root onto a tmpfs holding the system directories and the
Python installation read-only, fresh /proc, /dev and private tmpfs scratch space; hidden code
inside a kept tree is covered by an empty tmpfs.
"""
from __future__ import annotations

import os
import resource
import stat
from collections.abc import Container
from typing import TYPE_CHECKING

from ..linux.flags import (MNT_DETACH, MS_BIND, MS_NOATIME, MS_NODEV, MS_NODIRATIME, MS_NOEXEC, MS_NOSUID, MS_PRIVATE,
                           MS_REC, MS_RELATIME, MS_RDONLY, MS_REMOUNT, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS)
from ..linux.libc import LIBC, check, prctl, syscall

if TYPE_CHECKING:
    from .config import WorkerConfig


def unshare(flags: int) -> None:
    check(LIBC.unshare(flags), "unshare")


def mount(source: str, target: str, fstype: str | None, flags: int = 0, data: str | None = None) -> None:
    check(LIBC.mount(source.encode(), str(target).encode(), fstype.encode() if fstype else None, flags,
                     data.encode() if data else None), f"mount {target}")


def name_host() -> None:
    """In the worker's own UTS namespace: the host's name is not its business."""
    check(LIBC.sethostname(b"sandbox", 7), "sethostname")


# What a worker's root holds, besides the kept Python installation and venv: the system itself,
# read-only. Everything else on the machine (/work, /home, /root, /opt, /autograder, /run, /var,
# any other checkout of this package) simply is not in its mount namespace.
SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc")
SYSTEM_PATHS = tuple("/" + name for name in SYSTEM_DIRS)
DEVICES = {"null": (1, 3), "zero": (1, 5), "full": (1, 7), "random": (1, 8), "urandom": (1, 9), "tty": (5, 0)}
# Opened for writing and mapped MAP_SHARED, /dev/zero is shared anonymous memory, which the system-call filter refuses
# (syscalls.py: MMAP_SHARED_ANONYMOUS): the worker may only read it. Reading a shared mapping of it allocates nothing.
READ_ONLY_DEVICES = ("zero",)
NEW_ROOT = "/tmp"  # where the new root is assembled (a fresh tmpfs, in the worker's mount namespace only)


def pivot_root(new_root: str, put_old: str) -> None:
    syscall("pivot_root", new_root.encode(), put_old.encode())


# statvfs flags of a mount -> the mount flags a remount must keep (in a user namespace the host's are locked)
_KEPT_FLAGS = {os.ST_NOEXEC: MS_NOEXEC, os.ST_NOATIME: MS_NOATIME, os.ST_NODIRATIME: MS_NODIRATIME,
               os.ST_RELATIME: MS_RELATIME}


def _bind_read_only(source: str, target: str) -> None:
    mount(source, target, None, MS_BIND)
    kept = 0
    flags = os.statvfs(target).f_flag
    for st, ms in _KEPT_FLAGS.items():
        if flags & st:
            kept |= ms
    mount("none", target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | kept)


def build_filesystem(config: WorkerConfig, uid: int) -> str:
    """In the worker (PID 1 of its namespace, still root): a root of its own, then pivot_root into it.

    The new root is a fresh tmpfs holding read-only binds of the system directories and
    of ``keep`` (the Python installation and the venv, at their own paths), fresh /proc,
    /sys and /dev, and private tmpfs mounts for /tmp, /var/tmp and /dev/shm; the old root
    is then detached, so /proc/self/mountinfo lists these mounts and nothing of the host.
    Everything is opened (O_PATH) before the first mount, since a kept directory may
    live under /tmp, which the new root covers. ``hide`` entries that fall inside a
    visible tree are covered by an empty tmpfs.
    """
    mount("none", "/", None, MS_REC | MS_PRIVATE)
    links, binds = [], []
    for name in SYSTEM_DIRS:
        path = "/" + name
        if os.path.islink(path):
            links.append((path, os.readlink(path)))
        elif os.path.isdir(path):
            binds.append((path, os.open(path, os.O_PATH | os.O_DIRECTORY)))
    binds += [(keep, os.open(keep, os.O_PATH | os.O_DIRECTORY)) for keep in config.keep]
    has_mqueue = os.path.isdir("/dev/mqueue")

    new = NEW_ROOT
    # nr_inodes: an empty file takes no block, so size= alone let 4.2 million of them pin 4.1 GiB of inodes and
    # dentries that no statvfs block count shows (red team of issue 27); as many as a scratch folder may hold.
    disk = f"size={config.disk_mib}m,nr_inodes={config.scratch_entries},mode=1777"
    mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    for path in ("/tmp", "/var/tmp", "/proc", "/sys", "/dev", "/old_root"):
        os.makedirs(new + path, mode=0o755)
    mount("tmpfs", new + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, disk)
    mount("tmpfs", new + "/var/tmp", "tmpfs", MS_NOSUID | MS_NODEV, disk)
    for path, target in links:
        os.symlink(target, new + path)
    for path, fd in binds:
        os.makedirs(new + path, mode=0o755, exist_ok=True)
        _bind_read_only(f"/proc/self/fd/{fd}", new + path)
        os.close(fd)
    for path in config.hidden:  # inside a visible tree (an ancestor of a kept directory holds nothing else)
        if any(os.path.commonpath([path, keep]) == path for keep in config.keep):
            continue
        if os.path.isdir(new + path) and not os.path.islink(new + path):
            mount("tmpfs", new + path, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "size=64k,mode=0755")
    _build_dev(new + "/dev", disk, has_mqueue)
    mount("proc", new + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    # Its sysctls read-only, as a container's are: root of its own user namespace, the worker could set its PID
    # namespace's pid_max (kernel 6.14 on), and so wrap the pids by which the watchdog counts its starts.
    _bind_read_only(new + "/proc/sys", new + "/proc/sys")
    try:  # CPU topology for os.cpu_count() and friends; this network namespace's devices only
        mount("sysfs", new + "/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError:
        pass

    os.chdir(new)
    pivot_root(".", "old_root")
    os.chdir("/")
    check(LIBC.umount2(b"/old_root", MNT_DETACH), "umount /old_root")
    os.rmdir("/old_root")
    mount("none", "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    work = "/tmp/work"
    os.makedirs(work, mode=0o700)
    os.chown(work, uid, uid)
    return work


def _build_dev(dev: str, disk: str, has_mqueue: bool) -> None:
    """A minimal /dev: the harmless character devices, the usual links, a private /dev/shm."""
    mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755")
    for name, (major, minor) in DEVICES.items():
        mode = 0o444 if name in READ_ONLY_DEVICES else 0o666
        try:
            os.mknod(f"{dev}/{name}", stat.S_IFCHR | mode, os.makedev(major, minor))
            os.chmod(f"{dev}/{name}", mode)
        except OSError:  # no CAP_MKNOD (some containers): bind the host's node instead
            if name in READ_ONLY_DEVICES:  # the host's node is writable by all, and a bind keeps its mode: none
                continue
            if os.path.exists(f"/dev/{name}"):
                open(f"{dev}/{name}", "w").close()
                mount(f"/dev/{name}", f"{dev}/{name}", None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{dev}/{name}")
    os.mkdir(f"{dev}/shm")
    mount("tmpfs", f"{dev}/shm", "tmpfs", MS_NOSUID | MS_NODEV, disk)
    if has_mqueue:
        os.mkdir(f"{dev}/mqueue")
        mount("tmpfs", f"{dev}/mqueue", "tmpfs", MS_NOSUID | MS_NODEV, disk)
    mount("none", dev, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC)


def drop_privileges(uid: int, dumpable: bool = False) -> None:
    """Become ``uid`` for good. Not ``dumpable``: no process of another uid without CAP_SYS_PTRACE reads its /proc
    files; dumpable: its keeper, reading them as this uid (read_as), can (the watchdog's only eyes in a container,
    where root has no CAP_SYS_PTRACE)."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    # Changing uid leaves a process not dumpable (fs.suid_dumpable): say which, either way.
    prctl(PR_SET_DUMPABLE, 1 if dumpable else 0)


def read_as(uid: int) -> None:
    """File access (and /proc's ptrace checks) as ``uid`` from now on, for this process: setfsuid/setfsgid."""
    LIBC.setfsgid(uid)
    LIBC.setfsuid(uid)
    if LIBC.setfsuid(-1) != uid:  # setfsuid answers with the previous value: -1 changes nothing and tells
        raise OSError(f"setfsuid({uid}) did not take")


def set_limits(config: WorkerConfig, per_uid: bool) -> None:
    """``per_uid``: the worker's uid (or user namespace) is its own, so RLIMIT_NPROC counts its tree alone;
    else it counts every task of the grader's uid too, and the tree may add ``processes`` to what it finds."""
    mib = 1 << 20
    processes = config.processes if per_uid else config.processes + _tasks_of(os.getuid())
    limits = {resource.RLIMIT_AS: config.memory_mib * mib, resource.RLIMIT_FSIZE: config.file_mib * mib,
              resource.RLIMIT_CORE: 0, resource.RLIMIT_NOFILE: 512, resource.RLIMIT_NPROC: processes}
    for which, value in limits.items():
        soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)  # never above what we were given
        resource.setrlimit(which, (value, value))


def _tasks_of(uid: int) -> int:
    """Tasks (processes and threads, as RLIMIT_NPROC counts them) whose real uid is ``uid``."""
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry}/task"))
            except OSError:
                pass
    return count


def close_other_fds(keep: Container[int]) -> None:
    for fd in sorted(int(f) for f in os.listdir("/proc/self/fd")):
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
