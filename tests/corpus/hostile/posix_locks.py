"""A top-level cell takes byte-range locks (fcntl F_SETLK through lockf, and open file description locks, F_OFD_SETLK), one byte every other byte of files it may read (issue 27: 96 children held locks on 46,000 files under /usr, 5 GiB of kernel memory that no budget counted, at score 100): attacks the machine's memory; the lock commands answer ENOLCK; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["LOCKS: held"]
EXPECT = ["LOCKS: refused ENOLCK ENOLCK"]
ADD = [(None, '''
import errno as _errno
import fcntl as _fcntl
import os as _os
import struct as _struct

_held, _said = 0, {}
_files = [_os.path.join(_d, _n) for _d in (_os.path.dirname(_os.__file__), "/usr/bin", "/bin")
          if _os.path.isdir(_d) for _n in sorted(_os.listdir(_d))[:40]]
for _path in _files:
    try:
        _fd = _os.open(_path, _os.O_RDONLY)
    except OSError:
        continue
    for _at in range(0, 4000, 2):
        try:
            _fcntl.lockf(_fd, _fcntl.LOCK_SH | _fcntl.LOCK_NB, 1, _at)  # F_SETLK, F_RDLCK
            _held += 1
        except OSError as _err:
            _said.setdefault("posix", _errno.errorcode.get(_err.errno, _err.errno))
            break
    try:  # struct flock: type F_RDLCK, whence, start, len, pid 0 (as F_OFD_SETLK requires)
        _fcntl.fcntl(_fd, 37, _struct.pack("hhqqi4x", 0, 0, 1, 1, 0))
        _held += 1
    except OSError as _err:
        _said.setdefault("ofd", _errno.errorcode.get(_err.errno, _err.errno))
    # kept open: closing a descriptor releases its process's POSIX locks on that file
if _held > 1000:
    raise RuntimeError(f"LOCKS: held {_held} locks on {len(_files)} files")
raise RuntimeError(f"LOCKS: refused {_said.get('posix')} {_said.get('ofd')} ({_held} taken)")
''')]
