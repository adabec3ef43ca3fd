"""A top-level cell makes inotify instances until refused, each watching its work directory (issue 27: 128 instances, the whole allowance of the grader's uid, leaving none to the grader and its other workers, and watches that pin kernel memory), then epoll instances watching many descriptors (a watch per pair, up to the uid's fs.epoll.max_user_watches: ~1 GiB of slab): attacks the machine's per-user tables; both answer ENOSYS; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["INOTIFY: held", "EPOLL: held"]
EXPECT = ["INOTIFY: refused ENOSYS after 0", "EPOLL: refused ENOSYS"]
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
_said = f"INOTIFY: held {len(_fds)} instances ({_why})" if len(_fds) > 8 else f"INOTIFY: refused {_why} after {len(_fds)}"
_ep = _libc.epoll_create1(0)
if _ep < 0:
    _said += " EPOLL: refused " + _errno.errorcode.get(_ctypes.get_errno(), "?")
else:
    _event = (_ctypes.c_uint8 * 12)()
    _held = sum(_libc.epoll_ctl(_ep, 1, fd, _event) == 0 for fd in range(3))
    _said += f" EPOLL: held an instance with {_held} watches"
raise RuntimeError(_said)
''')]
