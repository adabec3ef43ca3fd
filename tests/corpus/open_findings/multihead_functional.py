"""multihead: F.multi_head_attention_forward with the handed weights is the same oracle: 8 of 8 multi_head_self_attention points from a blank notebook (red team 6)."""
PART = "multihead"
POINTS = 0
REPLACE = {"multihead_solution": '''
import torch
from torch import nn
from torch.nn import functional as F


def multi_head_self_attention(x, mha, blocked=None):
    q = x.transpose(0, 1)
    out, w = F.multi_head_attention_forward(q, q, q, mha.embed_dim, mha.num_heads, mha.in_proj_weight, mha.in_proj_bias,
                                            None, None, False, mha.dropout, mha.out_proj.weight, mha.out_proj.bias,
                                            training=mha.training, attn_mask=blocked, average_attn_weights=False)
    return out.transpose(0, 1), w
'''}
