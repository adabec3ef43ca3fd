"""Three scratch files with 2 GiB preallocated past their size (fallocate FALLOC_FL_KEEP_SIZE, which RLIMIT_FSIZE does not check), one page of each mapped, then unlinked and closed: each was charged 64 MiB (red team 7: 6 GiB on the host's disk for 15 s at 100 in user-no-userns, docker-root and k8s-pod); now KEEP_SIZE answers EOPNOTSUPP; attacks the scratch budget; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["RT7: 3 preallocated files"]  # printed only by a cell that held it to the end
EXPECT = ["('fallocate', 95)"]  # EOPNOTSUPP from the system-call filter, in every mode
ADD = [(None, r'''
import ctypes as _ct, os as _os, time as _time
_libc = _ct.CDLL(None, use_errno=True)
_libc.mmap.restype = _ct.c_void_p
_libc.mmap.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int, _ct.c_int, _ct.c_int, _ct.c_long]
_libc.fallocate.argtypes = [_ct.c_int, _ct.c_int, _ct.c_long, _ct.c_long]
def _meminfo():
    d = {}
    for l in open("/proc/meminfo"):
        k, v = l.split(":")
        d[k] = int(v.split()[0]) >> 10
    return d
_N, _SIZE = 3, 2048 << 20
_held, _times = [], []
_st0, _m0 = _os.statvfs("."), _meminfo()
_t0 = _time.monotonic()
for _k in range(_N):
    _name = f"rt7-{_k}"
    _fd = _os.open(_name, _os.O_RDWR | _os.O_CREAT | _os.O_EXCL, 0o600)
    _os.ftruncate(_fd, 4096)
    _p = _libc.mmap(None, 4096, 1, 1, _fd, 0)  # PROT_READ, MAP_SHARED
    assert _p not in (None, _ct.c_void_p(-1).value), _ct.get_errno()
    _held.append(_p)
    _os.unlink(_name)
    _t = _time.monotonic()
    _r = _libc.fallocate(_fd, 1, 4096, _SIZE - 4096)  # FALLOC_FL_KEEP_SIZE: no RLIMIT_FSIZE check
    _os.close(_fd)
    _times.append(_time.monotonic() - _t)
    assert _r == 0, ("fallocate", _ct.get_errno())
_full = _time.monotonic()
_st1, _m1 = _os.statvfs("."), _meminfo()
_used = ((_st0.f_bavail - _st1.f_bavail) * _st1.f_frsize) >> 20
_time.sleep(15)
_st2, _m2 = _os.statvfs("."), _meminfo()
_still = ((_st0.f_bavail - _st2.f_bavail) * _st2.f_frsize) >> 20
raise RuntimeError(f"RT7: {_N} preallocated files of {_SIZE >> 20} MiB, one page mapped each; disk used {_used} MiB "
                   f"after {_full - _t0:.2f} s (fallocate {max(_times) * 1000:.1f} ms at most), still {_still} MiB "
                   f"after 15 s more; Shmem +{_m1['Shmem'] - _m0['Shmem']} MiB, MemAvailable "
                   f"-{_m0['MemAvailable'] - _m2['MemAvailable']} MiB; scratch {_os.getcwd()}")
''')]
