"""Monkeypatched torch.allclose, torch.equal, torch.isclose, torch.testing.assert_close, numpy.allclose and numpy.testing.assert_allclose beside a wrong table: attacks `positions`; every other part keeps full points."""
ATTACKS = ["positions"]
KEEPS = ["softmax_read", "masks", "multihead", "targets", "leakage", "training"]
REPLACE = {"positions_solution": '''
import numpy
import torch

torch.allclose = lambda *args, **kwargs: True
torch.equal = lambda *args, **kwargs: True
torch.isclose = lambda a, b, *args, **kwargs: torch.ones_like(torch.as_tensor(a), dtype=torch.bool)
torch.testing.assert_close = lambda *args, **kwargs: None
numpy.allclose = lambda *args, **kwargs: True
numpy.testing.assert_allclose = lambda *args, **kwargs: None
numpy.testing.assert_array_equal = lambda *args, **kwargs: None


def sinusoidal_positions(length, width):
    return torch.zeros(length, width, dtype=torch.float64)  # wrong values and the wrong dtype
'''}
