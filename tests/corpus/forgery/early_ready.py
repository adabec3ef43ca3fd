"""Item 4: a top-level cell writes a forged CellEnd and Ready into the worker's socket and then serves the grader's calls itself, answering every call with ok=True and 0.0 (a home-made worker). The grader takes replies only as return values: the cell is the student's own failure, nothing beyond the solution."""
ADD = [("setup", '''__RAW__
import sys as _sys
import inspect as _inspect

if any(name.startswith("autograder.sandbox") for name in _sys.modules):
    _frame_index = 1
    _inject(_frame({"$dict": {"kind": "CellEnd", "index": _frame_index, "error": None, "output": ""}}))
    _inject(_frame({"$dict": {"kind": "Ready"}}))
    for _ in range(3):
        _inject(_frame({"$dict": {"kind": "Reply", "ok": True, "value": 0.0, "grad": None, "error": None}}))
''')]
