"""multihead: split a width-D projection into H heads, attend per head, merge back."""
from .attention import attention_read


def split_heads(x, heads):
    """(N, T, D) -> (N, heads, T, D // heads).

    Features h*Dh ... (h+1)*Dh - 1 of every position go to head h, where Dh = D // heads.
    """
    ### BEGIN SOLUTION
    N, T, D = x.shape
    return x.reshape(N, T, heads, D // heads).transpose(1, 2)  # (N, H, T, Dh)
    ### END SOLUTION


def merge_heads(x):
    """(N, H, T, Dh) -> (N, T, H * Dh), the inverse of split_heads."""
    ### BEGIN SOLUTION
    N, H, T, Dh = x.shape
    return x.transpose(1, 2).reshape(N, T, H * Dh)  # (N, T, D)
    ### END SOLUTION


def multi_head_self_attention(x, params, heads, blocked=None):
    """Multi-head self-attention computed by hand from a layer's parameters.

    x: (N, T, D). params: the state_dict of an nn.MultiheadAttention(D, heads, batch_first=True)
    with biases: a dict of plain tensors "in_proj_weight" (3D, D), "in_proj_bias" (3D,),
    "out_proj.weight" (D, D), "out_proj.bias" (D,). in_proj stacks the three input projections
    as [queries; keys; values]. blocked: (T, T) bool, True = blocked, or None.

    Returns (output (N, T, D), weights (N, heads, T, T)), equal to
    mha(x, x, x, attn_mask=blocked, average_attn_weights=False) for a layer holding params.
    Compute it with split_heads, attention_read and merge_heads.
    """
    ### BEGIN SOLUTION
    qkv = x @ params["in_proj_weight"].T + params["in_proj_bias"]  # (N, T, 3D)
    q, k, v = (split_heads(part, heads) for part in qkv.chunk(3, dim=-1))  # each (N, H, T, Dh)
    context, weights = attention_read(q, k, v, blocked)  # (N, H, T, Dh), (N, H, T, T)
    return merge_heads(context) @ params["out_proj.weight"].T + params["out_proj.bias"], weights  # (N, T, D)
    ### END SOLUTION
