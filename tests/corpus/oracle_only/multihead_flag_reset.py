"""multihead (red team 6, formerly an open finding): the handed layer's guard flag cleared in its __dict__, then PyTorch's forward run on it, 8 of 8 multi_head_self_attention points from a blank notebook while a layer was handed; on the dict now handed there is no flag to clear and no forward to run."""
PART = "multihead"
POINTS = 0
REPLACE = {"multihead_solution": '''
import torch
from torch import nn


def multi_head_self_attention(x, params, heads, blocked=None):
    params.__dict__["_forward_kept"] = False
    out = nn.MultiheadAttention.forward(params, x, x, x, attn_mask=blocked, average_attn_weights=False)
    params.__dict__["_forward_kept"] = True
    return out
'''}
