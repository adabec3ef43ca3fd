"""A top-level cell: two child Pythons each write 2.5 GiB of MAP_SHARED|MAP_ANONYMOUS memory and drop their page-table entries for it (madvise(MADV_DONTNEED)): the pages stay in the kernel's shared object while no process's PSS shows them (third attack on issue 27: 5 GiB held 10-15 s against the 4 GiB cap at score 100 in every watchdog mode); attacks the memory budget of the worker tree; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["SHARED HOLD: held"]
EXPECT = []  # where the tree is killed, so is the cell that would report
CHILD = r'''
import mmap, os, sys, time
mib = int(sys.argv[1])
m = mmap.mmap(-1, mib << 20)  # MAP_SHARED | MAP_ANONYMOUS
chunk = 32 << 20
for at in range(0, mib << 20, chunk):
    for p in range(at, at + chunk, 4096):
        m[p] = 1
    m.madvise(mmap.MADV_DONTNEED, at, chunk)
sys.stdout.write("filled\n"); sys.stdout.flush()
time.sleep(float(sys.argv[2]))
sys.stdout.write(f"kept {m[0] == 1 and m[(mib << 20) - 4096] == 1}\n"); sys.stdout.flush()
'''
ADD = [(None, '''
import subprocess as _sp, sys as _sys, time as _time
_t = _time.monotonic()
_kids = [_sp.Popen([_sys.executable, "-S", "-c", ''' + repr(CHILD) + ''', "2560", "8"], stdout=_sp.PIPE, text=True)
         for _ in range(2)]
_outs = []
for _k in _kids:
    try:
        _outs.append(_k.communicate(timeout=25)[0])
    except _sp.TimeoutExpired:
        _k.kill()
        _outs.append(_k.communicate()[0])
_codes = [_k.returncode for _k in _kids]
_verdict = "held" if _codes == [0, 0] and all("kept True" in _o for _o in _outs) else "stopped"
raise RuntimeError(f"SHARED HOLD: {_verdict}: exit codes {_codes} after {_time.monotonic() - _t:.1f} s; "
                   + " / ".join(_o.strip().replace(chr(10), "; ") for _o in _outs))
''')]
