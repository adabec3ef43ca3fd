"""A top-level cell: 150 children split a mapping into ~65,000 areas each (/proc/PID/maps and smaps_rollup become ~10 million lines for the watchdog to read every sample), then two children touch 2.5 GiB each (5 GiB across the tree, each under its own 4 GiB limit) and hold it together for 3 s, which the slowed watchdog does not see; attacks the memory budget of the worker tree; every part keeps full points."""
from autograder.assignment import PART_IDS
# Measured (red team): with this case, docker-root and k8s-pod: "survived", both hogs held 5 GiB together for 3.2 and
# 3.3 s, exit statuses 0, score 100 (9,763,800 areas); user (user namespace, no maps to parse): killed at 5558 MiB.
# An earlier version that held until killed stayed over the cap 8.8 s and 10.1 s (docker-root) and 9.2 s (k8s-pod),
# seen from the host, against 0.06 s without the 150 children. Seen alongside, not understood: after such a kill the
# watchdog also killed trees as "process N of its tree hides its memory and files from the grader", and in
# docker-root 3 grades of 5 ended as "the grader failed on 69 check(s) ... no score was written" (a fresh worker
# could not start); one of them 4 s into the grade.
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["SLOW WATCHDOG: survived"]
EXPECT = []  # where the watchdog sees the hogs in time, the tree (and the cell that would report) is killed
BLOAT = '''
import ctypes as _ct, os as _os, select as _select, time as _time

def _areas():
    _libc = _ct.CDLL(None, use_errno=True)
    _libc.mmap.restype = _ct.c_void_p
    _libc.mmap.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int, _ct.c_int, _ct.c_int, _ct.c_long]
    _libc.mprotect.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int]
    _a = _libc.mmap(None, 256 << 20, 1, 0x22 | 0x4000, -1, 0)
    _n = 0
    for _i in range(1, (256 << 20) // 8192):
        if _libc.mprotect(_a + _i * 8192, 4096, 0) != 0:
            break
        _n += 2
    return _n

_r, _w = _os.pipe()
_go_r, _go_w = _os.pipe()
_kids = []
for _c in range(150):
    _pid = _os.fork()
    if _pid == 0:
        try:
            _os.read(_go_r, 1)
            _os.write(_w, f"{_areas()};".encode())
            _time.sleep(90)
        finally:
            _os._exit(0)
    _kids.append(_pid)
_os.close(_w)
_os.write(_go_w, b"g" * len(_kids))
'''
HOG = '''
_msg, _until = b"", _time.monotonic() + 15
while _msg.count(b";") < len(_kids) and _time.monotonic() < _until:
    if _select.select([_r], [], [], 0.5)[0]:
        _chunk = _os.read(_r, 65536)
        if not _chunk:
            break
        _msg += _chunk
_areas_total = sum(int(x) for x in _msg.decode().split(";") if x)
_hr, _hw = _os.pipe()
_hogs = []
for _h in range(2):
    _pid = _os.fork()
    if _pid == 0:
        try:
            _b = bytearray(5 << 29)  # 2.5 GiB
            for _at in range(0, len(_b), 4096):
                _b[_at] = 1
            _os.write(_hw, f"{_time.monotonic()};".encode())
            _os.read(_hr, 1)  # both filled: hold together for 3 s, then let go
            _time.sleep(3)
        finally:
            _os._exit(0)
    _hogs.append(_pid)
_filled = []
while len(_filled) < 2:
    _filled += [float(x) for x in _os.read(_hr, 100).decode().split(";") if x]
_os.write(_hw, b"gg")
_both = _time.monotonic()
_codes = [_os.waitpid(_p, 0)[1] for _p in _hogs]
_held = _time.monotonic() - _both
for _k in _kids:  # nothing of this cell outlives it
    try:
        _os.kill(_k, 9)
        _os.waitpid(_k, 0)
    except OSError:
        pass
_verdict = "survived" if _codes == [0, 0] else "killed"
raise RuntimeError(f"SLOW WATCHDOG: {_verdict}: {len(_kids)} children with {_areas_total} areas; both hogs "
                   f"(5 GiB) held together for {_held:.1f} s, exit statuses {_codes}")
'''
# One cell, for the reason page_tables.py gives.
ADD = [(None, BLOAT + HOG)]
