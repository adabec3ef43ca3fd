"""What a worker's reply may make the grader build is bounded before anything is built (issue 11, item 2).

Units: the decoder refuses a buffer referenced twice, nesting past MAX_DEPTH, more than MAX_NODES
values, malformed sizes. End to end: a notebook writes one frame into its socket whose header
references a 16 MiB buffer 128 times (2 GiB if decoded naively); the grade completes, the function
fails as the student's, and the grading process's peak memory stays far below what the frame asks for.
"""
import json
import struct
import subprocess
import sys

import nbformat
import pytest

from autograder.sandbox.wire import values as wire

from autograder.assignment import INSTRUCTOR_NOTEBOOK, ROOT
from tests.points import points
SOLUTION = INSTRUCTOR_NOTEBOOK


def frame(body, buffers=()):
    header = json.dumps({"body": body, "sizes": [len(b) for b in buffers]}).encode()
    return struct.pack(">Q", len(header)) + header + b"".join(buffers)


def read(data, max_bytes=64 << 20):
    view, pos = memoryview(data), [0]

    def read_exactly(n):
        chunk = bytes(view[pos[0]:pos[0] + n])
        pos[0] += n
        return chunk

    return wire.read_frame(read_exactly, max_bytes)


def tensor_ref(index, numel):
    return {"$t": index, "dtype": "float32", "shape": [numel]}


def test_a_buffer_referenced_twice_is_refused():
    buffer = bytes(4 * 16)
    assert read(frame({"$seq": "list", "items": [tensor_ref(0, 16)]}, [buffer]))[0].shape == (16,)
    with pytest.raises(wire.WireError, match="twice"):
        read(frame({"$seq": "list", "items": [tensor_ref(0, 16)] * 2}, [buffer]))


def test_nesting_and_size_caps():
    deep = 1
    for _ in range(wire.MAX_DEPTH + 2):
        deep = {"$seq": "list", "items": [deep]}
    with pytest.raises(wire.WireError):
        read(frame(deep))
    with pytest.raises(wire.WireError):
        read(frame({"$seq": "list", "items": list(range(wire.MAX_NODES + 1))}))
    with pytest.raises(wire.WireError):
        read(frame({"$i": "9" * 5000}))
    for sizes in (["1"], [-1], [1.5], "x"):
        header = json.dumps({"body": None, "sizes": sizes}).encode()
        with pytest.raises(wire.WireError):
            read(struct.pack(">Q", len(header)) + header + b"x")
    header = b"[" * 100_000 + b"]" * 100_000  # json's own recursion
    with pytest.raises(wire.WireError):
        read(struct.pack(">Q", len(header)) + header)


AMPLIFY = '''
import json as _json, os as _os, struct as _struct

def stable_softmax(scores, dim=-1):
    K, N = 128, 4 << 20  # 128 references to one 16 MiB buffer: 2 GiB if the grader built them all
    body = {"$dict": {"kind": "Reply", "ok": True, "grad": None, "error": None,
                      "value": {"$seq": "list", "items": [{"$t": 0, "dtype": "float32", "shape": [N]}] * K}}}
    header = _json.dumps({"body": body, "sizes": [4 * N]}).encode()
    data = _struct.pack(">Q", len(header)) + header + bytes(4 * N)
    for fd in _os.listdir("/proc/self/fd"):
        try:
            if _os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                _os.write(int(fd), data)
        except OSError:
            pass
    raise SystemExit(0)
'''


@pytest.mark.slow
def test_decode_amplification_does_not_grow_the_grader(tmp_path):
    nb = nbformat.read(str(SOLUTION), as_version=4)
    cell = next(c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "softmax_read_solution")
    cell.source += "\n" + AMPLIFY
    path = tmp_path / "amplify.ipynb"
    nbformat.write(nb, str(path))
    # Measured in a fresh parent of its own: RUSAGE_CHILDREN of this test process would remember the
    # largest process any earlier test ever waited for.
    measure = ("import resource, subprocess, sys\n"
               "run = subprocess.run(sys.argv[1:], capture_output=True, text=True, timeout=600)\n"
               "sys.stderr.write(run.stderr)\n"
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
               "sys.exit(run.returncode)\n")
    run = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "autograder", "grade", str(path),
                          "--out", str(tmp_path / "r.json"), "--part", "softmax_read", "--part", "positions"],
                         cwd=ROOT, capture_output=True, text=True, timeout=700)
    peak_mib = int(run.stdout.split()[-1]) / 1024
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((tmp_path / "r.json").read_text())
    parts = {t["tags"][0]: 0 for t in results["tests"]}
    for t in results["tests"]:
        parts[t["tags"][0]] += t["score"]
        assert not t["name"].startswith("Autograder failed"), t
    assert parts["softmax_read"] < points("softmax_read") and parts["positions"] == points("positions"), parts
    assert "unusable reply" in json.dumps(results) or "referenced twice" in json.dumps(results)
    assert peak_mib < 1536, f"a process of the grade peaked at {peak_mib:.0f} MiB (the frame asked for 2048)"
