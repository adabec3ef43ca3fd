"""Grade week-7 notebooks: hidden pytest suites in this process, student code in a sandboxed worker.

    engine/   the trusted side: runs the suites, talks to the worker, writes results
    sandbox/  the untrusted side: the worker that executes a notebook and answers calls
    linux/    what the sandbox reaches Linux with: one libc handle, system-call numbers, flags
    suites/   the hidden tests, one module per part, points beside each test
    flows/    nbgrader, Gradescope and batch glue around the same engine
    assignment.py  the assignment's facts, each written once: name, parts, paths, code sets
"""
from .assignment import PART_IDS as PARTS  # noqa: F401  (re-export: part ids in notebook order)
