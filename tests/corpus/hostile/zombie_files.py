"""A top-level cell: a child whose first thread exits (syscall(SYS_exit)) while a second thread writes 6 files of 64 MiB in the scratch, unlinks them and holds them open (second red team of issue 27: a zombie leader's /proc/PID/fd is empty, so open unlinked files there go uncounted where the scratch is on the host's file system); attacks the disk budget; every part keeps full points."""
from autograder.assignment import PART_IDS

from .zombie_leader import FORK
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["ZOMBIE FILES: held"]
EXPECT = []  # where the tree is killed, so is the cell that would report
HOLD = '''
def _hold():
    _fds, _mib, _chunk = [], 0, b"\\x3c" * (1 << 20)
    for _n in range(6):
        _path = _os.path.join(_os.environ.get("TMPDIR", "."), f"zombie{_n}")
        try:
            _fd = _os.open(_path, _os.O_CREAT | _os.O_RDWR, 0o600)
            _os.unlink(_path)
            _fds.append(_fd)
            for _ in range(64):
                _os.write(_fd, _chunk)
                _mib += 1
        except OSError:
            break
    globals()["_kept"] = _fds
    return str(_mib)
'''
VERDICT = '''
_mib = sum(int(x) for x in _reports if x.isdigit())
for _k in _kids:  # nothing of this cell outlives it
    try:
        _os.kill(_k, 9)
        _os.waitpid(_k, 0)
    except OSError:
        pass
_verdict = "held" if _mib > 300 and _alive else "stopped"
raise RuntimeError(f"ZOMBIE FILES: {_verdict}: {_mib} MiB written to unlinked files, {_alive} alive 3 s later")
'''
ADD = [(None, "import os as _os\n" + HOLD + FORK.replace("__CHILDREN__", "1") + VERDICT)]
