"""The worker's filter (autograder/sandbox/syscalls.py's policy, imported as data) built by libseccomp via ctypes.

build(machine, policy, optimize=1) -> list of (code, jt, jf, k) rows, as libseccomp exports them.
Only the policy's lists and constants are read from the repository; nothing of its assembler is used."""
import errno
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lsc
from autograder.sandbox import syscalls as S
from autograder.linux import flags as F
from autograder.linux.numbers import NUMBERS, number

ARCH = {"x86_64": lsc.ARCH_X86_64, "aarch64": lsc.ARCH_AARCH64}
EPERM, ENOSYS = lsc.ACT_ERRNO(errno.EPERM), lsc.ACT_ERRNO(errno.ENOSYS)
ALLOW = lsc.ACT_ALLOW
LOW32 = 0xFFFFFFFF


def eq32(arg, value):  # the low 32 bits equal (int arguments: the kernel ignores the high half)
    return (arg, lsc.CMP_MASKED_EQ, LOW32, value)


def bits(arg, mask, value):  # (arg & mask) == value, mask within the low 32 bits
    return (arg, lsc.CMP_MASKED_EQ, mask, value)


def rest(arg):  # always true yet a comparison: the fallback of a call whose other rules look at ``arg``
    return (arg, lsc.CMP_GE, 0, 0)


def build(machine, policy=S.Policy(), optimize=1):
    ctx = lsc.LIB.seccomp_init(ENOSYS)
    try:
        arch = ARCH[machine]
        if arch != lsc.LIB.seccomp_arch_native():
            lsc.check(lsc.LIB.seccomp_arch_add(ctx, arch), "arch_add")
            lsc.check(lsc.LIB.seccomp_arch_remove(ctx, lsc.ARCH_NATIVE), "arch_remove")
        lsc.check(lsc.LIB.seccomp_attr_set(ctx, lsc.FLTATR_ACT_BADARCH, EPERM), "badarch")
        lsc.check(lsc.LIB.seccomp_attr_set(ctx, lsc.FLTATR_CTL_NNP, 0), "nnp")
        lsc.check(lsc.LIB.seccomp_attr_set(ctx, lsc.FLTATR_CTL_OPTIMIZE, optimize), "optimize")
        # libseccomp takes this host's (native) numbers and translates them by name to the filter's arch
        nr = {name: lsc.resolve(name) if number(name, machine) is not None else None for name in NUMBERS}

        def add(action, name, *cmps):
            if nr[name] is not None:
                lsc.rule(ctx, action, nr[name], *cmps)

        # clone: a namespace flag or CLONE_PARENT (any one bit: a rule each), or a thread without CLONE_FILES
        for bit in range(32):
            if S.CLONE_REFUSED >> bit & 1:
                add(EPERM, "clone", bits(0, 1 << bit, 1 << bit))
        add(EPERM, "clone", bits(0, F.CLONE_THREAD | F.CLONE_FILES, F.CLONE_THREAD))
        add(ALLOW, "clone", rest(0))
        for cmd in S.KEY_IOCTLS.values():
            add(EPERM, "ioctl", eq32(1, cmd))
        add(ALLOW, "ioctl", rest(1))
        for option in S.PRCTL_ALLOWED.values():
            add(ALLOW, "prctl", eq32(0, option))
        add(EPERM, "prctl", rest(0))
        for command, error in S.FCNTL_REFUSED.values():
            add(lsc.ACT_ERRNO(error), "fcntl", eq32(1, command))
        add(ALLOW, "fcntl", rest(1))
        add(EPERM, "mmap", bits(3, S.MMAP_SHARED_ANONYMOUS, S.MMAP_SHARED_ANONYMOUS))
        add(ALLOW, "mmap", rest(3))
        add(lsc.ACT_ERRNO(errno.EOPNOTSUPP), "fallocate", bits(1, F.FALLOC_FL_KEEP_SIZE, F.FALLOC_FL_KEEP_SIZE))
        add(ALLOW, "fallocate", rest(1))
        if policy.self_only:
            for name, required in S.SELF_ONLY.items():  # all 64 bits, as the hand filter
                add(ALLOW, name, *[(i, lsc.CMP_EQ, v, 0) for i, v in required.items()])
                for i, v in required.items():
                    add(EPERM, name, (i, lsc.CMP_NE, v, 0))
        for name in S.allowed(policy):
            if name not in S.ARGUMENTS_LOOKED_AT:
                add(ALLOW, name)
        refused = S.REFUSED + (() if policy.metadata else S.METADATA) + (() if policy.own_group else S.OWN_GROUP)
        for name in refused:
            add(EPERM, name)
        return lsc.rows(lsc.export(ctx))
    finally:
        lsc.LIB.seccomp_release(ctx)
