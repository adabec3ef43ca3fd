"""A top-level cell that takes the write permission off its uid's user keyrings (KEYCTL_SETPERM) and leaves keys for later holders of the uid, so that the next worker given that uid (uids come back: 100000 + a pid) cannot clear them and fails to start, failing an honest student's every check (red team round 3, F1): every key system call is refused with EPERM; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["KEYS: allowed"]
EXPECT = ["KEYS: refused setperm=EPERM add_key=EPERM request_key=EPERM"]
ADD = [(None, '''
import ctypes
import errno
import platform

_add_key, _request_key, _keyctl = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}[platform.machine()]
_libc = ctypes.CDLL(None, use_errno=True)
KEYCTL_SETPERM, USER, USER_SESSION = 5, -4, -5


def _outcome(result):
    return "ok" if result >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")


found = {
    "setperm": _outcome(_libc.syscall(_keyctl, ctypes.c_long(KEYCTL_SETPERM), ctypes.c_long(USER),
                                      ctypes.c_long(0x3B0B0000))),
    "add_key": _outcome(_libc.syscall(_add_key, b"user", b"week7-poison", b"x", ctypes.c_size_t(1),
                                      ctypes.c_long(USER))),
    "request_key": _outcome(_libc.syscall(_request_key, b"user", b"week7-poison", None, ctypes.c_long(0))),
}
verdict = "refused" if all(v == "EPERM" for v in found.values()) else "allowed"
raise RuntimeError(f"KEYS: {verdict} " + " ".join(f"{k}={v}" for k, v in found.items()))
''')]
