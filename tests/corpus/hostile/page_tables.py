"""A top-level cell that forks 200 children which each fill their address space with read-only anonymous mappings read once every 2 MiB (each read maps the shared zero page and makes a whole page-table page: 8 MiB per 4 GiB) and split one mapping into as many areas as vm.max_map_count allows (a vm_area_struct each): kernel memory that no PSS shows (the zero page is in no process's Rss), so that a watchdog that counts PSS alone sees a few hundred MiB while the tree pins over 4 GiB (red team of issue 27: 230 children pinned 4.2 GiB in the Docker-like root container, their PSS 0.4 GiB, scored 100); attacks the memory budget of the whole worker tree; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["PAGETABLES: pinned"]
EXPECT = []  # where the tree is killed, so is the cell that would report
CHILDREN = 200
CAP_MIB = 4096  # the default memory budget
FORK = '''
import ctypes as _ct, os as _os, time as _time

def _meminfo():
    with open("/proc/meminfo") as _h:
        return {l.split(":")[0]: int(l.split()[1]) for l in _h}

def _status(_key):
    with open("/proc/self/status") as _h:
        for _l in _h:
            if _l.startswith(_key + ":"):
                return int(_l.split()[1])
    return 0

def _pss():
    with open("/proc/self/smaps_rollup") as _h:
        for _l in _h:
            if _l.startswith("Pss:"):
                return int(_l.split()[1])
    return 0

def _fill():
    _libc = _ct.CDLL(None, use_errno=True)
    _libc.mmap.restype = _ct.c_void_p
    _libc.mmap.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int, _ct.c_int, _ct.c_int, _ct.c_long]
    _libc.mprotect.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int]
    _libc.madvise.argtypes = [_ct.c_void_p, _ct.c_size_t, _ct.c_int]
    # PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE; MADV_NOHUGEPAGE: no huge zero page
    _maps, _size = [], 1 << 30
    while _size >= (16 << 20):
        _a = _libc.mmap(None, _size, 1, 0x22 | 0x4000, -1, 0)
        if _a in (None, 2**64 - 1, -1):
            _size //= 2
            continue
        _libc.madvise(_a, _size, 15)  # MADV_NOHUGEPAGE
        for _off in range(0, _size, 2 << 20):  # one read per 2 MiB: a whole page-table page, on the zero page
            _ct.c_char.from_address(_a + _off).value
        _maps.append((_a, _size))
    # Split the first mapping into areas: PROT_NONE every other page, until max_map_count says no.
    _a, _s = _maps[0]
    _areas = 0
    for _i in range(1, _s // 8192):
        if _libc.mprotect(_a + _i * 8192, 4096, 0) != 0:
            break
        _areas += 2
    return sum(s for _, s in _maps), _areas

_before = _meminfo()
_t0 = _time.monotonic()
_r, _w = _os.pipe()
_go_r, _go_w = _os.pipe()  # the children start filling once all are forked (forking is slow enough)
_kids = []
for _c in range(__CHILDREN__):
    _pid = _os.fork()
    if _pid == 0:
        try:
            _os.read(_go_r, 1)
            _mapped, _areas = _fill()
            _os.write(_w, f"{_os.getpid()},{_pss()},{_status('VmPTE')},{_mapped >> 20},{_areas};".encode())
            _time.sleep(60)
        except BaseException as _e:
            _os.write(_w, f"{_os.getpid()},0,0,0,0 {_e!r};".encode())
        finally:
            _os._exit(0)
    _kids.append(_pid)
_os.close(_w)
_os.write(_go_w, b"g" * len(_kids))
'''
REPORT = '''
_msg, _until = b"", _time.monotonic() + 20
import select as _select
while _msg.count(b";") < len(_kids) and _time.monotonic() < _until:
    if not _select.select([_r], [], [], 0.5)[0]:
        continue
    _chunk = _os.read(_r, 4096)
    if not _chunk:
        break
    _msg += _chunk
_after = _meminfo()
_rows = {int(r[0]): r[1:] for r in (x.split(",") for x in _msg.decode().split(";") if x)}
_t0 = _time.monotonic() - _t0
_time.sleep(2)
_alive = [_k for _k in _kids if _os.waitpid(_k, _os.WNOHANG)[0] == 0]
# What the children that are still alive hold in kernel memory, by their own count: page tables and mapping areas
# (about 200 bytes each).
_kernel_mib = sum(int(_rows[_k][1]) + int(_rows[_k][3].split()[0]) * 200 // 1024 for _k in _alive if _k in _rows) >> 10
_pss_mib = sum(int(_rows[_k][0]) for _k in _alive if _k in _rows) >> 10
_d = {k: (_after[k] - _before[k]) >> 10 for k in ("PageTables", "Slab", "SUnreclaim", "MemAvailable")}
for _k in _kids:  # nothing of this cell outlives it
    try:
        _os.kill(_k, 9)
        _os.waitpid(_k, 0)
    except OSError:
        pass
_verdict = "pinned" if _kernel_mib + _pss_mib > __CAP_MIB__ else "held"
raise RuntimeError(f"PAGETABLES: {_verdict}: {len(_rows)} children reported, {len(_alive)} alive 2 s later (reports "
                   f"after {_t0:.1f} s) holding {_kernel_mib} MiB of page tables and areas and {_pss_mib} MiB of PSS; "
                   f"host meminfo delta (MiB) {_d}")
'''
# One cell (a cell has 30 s): the damage is done while the cell that did it runs, so that a worker killed for it
# skips that cell when it starts anew (children left running past their cell would be killed again at each restart,
# while the hidden tests call the notebook's functions, and cost their points).
ADD = [(None, FORK.replace("__CHILDREN__", str(CHILDREN)) + REPORT.replace("__CAP_MIB__", str(CAP_MIB)))]
