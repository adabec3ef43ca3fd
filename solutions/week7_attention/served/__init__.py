"""What week 7 hands to student functions besides plain values: this module implements
``autograder.plugin_api.Served`` with module-level functions, the only surface the engine calls.

    replica.py          the worker's side: a real TinyTransformer replica whose forward pass runs in
                        the grader (``replicas``), and the train/eval flags of a model (``mode_vector``)
    lab_models.py       the grader's side: the lab models of one call, served to the replicas
                        (``model_server``, ``is_model``, ``dropout_active``)
    probes.py           the probe models and seeds the hidden suites draw (``use_submission``)
    training.py         the smoke-training lane: the lab's run with the student's mask, shift and loss
    reference_runs.py   the reference's smoke run (cached, keyed by what its numbers depend on)
    eager_adamw.py      the optimizer both runs train with

The last three and the probe models are the hidden suites' own business: the engine never
imports them. The multihead check hands its nn.MultiheadAttention's parameters as plain tensors:
the layer stays in the grader.
This module imports only the worker's and the grader's halves of the model serving (PyTorch and
``autograder.sandbox``), so that the worker template can import it before it forks (a confined
worker cannot read the checkout) without loading any hidden code.
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

import torch

from autograder.settings import Limits

from . import lab_models, replica


def is_model(value: object) -> bool:
    """A lab model (it stays in the grader; the worker gets a replica)."""
    return lab_models.is_lab_model(value)


def model_server(limits: Limits, seconds: float) -> lab_models.ServedModels:
    """The grader's side of one call's lab models, bounded by ``limits`` and to ``seconds`` of the grader's CPU."""
    return lab_models.ServedModels(limits, seconds)


def replicas(channel: Any, lab: ModuleType) -> replica.Replicas:
    """The worker's replicas of the lab models, built from the public lab module."""
    return replica.Replicas(channel, lab)


def mode_vector(model: Any) -> list[bool]:
    """The train/eval flag of every module, in modules() order."""
    return replica.mode_vector(model)


def dropout_active(model: Any) -> bool:
    """Whether a forward pass of ``model`` runs with dropout active."""
    return lab_models.dropout_active(model)


def use_submission(base: int) -> None:
    """Draw the probes of the submission with this base from now on (0: the fixed, public probes)."""
    from . import probes
    probes.use_submission(base)


def warm_up(lab: ModuleType) -> None:
    """Pay PyTorch's first-call costs of what the checks ask workers to do, once, instead of in every worker.

    No training step: workers never train (the grader runs the lab's smoke run itself), so
    the optimizer's torch._dynamo import (~1.4 s) stays out of the template.
    """
    torch.set_num_threads(1)
    from torch.nn import functional as F
    logits = torch.randn(2, 5, lab.VOCAB, requires_grad=True)
    loss = F.cross_entropy(logits.reshape(-1, lab.VOCAB), torch.zeros(10, dtype=torch.long))
    torch.autograd.grad(loss, logits)
    q = torch.randn(2, 3, 5, 4)
    F.scaled_dot_product_attention(q, q, q, attn_mask=torch.ones(5, 5, dtype=torch.bool))
    mha = torch.nn.MultiheadAttention(12, 3, batch_first=True)
    mha(torch.randn(2, 5, 12), torch.randn(2, 5, 12), torch.randn(2, 5, 12), average_attn_weights=False)
    torch.nn.Transformer.generate_square_subsequent_mask(4)


