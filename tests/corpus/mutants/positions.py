"""positions mutants: the graded training run uses the reference table, so nothing else moves."""
from tests.corpus import Mutant


def _m(name, old, new, why):
    return Mutant(name, "positions", "sinusoidal_positions", old, new, why)


MUTANTS = [
    _m("positions_sin_cos_swapped",
       "    table[:, 0::2] = torch.sin(pos * rate)\n    table[:, 1::2] = torch.cos(pos * rate)\n",
       "    table[:, 0::2] = torch.cos(pos * rate)\n    table[:, 1::2] = torch.sin(pos * rate)\n",
       "cos in the even columns and sin in the odd ones"),
    _m("positions_i_instead_of_2i",
       "torch.arange(0, width, 2, dtype=torch.float64)",
       "torch.arange(0, width // 2, dtype=torch.float64)",
       "exponent uses i instead of 2i"),
    _m("positions_float64", "return table.float()", "return table",
       "returns the float64 table instead of float32"),
    _m("positions_start_at_one",
       "torch.arange(length, dtype=torch.float64)",
       "torch.arange(1, length + 1, dtype=torch.float64)",
       "counts positions from 1"),
]
