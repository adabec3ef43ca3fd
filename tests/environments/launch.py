"""Run a command in an emulated environment (tests/environments/__init__.py): python launch.py ENV -- COMMAND...

Run as root. In order, as a container runtime would: a mount namespace of its own (the machine's mounts
are left alone), the host venv's site-packages bound read-only where every machine's venv finds it,
Python made reachable for other users (a tmpfs over /root holding only root's pyenv, as an image would
install Python under /usr/local), /sys/fs/cgroup read-only where the environment says so, the host's
seccomp filter, then the uid and capabilities, and exec.
"""
import ctypes
import errno
import os
import sys
import sysconfig

sys.path.insert(0, os.environ["WEEK7_CHECKOUT"])  # the checkout under test, set by machine.py
from autograder.linux import flags, seccomp
from autograder.sandbox import syscalls
from tests.environments import ENVIRONMENTS, SITE_PACKAGES

libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 16384, 1 << 18
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
LANDLOCK_CALLS = (444, 445, 446)  # landlock_create_ruleset, _add_rule, _restrict_self: the same on x86_64 and aarch64
# Docker's default capability set (moby/oci/caps/defaults.go).
DOCKER_CAPS = {"CHOWN": 0, "DAC_OVERRIDE": 1, "FOWNER": 3, "FSETID": 4, "KILL": 5, "SETGID": 6, "SETUID": 7,
               "SETPCAP": 8, "NET_BIND_SERVICE": 10, "NET_RAW": 13, "SYS_CHROOT": 18, "MKNOD": 27,
               "AUDIT_WRITE": 29, "SETFCAP": 31}
# What Docker's default seccomp profile refuses (without CAP_SYS_ADMIN) among the calls the grader could use.
DOCKER_REFUSED = ("unshare", "setns", "mount", "umount2", "pivot_root", "open_tree", "move_mount", "fsopen",
                  "fsconfig", "fsmount", "fspick", "mount_setattr", "keyctl", "add_key", "request_key", "bpf",
                  "perf_event_open", "userfaultfd")


def check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def mount(source, target, fstype, flags, data=None):
    check(libc.mount(source.encode() if source else None, target.encode(), fstype.encode() if fstype else None,
                     flags, data.encode() if data else None), f"mount {target}")


def python_for_everyone():
    """A tmpfs over /root (0755) with root's pyenv bound back in: Python reachable, root's home not."""
    if not os.path.isdir("/root/.pyenv"):
        return
    keep = os.open("/root/.pyenv", os.O_PATH | os.O_DIRECTORY)
    mount("tmpfs", "/root", "tmpfs", 0, "size=1m,mode=0755")
    os.mkdir("/root/.pyenv", 0o755)
    mount(f"/proc/self/fd/{keep}", "/root/.pyenv", None, MS_BIND | MS_REC)
    os.close(keep)


def site_packages_for_everyone():
    """The host venv's site-packages, read-only at SITE_PACKAGES: the checkout holding it may be closed to the
    emulated uids (root's clone in a 0700 folder), as an image's site-packages never is."""
    if not SITE_PACKAGES.is_dir():
        return  # not a machine of machine.py's
    mount(sysconfig.get_paths()["purelib"], str(SITE_PACKAGES), None, MS_BIND | MS_REC)
    mount(None, str(SITE_PACKAGES), None, MS_REMOUNT | MS_BIND | MS_RDONLY)


def cgroups_read_only():
    points = ["/sys/fs/cgroup"]
    with open("/proc/self/mountinfo") as handle:
        points += [line.split()[4] for line in handle if line.split()[4].startswith("/sys/fs/cgroup/")]
    for point in points:
        try:
            mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
        except OSError:
            pass


def host_filter(kind):
    """The host's seccomp filter: "docker" (its default profile's refusals), "no-userns" or "locked"."""
    machine = os.uname().machine
    nr = {name: syscalls.number(name, machine) for name in syscalls.NUMBERS}
    LD, JSET, RET = seccomp.BPF_LD_W_ABS, seccomp.BPF_JSET_K, seccomp.BPF_RET_K
    eperm, enosys = syscalls.EPERM, syscalls.ENOSYS
    if kind == "docker":
        refuse_flags, refused = flags.CLONE_NEW_FLAGS, DOCKER_REFUSED
    else:  # a kernel that refuses user namespaces to unprivileged users
        refuse_flags, refused = CLONE_NEWUSER, ()
    rows = [(LD, 0, 0, seccomp.SECCOMP_DATA_NR)]
    for name in refused:
        rows += syscalls._when(nr[name], [(RET, 0, 0, eperm)])
    if kind == "locked":  # and no Landlock: its three calls, as on a kernel built without it
        for number in LANDLOCK_CALLS:
            rows += syscalls._when(number, [(RET, 0, 0, enosys)])
    flags_test = [(LD, 0, 0, seccomp.seccomp_data_arg(0)), (JSET, 0, 1, refuse_flags), (RET, 0, 0, eperm),
                  (RET, 0, 0, syscalls.ALLOW)]
    rows += syscalls._when(nr["clone"], flags_test) + syscalls._when(nr["unshare"], flags_test)
    rows += syscalls._when(nr["clone3"], [(RET, 0, 0, enosys)])
    rows += [(RET, 0, 0, syscalls.ALLOW)]
    # Installed while still root with CAP_SYS_ADMIN, as a runtime does: no no_new_privs.
    seccomp.install(rows, no_new_privs=False)


def capabilities(keep):
    """Bounding set down to ``keep``, then effective, permitted and inheritable to the same."""
    with open("/proc/sys/kernel/cap_last_cap") as handle:
        last = int(handle.read())
    for cap in range(last + 1):
        if cap not in keep:
            check(libc.prctl(24, cap, 0, 0, 0), f"PR_CAPBSET_DROP {cap}")  # PR_CAPBSET_DROP
    mask = sum(1 << cap for cap in keep)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)(mask & 0xFFFFFFFF, mask & 0xFFFFFFFF, 0, mask >> 32, mask >> 32, 0)
    check(libc.syscall(syscalls.number("capset"), header, data), "capset")


def main(argv):
    name, command = argv[0], argv[argv.index("--") + 1:]
    env = ENVIRONMENTS[name]
    check(libc.unshare(CLONE_NEWNS), "unshare")
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    site_packages_for_everyone()  # first: the tmpfs over /root below may hide the checkout it lies in
    if env.name != "vm-root":
        python_for_everyone()
    if env.cgroup_read_only:
        cgroups_read_only()
    if env.seccomp:
        host_filter(env.seccomp)
    if env.caps == "docker":
        capabilities(set(DOCKER_CAPS.values()))
    if env.uid:
        os.setgroups([])
        os.setresgid(env.uid, env.uid, env.uid)
        os.setresuid(env.uid, env.uid, env.uid)  # every capability goes with uid 0
    os.execvp(command[0], command)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except OSError as err:
        print(f"launch: {err}", file=sys.stderr)
        sys.exit(120 if err.errno != errno.ENOENT else 127)
