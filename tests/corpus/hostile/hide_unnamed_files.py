"""Top-level cells that make the worker not dumpable (prctl(PR_SET_DUMPABLE, 0)), then write 16 files of 64 MiB in its scratch, unlink them and hold them open (issue 27: where the scratch is on the host's file system, the watchdog could not read /proc/PID/fd or maps, and /tmp grew by 1 GiB past the 256 MiB cap at score 100): attacks the disk budget; prctl answers EPERM, a process the watchdog cannot read would end the tree, and a private tmpfs fills up; every part keeps full points."""
from autograder.assignment import PART_IDS

from .hide_from_watchdog import PRCTL
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["HIDDEN FILES: held"]
EXPECT = ["HIDDEN FILES: prctl(PR_SET_DUMPABLE, 0) refused EPERM"]
ADD = [(None, '_TAG = "HIDDEN FILES"\n' + PRCTL), (None, '''
import ctypes as _ctypes
import os as _os
import time as _time

_ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
_held, _mib, _block = [], 0, b"\\x3c" * (1 << 20)
for _n in range(16):
    _path = _os.path.join(_os.environ.get("TMPDIR", "."), f"hidden{_n}")
    try:
        _fd = _os.open(_path, _os.O_CREAT | _os.O_RDWR, 0o600)
        _os.unlink(_path)
        _held.append(_fd)
        for _ in range(64):
            _os.write(_fd, _block)
            _mib += 1
    except OSError:
        break
_time.sleep(3)
if _mib > 300:
    raise RuntimeError(f"HIDDEN FILES: held {_mib} MiB in {len(_held)} unlinked files")
raise RuntimeError(f"hidden files: {_mib} MiB before the file system said no")
''')]
