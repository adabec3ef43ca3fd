"""Models the suites hand to student functions, described as data (ModuleSpec).

Built here, in the grading process, with fixed seeds; the worker rebuilds them from
their state with public code only.
"""
import functools

import torch
from torch import nn

from ..sandbox.calls import LAB_MASKS, build_module
from ..sandbox.wire import ModuleSpec
from .student import load_lab


@functools.lru_cache(maxsize=1)
def lab():
    return load_lab()


@functools.lru_cache(maxsize=None)
def mha_spec(embed_dim, num_heads, seed):
    """An nn.MultiheadAttention with biases and non-trivial weights, as (live module, spec).

    Built once per grading process: the suites only read the live module.
    """
    torch.default_generator.manual_seed(seed)  # CPU only (see the suites' conftest)
    module = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
    with torch.no_grad():  # PyTorch zero-initialises the biases; make them count
        module.in_proj_bias.normal_(0, 0.5)
        module.out_proj.bias.normal_(0, 0.5)
    return module, ModuleSpec("mha", {"embed_dim": embed_dim, "num_heads": num_heads}, module.state_dict())


def lab_spec(mask="causal", seed=0, dropout=0.0, training=False, state=None):
    """The lab's TinyTransformer with a chosen mask ("causal", "none", "one_step"), as (live module, spec).

    The live module is for computing expected values in the grading process; only the
    spec crosses to the worker. Seeded models are built once per grading process (a
    submission's trained weights, ``state``, never are).
    """
    if state is None:
        module, weights = _seeded_lab_model(mask, seed, dropout)
    else:
        module = _lab_model(mask, dropout)
        module.load_state_dict(state)
        weights = {k: v.detach().clone() for k, v in module.state_dict().items()}
    return module.train(training), ModuleSpec("lab", {"mask": mask, "dropout": dropout}, weights, training)


@functools.lru_cache(maxsize=None)
def _seeded_lab_model(mask, seed, dropout):
    torch.default_generator.manual_seed(seed)  # CPU only (see the suites' conftest)
    module = _lab_model(mask, dropout)
    return module, {k: v.detach().clone() for k, v in module.state_dict().items()}


def _lab_model(mask, dropout):
    from solutions.reference import sinusoidal_positions
    return lab().TinyTransformer(sinusoidal_positions(lab().MAX_POSITIONS, lab().WIDTH), LAB_MASKS[mask],
                                 dropout=dropout)


def rebuild(spec):
    """A live module from a spec, as the worker would build it."""
    return build_module(spec, lab())
