"""positions: the sinusoidal table against the formula, evaluated independently in float64."""
import math

import pytest
import torch

from solutions.week7_attention.suites.expect import expect_close, expect_dtype, expect_shape
from solutions.week7_attention.suites.tolerances import TOL

pytestmark = pytest.mark.part("positions")


def _formula(length, width):
    """PE[pos, 2i] = sin(pos / 10000^(2i/width)), PE[pos, 2i+1] = cos(...), straight from the paper."""
    pos = torch.arange(length, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, width, 2, dtype=torch.float64)  # 2i for i = 0 .. width/2 - 1
    angle = pos / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / width)  # (length, width/2)
    table = torch.empty(length, width, dtype=torch.float64)
    table[:, 0::2], table[:, 1::2] = torch.sin(angle), torch.cos(angle)
    return table


def _column(offset=0):
    """Names the table column behind an index into (a column slice of) the table."""
    def name(i):
        col = i[1] + offset
        return f"column {col} is {'sin' if col % 2 == 0 else 'cos'} with 2i = {col - col % 2}, position {i[0]}"
    return name


def _table(student, length, width):
    what = f"sinusoidal_positions({length}, {width})"
    return expect_shape(student.sinusoidal_positions(length, width), (length, width), what), what


@pytest.mark.points(1)
def test_shape_and_dtype(student):
    """Returns a float32 (length, width) table"""
    got, what = _table(student, 7, 16)
    expect_dtype(got, torch.float32, what, "Convert the finished table with .float().")


@pytest.mark.points(1)
@pytest.mark.parametrize("length, width", [(3, 4), (10, 16), (50, 32), (20, 128)],
                         ids=["4 wide", "16 wide", "32 wide", "128 wide"])
def test_matches_formula(student, ref, length, width):
    """Matches the sinusoidal formula"""
    got, what = _table(student, length, width)
    expect_close(got, _formula(length, width), what, TOL["positions"], why=_column())
    expect_close(got, ref.sinusoidal_positions(length, width), what, TOL["positions"], why=_column())


@pytest.mark.points(1)
def test_row_zero(student):
    """Position 0 is [0, 1, 0, 1, ...]"""
    got, what = _table(student, 4, 8)
    expect_close(got[0], torch.tensor([0.0, 1.0] * 4), f"row 0 of {what}", TOL["positions"],
                 hint="At position 0 every angle is 0: sin(0) = 0 in even columns, cos(0) = 1 in odd ones.")


@pytest.mark.points(1)
def test_sin_even_cos_odd(student):
    """Even columns are sin, odd columns are cos"""
    got, what = _table(student, 6, 8)
    pos = torch.arange(6, dtype=torch.float64)
    expect_close(got[:, 0], torch.sin(pos), f"column 0 of {what}", TOL["positions"],
                 hint="Column 0 (2i = 0) is sin(pos); sin goes to the even columns 0::2.")
    expect_close(got[:, 1], torch.cos(pos), f"column 1 of {what}", TOL["positions"],
                 hint="Column 1 is cos(pos); cos goes to the odd columns 1::2.")


def _angle_steps(table, col):
    """How much the angle of the column pair (col, col + 1) grows from each position to the next.

    The pair is (sin a, cos a) at angle a = pos * rate, so atan2 recovers a (or pi/2 - a when the
    student put cos first) and its steps are +-rate whatever the first position: only the
    frequency is measured, not the sin/cos order (test_sin_even_cos_odd) nor the positions' origin.
    """
    pair = table[:, col:col + 2].double()
    angle = torch.atan2(pair[:, 0], pair[:, 1])
    return (torch.remainder(angle[1:] - angle[:-1] + math.pi, 2 * math.pi) - math.pi).abs()


@pytest.mark.points(1)
def test_exponent_uses_2i(student):
    """Frequencies use 10000^(2i / width)"""
    length, width = 12, 16
    got, what = _table(student, length, width)
    for col in (2, width - 2):
        rate = 10000.0 ** (-col / width)  # 2i = col, the pair's even column
        expect_close(_angle_steps(got, col), torch.full((length - 1,), rate, dtype=torch.float64),
                     f"the angle step per position in columns {col} and {col + 1} of {what}", TOL["positions"],
                     why=lambda i, col=col: f"from position {i[0]} to {i[0] + 1}; 2i = {col}, "
                                            f"rate 1 / 10000^({col}/{width})",
                     hint="Columns 2i and 2i+1 share the angle pos / 10000^(2i / width): it grows by "
                          "1 / 10000^(2i / width) from one position to the next.")
