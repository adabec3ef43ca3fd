"""sandbox/syscalls.py: the worker's system calls as an allow-list, checked by running the filter.

The filter program is run (a tiny classic-BPF interpreter below) on every system call number of the
native ABI, on other ABIs and on the arguments it inspects; then installed for real in a child, where the
refused calls fail as they should and everything a notebook needs (files, fork, threads, PyTorch) works.
Fast tests; the worker's own refusals are shown by the hostile corpus (tests/test_hostile.py) in every
confinement mode (tests/test_environments.py).
"""
import platform
import subprocess
import sys

import pytest

from autograder.assignment import ROOT
from autograder.linux import flags, seccomp
from autograder.sandbox import syscalls

MACHINE = platform.machine()
pytestmark = pytest.mark.skipif(MACHINE not in seccomp.AUDIT_ARCH, reason="no seccomp table for this machine")
ARCH = seccomp.AUDIT_ARCH.get(MACHINE)
EPERM, ENOSYS, ALLOW = syscalls.EPERM, syscalls.ENOSYS, syscalls.ALLOW
SHARED = syscalls.Policy(metadata=False, truncate_by_path=False, self_only=True, own_group=False)  # mode landlock's


def nr(name):
    return syscalls.number(name, MACHINE)


def run(rows, number, arch=None, args=()):
    """What the filter returns for a system call: classic BPF, the five opcodes it uses."""
    data = {seccomp.SECCOMP_DATA_NR: number, seccomp.SECCOMP_DATA_ARCH: ARCH if arch is None else arch}
    for i, value in enumerate([*args, *[0] * (6 - len(args))]):
        data[seccomp.seccomp_data_arg(i)] = value & 0xFFFFFFFF
        data[seccomp.seccomp_data_arg(i, True)] = value >> 32 & 0xFFFFFFFF
    pc, acc = 0, 0
    while True:
        code, jt, jf, k = rows[pc]
        assert 0 <= jt < 256 and 0 <= jf < 256, "a jump too long for classic BPF"
        if code == seccomp.BPF_LD_W_ABS:
            acc = data[k]
        elif code == seccomp.BPF_RET_K:
            return k
        elif code in (seccomp.BPF_JEQ_K, seccomp.BPF_JGE_K, seccomp.BPF_JSET_K):
            taken = {seccomp.BPF_JEQ_K: acc == k, seccomp.BPF_JGE_K: acc >= k, seccomp.BPF_JSET_K: bool(acc & k)}[code]
            pc += jt if taken else jf
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        pc += 1


def answers(policy=syscalls.Policy()):
    rows = syscalls.program(MACHINE, policy)
    return {number: run(rows, number) for number in range(1024)}


def test_the_table_has_one_row_per_call_and_every_listed_name():
    names = [n for group in syscalls.ALLOWED.values() for n in group.split()]
    names += [*syscalls.SELF_ONLY, *syscalls.OWN_GROUP, *syscalls.METADATA, *syscalls.TRUNCATE_BY_PATH, *syscalls.REFUSED,
              *syscalls.UNSUPPORTED]
    assert len(names) == len(set(names)), "a call is listed twice"
    assert set(names) == set(syscalls.NUMBERS), set(names) ^ set(syscalls.NUMBERS)
    x86 = [pair[0] for pair in syscalls.NUMBERS.values()]
    assert len(x86) == len(set(x86)), "two names share an x86_64 number"


@pytest.mark.parametrize("policy", [syscalls.Policy(), SHARED], ids=["namespaces", "landlock"])
def test_only_the_listed_calls_are_allowed_and_the_rest_answer_as_listed(policy):
    got = answers(policy)
    allowed = {nr(n) for n in syscalls.allowed(policy) if nr(n) is not None}
    looked_at = {*(nr(n) for n in syscalls.ARGUMENTS_LOOKED_AT),
                 *({nr(n) for n in syscalls.SELF_ONLY} if policy.self_only else ())}
    allowed -= looked_at  # allowed with a look at their arguments (tests below)
    assert {n for n, a in got.items() if a == ALLOW} - looked_at == allowed
    refused = {nr(n) for n in syscalls.REFUSED + (() if policy.metadata else syscalls.METADATA)
               + (() if policy.own_group else syscalls.OWN_GROUP) if nr(n) is not None}
    assert {n for n, a in got.items() if a == EPERM} - looked_at == refused
    for name in ("keyctl", "unshare", "setns", "mount", "socket", "socketpair", "ptrace", "process_vm_readv"):
        assert got[nr(name)] == EPERM, name
    for name in syscalls.UNSUPPORTED:
        assert got[nr(name)] == ENOSYS, name
    assert got[999] == ENOSYS  # a call nobody listed: as on a kernel without it
    for name in ("read", "write", "openat", "mmap", "futex", "clone", "exit_group", "getpid", "execve"):
        assert got[nr(name)] == ALLOW, name


def test_where_the_grader_shares_the_worker_uid_calls_on_other_processes_are_refused():
    """Mode landlock: prlimit64, sched_set*, setpriority and ioprio_set only on the caller (PRIO_USER with who 0
    reniced the grader: red team of issue 22); metadata refused; the process group cannot be left."""
    rows = syscalls.program(MACHINE, SHARED)
    for name, required in syscalls.SELF_ONLY.items():
        args = [0] * 6
        for index, value in required.items():
            args[index] = value
        assert run(rows, nr(name), args=args) == ALLOW, name
        for index in required:
            for other in (1, 2, 4242, 1 << 32):
                changed = list(args)
                changed[index] = required[index] + other
                assert run(rows, nr(name), args=changed) == EPERM, (name, index, other)
    prio_user, ioprio_who_user = 2, 3
    assert run(rows, nr("setpriority"), args=[prio_user, 0, 15]) == EPERM
    assert run(rows, nr("ioprio_set"), args=[ioprio_who_user, 0, 0]) == EPERM
    for name in ("chmod", "fchmod", "fchmodat", "setxattr", "utimensat", "fchown", "setsid", "setpgid"):
        if nr(name) is not None:
            assert run(rows, nr(name)) == EPERM, name
    assert run(rows, nr("truncate")) == ENOSYS and run(rows, nr("ftruncate")) == ALLOW
    assert run(syscalls.program(MACHINE), nr("setsid")) == ALLOW  # with a PID namespace, harmless


def test_clone_is_refused_only_with_a_namespace_flag():
    """Round 6: a user + mount namespace of the worker's own hid a tmpfs from the watchdog."""
    rows, clone = syscalls.program(MACHINE), nr("clone")
    fork_flags, thread_flags = 0x01200011, 0x003D0F00  # glibc's fork(); pthread_create's CLONE_VM|FS|FILES|...
    assert run(rows, clone, args=[fork_flags]) == ALLOW
    assert run(rows, clone, args=[thread_flags]) == ALLOW
    for flag in (0x00020000, 0x10000000, 0x20000000, 0x40000000, 0x08000000, 0x04000000, 0x02000000):
        assert run(rows, clone, args=[fork_flags | flag]) == EPERM, hex(flag)
    # CLONE_PARENT (issue 27, fourth attack): a process that changes pid as a sibling leaves the keeper no orphan
    assert run(rows, clone, args=[0x00008000 | 17]) == EPERM


def test_calls_that_pin_pages_in_pipes_are_unsupported():
    """Issue 27, fourth attack: one byte spliced from each 1 MiB page-cache folio of a deleted file pinned the folio
    in a pipe slot, 6 GiB that nothing counted; vmsplice and tee pin pages the same way, and sendfile into a pipe
    is a splice."""
    rows = syscalls.program(MACHINE)
    for name in ("splice", "tee", "vmsplice", "sendfile"):
        assert run(rows, nr(name)) == ENOSYS, name
    assert run(rows, nr("copy_file_range")) == ALLOW  # file to file only: what shutil tries first


def test_only_the_key_and_metadata_ioctls_are_refused():
    """fscrypt's key ioctls, and those by which a file's owner changes it through a read-only descriptor (red team 12:
    a worker keeping the grader's uid set inode flags on files it may only read); reading them stays allowed."""
    rows = syscalls.program(MACHINE)
    assert set(syscalls.IOCTL_REFUSED) >= {"FS_IOC_SETFLAGS", "FS_IOC_FSSETXATTR", "FS_IOC_SETVERSION"}
    for cmd in syscalls.IOCTL_REFUSED.values():
        assert run(rows, nr("ioctl"), args=[3, cmd]) == EPERM
    tcgets, fionread, fs_ioc_get_encryption_policy = 0x5401, 0x541B, 0x400C6615
    fs_ioc_getflags, fs_ioc_fsgetxattr, fs_ioc_getversion = 0x80086601, 0x801C581F, 0x80087601
    for cmd in (0, tcgets, fionread, fs_ioc_get_encryption_policy, fs_ioc_getflags, fs_ioc_fsgetxattr,
                fs_ioc_getversion):
        assert run(rows, nr("ioctl"), args=[3, cmd]) == ALLOW
    assert run(rows, nr("read"), args=[3, syscalls.KEY_IOCTLS["FS_IOC_ADD_ENCRYPTION_KEY"]]) == ALLOW


@pytest.mark.parametrize("policy", [syscalls.Policy(), SHARED], ids=["namespaces", "landlock"])
def test_prctl_only_for_the_options_a_worker_needs(policy):
    """Issue 27: prctl(PR_SET_DUMPABLE, 0) hid a 6 GiB tree from the watchdog. The option is an int: the kernel
    ignores the register's high half, so a high half set changes nothing (still allowed, still refused)."""
    rows, prctl = syscalls.program(MACHINE, policy), nr("prctl")
    pr_set_dumpable, pr_set_vma, pr_set_child_subreaper, pr_set_mm, pr_set_ptracer = (
        flags.PR_SET_DUMPABLE, flags.PR_SET_VMA, flags.PR_SET_CHILD_SUBREAPER, flags.PR_SET_MM, flags.PR_SET_PTRACER)
    for option in syscalls.PRCTL_ALLOWED.values():
        assert run(rows, prctl, args=[option, 1]) == ALLOW, option
        assert run(rows, prctl, args=[option | 0xFFFF_FFFF_0000_0000]) == ALLOW, option
    for option in (pr_set_dumpable, pr_set_vma, pr_set_child_subreaper, pr_set_mm, pr_set_ptracer,
                   flags.PR_SET_SECCOMP, 0, 1 << 20):
        assert run(rows, prctl, args=[option, 0]) == EPERM, option
        assert run(rows, prctl, args=[option | 1 << 32, 0]) == EPERM, option
    assert run(rows, nr("getpid"), args=[pr_set_dumpable]) == ALLOW  # only prctl's argument is looked at
    assert set(syscalls.PRCTL_ALLOWED.values()).isdisjoint({pr_set_dumpable, pr_set_vma, pr_set_child_subreaper})


@pytest.mark.parametrize("policy", [syscalls.Policy(), SHARED], ids=["namespaces", "landlock"])
def test_fcntl_refuses_record_locks_leases_and_notifications_only(policy):
    """Issue 27: byte-range locks on 46,000 files pinned 5 GiB of slab that nothing counted."""
    import errno
    rows, fcntl_ = syscalls.program(MACHINE, policy), nr("fcntl")
    for name, (command, error) in syscalls.FCNTL_REFUSED.items():
        assert run(rows, fcntl_, args=[3, command]) == seccomp.SECCOMP_RET_ERRNO | error, name
        assert run(rows, fcntl_, args=[3, command | 1 << 32]) == seccomp.SECCOMP_RET_ERRNO | error, name
    assert {c for c, _ in syscalls.FCNTL_REFUSED.values()} == {6, 7, 37, 38, 1024, 1026}
    assert {e for _, e in syscalls.FCNTL_REFUSED.values()} == {errno.ENOLCK, errno.EPERM}
    f_dupfd, f_getfd, f_setfd, f_getfl, f_setfl, f_getlk, f_dupfd_cloexec, f_add_seals, f_ofd_getlk = \
        0, 1, 2, 3, 4, 5, 1030, 1033, 36
    for command in (f_dupfd, f_getfd, f_setfd, f_getfl, f_setfl, f_getlk, f_dupfd_cloexec, f_add_seals, f_ofd_getlk):
        assert run(rows, fcntl_, args=[3, command]) == ALLOW, command
    assert run(rows, nr("flock"), args=[3, 2]) == ALLOW
    for name in ("inotify_init1", "inotify_add_watch", "epoll_create1"):
        assert run(rows, nr(name)) == ENOSYS, name


@pytest.mark.parametrize("policy", [syscalls.Policy(), SHARED], ids=["namespaces", "landlock"])
def test_mmap_refuses_shared_anonymous_memory_only(policy):
    """Red team 6 (shared_window): a shared anonymous object keeps every page written while one page stays mapped,
    and a keeper cannot read its size: 5 GiB held past the cap. MAP_SHARED_VALIDATE (0x03) shares too."""
    rows, mmap_ = syscalls.program(MACHINE, policy), nr("mmap")
    private, anonymous, shared, validate, fixed, populate = 0x02, 0x20, 0x01, 0x03, 0x10, 0x8000
    for flags_ in (shared | anonymous, validate | anonymous, shared | anonymous | fixed | populate):
        assert run(rows, mmap_, args=[0, 1 << 30, 3, flags_, -1 & 0xFFFFFFFFFFFFFFFF, 0]) == EPERM, hex(flags_)
    for flags_ in (private | anonymous, private | anonymous | populate, shared, validate, private):  # files, malloc
        assert run(rows, mmap_, args=[0, 1 << 20, 3, flags_, 3, 0]) == ALLOW, hex(flags_)
    assert run(rows, mmap_, args=[0, 4096, 3, private | anonymous | 1 << 32, -1 & 0xFFFFFFFFFFFFFFFF, 0]) == ALLOW


def test_threads_share_their_open_files_and_fallocate_keeps_to_the_file_size():
    """Red team 7: a thread with a table of open files of its own kept unlinked files /proc/PID/fd never shows
    (hidden_fd_table, 4.5 GiB), and FALLOC_FL_KEEP_SIZE allocated 2 GiB behind a file RLIMIT_FSIZE holds to 64 MiB
    (preallocated)."""
    import errno
    rows, clone, fallocate = syscalls.program(MACHINE), nr("clone"), nr("fallocate")
    thread_flags, fork_flags, files, thread = 0x003D0F00, 0x01200011, 0x400, 0x10000  # pthread_create's, fork's
    assert run(rows, clone, args=[thread_flags]) == ALLOW and run(rows, clone, args=[fork_flags]) == ALLOW
    assert run(rows, clone, args=[thread_flags & ~files]) == EPERM
    assert run(rows, clone, args=[thread | 0x100 | 17]) == EPERM  # CLONE_VM only: the raw clone of the attack
    assert run(rows, clone, args=[(fork_flags & ~thread) & ~files]) == ALLOW  # a process: its table is listed
    unsupported = seccomp.SECCOMP_RET_ERRNO | errno.EOPNOTSUPP
    for mode in (0x01, 0x03, 0x11, 0x01 | 1 << 32):  # KEEP_SIZE, punching a hole, KEEP_SIZE|UNSHARE
        assert run(rows, fallocate, args=[3, mode, 0, 1 << 30]) == unsupported, hex(mode)
    for mode in (0, 0x10, 0x20):  # plain (posix_fallocate), ZERO_RANGE... only without KEEP_SIZE
        assert run(rows, fallocate, args=[3, mode, 0, 1 << 20]) == ALLOW, hex(mode)


def test_other_abis_are_refused_whole():
    rows = syscalls.program(MACHINE)
    i386 = 0x40000003
    assert all(run(rows, number, arch=i386) == EPERM for number in (1, 20, 286, 287, 288))
    assert run(rows, seccomp.X32_SYSCALL_BIT | 39) == EPERM  # x32 getpid


CHILD = r"""
import ctypes, errno, os, sys
from autograder.sandbox import syscalls
libc = ctypes.CDLL(None, use_errno=True)
shared = sys.argv[1] == "landlock"
syscalls.install_filter(syscalls.Policy(metadata=not shared, truncate_by_path=not shared, self_only=shared,
                                        own_group=not shared))
def outcome(r):
    return "ok" if r >= 0 else errno.errorcode[ctypes.get_errno()]
nr = syscalls.number
print("keyctl", outcome(libc.syscall(nr("keyctl"), ctypes.c_long(0), ctypes.c_long(-3), ctypes.c_long(0))))
print("add_key", outcome(libc.syscall(nr("add_key"), b"user", b"k", b"v", ctypes.c_size_t(1), ctypes.c_long(-3))))
fd = os.open("/", os.O_RDONLY)
buf = ctypes.create_string_buffer(80)
print("fscrypt add key", outcome(libc.ioctl(fd, ctypes.c_ulong(syscalls.KEY_IOCTLS["FS_IOC_ADD_ENCRYPTION_KEY"]), buf)))
print("other ioctl", outcome(libc.ioctl(fd, ctypes.c_ulong(0x5401), buf)))  # TCGETS on a directory: ENOTTY
pid = os.fork()
if pid == 0:
    os._exit(0 if libc.syscall(nr("keyctl"), ctypes.c_long(0), ctypes.c_long(-3), ctypes.c_long(0)) == -1 else 3)
print("child refused too", os.waitpid(pid, 0)[1] == 0)
print("unshare", outcome(libc.unshare(0x10000000 | 0x00020000)))
print("mount", outcome(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)))
import socket, threading
for make in (lambda: socket.socket(socket.AF_INET), lambda: socket.socketpair()):
    try:
        make()
        print("socket ok")
    except OSError as err:
        print("socket", errno.errorcode[err.errno])
print("clone newuser", outcome(libc.syscall(nr("clone"), ctypes.c_ulong(0x10000000 | 17), None, None, None, None)))
print("clone3", outcome(libc.syscall(nr("clone3"), None, ctypes.c_size_t(0))))
print("ptrace", outcome(libc.ptrace(ctypes.c_long(16), ctypes.c_long(os.getppid()), None, None)))  # PTRACE_ATTACH
print("prlimit other", outcome(libc.prlimit(ctypes.c_int(os.getppid()), 7, None, ctypes.create_string_buffer(16))))
print("prlimit self", outcome(libc.prlimit(ctypes.c_int(0), 7, None, ctypes.create_string_buffer(16))))
# PRIO_USER renices every process of the uid (root's, here): only tried where it must be refused.
print("setpriority user", outcome(libc.setpriority(2, 0, 1)) if shared else "not tried")
print("setsid", outcome(libc.setsid()))
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
print("prctl dumpable", outcome(libc.prctl(4, 0, 0, 0, 0)), libc.prctl(3, 0, 0, 0, 0))  # still dumpable
print("prctl name", outcome(libc.prctl(15, ctypes.cast(ctypes.c_char_p(b"pt_worker"), ctypes.c_void_p).value, 0, 0, 0)))
import fcntl, tempfile
with tempfile.TemporaryFile() as f:
    for what, call in (("posix lock", lambda: fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)),
                       ("ofd lock", lambda: fcntl.fcntl(f, 37, bytes(32))),
                       ("flock", lambda: fcntl.flock(f, fcntl.LOCK_EX)), ("getfl", lambda: fcntl.fcntl(f, 3))):
        try:
            call()
            print(what, "ok")
        except OSError as err:
            print(what, errno.errorcode[err.errno])
print("inotify", outcome(libc.inotify_init1(0)))
print("epoll", outcome(libc.epoll_create1(0)))
import tempfile
with tempfile.NamedTemporaryFile() as f:
    try:
        os.chmod(f.name, 0o600)
        print("chmod ok")
    except OSError as err:
        print("chmod", errno.errorcode[err.errno])
box = []
t = threading.Thread(target=lambda: box.append(1)); t.start(); t.join()
print("thread", box == [1])
import subprocess
print("subprocess", subprocess.run(["/bin/echo", "hi"], capture_output=True, text=True).stdout.strip())
import shutil
with tempfile.TemporaryDirectory() as d:  # without sendfile and splice: shutil falls back to read and write
    with open(f"{d}/a", "wb") as f:
        f.write(b"x" * 100_000)
    shutil.copyfile(f"{d}/a", f"{d}/b")
    with open(f"{d}/a", "rb") as src, open(f"{d}/c", "wb") as dst:
        shutil.copyfileobj(src, dst)
    print("shutil copy", os.path.getsize(f"{d}/b") == os.path.getsize(f"{d}/c") == 100_000)
r, w = os.pipe()
with tempfile.TemporaryFile() as f:
    f.write(b"y" * 4096)
    f.flush()
    print("splice", outcome(libc.splice(f.fileno(), None, w, None, ctypes.c_size_t(1), 0)))
import mmap
try:
    mmap.mmap(-1, 1 << 20)  # Python's default for an anonymous map: MAP_SHARED
    print("shared anonymous ok")
except OSError as err:
    print("shared anonymous", errno.errorcode[err.errno])
print("private anonymous", len(mmap.mmap(-1, 1 << 20, flags=mmap.MAP_PRIVATE)) == 1 << 20)
with tempfile.TemporaryFile() as f:
    f.truncate(1 << 20)
    print("shared file", len(mmap.mmap(f.fileno(), 1 << 20, flags=mmap.MAP_SHARED)) == 1 << 20)
with tempfile.TemporaryFile() as f:
    print("fallocate keep size", outcome(libc.fallocate(f.fileno(), 1, ctypes.c_long(0), ctypes.c_long(1 << 20))))
    print("posix_fallocate", os.posix_fallocate(f.fileno(), 0, 1 << 20) is None)
print("raw thread without its files", outcome(libc.syscall(nr("clone"), ctypes.c_ulong(0x10000 | 0x800 | 0x100),
                                                            None, None, None, None)))
import numpy, torch
torch.manual_seed(0)
with open("/etc/os-release") as f:
    print("torch", torch.arange(4.0).sum().item(), bool(f.read()), float(numpy.random.default_rng(0).random() < 1))
"""


def child_lines(mode):
    """What CHILD prints under mode ``mode``'s filter (bench/seccomp_weigh/installed_check.py expects it too)."""
    shared = mode == "landlock"
    return ["keyctl EPERM", "add_key EPERM", "fscrypt add key EPERM", "other ioctl ENOTTY",
            "child refused too True", "unshare EPERM", "mount EPERM", "socket EPERM", "socket EPERM",
            "clone newuser EPERM", "clone3 ENOSYS", "ptrace EPERM",
            "prlimit other " + ("EPERM" if shared else "ok"), "prlimit self ok",
            "setpriority user " + ("EPERM" if shared else "not tried"), "setsid " + ("EPERM" if shared else "ok"),
            "prctl dumpable EPERM 1", "prctl name ok", "posix lock ENOLCK", "ofd lock ENOLCK", "flock ok",
            "getfl ok", "inotify ENOSYS", "epoll ENOSYS",
            "chmod EPERM" if shared else "chmod ok", "thread True", "subprocess hi", "shutil copy True",
            "splice ENOSYS", "shared anonymous EPERM", "private anonymous True", "shared file True",
            "fallocate keep size ENOTSUP", "posix_fallocate True", "raw thread without its files EPERM",
                     "torch 6.0 True 1.0"]


@pytest.mark.parametrize("mode", ["namespaces", "landlock"])
def test_installed_the_refused_calls_fail_and_nothing_a_notebook_needs_does(mode):
    run_ = subprocess.run([sys.executable, "-c", CHILD, mode], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run_.returncode == 0, run_.stderr
    lines = run_.stdout.splitlines()
    assert lines == child_lines(mode), lines
