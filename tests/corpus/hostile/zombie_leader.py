"""Top-level cells: 4 children whose first thread exits (syscall(SYS_exit)) while a second thread touches 1.5 GiB and holds it, 6 GiB across the tree (second red team of issue 27: such a process's /proc/PID is a zombie's, with no memory to show, and five of them held 5.2 GiB against a 4 GiB cap at score 100); attacks the memory budget of the worker tree; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["ZOMBIE LEADER: survived"]
EXPECT = []  # where the tree is killed, so is the cell that would report
# Shared with zombie_files: fork CHILDREN children whose main thread exits once a second thread runs HOLD, which
# writes one line to the pipe _w when it holds what it set out to hold.
FORK = '''
import ctypes as _ct, os as _os, select as _select, threading as _th, time as _time

_SYS_EXIT = {"x86_64": 60, "aarch64": 93}[_os.uname().machine]
_r, _w = _os.pipe()
_kids = []
for _c in range(__CHILDREN__):
    _pid = _os.fork()
    if _pid == 0:
        def _thread():
            try:
                _time.sleep(0.5)  # once the leader is a zombie
                _os.write(_w, (_hold() + "\\n").encode())
                _time.sleep(30)
            finally:
                _os._exit(0)
        _th.Thread(target=_thread).start()
        _ct.CDLL(None).syscall(_SYS_EXIT, 0)  # this thread only: the leader is a zombie, the other thread runs on
        _os._exit(1)
    _kids.append(_pid)
_os.close(_w)
_got, _until = b"", _time.monotonic() + 25
while _got.count(b"\\n") < len(_kids) and _time.monotonic() < _until:
    if _select.select([_r], [], [], 0.5)[0]:
        _chunk = _os.read(_r, 4096)
        if not _chunk:
            break
        _got += _chunk
_time.sleep(3)
_alive = sum(_os.waitpid(_k, _os.WNOHANG)[0] == 0 for _k in _kids)  # 0: some thread of it still runs
_reports = _got.decode().split()
'''
HOLD = '''
def _hold():
    _block = bytearray(3 << 29)  # 1.5 GiB
    for _at in range(0, len(_block), 4096):
        _block[_at] = 1
    globals()["_kept"] = _block
    return "filled"
'''
VERDICT = '''
for _k in _kids:  # nothing of this cell outlives it
    try:
        _os.kill(_k, 9)
        _os.waitpid(_k, 0)
    except OSError:
        pass
_verdict = "survived" if _reports.count("filled") == len(_kids) and _alive == len(_kids) else "stopped"
raise RuntimeError(f"ZOMBIE LEADER: {_verdict}: {_reports.count('filled')} of {len(_kids)} children filled 1.5 GiB, "
                   f"{_alive} alive 3 s later")
'''
ADD = [(None, HOLD + FORK.replace("__CHILDREN__", "4") + VERDICT)]
