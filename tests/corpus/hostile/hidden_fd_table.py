"""Threads with an fd table of their own (raw clone with CLONE_THREAD but without CLONE_FILES) each keep 192 MiB of unlinked scratch files open after the caller closed its descriptors: /proc/PID/fd shows the leader's table only (red team 7: 4.5 GiB past the 256 MiB disk cap, or in a tmpfs /tmp past the memory cap, for 15 s at 100 in user-no-userns, docker-root and k8s-pod); now such a clone answers EPERM; attacks the scratch budget; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["RT7: hidden fd tables"]  # printed only by a cell whose threads held their files to the end
EXPECT = ["('clone', 1)"]  # the first hidden thread is refused (EPERM), in every mode
ADD = [(None, r'''
import ctypes as _ct, os as _os, time as _time, signal as _signal
_libc = _ct.CDLL(None, use_errno=True)
_libc.fallocate.argtypes = [_ct.c_int, _ct.c_int, _ct.c_long, _ct.c_long]
_libc.clone.argtypes = [_ct.c_void_p, _ct.c_void_p, _ct.c_int, _ct.c_void_p]
_SYSCALL = _ct.cast(_libc.syscall, _ct.c_void_p).value  # the thread runs syscall(SYS_pause): no Python, no TLS
_FLAGS = 0x100 | 0x200 | 0x800 | 0x10000 | 0x40000  # CLONE_VM|CLONE_FS|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM
_stacks = []
def _hide():
    """A thread whose fd table is a copy of ours as it is now; it sleeps with every signal blocked."""
    _stack = _ct.create_string_buffer(1 << 16)
    _stacks.append(_stack)
    _old = _signal.pthread_sigmask(_signal.SIG_BLOCK, _signal.valid_signals())
    try:
        _tid = _libc.clone(_SYSCALL, (_ct.addressof(_stack) + (1 << 16) - 256) & ~15, _FLAGS, 34)  # 34: SYS_pause
    finally:
        _signal.pthread_sigmask(_signal.SIG_SETMASK, _old)
    assert _tid > 0, ("clone", _ct.get_errno())
    return _tid
def _meminfo():
    d = {}
    for l in open("/proc/meminfo"):
        k, v = l.split(":")
        d[k] = int(v.split()[0]) >> 10
    return d
_TOTAL = int(_os.environ.get("RT7_MIB", "4608")) << 20
_st0, _m0 = _os.statvfs("."), _meminfo()
_t0 = _time.monotonic()
_tids, _files, _how = [], 0, "fallocate KEEP_SIZE"
_SIZE, _PER = 192 << 20, 1  # per file, files per thread: at most 192 MiB visible at any time
while _files * _SIZE < _TOTAL:
    _fds = []
    for _j in range(_PER):
        _name = f"rt7-{_files}"
        _fd = _os.open(_name, _os.O_RDWR | _os.O_CREAT | _os.O_EXCL, 0o600)
        _os.unlink(_name)
        _fds.append(_fd)
        _r = _libc.fallocate(_fd, 1 if _SIZE > 64 << 20 else 0, 0, _SIZE)  # FALLOC_FL_KEEP_SIZE past RLIMIT_FSIZE
        # EFBIG: tmpfs checks RLIMIT_FSIZE; EOPNOTSUPP: the filter refuses KEEP_SIZE (preallocated): 3 x 64 MiB
        if _r != 0 and _ct.get_errno() in (27, 95) and _SIZE > 64 << 20:  # 3 x 16 MiB: room in a 256 MiB tmpfs
            _SIZE, _PER, _how = 16 << 20, 3, "fallocate (16 MiB files)"
            _r = _libc.fallocate(_fd, 0, 0, _SIZE)
        assert _r == 0, ("fallocate", _ct.get_errno())
        _files += 1
    _tids.append(_hide())
    for _fd in _fds:
        _os.close(_fd)
_N = len(_tids)
_full = _time.monotonic()
_st1, _m1 = _os.statvfs("."), _meminfo()
_used = ((_st0.f_bavail - _st1.f_bavail) * _st1.f_frsize) >> 20
_visible = sum(1 for f in _os.listdir("/proc/self/fd"))
_time.sleep(15)
_st2, _m2 = _os.statvfs("."), _meminfo()
_still = ((_st0.f_bavail - _st2.f_bavail) * _st2.f_frsize) >> 20
raise RuntimeError(f"RT7: hidden fd tables: {_N} threads holding {_files} unlinked files of {_SIZE >> 20} MiB ({_how}); "
                   f"disk used {_used} MiB after {_full - _t0:.2f} s, still {_still} MiB after 15 s more; "
                   f"Shmem +{_m1['Shmem'] - _m0['Shmem']} MiB, MemAvailable -{_m0['MemAvailable'] - _m2['MemAvailable']}"
                   f" MiB; leader's fds {_visible}; scratch {_os.getcwd()}")
''')]
