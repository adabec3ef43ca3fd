"""A top-level cell that lowers its PID namespace's pid_max (root of its own user namespace, kernel 6.14 on: the sysctl is per namespace and the namespace's root may write it), so that its pids wrap every few hundred starts and a count of its starts by the newest pid it shows sees almost none (found while fixing the churn misread of 2026-12-05, docs/history.md): attacks the watchdog's count of processes started; /proc/sys is read-only in the worker's root (EROFS), and the grader's uid may not write the host's (EACCES); every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["PID_MAX: lowered"]
EXPECT = ["PID_MAX: refused"]
ADD = [(None, '''
import errno as _errno
try:
    with open("/proc/sys/kernel/pid_max", "w") as _h:
        _h.write("400")
    _said = "PID_MAX: lowered to " + open("/proc/sys/kernel/pid_max").read().strip()
except OSError as _e:
    _said = "PID_MAX: refused " + _errno.errorcode.get(_e.errno, "?")
raise RuntimeError(_said)
''')]
