"""multihead: nn.MultiheadAttention.forward(params, ...), the base class's forward run on what was handed (8 of 16 points when the handed layer overrode forward alone); the dict has none of a layer's attributes."""
PART = "multihead"
POINTS = 0
REPLACE = {"multihead_solution": '''
def multi_head_self_attention(x, params, heads, blocked=None):
    return nn.MultiheadAttention.forward(params, x, x, x, attn_mask=blocked, average_attn_weights=False)
'''}
