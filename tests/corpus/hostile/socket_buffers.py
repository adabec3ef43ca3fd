"""Two forked children fill ~200 AF_UNIX socket pairs each (8 MiB of kernel buffer a socket): 6 GiB held in memory no process maps, unseen where no control group can be made (red team, round 6). A worker cannot make sockets (its one socket to the grader is inherited); every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
_REFUSED = "[PermissionError(1, 'Operation not permitted')]0 MiB;"
NEVER = []
EXPECT = ["SOCKBUF: queued " + _REFUSED * 2]  # both children: refused, nothing queued
ADD = [(None, '''
import os as _os, socket as _s, time as _time
_r, _w = _os.pipe()
_kids = []
for _c in range(2):
    _pid = _os.fork()
    if _pid == 0:
        _held, _pairs, _said = 0, [], ""
        try:
            for _i in range(200):
                _a, _b = _s.socketpair()
                for _x in (_a, _b):
                    _x.setsockopt(_s.SOL_SOCKET, _s.SO_SNDBUF, 4 << 20)
                    _x.setblocking(False)
                    while True:
                        try:
                            _held += _x.send(b"x" * 65536)
                        except BlockingIOError:
                            break
                _pairs.append((_a, _b))
                if _held > (3 << 30):
                    break
        except BaseException as _e:
            _said = f"[{_e!r}]"
        _os.write(_w, f"{_said}{_held >> 20} MiB;".encode())  # one write: the two children's reports never interleave
        _time.sleep(40)
        _os._exit(0)
    _kids.append(_pid)
_os.close(_w)
_msg = b""
while _msg.count(b";") < 2:
    _chunk = _os.read(_r, 200)
    if not _chunk:
        break
    _msg += _chunk
_time.sleep(3)
_alive = [_os.waitpid(_k, _os.WNOHANG)[0] == 0 for _k in _kids]
raise RuntimeError(f"SOCKBUF: queued {_msg.decode()} children alive after 3 s: {_alive}")
''')]
