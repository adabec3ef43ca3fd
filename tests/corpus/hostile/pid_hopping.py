"""A top-level cell: three child Pythons each hold 1.5 GiB (transparent huge pages: a fork copies little) and keep changing pid, forking and letting the parent exit at once, so that each pid the watchdog lists is gone when it reads that process's memory (third attack on issue 27, a prototype: 1.8 GiB counted as 0-7 MiB in 38 of 40 samples); attacks the memory budget of the worker tree; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["HOP: held"]
EXPECT = []  # where the tree is killed, so is the cell that would report
HOPPER = r'''
import mmap, os, sys, time
mib, seconds, report = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
m = mmap.mmap(-1, mib << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
try:
    m.madvise(mmap.MADV_HUGEPAGE)
except (AttributeError, OSError):
    pass
for fill in range(0, mib << 20, 1 << 21):  # one byte per 2 MiB: a whole huge page each
    m[fill] = 1
fill, hops, start = mib << 20, 0, time.monotonic()
while time.monotonic() < start + seconds:
    if os.fork():
        os._exit(0)
    hops += 1
os.write(report, f"held {fill >> 20} MiB for {time.monotonic() - start:.1f} s in {hops} hops\n".encode())
os._exit(0)
'''
ADD = [(None, '''
import os as _os, select as _select, subprocess as _sp, sys as _sys, time as _time
_r, _w = _os.pipe()
_kids = []
for _ in range(3):  # one after another: each is seen while it fills (1.5 GiB), then no more
    _kids.append(_sp.Popen([_sys.executable, "-S", "-c", ''' + repr(HOPPER) + ''', "1536", "8", str(_w)], pass_fds=[_w]))
    _time.sleep(1.5)
_os.close(_w)
_got, _until = b"", _time.monotonic() + 25
while _got.count(b"\\n") < 3 and _time.monotonic() < _until:
    if _select.select([_r], [], [], 0.5)[0]:
        _chunk = _os.read(_r, 4096)
        if not _chunk:
            break
        _got += _chunk
_lines = _got.decode().strip().splitlines()
_verdict = "held" if len(_lines) == 3 and all(_l.startswith("held 1536 MiB") for _l in _lines) else "stopped"
raise RuntimeError(f"HOP: {_verdict}: " + " / ".join(_lines))
''')]
