"""The `student` the hidden suites talk to: every attribute is a function of the submission.

``student.stable_softmax(x)`` runs the student's function in the worker and returns
plain tensors and Python values. ``student.call(name, ...)`` also reports which tensor
arguments the function modified and the train/eval mode of module arguments afterwards.
"""

import gc
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from ..sandbox.wire import values as wire
from ..settings import Limits
from .call_result import CallResult, Transport
# The faults have a module of their own (the worker session raises them too); the hidden suites
# import them from here, their public home.
from .faults import GraderFault, StudentError, SubmissionFault, WorkerLost



__all__ = ["STUDENT_KEY", "GraderFault", "LocalTransport", "Student", "StudentError", "SubmissionFault",
           "WorkerLost", "load_lab", "tensor_bytes"]

STUDENT_KEY: "pytest.StashKey[Student]" = pytest.StashKey()  # where the grading plugin puts the Student for the suites


class Student:
    """Proxy over a transport with ``call(name, args, kwargs, grad, timeout) -> CallResult``.

    ``student.f(*args)`` returns f's value; ``student.call("f", *args)`` the whole
    CallResult (value, and what the grader observed: mutated arguments, model modes).
    """

    def __init__(self, transport: Transport, limits: Limits | None = None) -> None:
        self._transport = transport
        self.limits = limits or Limits()  # the grade's limits, for the suites that bound a run of their own (training)
        # Every call of the current check, as sent and as answered (diagnosis.core.Call): the
        # grading plugin clears it when a check starts and, if the check fails, hands it to
        # the assignment's misconception library. Tensors are cloned before sending; models are the grader's own.
        self.calls: list[Any] = []

    def call(self, name: str, *args: Any, timeout: float | None = None, **kwargs: Any) -> CallResult:
        result = self._send(name, args, kwargs, False, timeout)
        if not result.ok:
            raise StudentError(name, result.error)
        return result

    def value_and_grad(self, name: str, *args: Any, timeout: float | None = None) -> tuple[object, object]:
        """(value, d value / d args[0]) of a loss function, the gradient taken by autograd in the worker."""
        result = self._send(name, args, {}, True, timeout)
        if not result.ok:
            raise StudentError(name, result.error)
        return result.value, result.grad

    def _send(self, name: str, args: Sequence[Any], kwargs: dict[str, Any], grad: bool,
              timeout: float | None) -> CallResult:
        from ..assignment import misconceptions
        library = misconceptions()  # type: ignore[no-untyped-call]  # the assignment's misconception library records the calls it may read
        if vars(self).get("_large", 0) > COLLECT_AFTER_BYTES:
            # A failed check's exception holds its frame, and the frame the reply: such cycles
            # wait for the garbage collector, which would let large replies pile up meanwhile.
            gc.collect()
            self._large = 0
        sent = library.record(name, args, kwargs, grad) if library else _Sent(name)
        result = self._transport.call(name, list(args), kwargs, grad=grad, timeout=timeout)
        sent.result = result
        size = tensor_bytes((result.value, result.grad))
        if size <= RECORD_BYTES:
            self.calls.append(sent)  # a larger reply is used by its check, then dropped: never diagnosed
        else:
            self._large = vars(self).get("_large", 0) + size
        return result

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.call(name, *args, **kwargs).value


# The largest reply kept for the diagnosis. Calls are kept until the grade ends (the failed checks'
# calls, a per-function history), in the grading process, outside the worker's memory budget: a
# submission returning 60 MiB tensors grew it to 4 GiB (tests/corpus/redteam/big_replies_kept.py).
# Honest replies to the probes are a few KiB. Not one of the Limits: it bounds the grader's own memory, not what a
# submission may use (a larger reply is graded all the same, only not diagnosed).
RECORD_BYTES = 1 << 20
COLLECT_AFTER_BYTES = 256 << 20  # large replies received since the last collection


def tensor_bytes(value: object, depth: int = 0) -> int:
    """Bytes of the tensors in a decoded reply (nested lists, tuples and dicts; the wire bounds the nesting)."""
    import torch
    if isinstance(value, torch.Tensor):
        return value.element_size() * value.nelement()
    if depth < 40 and isinstance(value, (list, tuple)):
        return sum(tensor_bytes(v, depth + 1) for v in value)
    if depth < 40 and isinstance(value, dict):
        return sum(tensor_bytes(v, depth + 1) for v in value.values())
    return 0


def load_lab() -> types.ModuleType:
    """The public lab module, as the worker sees it: executed from its source text."""
    import types
    module = types.ModuleType("lab")
    exec(compile(lab_source(), "lab.py", "exec"), module.__dict__)  # noqa: S102 - our own public file
    return module


class _Sent:
    """A call as sent, when the assignment has no misconception library to record it."""

    def __init__(self, name: str) -> None:
        self.result: CallResult | None
        self.name, self.result = name, None


def lab_source() -> str:
    from ..assignment import LAB_PY
    return LAB_PY.read_text()


class LocalTransport:
    """In-process transport over a namespace (the reference, for the package's own tests).

    Same observations as the worker's: tensor arguments are copies compared afterwards,
    models are the caller's own; values go through the wire format, so they have exactly
    the types the real worker would return.
    """

    def __init__(self, namespace: Mapping[str, object]) -> None:
        self._ns = namespace

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any], grad: bool = False,
             timeout: float | None = None) -> CallResult:
        import torch

        from ..sandbox.worker import calls
        from ..assignment import served
        lab_models = served()  # what the assignment hands to functions besides values (plugin_api.Served)
        try:
            fn = calls.lookup(self._ns, name)
        except calls.NotAFunction as missing:
            return CallResult(False, error={"type": "Missing", "where": "", "message": str(missing)})
        originals = list(args)
        args = [_local(a) for a in args]
        kwargs = {k: _local(v) for k, v in kwargs.items()}
        models = [a for a in [*args, *kwargs.values()] if lab_models.is_model(a)]
        forward_modes = []
        hooks = [m.register_forward_pre_hook(lambda module, _: forward_modes.append(lab_models.dropout_active(module)))
                 for m in models]
        try:
            value, gradient = calls.invoke(fn, args, kwargs, grad)
        except Exception as err:  # noqa: BLE001 - the reference raising is a result like any other
            return CallResult(False, error=calls.describe_error(err))
        finally:
            for hook in hooks:
                hook.remove()
        mutated = [i for i, (a, o) in enumerate(zip(args, originals))
                   if isinstance(o, torch.Tensor) and not torch.equal(a, o)]
        return CallResult(True, _roundtrip(value), _roundtrip(gradient), mutated=mutated,
                          modes=[tuple(lab_models.mode_vector(m)) for m in models], forward_modes=forward_modes)


def _local(value: Any) -> Any:
    import torch

    return value.clone() if isinstance(value, torch.Tensor) else value


def _roundtrip(value: object) -> Any:
    frame = wire.encode({"v": value})
    view = memoryview(frame)
    pos = 0

    def read_exactly(n: int) -> bytes:
        nonlocal pos
        chunk = bytes(view[pos:pos + n])
        pos += n
        return chunk

    return wire.read_frame(read_exactly, max_bytes=1 << 31)["v"]
