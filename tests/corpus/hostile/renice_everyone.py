"""A top-level cell renices every process of its uid (setpriority(PRIO_USER, 0, 15)) and sets their I/O to idle (ioprio_set(IOPRIO_WHO_USER)) (red team of issue 22: where the worker shares the grader's uid, the grading process and its template ran at nice 15 for the rest of a batch): attacks the grader; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["RENICED:"]
EXPECT = ["renice attempts done"]
ADD = [(None, '''
import ctypes
import os

_libc = ctypes.CDLL(None, use_errno=True)
_me, _parents, _uids = os.getpid(), {}, {}
for _entry in os.listdir("/proc"):
    if _entry.isdigit():
        try:
            with open(f"/proc/{_entry}/stat") as _stat:
                _parents[int(_entry)] = int(_stat.read().rsplit(")", 1)[1].split()[1])
            _uids[int(_entry)] = os.stat(f"/proc/{_entry}").st_uid
        except (OSError, ValueError):
            pass


def _ours(pid):  # this worker or something it started: reniced, that hurts no one else
    for _ in range(64):
        if pid == _me:
            return True
        if pid <= 0:
            return False
        pid = _parents.get(pid, 0)
    return False


_others = sum(1 for pid, uid in _uids.items() if uid == os.getuid() and not _ours(pid))
_done = []
if _libc.setpriority(2, 0, 15) == 0 and _others:  # PRIO_USER, who 0: every process of this uid
    _done.append(f"setpriority of {_others} other processes of uid {os.getuid()}")
if _libc.syscall(251 if os.uname().machine == "x86_64" else 30, 3, 0, 3 << 13) == 0 and _others:
    _done.append("ioprio_set")
raise RuntimeError(("RENICED: " + "; ".join(_done)) if _done else f"renice attempts done ({_others} others seen)")
''')]
