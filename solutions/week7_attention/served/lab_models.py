"""The lab models of one call, as the grader serves them to a worker (the worker's side: sandbox/replica.py).

A lab model handed to a student function never leaves the grader: the worker gets a
replica with its weights and flags (``outgoing``), and each forward pass of the replica is
a request the grader runs on its own model (``serve``), with the train/eval flags and,
when the worker changed them, the weights it was sent. So the checks read from here:

* ``forward_modes``: for each pass, whether dropout was active in it (a Dropout or an
  attention module with p > 0 in train mode), as the grader ran it;
* the model's flags after the call: the flags of the last pass the grader ran, then the
  flags the worker reported for the model it handed over (``settle``), as model.train()
  would have set them. A worker that reports nothing leaves the last pass's flags.

The grader's weights never change: weights the worker sent run on a copy. Forward passes run in the grading
process, outside the worker's budget, so what they may cost is bounded (autograder/settings.py Limits): passes
per call (model_passes, counted by the worker session), tokens per pass (model_tokens) and per call
(call_model_tokens), and the grader's own CPU time per submission (model_seconds), with denormal numbers
flushed to zero.
"""
from __future__ import annotations

import time
from typing import Any

import torch
from torch import nn

from autograder.sandbox.wire import protocol, values as wire
from autograder.settings import Limits

from .replica import fresh_copy, mode_vector, set_modes

FLOATS = (torch.float64, torch.float32, torch.float16, torch.bfloat16)


def is_lab_model(value: object) -> bool:
    """A lab TinyTransformer handed to a student function: it stays with the grader (a replica goes to the
    worker), and its flags after the call and in each forward pass are observed."""
    return isinstance(value, nn.Module) and hasattr(value, "embedding") and hasattr(value, "positions")


def dropout_active(model: nn.Module) -> bool:
    """Would a forward pass of ``model`` drop anything: a Dropout or an attention module with p > 0 in train mode?"""
    for m in model.modules():
        if m.training and ((isinstance(m, nn.Dropout) and m.p > 0)
                           or (isinstance(m, nn.MultiheadAttention) and m.dropout > 0)):
            return True
    return False


def _dropout_of(model: nn.Module) -> float:
    return next((float(m.p) for m in model.modules() if isinstance(m, nn.Dropout)), 0.0)


def tokens_error(tokens: object, model: Any, max_tokens: int) -> str:
    """Why ``tokens`` cannot go into one of our lab models in one pass of at most ``max_tokens`` (N * T), or ""
    (the worker asked for a forward pass)."""
    if not isinstance(tokens, torch.Tensor) or tokens.dtype not in (torch.int64, torch.int32, torch.int16,
                                                                    torch.int8, torch.uint8):
        return "the model takes a tensor of token ids (integers)"
    vocab, length = model.embedding.num_embeddings, model.positions.size(0)
    if tokens.dim() != 2 or not 1 <= tokens.size(1) <= length or not 1 <= tokens.numel() <= max_tokens:
        return (f"the model takes tokens of shape (N, T) with 1 <= T <= {length} (and N * T <= {max_tokens} while "
                f"grading); got {tuple(tokens.shape)}")
    if int(tokens.min()) < 0 or int(tokens.max()) >= vocab:
        return f"token ids must lie in 0..{vocab - 1}"
    return ""


def _state_error(state: object, model: nn.Module) -> str:
    """Why weights a worker sent cannot run in ``model``'s shape, or ""."""
    own = model.state_dict()
    if not isinstance(state, dict) or state.keys() != own.keys():
        return "the lab model's parameters or buffers were renamed, added or removed; the grader cannot run it"
    for name, value in state.items():
        mine = own[name]
        if not isinstance(value, torch.Tensor) or value.shape != mine.shape:
            return f"the lab model's {name} changed shape; the grader cannot run it"
        if (value.dtype in FLOATS) != (mine.dtype in FLOATS):
            return f"the lab model's {name} changed to {value.dtype}; the grader cannot run it"
    return ""


def _modes_ok(modes: object, model: nn.Module) -> bool:
    return (isinstance(modes, list) and len(modes) == sum(1 for _ in model.modules())
            and all(isinstance(m, bool) for m in modes))


class ServedModels:
    """The lab models handed to one call, by handle; what their forward passes ran in."""

    def __init__(self, limits: Limits, seconds: float) -> None:
        self.models: dict[int, nn.Module] = {}
        self.limits = limits  # model_tokens, call_model_tokens
        self.budget = seconds  # the grader's own time these passes may take (what is left of the submission's)
        self.seconds = 0.0  # spent so far
        self.forward_modes: list[bool] = []  # dropout active, per forward pass the grader ran
        self.tokens = 0  # tokens of every pass run so far (Limits.call_model_tokens)

    def outgoing(self, model: nn.Module) -> wire.RemoteModel:
        handle = len(self.models)
        self.models[handle] = model
        return wire.RemoteModel(handle, _dropout_of(model), model.state_dict(), mode_vector(model))

    def serve(self, op: protocol.ModelOp) -> protocol.ModelResult:
        """Run one of the worker's forward requests on our own model (or on a copy with the weights it sent)."""
        model = self.models.get(op.handle) if type(op.handle) is int else None
        if model is None:
            return protocol.ModelResult(False, error="no such model")
        if op.op != "forward":
            return protocol.ModelResult(False, error=f"unknown model request {op.op!r}")
        if not _modes_ok(op.modes, model):
            return protocol.ModelResult(False, error=STRUCTURE_CHANGED)
        problem = tokens_error(op.tokens, model, self.limits.model_tokens) or (
            _state_error(op.state, model) if op.state is not None else "")
        tokens: Any = op.tokens  # a Tensor, once tokens_error found nothing wrong with it
        if not problem and self.tokens + tokens.numel() > self.limits.call_model_tokens:
            problem = (f"one call may run the lab model on at most {self.limits.call_model_tokens} tokens in all "
                       "while grading")
        if not problem and self.seconds >= self.budget:
            problem = ("the lab model has run for all the time one submission may have it run while grading "
                       f"({self.budget:.0f} s of the grader's time); no more forward passes")
        if problem:
            return protocol.ModelResult(False, error=problem)
        self.tokens += tokens.numel()
        set_modes(model, op.modes)  # the last pass's flags are the model's until the call reports its own
        runner = model if op.state is None else fresh_copy(model, op.state)
        set_modes(runner, op.modes)
        self.forward_modes.append(dropout_active(runner))
        started = time.process_time()
        # Denormal weights (a student's, scaled by 1e-310) make every multiply ~30x slower on the CPU, in the
        # grading process (red team, issue 21: 7 s of the grader's time per call): flushed to zero here.
        torch.set_flush_denormal(True)
        try:
            with torch.no_grad():
                return protocol.ModelResult(True, runner(tokens.long()))
        except Exception as err:  # noqa: BLE001 - weights the student changed may not run (e.g. mixed dtypes)
            return protocol.ModelResult(False, error=f"{type(err).__name__}: {str(err)[:300]}")
        finally:
            torch.set_flush_denormal(False)  # PyTorch's default, which the rest of the grader computes with
            self.seconds += time.process_time() - started

    def settle(self, reported: object) -> None:
        """The flags the worker reported for the models the function was handed become our models' flags."""
        if not isinstance(reported, dict):
            return
        for handle, model in self.models.items():
            modes = reported.get(str(handle))
            if _modes_ok(modes, model):
                set_modes(model, modes)

    def modes(self) -> list[tuple[bool, ...]]:
        return [tuple(mode_vector(model)) for model in self.models.values()]


STRUCTURE_CHANGED = "the lab model's modules were added or removed, so the grader cannot run it"
