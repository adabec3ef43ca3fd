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


def mha_spec(embed_dim, num_heads, seed):
    """An nn.MultiheadAttention with biases and non-trivial weights, as (live module, spec)."""
    torch.manual_seed(seed)
    module = nn.MultiheadAttention(embed_dim, num_heads, batch_first=True)
    with torch.no_grad():  # PyTorch zero-initialises the biases; make them count
        module.in_proj_bias.normal_(0, 0.5)
        module.out_proj.bias.normal_(0, 0.5)
    return module, ModuleSpec("mha", {"embed_dim": embed_dim, "num_heads": num_heads}, module.state_dict())


def lab_spec(mask="causal", seed=0, dropout=0.0, training=False, state=None):
    """The lab's TinyTransformer with a chosen mask ("causal", "none", "one_step"), as (live module, spec).

    The live module is for computing expected values in the grading process; only the
    spec crosses to the worker.
    """
    from solutions.reference import sinusoidal_positions
    torch.manual_seed(seed)
    module = lab().TinyTransformer(sinusoidal_positions(lab().MAX_POSITIONS, lab().WIDTH), LAB_MASKS[mask],
                                   dropout=dropout)
    if state is not None:
        module.load_state_dict(state)
    spec = ModuleSpec("lab", {"mask": mask, "dropout": dropout},
                      {k: v.detach().clone() for k, v in module.state_dict().items()}, training)
    return module.train(training), spec


def rebuild(spec):
    """A live module from a spec, as the worker would build it."""
    return build_module(spec, lab())
