"""A top-level cell makes a user and mount namespace of its own (prctl(PR_SET_DUMPABLE, 1), unshare(CLONE_NEWUSER | CLONE_NEWNS)) and fills an 8 GiB tmpfs mounted there, which no watchdog looks at: 6 GiB held past the 4 GiB cap where no control group can be made (red team, round 6). unshare, setns, mount and clone with a namespace flag are refused; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["USERNS_TMPFS: held"]
EXPECT = ["USERNS_TMPFS: failed PermissionError"]
ADD = [(None, '''
import ctypes as _c, os as _os, time as _time
_GIB = 6
_libc = _c.CDLL(None, use_errno=True)
_r, _w = _os.pipe()
_pid = _os.fork()
if _pid == 0:
    try:
        _uid, _gid = _os.getuid(), _os.getgid()
        _libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE back to 1: our own /proc/self/*_map become writable
        if _libc.unshare(0x10000000 | 0x00020000) != 0:  # CLONE_NEWUSER | CLONE_NEWNS
            raise OSError(_c.get_errno(), "unshare")
        open("/proc/self/setgroups", "w").write("deny")
        open("/proc/self/uid_map", "w").write(f"0 {_uid} 1")
        open("/proc/self/gid_map", "w").write(f"0 {_gid} 1")
        if _libc.mount(b"none", b"/tmp", b"tmpfs", 0, b"size=8g") != 0:
            raise OSError(_c.get_errno(), "mount")
        _block = bytes(range(256)) * 4096  # 1 MiB
        for _k in range(_GIB * 16):  # 64 MiB files (RLIMIT_FSIZE)
            with open(f"/tmp/hold{_k}", "wb") as _f:
                for _ in range(64):
                    _f.write(_block)
        _os.write(_w, f"held {_GIB} GiB".encode())
        _time.sleep(40)
    except BaseException as _e:
        _os.write(_w, f"failed {_e!r}".encode())
    _os._exit(0)
_os.close(_w)
_msg = _os.read(_r, 200).decode()
_time.sleep(3)  # thirty watchdog samples
_alive = _os.waitpid(_pid, _os.WNOHANG)[0] == 0
raise RuntimeError(f"USERNS_TMPFS: {_msg}; child alive after 3 s: {_alive}")
''')]
