"""A top-level cell: three processes each hold 1.5 GiB and move to a new pid by clone(CLONE_PARENT) and exit, so that each new pid is a sibling under a parent that ignores SIGCHLD (reaped at once) and nothing comes back to the keeper to count as a start (fourth attack on issue 27: 4.5 GiB held 10 s at score 100 in docker-root, 2 runs of 3); clone with CLONE_PARENT answers EPERM; attacks the memory budget of the worker tree; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["PARENT HOP: held"]
EXPECT = []  # where the watchdog sees the three, the tree is killed, and so is the cell that would report
CHILD = r'''
import ctypes, errno, mmap, os, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
mib, hold = int(sys.argv[1]), float(sys.argv[2])
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
end = time.monotonic() + hold
SYS_CLONE = {"x86_64": 56, "aarch64": 220}[os.uname().machine]
def hop():
    held = mmap.mmap(-1, mib << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    for at in range(0, mib << 20, 4096):
        held[at] = 7
    hops, refused = 0, ""
    while time.monotonic() < end:
        pid = libc.syscall(SYS_CLONE, 0x8000 | 17, 0, 0, 0, 0)  # clone(CLONE_PARENT | SIGCHLD)
        if pid < 0:
            refused = errno.errorcode.get(ctypes.get_errno(), "?")
            time.sleep(0.01)
            continue
        if pid > 0:
            os._exit(0)
        hops += 1
    kept = held[0] == 7 and held[(mib << 20) - 4096] == 7
    sys.stdout.write(f"{hops} hops {refused or 'allowed'} kept {kept}\n")
    sys.stdout.flush()
    os._exit(0)
for _ in range(3):
    if os.fork() == 0:
        hop()
time.sleep(hold + 3)
'''
ADD = [(None, '''
import subprocess as _sp, sys as _sys, time as _time
_k = _sp.Popen([_sys.executable, "-S", "-c", ''' + repr(CHILD) + ''', "1536", "10"], stdout=_sp.PIPE, text=True)
try:
    _out = _k.communicate(timeout=25)[0]
except _sp.TimeoutExpired:
    _k.kill()
    _out = _k.communicate()[0]
_lines = _out.split(chr(10))
_held = sum(1 for _l in _lines if _l.endswith("kept True") and int(_l.split()[0] or 0) > 10)
raise RuntimeError(f"PARENT HOP: {'held' if _held == 3 else 'stopped'}: " + "; ".join(_l for _l in _lines if _l))
''')]
