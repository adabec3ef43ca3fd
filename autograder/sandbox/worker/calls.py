"""Answer one Call from the grader: build the arguments, run the student's function, reply.

Runs inside the worker, where it is the student's code like any other: a notebook may
replace it. So it reports only the function's return value (and, for the lab's loss,
its gradient) and the flags the lab models were left with; whether inputs were written
into, and in which mode each forward pass ran, the grader observes itself.
"""
import mmap
import traceback
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import torch

from ..wire import protocol
from ..wire.values import DTYPES, RemoteModel, SharedTensor

if TYPE_CHECKING:
    from ...plugin_api import ReplicaSet


def shared_view(arena: mmap.mmap, spec: SharedTensor) -> torch.Tensor:
    """A tensor whose memory is the grader's arena: writing into it is visible to the grader."""
    dtype = DTYPES[spec.dtype]
    numel = 1
    for size in spec.shape:
        numel *= size
    if numel == 0:
        return torch.empty(spec.shape, dtype=dtype)
    return torch.frombuffer(arena, dtype=dtype, count=numel, offset=spec.offset).view(spec.shape)


def live(value: Any, replicas: "ReplicaSet", arena: mmap.mmap) -> Any:
    """Wire records -> what the student's function receives: a model becomes its replica, a shared tensor a view
    of the arena; everything else arrives as it is."""
    if isinstance(value, RemoteModel):
        return replicas.replica(value)
    if isinstance(value, SharedTensor):
        return shared_view(arena, value)
    if isinstance(value, list):
        return [live(v, replicas, arena) for v in value]
    if isinstance(value, tuple):
        return tuple(live(v, replicas, arena) for v in value)
    if isinstance(value, dict):
        return {k: live(v, replicas, arena) for k, v in value.items()}
    return value


class NotAFunction(Exception):
    """The name is missing from the notebook, or is not callable."""


def invoke(fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any],
           grad: bool = False) -> tuple[Any, torch.Tensor | None]:
    """fn(*args, **kwargs); with ``grad``, also d(value)/d(args[0]) by autograd: (value, grad or None)."""
    if not grad:
        return fn(*args, **kwargs), None
    logits = args[0].detach().requires_grad_(True)
    value = fn(logits, *args[1:], **kwargs)
    if not isinstance(value, torch.Tensor) or value.numel() != 1:
        raise TypeError("the loss should be a tensor holding one number")
    if not value.requires_grad:
        raise RuntimeError("the loss does not depend on the logits through autograd (was it detached, or "
                           "computed from .item() or numpy?): training cannot follow its gradient")
    (gradient,) = torch.autograd.grad(value.reshape(()), logits, allow_unused=True)
    if gradient is None:
        raise RuntimeError("the loss does not depend on the logits")
    return value.detach().reshape(()), gradient


def lookup(namespace: Mapping[str, object], name: str) -> Callable[..., Any]:
    fn = namespace.get(name)
    if fn is None:
        raise NotAFunction(f"no function named `{name}` is defined in the notebook")
    if not callable(fn):
        raise NotAFunction(f"`{name}` is defined but is not a function")
    return fn


def describe_error(err: BaseException, cell_prefix: str = "<cell ") -> dict[str, str]:
    """One sentence a student can act on: exception type, message, and the line in their cell."""
    where, function = "", ""
    for frame in traceback.extract_tb(err.__traceback__):
        if frame.filename.startswith(cell_prefix):
            where = f" (notebook {frame.filename.strip('<>')}, line {frame.lineno})"
            function = frame.name if frame.name != "<module>" else ""
    # The whole message on one line: torch.testing.assert_close and numpy state the numbers on its later lines.
    message = " ".join(str(err).split())[:400]
    return {"type": type(err).__name__, "base": builtin_kind(err), "message": message, "where": where,
            "function": function}


def builtin_kind(err: BaseException) -> str:
    """The name of the built-in exception ``err`` is: a LeakageError(AssertionError) is an AssertionError."""
    return next(c.__name__ for c in type(err).__mro__ if c.__module__ == "builtins")


def run_call(namespace: dict[str, Any], call: protocol.Call, replicas: "ReplicaSet",
             arena: mmap.mmap) -> protocol.Reply:
    """protocol.Call -> protocol.Reply (never raises for anything the student's code does).

    The reply carries the train/eval flags of the lab models the function was handed
    (replica.py): the grader's models take them, as they would have taken model.train().
    """
    try:
        fn = lookup(namespace, call.name)
    except NotAFunction as missing:
        return protocol.Reply(False, error={"type": "Missing", "where": "", "message": str(missing)})
    replicas.begin_call()
    try:
        args = live(list(call.args), replicas, arena)
        kwargs = live(dict(call.kwargs), replicas, arena)
        value, gradient = invoke(fn, args, kwargs, bool(call.grad))
    except BaseException as err:  # SystemExit from student code is just an error here
        if isinstance(err, KeyboardInterrupt):
            raise
        return protocol.Reply(False, error=describe_error(err), models=replicas.end_call())
    return protocol.Reply(True, value=value, grad=gradient, models=replicas.end_call())
