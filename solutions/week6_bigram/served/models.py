"""The grader's side of the BigramLMs handed to one call (plugin_api.ModelServer).

A replica runs in the worker, so there are no forward passes to serve; after the call the worker
reports each replica's state and ``settle`` gives it to the grader's own model: train/eval flags,
weights (when they changed), gradients, and the passes it ran, appended to ``model.passes``
(a list of (dropout active, gradients enabled), kept by ``Watched``, the model class the suites hand out).
"""
from __future__ import annotations

from typing import Any

import torch
from torch import nn

from autograder.sandbox.wire import protocol, values as wire

MAX_PASSES = 1000  # passes a report may carry (the rest are not recorded)


def is_bigram(value: object) -> bool:
    return isinstance(value, nn.Module) and any(cls.__name__ == "BigramLM" for cls in type(value).__mro__)


def mode_vector(model: nn.Module) -> list[bool]:
    return [m.training for m in model.modules()]


def set_modes(model: nn.Module, modes: list) -> None:
    for module, mode in zip(model.modules(), modes):
        module.training = bool(mode)


def dropout_active(model: nn.Module) -> bool:
    return any(m.training and isinstance(m, nn.Dropout) and m.p > 0 for m in model.modules())


def dropout_of(model: nn.Module) -> float:
    return next((float(m.p) for m in model.modules() if isinstance(m, nn.Dropout)), 0.0)


def _fits(tensor: object, like: torch.Tensor) -> bool:
    return isinstance(tensor, torch.Tensor) and tensor.shape == like.shape and tensor.is_floating_point()


class Server:
    """The models of one call, by handle."""

    def __init__(self, limits: Any, seconds: float) -> None:
        self.models: dict[int, nn.Module] = {}
        self.seconds = 0.0  # no pass runs in the grader
        self.forward_modes: list[bool] = []  # dropout active in each pass the replicas reported
        self.broken: set[int] = set()  # handles whose report did not fit the model (modules added or removed)

    def outgoing(self, model: nn.Module) -> wire.RemoteModel:
        handle = len(self.models)
        self.models[handle] = model
        return wire.RemoteModel(handle, dropout_of(model), dict(model.state_dict()), mode_vector(model))

    def serve(self, op: Any) -> protocol.ModelResult:
        return protocol.ModelResult(False, error="the bigram model runs in the worker; the grader serves no passes")

    def settle(self, reported: object) -> None:
        if not isinstance(reported, dict):
            return
        for handle, model in self.models.items():
            report = reported.get(str(handle))
            if not isinstance(report, dict):
                continue
            modes = report.get("modes")
            if not (isinstance(modes, list) and len(modes) == len(mode_vector(model))
                    and all(isinstance(m, bool) for m in modes)):
                self.broken.add(handle)
                continue
            set_modes(model, modes)
            params = dict(model.named_parameters())
            state, grads = report.get("state"), report.get("grads")
            with torch.no_grad():
                if isinstance(state, dict):
                    for name, value in state.items():
                        if name in params and _fits(value, params[name]):
                            params[name].copy_(value)
                if isinstance(grads, dict):
                    for name, value in grads.items():
                        if name in params and _fits(value, params[name]):
                            params[name].grad = value.to(params[name].dtype).clone()
            passes = report.get("passes")
            if isinstance(passes, list):
                kept = [(bool(p[0]), bool(p[1])) for p in passes[:MAX_PASSES]
                        if isinstance(p, (list, tuple)) and len(p) == 2]
                self.forward_modes += [dropout for dropout, _ in kept]
                recorded = vars(model).get("passes")  # Watched's list (a plain attribute, not a submodule)
                if isinstance(recorded, list):
                    recorded.extend(kept)

    def modes(self) -> list[tuple[bool, ...]]:
        return [() if handle in self.broken else tuple(mode_vector(model)) for handle, model in self.models.items()]
