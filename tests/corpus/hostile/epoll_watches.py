"""Top-level cells whose children each open 250 epoll instances and 250 eventfds and watch every eventfd from every instance (62,500 watches a process, an epitem of slab each, charged to the uid's fs.epoll.max_user_watches and to no PSS): kernel memory the watchdog does not see, and, where the worker shares the grader's uid (Landlock without a uid of its own), every watch the grader's uid may hold; attacks the memory budget of the worker tree; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["EPOLL: pinned"]
EXPECT = ["EPOLL: refused"]
CHILDREN = 100
FORK = '''
import os as _os, select as _select, time as _time

def _meminfo():
    with open("/proc/meminfo") as _h:
        return {l.split(":")[0]: int(l.split()[1]) for l in _h}

_before = _meminfo()
_r, _w = _os.pipe()
_go_r, _go_w = _os.pipe()
_kids = []
for _c in range(__CHILDREN__):
    _pid = _os.fork()
    if _pid == 0:
        _n, _said = 0, ""
        try:
            _os.read(_go_r, 1)
            _eps, _evs = [], []
            for _i in range(250):
                _eps.append(_select.epoll())
                _evs.append(_os.eventfd(0))
            for _ep in _eps:
                for _ev in _evs:
                    _ep.register(_ev, _select.EPOLLIN)
                    _n += 1
        except BaseException as _e:
            _said = repr(_e)[:60]
        _os.write(_w, f"{_n}:{_said};".encode())
        _time.sleep(60)
        _os._exit(0)
    _kids.append(_pid)
_os.close(_w)
_os.write(_go_w, b"g" * len(_kids))
'''
REPORT = '''
_msg, _until = b"", _time.monotonic() + 24
while _msg.count(b";") < len(_kids) and _time.monotonic() < _until:
    if _select.select([_r], [], [], 0.5)[0]:
        _chunk = _os.read(_r, 65536)
        if not _chunk:
            break
        _msg += _chunk
_after = _meminfo()
_rows = [x.split(":", 1) for x in _msg.decode().split(";") if x]
_watches = sum(int(n) for n, _ in _rows)
_errors = sorted({e for _, e in _rows if e})
_d = {k: (_after[k] - _before[k]) >> 10 for k in ("Slab", "SUnreclaim", "MemAvailable")}
_alive = sum(_os.waitpid(_k, _os.WNOHANG)[0] == 0 for _k in _kids)
raise RuntimeError(f"EPOLL: {'pinned' if _watches else 'refused'}: {_alive} children alive, {len(_rows)} reported "
                   f"{_watches} watches; errors {_errors[:3]}; host meminfo delta (MiB) {_d}")
'''
ADD = [(None, FORK.replace("__CHILDREN__", str(CHILDREN))), (None, REPORT)]
