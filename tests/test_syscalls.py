"""sandbox/syscalls.py: the seccomp filter that takes the key system calls away from a worker.

The filter program is checked by running it (a tiny classic-BPF interpreter below) on every system
call number of the native ABI and on other ABIs; then installed for real in a child process, where the
key calls fail with EPERM and everything a notebook needs (files, fork, PyTorch) still works. Fast tests;
the worker's own refusal is shown by the hostile case keyring_poison (tests/test_hostile.py).
"""
import errno
import platform
import subprocess
import sys

import pytest

from autograder.assignment import ROOT
from autograder.sandbox import syscalls

ARCH, NUMBERS = syscalls.NATIVE.get(platform.machine(), (None, None))
DENY = syscalls.SECCOMP_RET_ERRNO | errno.EPERM
pytestmark = pytest.mark.skipif(ARCH is None, reason="no seccomp table for this machine")


def run(rows, nr, arch, arg1=0, arg0=0):
    """What the filter returns for a system call: classic BPF, the five opcodes it uses."""
    data = {syscalls._NR_OFFSET: nr, syscalls._ARCH_OFFSET: arch, syscalls._ARG0_OFFSET: arg0,
            syscalls._ARG1_OFFSET: arg1}
    pc, acc = 0, 0
    while True:
        code, jt, jf, k = rows[pc]
        if code == syscalls._LD_W_ABS:
            acc = data[k]
        elif code == syscalls._RET_K:
            return k
        elif code in (syscalls._JEQ_K, syscalls._JGE_K, syscalls._JSET_K):
            taken = {syscalls._JEQ_K: acc == k, syscalls._JGE_K: acc >= k, syscalls._JSET_K: bool(acc & k)}[code]
            pc += jt if taken else jf
        else:
            raise AssertionError(f"unexpected opcode {code:#x}")
        pc += 1


def test_only_the_listed_calls_are_refused_on_the_native_abi():
    rows = syscalls.program(ARCH, NUMBERS)
    refused = {nr for nr in range(1024) if run(rows, nr, ARCH) == DENY}
    assert refused == {NUMBERS[name] for name in syscalls.DENIED_CALLS}
    assert {"keyctl", "unshare", "setns", "mount", "socket", "socketpair"} <= set(syscalls.DENIED_CALLS)
    enosys = {nr for nr in range(1024) if run(rows, nr, ARCH) == syscalls.SECCOMP_RET_ERRNO | errno.ENOSYS}
    assert enosys == {NUMBERS[name] for name in syscalls.UNSUPPORTED_CALLS}
    assert all(run(rows, nr, ARCH) == syscalls.SECCOMP_RET_ALLOW for nr in (0, 1, 39, 57, 59, 231))


def test_clone_is_refused_only_with_a_namespace_flag():
    """Round 6: a user + mount namespace of the worker's own hid a tmpfs from the watchdog."""
    rows, clone = syscalls.program(ARCH, NUMBERS), NUMBERS["clone"]
    fork_flags, thread_flags = 0x01200011, 0x003D0F00  # glibc's fork(); pthread_create's CLONE_VM|FS|FILES|...
    assert run(rows, clone, ARCH, arg0=fork_flags) == syscalls.SECCOMP_RET_ALLOW
    assert run(rows, clone, ARCH, arg0=thread_flags) == syscalls.SECCOMP_RET_ALLOW
    for flag in (0x00020000, 0x10000000, 0x20000000, 0x40000000, 0x08000000, 0x04000000, 0x02000000):
        assert run(rows, clone, ARCH, arg0=fork_flags | flag) == DENY, hex(flag)


def test_only_the_fscrypt_key_ioctls_are_refused():
    rows = syscalls.program(ARCH, NUMBERS)
    for cmd in syscalls.KEY_IOCTLS.values():
        assert run(rows, NUMBERS["ioctl"], ARCH, cmd) == DENY
    tcgets, fionread, fs_ioc_get_encryption_policy = 0x5401, 0x541B, 0x400C6615
    for cmd in (0, tcgets, fionread, fs_ioc_get_encryption_policy):
        assert run(rows, NUMBERS["ioctl"], ARCH, cmd) == syscalls.SECCOMP_RET_ALLOW
    assert run(rows, 0, ARCH, syscalls.KEY_IOCTLS["FS_IOC_ADD_ENCRYPTION_KEY"]) == syscalls.SECCOMP_RET_ALLOW


def test_other_abis_are_refused_whole():
    rows = syscalls.program(ARCH, NUMBERS)
    i386 = 0x40000003
    assert all(run(rows, nr, i386) == DENY for nr in (1, 20, 286, 287, 288))  # exit, getpid, the key calls
    assert run(rows, syscalls.X32_SYSCALL_BIT | 39, ARCH) == DENY  # x32 getpid


CHILD = r"""
import ctypes, errno, os, platform
from autograder.sandbox import syscalls
libc = ctypes.CDLL(None, use_errno=True)
add_key, request_key, keyctl = (syscalls.NATIVE[platform.machine()][1][k] for k in ("add_key", "request_key", "keyctl"))
syscalls.install_filter()
def outcome(r):
    return "ok" if r >= 0 else errno.errorcode[ctypes.get_errno()]
print("keyctl", outcome(libc.syscall(keyctl, ctypes.c_long(0), ctypes.c_long(-3), ctypes.c_long(0))))
print("add_key", outcome(libc.syscall(add_key, b"user", b"k", b"v", ctypes.c_size_t(1), ctypes.c_long(-3))))
print("request_key", outcome(libc.syscall(request_key, b"user", b"k", None, ctypes.c_long(0))))
fd = os.open("/", os.O_RDONLY)
buf = ctypes.create_string_buffer(80)
print("fscrypt add key", outcome(libc.ioctl(fd, ctypes.c_ulong(syscalls.KEY_IOCTLS["FS_IOC_ADD_ENCRYPTION_KEY"]), buf)))
print("other ioctl", outcome(libc.ioctl(fd, ctypes.c_ulong(0x5401), buf)))  # TCGETS on a directory: ENOTTY, not EPERM
pid = os.fork()
if pid == 0:
    os._exit(0 if libc.syscall(keyctl, ctypes.c_long(0), ctypes.c_long(-3), ctypes.c_long(0)) == -1 else 3)
print("child refused too", os.waitpid(pid, 0)[1] == 0)
print("unshare", outcome(libc.unshare(0x10000000 | 0x00020000)))  # CLONE_NEWUSER | CLONE_NEWNS
print("mount", outcome(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)))
import socket, threading
for make in (lambda: socket.socket(socket.AF_INET), lambda: socket.socketpair()):
    try:
        make()
        print("socket ok")
    except OSError as err:
        print("socket", errno.errorcode[err.errno])
NR = syscalls.NATIVE[platform.machine()][1]
print("clone newuser", outcome(libc.syscall(NR["clone"], ctypes.c_ulong(0x10000000 | 17), None, None, None, None)))
print("clone3", outcome(libc.syscall(NR["clone3"], None, ctypes.c_size_t(0))))
box = []
t = threading.Thread(target=lambda: box.append(1)); t.start(); t.join()
print("thread", box == [1])
import torch
with open("/etc/os-release") as f:
    print("torch", torch.arange(4.0).sum().item(), bool(f.read()))
"""


def test_installed_the_key_calls_fail_and_nothing_else_does():
    run_ = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run_.returncode == 0, run_.stderr
    lines = run_.stdout.splitlines()
    assert lines[:5] == ["keyctl EPERM", "add_key EPERM", "request_key EPERM", "fscrypt add key EPERM",
                         "other ioctl ENOTTY"], lines
    assert "child refused too True" in lines and "torch 6.0 True" in lines, lines
    assert lines[6:13] == ["unshare EPERM", "mount EPERM", "socket EPERM", "socket EPERM", "clone newuser EPERM",
                           "clone3 ENOSYS", "thread True"], lines
