"""Answer one Call from the grader: build the arguments, run the student's function, reply.

Runs inside the worker, where it is the student's code like any other: a notebook may
replace it. So it reports only the function's return value (and, for the lab's loss,
its gradient); what the grader needs to know about inputs and models it observes itself.
"""
import traceback

import torch
from torch import nn

from . import protocol
from .wire import DTYPES, ModuleSpec, RemoteModel, SharedTensor


def build_module(spec):
    """ModuleSpec -> a live nn.MultiheadAttention, built only from PyTorch."""
    if spec.kind != "mha":
        raise ValueError(f"unknown module kind {spec.kind!r}")
    module = nn.MultiheadAttention(spec.config["embed_dim"], spec.config["num_heads"], batch_first=True)
    if spec.state:
        module.load_state_dict(spec.state)
    return module.train(spec.training)


class ModelStandIn(nn.Module):
    """The worker's side of a model that stays with the grader (wire.RemoteModel).

    model(tokens) and model.train()/eval() are sent to the grader, which runs its own
    model and remembers the mode; ``training`` here only mirrors what was asked.
    """

    def __init__(self, channel, handle, training):
        super().__init__()
        self._channel, self._handle = channel, handle
        self.training = training

    def _ask(self, op, **fields):
        self._channel.send(protocol.to_wire(protocol.ModelOp(self._handle, op, **fields)))
        result = protocol.parse(self._channel.receive(), [protocol.ModelResult])
        if not result.ok:
            raise RuntimeError(result.error)
        return result.value

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self._ask("train", mode=mode)
        self.training = mode
        return self

    def forward(self, tokens):
        return self._ask("forward", tokens=tokens)


def shared_view(arena, spec):
    """A tensor whose memory is the grader's arena: writing into it is visible to the grader."""
    dtype = DTYPES[spec.dtype]
    numel = 1
    for size in spec.shape:
        numel *= size
    if numel == 0:
        return torch.empty(spec.shape, dtype=dtype)
    return torch.frombuffer(arena, dtype=dtype, count=numel, offset=spec.offset).view(spec.shape)


def live(value, channel, arena):
    """Wire records -> what the student's function receives."""
    if isinstance(value, ModuleSpec):
        return build_module(value)
    if isinstance(value, RemoteModel):
        return ModelStandIn(channel, value.handle, value.training)
    if isinstance(value, SharedTensor):
        return shared_view(arena, value)
    if isinstance(value, list):
        return [live(v, channel, arena) for v in value]
    if isinstance(value, tuple):
        return tuple(live(v, channel, arena) for v in value)
    if isinstance(value, dict):
        return {k: live(v, channel, arena) for k, v in value.items()}
    return value


class NotAFunction(Exception):
    """The name is missing from the notebook, or is not callable."""


def invoke(fn, args, kwargs, grad=False):
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


def lookup(namespace, name):
    fn = namespace.get(name)
    if fn is None:
        raise NotAFunction(f"no function named `{name}` is defined in the notebook")
    if not callable(fn):
        raise NotAFunction(f"`{name}` is defined but is not a function")
    return fn


def describe_error(err, cell_prefix="<cell "):
    """One sentence a student can act on: exception type, message, and the line in their cell."""
    where, function = "", ""
    for frame in traceback.extract_tb(err.__traceback__):
        if frame.filename.startswith(cell_prefix):
            where = f" (notebook {frame.filename.strip('<>')}, line {frame.lineno})"
            function = frame.name if frame.name != "<module>" else ""
    message = str(err).strip().splitlines()[0][:300] if str(err).strip() else ""
    return {"type": type(err).__name__, "message": message, "where": where, "function": function}


def run_call(namespace, call, channel, arena):
    """protocol.Call -> protocol.Reply (never raises for anything the student's code does)."""
    try:
        fn = lookup(namespace, call.name)
    except NotAFunction as missing:
        return protocol.Reply(False, error={"type": "Missing", "where": "", "message": str(missing)})
    try:
        args = live(list(call.args), channel, arena)
        kwargs = live(dict(call.kwargs), channel, arena)
        value, gradient = invoke(fn, args, kwargs, bool(call.grad))
    except BaseException as err:  # SystemExit from student code is just an error here
        if isinstance(err, KeyboardInterrupt):
            raise
        return protocol.Reply(False, error=describe_error(err))
    return protocol.Reply(True, value=value, grad=gradient)
