"""Shared anonymous objects written whole, then unmapped but for their first page: the watchdog charged each object the reach of what is still mapped (4 KiB) while it keeps every page (red team 6: 5 GiB held 15 s past the 4 GiB cap at 100 in user, user-no-userns, docker-root, k8s-pod; now MAP_SHARED|MAP_ANONYMOUS answers EPERM); attacks the memory budget of the worker tree; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["SHARED WINDOW held"]  # printed only by a cell whose objects kept 4 GiB for 15 s
EXPECT = ["SHARED WINDOW refused: EPERM"]  # the system-call filter refuses MAP_SHARED|MAP_ANONYMOUS in every mode
ADD = [(None, r'''
import ctypes as _ct, os as _os, time as _time
_libc = _ct.CDLL(None, use_errno=True)
_libc.mmap.restype = _ct.c_void_p
_libc.mmap.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int, _ct.c_int, _ct.c_int, _ct.c_long]
_libc.munmap.argtypes = [_ct.c_void_p, _ct.c_size_t]
_libc.madvise.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int]
def _meminfo():
    d = {}
    for l in open("/proc/meminfo"):
        k, v = l.split(":")
        d[k] = int(v.split()[0]) >> 10
    return d
_m0 = _meminfo()
_N, _SIZE = 2, 2560 << 20
_t0 = _time.monotonic()
for _k in range(_N):
    _a = _libc.mmap(None, _SIZE, 3, 0x01 | 0x20, -1, 0)  # PROT_READ|PROT_WRITE, MAP_SHARED|MAP_ANONYMOUS
    if _a in (None, _ct.c_void_p(-1).value):
        import errno as _errno
        raise RuntimeError(f"SHARED WINDOW refused: {_errno.errorcode.get(_ct.get_errno(), _ct.get_errno())}")
    _step = 128 << 20
    for _off in range(0, _SIZE, _step):
        _libc.madvise(_a + _off, _step, 23)  # MADV_POPULATE_WRITE
        _libc.munmap(_a + max(_off, 4096), _off + _step - max(_off, 4096)) if _off + _step > 4096 else None
_full = _time.monotonic()
_m1 = _meminfo()
_time.sleep(15)
_m2 = _meminfo()
_kept = _m2["Shmem"] - _m0["Shmem"] >= 4096
raise RuntimeError(f"SHARED WINDOW {'held' if _kept else 'not held'}: {_N} objects of {_SIZE >> 20} MiB, one page of each mapped; "
                   f"Shmem +{_m1['Shmem'] - _m0['Shmem']} MiB, MemAvailable -{_m0['MemAvailable'] - _m1['MemAvailable']} MiB "
                   f"after {_full - _t0:.1f} s; after 15 s more Shmem +{_m2['Shmem'] - _m0['Shmem']} MiB")
''')]
