"""One call of a student function as the grader knows it: the student's value, and what the grader observed.

Its own module: the worker session and the in-process transport (engine/student.py) both return it.
"""
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class CallResult:
    """One call of a student function: the value is the student's word, the rest the grader's observation."""
    ok: bool
    value: object = None
    grad: object = None
    error: dict[str, str] = field(default_factory=dict)
    mutated: list[int] = field(default_factory=list)  # positional tensor arguments it wrote into
    modes: list[tuple[bool, ...]] = field(default_factory=list)  # each lab model argument's flags afterwards (lab_models.py)
    forward_modes: list[bool] = field(default_factory=list)  # dropout active, at each forward pass it ran


class Transport(Protocol):
    """What runs a student function for the suites' Student: the worker session, or the in-process transport."""

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any], grad: bool = False,
             timeout: float | None = None) -> CallResult: ...
