"""multihead: the same oracle through mha.forward and through a deep copy of the module (the copy is the same kind of module, and raises too)."""
PART = "multihead"
POINTS = 0
REPLACE = {"multihead_solution": '''
import copy


def multi_head_self_attention(x, mha, blocked=None):
    try:
        return mha.forward(x, x, x, attn_mask=blocked, average_attn_weights=False)
    except RuntimeError:
        return copy.deepcopy(mha)(x, x, x, attn_mask=blocked, average_attn_weights=False)
'''}
