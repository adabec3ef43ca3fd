"""The sandbox: the steps that confine a worker, who runs them, and what crosses to the grader. Nothing here may
import the hidden suites or solutions. Its folders say who trusts what:

    sandbox/            the plan: steps.py (each mode's named steps) and what they are made of (confine.py,
                        identity.py, landlock.py, syscalls.py), the mode probe (confinement.py), the worker's
                        config (config.py), the guarantees' vocabulary (guarantees.py), `plan` (plan_report.py)
    sandbox/keeper/     trusted, never runs student code: the template that forks keepers (template.py), and the
                        keeper's watchdog and control groups (budget.py)
    sandbox/worker/     runs beside the student's code, so nothing it says is believed: the cells (notebook_exec.py),
                        the calls (calls.py), its serving loop (serve.py)
    sandbox/wire/       what crosses between grader and worker: typed messages (protocol.py) and the values in them
                        (values.py), JSON plus raw tensor bytes, never code

How a worker is confined is probed once per grading process (confinement.py): the strongest mode this
machine allows, said in one line (`confinement: ...`) by every command, results.json and grades.log.

    mode            who can use it                              what the worker gets
    namespaces      root with CAP_SYS_ADMIN (a VM)              PID/mount/net/IPC/UTS/cgroup namespaces, its own
                                                                root file system, its own uid, a control group
    user namespace  any user, where the kernel allows user      the same namespaces and root from inside a user
                    namespaces (desktops, many clusters)        namespace: "root" there, without any capability
    landlock        neither (Docker, Kubernetes pods)           Landlock (files; signals from ABI 6), seccomp for
                                                                the rest, its own uid where CAP_SETUID allows
                                                                (else the grader's, without any capability)
    none            only with --unsafe-no-sandbox               nothing: trusted notebooks only

The process tree of one grade. One name on both sides: the *template* is the process (keeper/template.py);
engine/template.py's `Template` is the grader's handle on it::

    grading process                              engine/: hidden suites, reference, results; probes the mode
    └── template (keeper/template.py)            forked right after `import torch`; forgets the grader's
        │                                        environment, argv and frames; subreaper
        └── keeper, one per worker (template.keep) runs the mode's keeper steps (steps.py): a control group,
            │                                    a user and PID namespace, or a scratch directory; watches,
            │                                    reaps, cleans up; SIGTERM when the template dies
            └── worker                           runs the mode's worker steps (steps.py), then the notebook
                └── anything the notebook starts

A worker's life, from fork to kill::

    grader ──request(WorkerConfig, socket fd)──▶ template ──fork──▶ keeper ──fork──▶ worker
    grader ◀──────────────── worker pid ◀─────── template ◀─ pid ── keeper
    keeper: its steps; worker: its steps (budget, session, namespaces and root or Landlock, environment,
            uid or no capabilities, keyrings, system calls (syscalls.py), limits)
    grader ──arena fd, Init(cells)──▶ worker ──CellStart/CellEnd…, Ready──▶ grader
    grader ──Call──▶ worker [──ModelOp──▶ grader ──ModelResult──▶ worker]* ──Reply──▶ grader
                                                          (as often as the checks need)
    grader: SIGKILL worker (its PID namespace, or its process group, goes with it) → keeper reaps it, undoes its
    steps (control group, scratch), exits → template reaps the keeper. Workers are never reused.

The messages, as typed records, are wire/protocol.py (values inside them: wire/values.py); the worker's
life as the grader sees it (REQUESTED → FORKED → RUNNING_NOTEBOOK → READY → GONE) is
engine/supervisor.py's WorkerState. What each step bounds is in the module that does it:
keeper/budget.py (memory, processes and CPU of the whole tree), identity.py (uid, capabilities, keyrings,
environment, command line), confine.py (namespaces, the worker's root, per-process limits),
landlock.py (files and other processes without namespaces), syscalls.py (the system calls it may make).
Which step enforces which guarantee of docs/security.md is declared on the step (guarantees.py's vocabulary);
`python -m autograder plan` (plan_report.py) prints it per mode, what runs outside the plan included.
Each reaches the kernel through autograder/linux/ alone: the one libc handle, prctl and system calls that raise
OSError, and every number and flag, defined once.
The models a function receives are the assignment's replicas whose forward passes the grader runs
(plugin_api.Served.replicas; week 7's: solutions/week7_attention/served/replica.py).
"""
