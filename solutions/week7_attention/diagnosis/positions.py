"""positions: known wrong versions of sinusoidal_positions."""
import math

import torch

from .core import Family, Misconception

FORMULA = " Re-read 7.3: PE(pos, 2i) = sin(pos / 10000^(2i/dmodel)), PE(pos, 2i+1) = cos(pos / 10000^(2i/dmodel))."

SWAPPED = Family("positions_sin_cos_swapped", (
    "sin and cos are swapped: cos fills the even columns and sin the odd ones. Position 0 should be "
    "[0, 1, 0, 1, …] and is [1, 0, 1, 0, …]. A model would still learn, but not with the standard table the "
    "lab (and any pretrained model) expects." + FORMULA))
EXPONENT_I = Family("positions_exponent_i", (
    "the exponent uses i instead of 2i (10000^(i/dmodel)), so the frequencies fall only half as fast across the "
    "columns and the slowest wavelengths never reach 10000·2π: long-range positions become hard to tell apart. "
    "Columns 2i and 2i+1 share the rate 1/10000^(2i/dmodel): take 2i from torch.arange(0, width, 2)." + FORMULA))
PER_COLUMN = Family("positions_rate_per_column", (
    "every column gets its own frequency (10000^(col/dmodel)) instead of each sin/cos PAIR sharing one. The "
    "pair (sin, cos) at one frequency is what lets a fixed offset act as a rotation (relative positions); "
    "use the rate of 2i for both column 2i and column 2i+1." + FORMULA))
FLOAT64 = Family("positions_float64", (
    "the table is returned in float64. Computing in float64 is fine (it is more accurate for wide tables), "
    "but the model's embeddings are float32 and adding a float64 table promotes everything: convert the "
    "finished table with .float()."))
START_AT_ONE = Family("positions_start_at_one", (
    "positions are counted from 1 instead of 0: row 0 should be position 0, [0, 1, 0, 1, …] (sin 0, cos 0). "
    "Use torch.arange(length): the first token is at position 0, and the lab indexes the table with positions[:T]."))
RATE_INVERTED = Family("positions_rate_inverted", (
    "the rate is 10000^(+2i/dmodel) instead of 10000^(−2i/dmodel): pos is multiplied by a huge number instead of "
    "divided, so every column above the first pair oscillates wildly and the table is noise. Mind the minus "
    "sign in exp(−2i · log(10000) / dmodel)." + FORMULA))
HALVES = Family("positions_concatenated_halves", (
    "the sines fill the first half of the columns and the cosines the second half (torch.cat([sin, cos])). That "
    "layout appears in some code bases and carries the same information, but it is not the table defined here: "
    "sin goes to the even columns 0::2 and cos to the odd columns 1::2." + FORMULA))


def table(two_i="2i", swap=False, dtype_out=torch.float32, start=0, sign=-1.0, layout="interleaved"):
    def sinusoidal_positions(length, width):
        pos = torch.arange(start, length + start, dtype=torch.float64)[:, None]
        if two_i == "2i":
            exps = torch.arange(0, width, 2, dtype=torch.float64)
        elif two_i == "i":
            exps = torch.arange(0, width // 2, dtype=torch.float64)
        else:  # per column
            exps = None
        if exps is None:
            cols = torch.arange(width, dtype=torch.float64)
            angle = pos * torch.exp(cols * (sign * math.log(10000.0) / width))
            out = torch.where(cols.long() % 2 == 0, torch.sin(angle), torch.cos(angle))
            return out.to(dtype_out)
        rate = torch.exp(exps * (sign * math.log(10000.0) / width))
        first, second = torch.sin(pos * rate), torch.cos(pos * rate)
        if swap:
            first, second = second, first
        if layout == "halves":
            return torch.cat([first, second], dim=1).to(dtype_out)
        out = torch.zeros(length, width, dtype=torch.float64)
        out[:, 0::2], out[:, 1::2] = first, second
        return out.to(dtype_out)
    return sinusoidal_positions


MISCONCEPTIONS = [
    Misconception("positions_sin_cos_swapped", "sinusoidal_positions", SWAPPED, table(swap=True)),
    Misconception("positions_i_instead_of_2i", "sinusoidal_positions", EXPONENT_I, table(two_i="i")),
    Misconception("positions_rate_per_column", "sinusoidal_positions", PER_COLUMN, table(two_i="col")),
    Misconception("positions_float64", "sinusoidal_positions", FLOAT64, table(dtype_out=torch.float64)),
    Misconception("positions_start_at_one", "sinusoidal_positions", START_AT_ONE, table(start=1)),
    Misconception("positions_rate_inverted", "sinusoidal_positions", RATE_INVERTED, table(sign=1.0)),
    Misconception("positions_concatenated_halves", "sinusoidal_positions", HALVES, table(layout="halves")),
    Misconception("positions_halves_swapped", "sinusoidal_positions", HALVES, table(layout="halves", swap=True)),
]
