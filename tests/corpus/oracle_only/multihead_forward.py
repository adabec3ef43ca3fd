"""multihead: the handed value treated as a module, through params.forward and a deep copy's call (both once the layer's own forward, refused while it was handed); a dict has neither."""
PART = "multihead"
POINTS = 0
REPLACE = {"multihead_solution": '''
import copy


def multi_head_self_attention(x, params, heads, blocked=None):
    try:
        return params.forward(x, x, x, attn_mask=blocked, average_attn_weights=False)
    except (AttributeError, RuntimeError):
        return copy.deepcopy(params)(x, x, x, attn_mask=blocked, average_attn_weights=False)
'''}
