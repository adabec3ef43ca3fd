"""multihead: a fresh nn.MultiheadAttention loaded with the handed module's state_dict() is the same oracle: 8 of 8 multi_head_self_attention points from a blank notebook (red team 6)."""
PART = "multihead"
POINTS = 0
REPLACE = {"multihead_solution": '''
import torch
from torch import nn


def multi_head_self_attention(x, mha, blocked=None):
    twin = nn.MultiheadAttention(mha.embed_dim, mha.num_heads, batch_first=True)
    twin.load_state_dict(mha.state_dict())
    twin.train(mha.training)
    return twin(x, x, x, attn_mask=blocked, average_attn_weights=False)
'''}
