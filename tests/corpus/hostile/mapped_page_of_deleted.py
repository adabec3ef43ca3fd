"""Scratch files of 63 MiB, each mapped one page (ctypes mmap: no fd kept), closed and unlinked: the watchdog charged a mapping of a deleted file its length (4 KiB), not the file's blocks (red team 6: 1008 MiB held 15 s past the 256 MiB disk cap at 100 in user-no-userns, docker-root, k8s-pod; now charged the largest file); attacks the scratch budget; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["RT6: 16 deleted files"]  # printed only by a cell that held it to the end
EXPECT = []  # where the tree is killed, so is the cell that would report
# Landlock modes: the watchdog charges each mapped deleted scratch file the largest file the worker may write, and ends
# the tree (a tmpfs scratch, under namespaces, says ENOSPC first).
WATCHDOG = "worker tree killed at its budget: its work directory holds"
ADD = [(None, r'''
import ctypes as _ct, os as _os, time as _time
_libc = _ct.CDLL(None, use_errno=True)
_libc.mmap.restype = _ct.c_void_p
_libc.mmap.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int, _ct.c_int, _ct.c_int, _ct.c_long]
_held, _block = [], b"x" * (1 << 20)
_st0 = _os.statvfs(".")
_t0 = _time.monotonic()
for _k in range(16):
    _name = f"rt6-{_k}"
    _fd = _os.open(_name, _os.O_RDWR | _os.O_CREAT | _os.O_EXCL, 0o600)
    for _ in range(63):
        _os.write(_fd, _block)
    _os.fsync(_fd)
    _held.append(_libc.mmap(None, 4096, 1, 1, _fd, 0))  # PROT_READ, MAP_SHARED: no fd kept (Python's mmap keeps a dup)
    _os.close(_fd)
    _os.unlink(_name)
_full = _time.monotonic()
_st1 = _os.statvfs(".")
_used = ((_st0.f_bavail - _st1.f_bavail) * _st1.f_frsize) >> 20
_time.sleep(15)
_st2 = _os.statvfs(".")
_still = ((_st0.f_bavail - _st2.f_bavail) * _st2.f_frsize) >> 20
raise RuntimeError(f"RT6: {len(_held)} deleted files of 63 MiB mapped one page each; disk used {_used} MiB after "
                   f"{_full - _t0:.1f} s, still {_still} MiB after 15 s more; scratch {_os.getcwd()}")
''')]
