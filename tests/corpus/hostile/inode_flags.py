"""A top-level cell that asks, through descriptors opened only to read, to set the inode flags and attributes of the Python installation's folders (the venv, its interpreter's prefix) to the values they already have (FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR): harmless if allowed, yet a worker that keeps the grader's uid could so have set sync/nodump/noatime on files it may only read, and they outlived the grade (red team 12); attacks the machine; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["INODE IOCTL ALLOWED"]
EXPECT = ["inode ioctls: none allowed"]
ADD = [(None, r'''
import errno as _errno, fcntl as _fcntl, os as _os, sys as _sys
_allowed, _seen = [], {}
for _path in dict.fromkeys([_sys.prefix, _sys.base_prefix, _os.path.dirname(_os.path.realpath(_sys.executable))]):
    try:
        _fd = _os.open(_path, _os.O_RDONLY | _os.O_DIRECTORY)
    except OSError:
        continue
    for _name, _get, _set, _size in (("SETFLAGS", 0x80086601, 0x40086602, 8), ("FSSETXATTR", 0x801C581F, 0x401C5820, 28)):
        try:
            _now = _fcntl.ioctl(_fd, _get, bytes(_size))  # what it has now: set back unchanged
        except OSError as _e:
            _seen[f"get {_errno.errorcode.get(_e.errno, _e.errno)}"] = 1
            continue
        try:
            _fcntl.ioctl(_fd, _set, _now)
            _allowed.append(f"{_name} {_path}")
        except OSError as _e:
            _seen[_errno.errorcode.get(_e.errno, str(_e.errno))] = 1
    _os.close(_fd)
raise RuntimeError(("INODE IOCTL ALLOWED: " + str(_allowed)) if _allowed else f"inode ioctls: none allowed {sorted(_seen)}")
''')]
