"""What week 6 hands to student functions besides plain values: a BigramLM (``autograder.plugin_api.Served``).

The model a suite hands to ``evaluate_nll`` stays in the grader; the worker gets a *replica*: an
instance of the public lab's BigramLM holding the grader's weights and train/eval flags, which runs its
own forward passes in the worker (a bigram table has nothing to keep secret). When the call ends, the
replica's state goes back with the reply (``replica.Replicas.end_call``) and the grader's model takes
it (``models.Server.settle``), as it would have in plain PyTorch: the train/eval flag of every module,
the weights if they changed, the gradients, and the forward passes it ran (dropout active? gradients
enabled?). So the suites check "left as found" on their own model object (``model.passes`` and the rest),
whether the call ran in a worker or in-process (``LocalTransport``, the package's own tests).

What the worker reports is the submission's word: it can only make a function look as if it had left
the model alone, which an honest function does anyway; the value it returns is checked against PyTorch.

Imports only PyTorch and ``autograder.sandbox`` (no hidden code): the worker template imports it before it forks.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

import torch

from . import models, replica

_base = [0]


def is_model(value: object) -> bool:
    """A lab BigramLM handed to a student function (it stays in the grader; the worker gets a replica)."""
    return models.is_bigram(value)


def model_server(limits: Any, seconds: float) -> models.Server:
    return models.Server(limits, seconds)


def replicas(channel: Any, lab: ModuleType) -> replica.Replicas:
    return replica.Replicas(channel, lab)


def mode_vector(model: Any) -> list[bool]:
    return models.mode_vector(model)


def dropout_active(model: Any) -> bool:
    return models.dropout_active(model)


def use_submission(base: int) -> None:
    """Draw the probes of the submission with this base from now on (0: the fixed, public probes)."""
    _base[0] = int(base)


def seed(n: int) -> int:
    """The n-th probe seed of the current submission (base 0: the public probes, n itself)."""
    if not _base[0]:
        return n
    import hashlib
    digest = hashlib.sha256(f"{_base[0]}:{n}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def generator(n: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed(n))


def warm_up(lab: ModuleType) -> None:
    """PyTorch's first-call costs of what the checks ask workers to do, paid once in the template."""
    from torch.nn import functional as F
    torch.set_num_threads(1)
    with torch.random.fork_rng(devices=[]):
        model = lab.BigramLM(5, dropout=0.5).eval()
    ids = torch.tensor([0, 1, 2, 3, 4, 0])
    with torch.no_grad():
        F.cross_entropy(model(ids[:-1]), ids[1:]).item()
    torch.bincount(ids, minlength=5)
