"""What the sandbox guarantees against a submission, and the words a step uses to say which of them it enforces.

docs/security.md names the guarantees (its table: "a submission cannot …"); GUARANTEES here is that list, once.
Each confinement step (steps.py) declares, beside its code, the guarantees it provides and under which
condition (``Provides``); what enforces a guarantee from outside ``steps.plan()`` (the keeper's watchdog, the
fds closed before the first cell, the grading process's time limits) is declared there too (``Outside``), and so
is a guarantee a mode does not give, with the reason (``steps.NOT_BOUNDED``). ``python -m autograder plan``
(plan_report.py) prints the table those declarations make; docs/security.md quotes it, and tests/test_plan.py
fails when the quote differs, when a step provides nothing, or when a mode leaves a guarantee neither enforced
nor declared not bounded.

Standard library and confinement.Mode only: the vocabulary, no policy.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from ..settings import Limits
from .confinement import Mode

_LIMITS = Limits()


class Guarantee(enum.Enum):
    """One row of docs/security.md's table: what a submission cannot do."""
    SECRETS = "read the hidden suites, the reference, the secret, other submissions"
    WRITES = "write outside its scratch (checkout, venv, home, build/, gradebook)"
    NETWORK = "use the network"
    SIGNALS = "signal, ptrace or starve the grader"
    PRIVILEGE = "hold a capability or a uid that is a privilege on the machine"
    NEXT_SUBMISSION = "leave state (files, processes) for the next submission"
    MEMORY = f"take more than {_LIMITS.memory_mib // 1024} GiB of memory"
    KERNEL_MEMORY = "pin kernel memory no budget counts"
    KERNEL_STATE = "leave kernel state behind after a grade"
    PROCESSES = f"run more than {_LIMITS.processes} processes"
    DISK = f"fill the disk (more than {_LIMITS.disk_mib} MiB of scratch)"
    CPU_CORE = "take more than one CPU core"
    TIME = (f"run past its time limits ({_LIMITS.call_seconds:g} s a call, {_LIMITS.cell_seconds:g} s a cell, "
            f"{_LIMITS.submission_seconds:g} s a submission)")

    @property
    def key(self) -> str:
        """The short name (``--markdown``'s first column, the command's headings)."""
        return self.name.lower().replace("_", " ")


ALL_MODES: frozenset[Mode] = frozenset(Mode)


@dataclass(frozen=True)
class When:
    """Where a step's part in a guarantee holds. It always holds in a mode that is not in ``conditional_in``
    (there the condition is true whenever the mode is taken, e.g. a uid of its own in mode namespaces)."""
    text: str
    conditional_in: frozenset[Mode] = frozenset()

    def holds_always_in(self, mode: Mode) -> bool:
        return mode not in self.conditional_in

    def said_in(self, mode: Mode) -> str:
        """The condition as the table shows it in ``mode`` ("" where it always holds)."""
        return "" if self.holds_always_in(mode) else self.text


ALWAYS = When("")
CGROUP = When("with a control group", ALL_MODES)  # budget.Group.create: None where the cgroup tree is not writable
NO_CGROUP = When("without a control group", ALL_MODES)
OWN_UID = When("with a uid of its own", frozenset({Mode.LANDLOCK}))  # probe: always in mode namespaces
SIGNAL_SCOPE = When("Landlock ABI ≥ 6", frozenset({Mode.LANDLOCK}))
TCP_SCOPE = When("Landlock ABI ≥ 4", frozenset({Mode.LANDLOCK}))
SCRATCH_ONLY = When("its scratch directory only", frozenset({Mode.NONE}))  # where it may write nowhere else


def part(what: str) -> When:
    """A step that enforces ``what`` of a guarantee, never all of it (each process alone, the environment only):
    it never makes the guarantee hold on its own, in any mode."""
    return When(what, ALL_MODES)


# Conditions of which one holds whenever the mode is taken: together they enforce a guarantee as ALWAYS does.
COVERING: tuple[tuple[frozenset[When], str], ...] = (
    (frozenset({CGROUP, NO_CGROUP}), "a tree has a control group or it has none"),
    (frozenset({OWN_UID, SIGNAL_SCOPE}), "confinement._why_not_landlock refuses landlock with neither"),
)


def covered(whens: set[When], mode: Mode) -> bool:
    """Do providers holding under ``whens`` enforce a guarantee in ``mode`` whatever the machine?"""
    if any(w.holds_always_in(mode) for w in whens):
        return True
    return any(group <= whens for group, _ in COVERING)


@dataclass(frozen=True)
class Provides:
    """A step's (or an outside enforcer's) part in one guarantee."""
    guarantee: Guarantee
    when: When = ALWAYS
    only_in: frozenset[Mode] = ALL_MODES  # the modes where the step does this (it may run in others)


@dataclass(frozen=True)
class Outside:
    """What enforces a guarantee from outside ``steps.plan()``: ``where`` is the function that does it
    (``module.function`` or ``module.Class.method`` under autograder/), ``calls`` what it calls there to do it
    (tests/test_plan.py reads the function's source for it, so a declaration cannot outlive the code)."""
    name: str
    where: str
    calls: str
    purpose: str
    provides: tuple[Provides, ...]
    modes: frozenset[Mode] = ALL_MODES
