"""Code that runs inside the untrusted worker. Nothing here may import the hidden suites or solutions.

The process tree of one grade (as root). One name on both sides: the *template* is the process
(sandbox/template.py); engine/template.py's `Template` is the grader's handle on it::

    grading process (root)                       engine/: hidden suites, reference, results
    └── template (sandbox/template.py)           forked right after `import torch`; forgets the
        │                                        grader's environment, argv and frames; subreaper
        └── keeper, one per worker (template.keep) creates the tree's control group (budget.py),
            │                                    uid = 100000 + its pid (identity.py); watches,
            │                                    reaps, removes the group; SIGTERM when the template dies
            └── worker = PID 1 of a new PID ns   joins the group, own mount/net/IPC/UTS/cgroup ns,
                └── anything the notebook starts pivot_root onto its own root (confine.py), clean
                                                 environment, setuid, fresh keyrings, rlimits

A worker's life, from fork to kill::

    grader ──request(config, socket fd)──▶ template ──fork──▶ keeper ──fork──▶ worker
    grader ◀──────────── worker pid ◀───── template ◀─ pid ── keeper
    worker: budget → session → namespaces → root → environment → uid → keyrings → no key
            system calls, no unmapped memory (seccomp) → limits
    grader ──arena fd, Init(cells)──▶ worker ──CellStart/CellEnd…, Ready──▶ grader
    grader ──Call──▶ worker [──ModelOp──▶ grader ──ModelResult──▶ worker]* ──Reply──▶ grader
                                                          (as often as the checks need)
    grader: SIGKILL worker (its PID namespace goes with it) → keeper reaps it, removes the
    control group, exits → template reaps the keeper. Workers are never reused.

The messages, as typed records, are protocol.py (values inside them: wire.py); the worker's
life as the grader sees it (REQUESTED → FORKED → RUNNING_NOTEBOOK → READY → GONE) is
engine/supervisor.py's WorkerState. What each step bounds is in the module that does it: budget.py (memory, processes and CPU
of the whole tree), identity.py (uid, keyrings, environment, command line), syscalls.py (the key
system calls it loses: keyrings are shared by uid, and uids come back), confine.py (namespaces,
file system, per-process limits).
"""
