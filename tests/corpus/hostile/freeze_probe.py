"""A top-level cell that watches ns_last_pid (its own PID namespace's) for the keeper's pid probe (then /bin/true; a child process started in the worker's PID namespace, in user namespace mode as root of the user namespace the worker is root of too) and stops it (SIGSTOP): the keeper waited for that probe, so the watchdog took no sample while two children held 3 GiB each (red team 9: 6 GiB against the 4 GiB cap for 12 s, at score 100, in grade and grade-all); the probe is now a clone() that exits at once, which the keeper polls for at most PROBE_SECONDS, and a probe still there ends the tree; where the worker is not PID 1 of a namespace of its own (no probe) or may not signal the probe (its own uid), the cell only says so; attacks every watchdog cap; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["RT9 FREEZE: held"]
EXPECT = []
HOG = r'''
import mmap, os, sys, time
mib, seconds, report = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
m = mmap.mmap(-1, mib << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
for i in range(0, mib << 20, 4096):
    m[i] = 1
rss = [l for l in open("/proc/self/status") if l.startswith("VmRSS")][0].split()[1]
t = time.monotonic()
time.sleep(seconds)
os.write(report, f"held VmRSS {int(rss) >> 10} MiB for {time.monotonic() - t:.1f} s\n".encode())
os._exit(0)
'''
ADD = [(None, '''
import os as _os, signal as _signal, subprocess as _sp, sys as _sys, time as _time, select as _select
if _os.getpid() != 1:  # no PID namespace of its own: no probe, and the host's pids are not this case's to stop
    raise RuntimeError("RT9 FREEZE: no PID namespace here")
_fd = _os.open("/proc/sys/kernel/ns_last_pid", _os.O_RDONLY)
def _stat(_p):
    try:
        _s = open(f"/proc/{_p}/stat").read()
        _f = _s.rsplit(")", 1)[1].split()
        return _f[1], _f[0]  # parent pid (0: outside this namespace, the keeper), state
    except OSError:
        return None, None
_last, _caught, _tries, _t0 = int(_os.pread(_fd, 32, 0)), None, 0, _time.monotonic()
while _caught is None and _time.monotonic() - _t0 < 5:
    _v = int(_os.pread(_fd, 32, 0))
    if _v == _last:
        continue
    _last = _v
    try:
        _os.kill(_v, _signal.SIGSTOP)
    except OSError:
        continue
    _tries += 1
    _time.sleep(0.01)
    _name, _state = _stat(_v)
    if _state == "T" and _name == "0":  # the keeper's probe (its parent is outside), not a process of this tree
        _caught = (_v, _name)
    else:
        try:
            _os.kill(_v, _signal.SIGCONT)
        except OSError:
            pass
if _caught is None:
    raise RuntimeError(f"RT9 FREEZE: no probe caught in {_tries} tries")
# is the keeper still sampling? (a probe each sample)
_before = int(_os.pread(_fd, 32, 0)); _time.sleep(2.0); _after = int(_os.pread(_fd, 32, 0))
_r, _w = _os.pipe()
_errf = open("/tmp/rt9_hog_err", "w+")
_th = _time.monotonic()
_kids = [_sp.Popen([_sys.executable, "-S", "-c", ''' + repr(HOG) + ''', "3072", "12", str(_w)], pass_fds=[_w], stderr=_errf) for _ in range(2)]
_os.close(_w)
_got, _until = b"", _time.monotonic() + 25
while _got.count(b"\\n") < 2 and _time.monotonic() < _until:
    if _select.select([_r], [], [], 0.5)[0]:
        _c = _os.read(_r, 4096)
        if not _c:
            break
        _got += _c
_codes = [_k.wait() for _k in _kids]
_errf.seek(0); _err = _errf.read()[-300:]
_tw = _time.monotonic() - _th
_os.kill(_caught[0], _signal.SIGCONT)
_time.sleep(1.0)
_resumed = int(_os.pread(_fd, 32, 0))
_held = _got.decode().count("held VmRSS") == 2  # both children held their 3 GiB for the whole 12 s
raise RuntimeError(f"RT9 FREEZE: {'held' if _held else 'not held'}: probe {_caught} stopped after {_tries} tries; probes in 2 s while stopped: {_after - _before}; " + " / ".join(_got.decode().strip().splitlines()) + f"; hogs exit {_codes} after {_tw:.1f} s, stderr {_err!r}; after SIGCONT pid counter {_after} -> {_resumed}")
''')]
