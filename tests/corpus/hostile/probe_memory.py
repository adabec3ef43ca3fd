"""A top-level cell that watches ns_last_pid for the keeper's pid probe (a clone(CLONE_VM) of the keeper, so it shares the keeper's memory for the microseconds it lives, in the worker's PID namespace) and opens /proc/PROBE/mem on each: an open file would keep the keeper's memory readable and writable for the keeper's life (red team 11: EACCES on 21 live probes, the keeper holding capabilities the worker has not); where the worker is not PID 1 of a namespace of its own (no probe there) the cell only says so; attacks the keeper; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["RT11 MEM: opened"]
EXPECT = []
ADD = [(None, r'''
import errno as _errno, os as _os, time as _time
if _os.getpid() != 1:  # no PID namespace of its own: no probe to open
    raise RuntimeError("RT11 MEM: no PID namespace here")
_fd = _os.open("/proc/sys/kernel/ns_last_pid", _os.O_RDONLY)
_seen, _opened, _last, _t0 = {}, [], int(_os.pread(_fd, 32, 0)), _time.monotonic()
while _time.monotonic() - _t0 < 2.0:
    _v = int(_os.pread(_fd, 32, 0))
    if _v == _last:
        continue
    _last = _v
    try:
        _h = _os.open(f"/proc/{_v}/mem", _os.O_RDWR)
    except OSError as _e:
        _k = _errno.errorcode.get(_e.errno, str(_e.errno))
        _seen[_k] = _seen.get(_k, 0) + 1
        continue
    try:
        _stat = open(f"/proc/{_v}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        _stat = ["?", "?"]
    _os.close(_h)
    if _stat[1] == "0":  # its parent is outside this namespace: the keeper's probe, not a process of this tree
        _opened.append(_v)
raise RuntimeError(("RT11 MEM: opened " + str(_opened)) if _opened else f"RT11 MEM: refused {_seen}")
''')]
