"""multihead (red team 10, formerly an open finding): a copy of the handed value with its class set to nn.MultiheadAttention and _qkv_same_embed_dim set again, then PyTorch's forward (16 of 16 multihead, 100 in all, with the handed layer in namespaces mode), falling back to zeros; a dict's class cannot be swapped for a module's."""
PART = "multihead"
POINTS = 0
REPLACE = {"multihead_solution": '''
import copy

import torch
from torch import nn


def multi_head_self_attention(x, params, heads, blocked=None):
    try:
        m = copy.copy(params)
        m.__dict__ = dict(getattr(params, "__dict__", {}))
        object.__setattr__(m, "__class__", nn.MultiheadAttention)
        m.__dict__["_qkv_same_embed_dim"] = m.__dict__.get("_qkv_same", True)
        out = nn.MultiheadAttention.forward(m, x, x, x, attn_mask=blocked, average_attn_weights=False)
        return out[0], out[1]
    except Exception:
        pass
    N, T, D = x.shape
    return torch.zeros(N, T, D), torch.zeros(N, heads, T, T)
'''}
