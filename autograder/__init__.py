"""A grading engine for notebook assignments: hidden pytest suites in a trusted process, student code in a
sandboxed worker. The assignment it grades is a plug-in (plugin_api.py; week 7's: solutions/week7_attention/).

    engine/   the trusted side: runs the suites, talks to the worker, writes results
    sandbox/  the untrusted side: the worker that executes a notebook and answers calls
    linux/    what the sandbox reaches Linux with: one libc handle, system-call numbers, flags
    flows/    nbgrader, Gradescope and batch glue around the same engine
    plugin_api.py  what an assignment package defines (Assignment), and how the engine finds it
    assignment.py  the current assignment's facts, read through the plug-in once per process
"""


def __getattr__(name: str) -> object:
    # Deferred: importing the engine must not load the assignment, since the assignment package imports
    # autograder.plugin_api (a process that imports the assignment first, as a spawned pool worker
    # unpickling one of its functions does, would meet its own package half-made).
    if name == "PARTS":  # part ids in notebook order
        from .assignment import PART_IDS
        return PART_IDS
    raise AttributeError(f"module 'autograder' has no attribute {name!r}")
