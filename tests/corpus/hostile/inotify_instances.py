"""A top-level cell makes inotify instances until refused, each watching its work directory (issue 27: 128 instances, the whole allowance of the grader's uid, leaving none to the grader and its other workers, and watches that pin kernel memory): attacks the machine's per-user tables; inotify answers ENOSYS; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["INOTIFY: held"]
EXPECT = ["INOTIFY: refused ENOSYS after 0"]
ADD = [(None, '''
import ctypes as _ctypes
import errno as _errno

_libc = _ctypes.CDLL(None, use_errno=True)
_fds, _why = [], "none"
for _ in range(200):
    _fd = _libc.inotify_init1(0)
    if _fd < 0:
        _why = _errno.errorcode.get(_ctypes.get_errno(), "?")
        break
    _libc.inotify_add_watch(_fd, b".", 0xFFF)
    _fds.append(_fd)
if len(_fds) > 8:
    raise RuntimeError(f"INOTIFY: held {len(_fds)} instances ({_why})")
raise RuntimeError(f"INOTIFY: refused {_why} after {len(_fds)}")
''')]
