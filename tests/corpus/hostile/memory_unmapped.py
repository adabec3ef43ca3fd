"""A top-level cell holds memory that no process maps: memfds filled with write() and files in the private tmpfs scratch mounts, then 2 x 1.8 GiB in children, so the tree holds ~4.4 GiB while its processes' PSS sums to ~3.7 GiB: where no control group can be made the watchdog counted PSS only and never fired (6 GiB held in 96 memfds; red team, round 5). memfd_create and shmget answer ENOSYS, the watchdog counts the tmpfs mounts (without namespaces: the scratch folder, against its own 256 MiB), and the tree is stopped at its budget; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["tree survived True", "MEMFD: held"]
EXPECT = ["MEMFD: refused ENOSYS"]
# Two cells, each reporting by raising: a cell's prints are not in the feedback, its error is.
ADD = [(None, '''
import errno as _errno
import os as _os

_block = bytes(range(256)) * 4096  # 1 MiB, not zeros
try:
    _fd = _os.memfd_create("park")  # kept open: if this ever works, the next cell piles on top
    for _ in range(64):
        _os.write(_fd, _block)
    raise RuntimeError("MEMFD: held 64 MiB")
except OSError as _err:
    raise RuntimeError(f"MEMFD: refused {_errno.errorcode.get(_err.errno, _err.errno)}") from None
'''), (None, '''
import os as _os
import time as _time

_block = bytes(range(256)) * 4096
_files = 0
# The worker's own scratch (TMPDIR: a private tmpfs, or without namespaces a folder on the host) and the rest.
for _dir in dict.fromkeys((_os.environ.get("TMPDIR", "/tmp"), "/tmp", "/var/tmp", "/dev/shm")):
    for _k in range(6):
        try:
            with open(f"{_dir}/unmapped{_k}", "wb") as _f:
                for _ in range(64):
                    _f.write(_block)
                    _files += 1
        except OSError:
            pass
_kids = []
for _c in range(2):
    _pid = _os.fork()
    if _pid == 0:
        _x = bytearray(1800 << 20)
        for _i in range(0, len(_x), 4096):
            _x[_i] = 1
        _time.sleep(6)
        _os._exit(0)
    _kids.append(_pid)
_survived = all(_os.waitpid(_k, 0)[1] == 0 for _k in _kids)
raise RuntimeError(f"UNMAPPED: {_files} MiB in tmpfs files; tree survived {_survived}")
''')]
