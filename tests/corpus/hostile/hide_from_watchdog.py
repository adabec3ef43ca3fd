"""Top-level cells that make the worker not dumpable (prctl(PR_SET_DUMPABLE, 0)), then fork 3 children that each touch 1.5 GiB (issue 27: a keeper without CAP_SYS_PTRACE could read no /proc file of such a tree, counted it as 0, and a 6 GiB tree scored 100): attacks the memory budget of the whole worker tree; prctl answers EPERM, and a process the watchdog cannot read would end the tree; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["HIDE: tree survived True"]
EXPECT = ["HIDE: prctl(PR_SET_DUMPABLE, 0) refused EPERM"]
# Two cells, each reporting by raising (a cell's error is in the feedback): the first says what prctl answered, the
# second would be cut short where the watchdog kills the tree.
PRCTL = '''
import ctypes as _ctypes
import errno as _errno

_libc = _ctypes.CDLL(None, use_errno=True)
_libc.prctl.argtypes = [_ctypes.c_int, _ctypes.c_ulong, _ctypes.c_ulong, _ctypes.c_ulong, _ctypes.c_ulong]
if _libc.prctl(4, 0, 0, 0, 0) == 0:
    raise RuntimeError(f"{_TAG}: prctl(PR_SET_DUMPABLE, 0) took: dumpable {_libc.prctl(3, 0, 0, 0, 0)}")
raise RuntimeError(f"{_TAG}: prctl(PR_SET_DUMPABLE, 0) refused {_errno.errorcode[_ctypes.get_errno()]}")
'''
ADD = [(None, '_TAG = "HIDE"\n' + PRCTL), (None, '''
import ctypes as _ctypes
import os as _os
import time as _time

_libc = _ctypes.CDLL(None)
_libc.prctl(4, 0, 0, 0, 0)  # again: this cell may run in a worker started anew
_kids = []
for _ in range(3):
    _pid = _os.fork()
    if _pid == 0:
        try:
            _block = bytearray(3 << 29)  # 1.5 GiB
            for _at in range(0, len(_block), 4096):
                _block[_at] = 1
            _time.sleep(2)
        finally:
            _os._exit(0)
    _kids.append(_pid)
_survived = all(_os.waitpid(_k, 0)[1] == 0 for _k in _kids)
raise RuntimeError(f"HIDE: tree survived {_survived}")
''')]
