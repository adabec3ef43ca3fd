"""Confine a freshly forked worker before any student code runs.

As root (Gradescope, CI) the worker gets its own PID, mount and network namespaces, an
unprivileged uid, fresh tmpfs for /tmp and its work directory, and the grader's files
hidden behind empty mounts. Without root only the rlimits, a new session and a private
work directory apply (the README says what that does not protect).
"""
import ctypes
import os
import resource

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWIPC = 0x00020000, 0x40000000, 0x20000000, 0x08000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS, PR_SET_DUMPABLE = 38, 4
_libc = ctypes.CDLL(None, use_errno=True)


def _check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags):
    _check(_libc.unshare(flags), "unshare")


def mount(source, target, fstype, flags=0, data=None):
    _check(_libc.mount(source.encode(), str(target).encode(), fstype.encode() if fstype else None, flags,
                       data.encode() if data else None), f"mount {target}")


def can_isolate():
    return os.geteuid() == 0 and not os.environ.get("AUTOGRADER_NO_NAMESPACES")


def enter_namespaces():
    """In the intermediate child: new PID/mount/net/IPC namespaces for the worker it forks next."""
    unshare(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC)


# Top-level directories a worker may see: the system itself. Everything else (/work, /home,
# /opt, /srv, /mnt, /run, /var, /root, /autograder, ...) is covered, because another
# checkout of this package (a developer's, a CI clone's) may sit anywhere on the machine.
SYSTEM_DIRS = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "dev", "proc", "sys", "tmp"}


def outside_system_dirs():
    return [os.path.join("/", name) for name in sorted(os.listdir("/")) if name not in SYSTEM_DIRS]


def build_filesystem(config):
    """In the worker (PID 1 of its namespace, still root): hide the grader, give it a private tmpfs.

    ``hide``: directories covered by an empty tmpfs (the grader's checkout with its hidden
    suites and reference, results, other submissions, /root). ``keep``: directories under
    them the worker still needs read-only (the Python installation and the venv). They are
    held open (O_PATH) before anything covers them — they may well live under /tmp or
    under a hidden checkout — then bound back in place through /proc/self/fd.
    """
    mount("none", "/", None, MS_REC | MS_PRIVATE)
    held = [(keep, os.open(keep, os.O_PATH | os.O_DIRECTORY)) for keep in config["keep"]]
    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, f"size={config['disk_mib']}m,mode=1777")
    for path in [*config["hide"], *outside_system_dirs()]:
        if os.path.isdir(path) and not os.path.islink(path):
            mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755")
    for keep, fd in held:
        if not os.path.isdir(keep):
            os.makedirs(keep)
            mount(f"/proc/self/fd/{fd}", keep, None, MS_BIND | MS_REC)
            mount("none", keep, None, MS_BIND | MS_REC | MS_RDONLY | MS_REMOUNT)
        os.close(fd)
    for shared in WRITABLE:
        if os.path.isdir(shared):
            mount("tmpfs", shared, "tmpfs", MS_NOSUID | MS_NODEV, f"size={config['disk_mib']}m,mode=1777")
    freeze_host_mounts()
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV)
    work = "/tmp/work"
    os.makedirs(work, mode=0o700)
    os.chown(work, config["uid"], config["uid"])
    return work


# The worker's only writable places: fresh tmpfs mounts, gone with its mount namespace.
WRITABLE = ("/var/tmp", "/dev/shm", "/dev/mqueue")
NOT_FROZEN = ("/proc", "/sys", "/dev", "/tmp", *WRITABLE)  # device nodes need /dev writable; /sys is root-only


def _mount_points():
    with open("/proc/self/mountinfo") as info:
        points = [line.split()[4] for line in info]
    # mountinfo escapes spaces, tabs, newlines and backslashes as octal (\040)
    return [p.encode().decode("unicode_escape").encode("latin-1").decode() for p in points]


def freeze_host_mounts():
    """Remount every host mount read-only in this mount namespace (the host's own mounts are untouched).

    Permissions alone are not enough: world-writable directories such as /run/lock
    would let a submission leave files on the host, or pass notes to the next one.
    The root must freeze or no student code runs; any other mount that refuses is
    still covered by the unprivileged uid and its permissions.
    """
    for point in dict.fromkeys(_mount_points()):  # in mount order, each once
        if any(point == p or point.startswith(p + "/") for p in NOT_FROZEN):
            continue
        try:
            mount("none", point, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID)
        except OSError:
            if point == "/":
                raise


def drop_privileges(uid):
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    _libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def set_limits(config):
    mib = 1 << 20
    limits = {resource.RLIMIT_AS: config["memory_mib"] * mib, resource.RLIMIT_FSIZE: config["file_mib"] * mib,
              resource.RLIMIT_CORE: 0, resource.RLIMIT_NOFILE: 512}
    if config.get("isolated"):
        limits[resource.RLIMIT_NPROC] = config["processes"]  # counted per uid: each job slot has its own
    for which, value in limits.items():
        resource.setrlimit(which, (value, value))


def close_other_fds(keep):
    for fd in sorted(int(f) for f in os.listdir("/proc/self/fd")):
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
