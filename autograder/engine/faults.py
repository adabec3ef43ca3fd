"""What can go wrong in a grade, by whose side it is: the student's (SubmissionFault) or the grader's.

A module of its own: the suites' student proxy and the worker session both raise these,
and neither should import the other for them.
"""
from collections.abc import Mapping


class SubmissionFault(Exception):
    """Base for everything that goes wrong on the student's side; its message is for the student."""


class StudentError(SubmissionFault):
    """The student's function raised (or is missing)."""

    def __init__(self, name: str, error: Mapping[str, str]) -> None:
        # kind: the built-in exception it is (what the checks compare: a subclass of AssertionError is
        # one); name: its own class, as the student wrote it.
        self.name, self.detail = error.get("type", "Error"), error.get("message", "")
        self.kind = error.get("base") or self.name
        inner, where = error.get("function") or "", error.get("where", "")
        if name == "training":
            subject = "the lab's training run" + (f" (in `{inner}`)" if inner else "")
        else:
            subject = f"`{name}`" + (f" (in `{inner}`)" if inner and inner != name else "")
        if self.kind == "NotImplementedError":
            culprit = f"`{inner}`" if inner else subject
            text = f"{culprit} is not implemented yet (it raises NotImplementedError)"
            if name == "training":
                text = f"the lab's training run stopped: {text}"
        elif self.kind == "Missing":
            text = f"{subject} cannot run: {self.detail}"
        else:
            text = f"{subject} raised {self.name}: {self.detail}{where}"
        super().__init__(text)


class GraderFault(Exception):
    """The grader's own machinery broke (e.g. its worker template died): never the student's fault."""


class WorkerLost(SubmissionFault):
    """The worker died, hung, or broke a limit during this call; the message says which."""
