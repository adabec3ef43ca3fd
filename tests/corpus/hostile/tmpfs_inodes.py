"""Top-level cells whose children fill the worker's private tmpfs mounts (/tmp, /var/tmp, /dev/shm) with empty files: an inode and a dentry each, kernel memory that takes no block of the mount, so that the watchdog's statvfs count of the scratch (blocks used) stays at 0 while the tree pins GiBs of slab; attacks the memory and scratch-disk budgets where a private tmpfs is the scratch (user namespace): each mount holds at most 20,000 inodes, so nothing is pinned; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["TMPFS INODES: pinned"]
EXPECT = ["TMPFS INODES: "]  # "bounded", or no file made where there is no private tmpfs
FORK = '''
import os as _os, time as _time

def _meminfo():
    with open("/proc/meminfo") as _h:
        return {l.split(":")[0]: int(l.split()[1]) for l in _h}

_before = _meminfo()
_r, _w = _os.pipe()
_kids = []
for _top in ("/tmp", "/var/tmp", "/dev/shm"):
    _pid = _os.fork()
    if _pid == 0:
        _n, _said, _end = 0, "", _time.monotonic() + 20
        try:
            _d = _os.path.join(_top, f"inodes{_os.getpid()}")
            _os.mkdir(_d)
            while _time.monotonic() < _end:
                _sub = f"{_d}/{_n // 10000}"
                _os.mkdir(_sub)
                for _i in range(10000):
                    _os.mknod(f"{_sub}/{_i}")
                _n += 10000
        except BaseException as _e:
            _said = repr(_e)[:80]
        _st = _os.statvfs(_top)
        _os.write(_w, f"{_top}:{_n}:{(_st.f_blocks - _st.f_bfree) * _st.f_frsize >> 10}:{_st.f_files - _st.f_ffree}:{_said};".encode())
        _time.sleep(60)
        _os._exit(0)
    _kids.append(_pid)
_os.close(_w)
'''
REPORT = '''
import select as _select
_msg, _until = b"", _time.monotonic() + 24
while _msg.count(b";") < len(_kids) and _time.monotonic() < _until:
    if _select.select([_r], [], [], 0.5)[0]:
        _chunk = _os.read(_r, 4096)
        if not _chunk:
            break
        _msg += _chunk
_after = _meminfo()
_d = {k: (_after[k] - _before[k]) >> 10 for k in ("Slab", "SReclaimable", "SUnreclaim", "Shmem", "MemAvailable")}
_alive = sum(_os.waitpid(_k, _os.WNOHANG)[0] == 0 for _k in _kids)
# Made, across the mounts: each may hold 20,000 entries (its nr_inodes), a few more directories aside.
_made = sum(int(_part.split(":")[1]) for _part in _msg.decode().split(";") if _part.count(":") >= 4)
raise RuntimeError(f"TMPFS INODES: {'pinned' if _made > 3 * 20_000 else 'bounded'}: {_made} files made, {_alive} "
                   f"children alive; mount:files:KiB of "
                   f"blocks used:inodes used:error {_msg.decode()} host meminfo delta (MiB) {_d}")
'''
# Two cells (one has 30 s): the children create files for 20 s while the next waits for their reports. (For 45 s, in
# the user environment: 6.5 million files, 0 KiB of blocks, slab +6.4 GiB, MemAvailable -8.2 GiB, scored 100.)
ADD = [(None, FORK), (None, REPORT)]
