"""The `student` the hidden suites talk to: every attribute is a function of the submission.

``student.stable_softmax(x)`` runs the student's function in the worker and returns
plain tensors and Python values. ``student.call(name, ...)`` also reports which tensor
arguments the function modified and the train/eval mode of module arguments afterwards.
"""
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ..sandbox import wire

STUDENT_KEY = pytest.StashKey()  # where the grading plugin puts the Student for the suites


class SubmissionFault(Exception):
    """Base for everything that goes wrong on the student's side; its message is for the student."""


class StudentError(SubmissionFault):
    """The student's function raised (or is missing)."""

    def __init__(self, name, error):
        self.kind, self.detail = error.get("type", "Error"), error.get("message", "")
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
            text = f"{subject} raised {self.kind}: {self.detail}{where}"
        super().__init__(text)


class GraderFault(Exception):
    """The grader's own machinery broke (e.g. its worker template died): never the student's fault."""


class WorkerLost(SubmissionFault):
    """The worker died, hung, or broke a limit during this call; the message says which."""


@dataclass
class Outcome:
    value: object
    mutated: list = field(default_factory=list)  # indexes of positional tensor args changed in place
    modes: list = field(default_factory=list)  # .training of each module argument after the call


class Student:
    """Proxy over a transport with ``request(message, timeout) -> reply dict``."""

    def __init__(self, transport):
        self._transport = transport

    def call(self, name, *args, timeout=None, **kwargs):
        reply = self._transport.request({"op": "call", "name": name, "args": list(args), "kwargs": kwargs}, timeout)
        if not reply.get("ok"):
            raise StudentError(name, reply.get("error", {}))
        return Outcome(reply.get("value"), reply.get("mutated", []), reply.get("modes", []))

    def train(self, epochs, positions, timeout=None):
        reply = self._transport.request({"op": "train", "epochs": epochs, "positions": positions}, timeout)
        if not reply.get("ok"):
            raise StudentError("training", reply.get("error", {}))
        return reply["value"]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.call(name, *args, **kwargs).value


def load_lab():
    """The public lab module, as the worker sees it: executed from its source text."""
    import types
    module = types.ModuleType("lab")
    exec(compile(lab_source(), "lab.py", "exec"), module.__dict__)  # noqa: S102 - our own public file
    return module


def lab_source():
    return (Path(__file__).resolve().parents[2] / "solutions" / "lab" / "lab.py").read_text()


class LocalTransport:
    """In-process transport over a namespace (the reference, for the package's own tests).

    Messages still go through the wire format, so values have exactly the types the
    real worker would return.
    """

    def __init__(self, namespace, lab=None):
        from ..sandbox import calls
        self._calls, self._ns, self._lab = calls, namespace, lab or load_lab()

    def request(self, message, timeout=None):
        message = _roundtrip(message)
        if message["op"] == "train":
            reply = self._calls.run_training(self._ns, self._lab, message["epochs"], message["positions"])
        else:
            reply = self._calls.run_call(self._ns, self._lab, message["name"], message["args"], message["kwargs"])
        return _roundtrip(reply)


def _roundtrip(message):
    frame = wire.encode(message)
    view = memoryview(frame)
    pos = 0

    def read_exactly(n):
        nonlocal pos
        chunk = bytes(view[pos:pos + n])
        pos += n
        return chunk

    return wire.read_frame(read_exactly, max_bytes=1 << 31)
