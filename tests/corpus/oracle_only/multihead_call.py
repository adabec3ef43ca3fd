"""multihead (issue 27 item 4): multi_head_self_attention returned the module it was handed, called, which is the module its answer is compared with (8 of 16 multihead points, blank 0); it now gets the parameters, a dict of tensors, and calling that raises."""
PART = "multihead"
POINTS = 0
REPLACE = {"multihead_solution": '''
def multi_head_self_attention(x, params, heads, blocked=None):
    return params(x, x, x, attn_mask=blocked, average_attn_weights=False)
'''}
