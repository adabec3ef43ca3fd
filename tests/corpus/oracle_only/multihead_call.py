"""multihead (issue 27 item 4): multi_head_self_attention returned the module it was handed, called: that module is the one its answer is compared with (8 of 16 multihead points, blank 0). The module now raises when called while grading."""
PART = "multihead"
POINTS = 0
REPLACE = {"multihead_solution": '''
def multi_head_self_attention(x, mha, blocked=None):
    return mha(x, x, x, attn_mask=blocked, average_attn_weights=False)
'''}
