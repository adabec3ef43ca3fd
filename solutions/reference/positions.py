"""positions: the original sinusoidal position table."""
import math

import torch


def sinusoidal_positions(length, width):
    """float32 (length, width) table of sinusoidal positions.

    PE[pos, 2i]   = sin(pos / 10000^(2i / width))
    PE[pos, 2i+1] = cos(pos / 10000^(2i / width))
    width is even.
    """
    ### BEGIN SOLUTION
    pos = torch.arange(length, dtype=torch.float64)[:, None]  # (length, 1)
    # 10000^(-2i/width) through exp/log, in float64 so wide tables stay accurate.
    rate = torch.exp(torch.arange(0, width, 2, dtype=torch.float64) * (-math.log(10000.0) / width))
    table = torch.zeros(length, width, dtype=torch.float64)
    table[:, 0::2] = torch.sin(pos * rate)
    table[:, 1::2] = torch.cos(pos * rate)
    return table.float()
    ### END SOLUTION
