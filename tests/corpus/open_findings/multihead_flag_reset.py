"""multihead: the guard is a flag in the handed module's own __dict__ (_forward_kept); the function clears it and calls PyTorch's forward (nn.MultiheadAttention.forward(mha, ...)): 8 of 8 multi_head_self_attention points from a blank notebook (red team 6)."""
PART = "multihead"
POINTS = 0
REPLACE = {"multihead_solution": '''
import torch
from torch import nn


def multi_head_self_attention(x, mha, blocked=None):
    mha.__dict__["_forward_kept"] = False
    out = nn.MultiheadAttention.forward(mha, x, x, x, attn_mask=blocked, average_attn_weights=False)
    mha.__dict__["_forward_kept"] = True
    return out
'''}
