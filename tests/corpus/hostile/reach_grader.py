"""A top-level cell that looks for the grading processes (every pid it can see) and tries to reach them: ptrace attach, read their environ and memory, lower their limits (prlimit), renice them, pin them to a CPU, then SIGKILL each: attacks the grader; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["REACHED:"]
EXPECT = ["reach attempts done: none succeeded"]
ADD = [(None, '''
import ctypes
import os
import signal

libc = ctypes.CDLL(None, use_errno=True)
me, mine = os.getpid(), set()
try:
    for folder in os.listdir(f"/proc/{me}/task"):
        mine.add(int(folder))
except OSError:
    pass
pids = []
for entry in os.listdir("/proc"):
    if entry.isdigit() and int(entry) != me and int(entry) not in mine:
        try:
            with open(f"/proc/{entry}/stat") as handle:
                parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            if parent != me:  # not a child of ours
                pids.append(int(entry))
        except (OSError, ValueError):
            pass
reached = []
for pid in pids:
    if libc.ptrace(ctypes.c_long(16), ctypes.c_long(pid), None, None) == 0:  # PTRACE_ATTACH
        reached.append(f"ptrace {pid}")
    for name in ("environ", "mem"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as handle:
                if handle.read(64) and name == "environ":
                    reached.append(f"{name} {pid}")
        except OSError:
            pass
    if libc.prlimit(ctypes.c_int(pid), 0, None, ctypes.create_string_buffer(16)) == 0:  # RLIMIT_CPU, read only
        reached.append(f"prlimit {pid}")
    if libc.setpriority(0, pid, 19) == 0:
        reached.append(f"setpriority {pid}")
for pid in pids:
    try:
        os.kill(pid, signal.SIGKILL)
        reached.append(f"kill {pid}")
    except OSError:
        pass
raise RuntimeError(("REACHED: " + "; ".join(reached)) if reached else f"reach attempts done: none succeeded ({len(pids)} processes seen)")
''')]
