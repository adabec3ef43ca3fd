"""What the suites hand to student functions: random inputs and models, drawn afresh per submission.

Every seed a suite uses goes through ``seed(n)``: the n-th probe of the current
submission. The submission's base (``use_submission``) is an HMAC of the notebook's
bytes under a secret the worker never sees (engine/secret.py), so

* the same notebook always gets the same probes, hence the same score;
* a changed notebook gets new probes: values printed in one round's feedback say
  nothing about the next round's, and a function that fingerprints its inputs has
  nothing to look up.

Run directly (``pytest solutions/week7_attention/suites``, the package's own tests) the base is 0.
Lab models never leave the grading process: the worker gets a replica whose forward
passes the grader runs (engine/lab_models.py, sandbox/replica.py).
"""
import functools
import hashlib

import torch
from torch import nn

from .replica import fresh_copy
from autograder.engine.secret import submission_base  # noqa: F401  (re-export: the engine derives the base)
from autograder.engine.student import load_lab

_base = [0]
# The probe models' masks, all additive float masks of the same shape, so that every kind runs the very
# same kernels: a model without a mask (None), or with one that PyTorch recognises as causal (it then
# takes its is_causal path), answered a forward pass measurably faster or slower, and a notebook that
# timed the stand-in's forward passes could tell a leaky probe from a causal one without comparing a
# single logit (red team, round 4: 5 points for a check that never measured a change). BLOCKED is
# finite for the same reason (-inf would be recognised); exp() of it is exactly 0 in float32, so a
# blocked key gets no weight at all and a causal probe's prefix change is exactly 0.
BLOCKED = -1e9


def _additive(blocked):
    return lambda T: torch.zeros(T, T).masked_fill(blocked(T), BLOCKED)


MASKS = {  # mask_fn(T) of the probe models
    "causal": _additive(lambda T: torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)),
    "none": _additive(lambda T: torch.zeros(T, T, dtype=torch.bool)),  # reads the whole sequence, future included
    "one_step": _additive(lambda T: torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=2)),  # sees t + 1
}


def use_submission(base):
    """Draw the probes of the submission with this base from now on (0: the fixed, public probes)."""
    _base[0] = int(base)


def seed(n):
    """The n-th probe seed of the current submission: a hash of (base, n), so each probe's seed is independent.

    PyTorch's CPU generator keeps a seed's low 32 bits, and a module's initial weights give them away
    (its Mersenne Twister state can be run backwards from a few hundred outputs, ~0.1 s). With seeds
    base * c + n, one probe the student was handed (the multihead weights, seed 15) gave the base and
    so every other probe of the submission, the drawn order of the verdict pools included: 93 -> 97
    (red team, round 6). Now a recovered seed is that one probe's, and the 256-bit base is out of reach.
    """
    if not _base[0]:
        return n
    digest = hashlib.sha256(_base[0].to_bytes(32, "big") + int(n).to_bytes(8, "big")).digest()
    return int.from_bytes(digest[:8], "big") & (2 ** 63 - 1)


def generator(n):
    return torch.Generator().manual_seed(seed(n))


@functools.lru_cache(maxsize=1)
def lab():
    return load_lab()


def mha_layer(embed_dim, num_heads, n):
    """An nn.MultiheadAttention with biases and non-trivial weights: the grader's own, never handed over.

    ``n`` is a probe number: the weights are the current submission's. The multihead suite
    hands the student function its state_dict as plain tensors and compares the function
    with this layer's forward pass; the masks suite runs it with the student's masks.
    """
    return _mha(embed_dim, num_heads, seed(n))


@functools.lru_cache(maxsize=64)
def _mha(embed_dim, num_heads, probe_seed):  # cached by the seed itself: one submission's never serves another
    torch.default_generator.manual_seed(probe_seed)  # CPU only (see the suites' conftest)
    module = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
    with torch.no_grad():  # PyTorch zero-initialises the biases; make them count
        module.in_proj_bias.normal_(0, 0.5)
        module.out_proj.bias.normal_(0, 0.5)
    return module


def lab_model(mask="causal", n=0, dropout=0.0, training=False, state=None):
    """A fresh lab TinyTransformer with a chosen mask ("causal", "none", "one_step"), in the given mode.

    Weights: the current submission's probe ``n``, or ``state`` (a trained model's). Each
    call builds a new module, so what one student call does to its mode stays with it.
    """
    weights = state if state is not None else _seeded_weights(mask, seed(n), dropout)
    if "positions" in weights:  # a trained model's table is the reference's: swapped for the probes' (_positions)
        weights = {**weights, "positions": _positions()}
    return fresh_copy(_prototype(mask, dropout), weights).train(training)


@functools.lru_cache(maxsize=None)
def _prototype(mask, dropout):
    """One built model per kind, the same in every process (fixed seed, global RNG untouched)."""
    with torch.random.fork_rng(devices=[]):
        torch.default_generator.manual_seed(7)
        return _build(mask, dropout)


@functools.lru_cache(maxsize=64)
def _seeded_weights(mask, probe_seed, dropout):
    """The prototype's initial weights, each tensor's entries shuffled by the probe's seed.

    Same distribution as a freshly built model (it is one, permuted), at a fraction of the
    cost of building one per probe; buffers (the position table) are kept as they are.
    """
    generator = torch.Generator().manual_seed(probe_seed)
    prototype = _prototype(mask, dropout)
    params = {name for name, _ in prototype.named_parameters()}
    return {name: (value.reshape(-1)[torch.randperm(value.numel(), generator=generator)].view_as(value)
                   if name in params else value.clone())
            for name, value in prototype.state_dict().items()}


def _build(mask, dropout):
    return lab().TinyTransformer(_positions(), MASKS[mask], dropout=dropout)


@functools.lru_cache(maxsize=1)
def _positions():
    """The position table of every model handed to a student function: random, of the sinusoids' size.

    A model's buffers reach the worker with its replica, so this must be no answer: with the reference's
    sinusoidal table here, sinusoidal_positions could return columns of it without computing anything
    (red team, issue 21: 7 of 8 points). The leakage checks do not care what the table holds.
    """
    generator = torch.Generator().manual_seed(20261203)
    return torch.rand(lab().MAX_POSITIONS, lab().WIDTH, generator=generator) * 2 - 1
