"""libseccomp 2.5 through ctypes: the few entry points and constants a builder needs (no headers on this machine)."""
import ctypes, ctypes.util

LIB = ctypes.CDLL("libseccomp.so.2", use_errno=True)
ACT_ALLOW = 0x7FFF0000
def ACT_ERRNO(e): return 0x00050000 | (e & 0xFFFF)
# enum scmp_filter_attr
FLTATR_ACT_DEFAULT, FLTATR_ACT_BADARCH, FLTATR_CTL_NNP, FLTATR_CTL_TSYNC, FLTATR_API_TSKIP, FLTATR_CTL_LOG, \
    FLTATR_CTL_SSB, FLTATR_CTL_OPTIMIZE, FLTATR_API_SYSRAWRC = range(1, 10)
# enum scmp_compare
CMP_NE, CMP_LT, CMP_LE, CMP_EQ, CMP_GE, CMP_GT, CMP_MASKED_EQ = range(1, 8)
ARCH_NATIVE, ARCH_X86_64, ARCH_X86, ARCH_X32, ARCH_AARCH64 = 0, 0xC000003E, 0x40000003, 0x4000003E, 0xC00000B7


class ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


LIB.seccomp_init.restype = ctypes.c_void_p
LIB.seccomp_init.argtypes = [ctypes.c_uint32]
LIB.seccomp_release.argtypes = [ctypes.c_void_p]
LIB.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
LIB.seccomp_arch_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
LIB.seccomp_arch_remove.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
LIB.seccomp_arch_native.restype = ctypes.c_uint32
LIB.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                       ctypes.POINTER(ArgCmp)]
LIB.seccomp_rule_add_exact_array.argtypes = LIB.seccomp_rule_add_array.argtypes
LIB.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
LIB.seccomp_syscall_resolve_name_arch.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
LIB.seccomp_load.argtypes = [ctypes.c_void_p]
LIB.seccomp_version.restype = ctypes.c_void_p


def version():
    v = ctypes.cast(LIB.seccomp_version(), ctypes.POINTER(ctypes.c_uint * 3)).contents
    return tuple(v)


def check(rc, what):
    if rc < 0:
        raise OSError(-rc, f"{what}: {rc}")
    return rc


def resolve(name, arch=ARCH_NATIVE):
    return LIB.seccomp_syscall_resolve_name_arch(arch, name.encode())


def rule(ctx, action, nr, *cmps, exact=True):
    arr = (ArgCmp * max(1, len(cmps)))(*[ArgCmp(*c) for c in cmps])
    fn = LIB.seccomp_rule_add_exact_array if exact else LIB.seccomp_rule_add_array
    return check(fn(ctx, action, nr, len(cmps), arr), f"rule {action:#x} nr={nr} {cmps}")


def export(ctx):
    """The program as bytes (struct sock_filter[]), via a pipe-free temp file (export writes to an fd)."""
    import os, tempfile
    with tempfile.TemporaryFile() as f:
        check(LIB.seccomp_export_bpf(ctx, f.fileno()), "export")
        f.seek(0)
        return f.read()


def rows(blob):
    import struct
    return [struct.unpack_from("<HBBI", blob, i) for i in range(0, len(blob), 8)]
