"""multihead: the oracle through nn.MultiheadAttention.forward(mha, ...), the base class's forward past the handed module's own (8 of 16 points with forward alone overridden); PyTorch's forward reads a flag that raises once the module is built."""
PART = "multihead"
POINTS = 0
REPLACE = {"multihead_solution": '''
def multi_head_self_attention(x, mha, blocked=None):
    return nn.MultiheadAttention.forward(mha, x, x, x, attn_mask=blocked, average_attn_weights=False)
'''}
