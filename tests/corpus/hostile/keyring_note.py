"""A top-level cell that leaves a key in its uid's user keyring and its session keyring, then looks for keys left by anyone else (a grader's session key, an earlier or concurrent submission's note) and raises what it finds: attacks isolation between submissions; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["KEYRING: found"]
EXPECT = ["KEYRING: no key from anyone else"]
ADD = [(None, '''
import ctypes
import os
import platform

_nr = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
_libc = ctypes.CDLL(None, use_errno=True)
USER, SESSION = -4, -3
KEYCTL_DESCRIBE, KEYCTL_READ = 6, 11


def add_key(description, payload, keyring):
    return _libc.syscall(_nr[0], b"user", description.encode(), payload, ctypes.c_size_t(len(payload)),
                         ctypes.c_long(keyring))


def keyctl(*args):
    return _libc.syscall(_nr[1], *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])


def members(keyring):
    buf = ctypes.create_string_buffer(4096)
    n = keyctl(KEYCTL_READ, keyring, buf, 4096)
    return [int.from_bytes(buf.raw[i:i + 4], "little") for i in range(0, max(n, 0), 4)]


def describe(serial):
    buf = ctypes.create_string_buffer(512)
    n = keyctl(KEYCTL_DESCRIBE, serial, buf, 512)
    return buf.raw[:max(n - 1, 0)].decode(errors="replace")


mine = {add_key(f"week7-note-uid{os.getuid()}-{where}", b"a note for the next submission", ring)
        for where, ring in (("user", USER), ("session", SESSION))}
seen = []
for ring in (USER, SESSION):
    seen += [describe(s) for s in members(ring) if s not in mine]
try:
    seen += [line for line in open("/proc/keys") if "week7-note" in line and f"uid{os.getuid()}-" not in line]
except OSError:
    pass
if seen:
    raise RuntimeError(f"KEYRING: found {seen}")
raise RuntimeError(f"KEYRING: no key from anyone else (uid {os.getuid()}, left {sorted(mine)})")
''')]
