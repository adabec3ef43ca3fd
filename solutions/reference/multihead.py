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


def multi_head_self_attention(x, mha, blocked=None):
    """Self-attention computed by hand with the weights of ``mha``.

    x: (N, T, D). mha: nn.MultiheadAttention(D, H, batch_first=True) with biases.
    blocked: (T, T) bool, True = blocked (the attn_mask convention), or None.
    Use mha.in_proj_weight (3D, D) and mha.in_proj_bias (3D,), stacked as
    [queries; keys; values], then mha.out_proj, with split_heads / attention_read /
    merge_heads.

    Returns (output (N, T, D), weights (N, H, T, T)), equal to
    mha(x, x, x, attn_mask=blocked, average_attn_weights=False).

    Do not call mha itself (mha(...) or mha.forward(...)): its output is the answer
    this function is compared with, so while grading calling it raises an error and
    earns nothing. Reading its weights is the point; mha.out_proj may be called.
    """
    ### BEGIN SOLUTION
    H = mha.num_heads
    qkv = x @ mha.in_proj_weight.T + mha.in_proj_bias  # (N, T, 3D)
    q, k, v = (split_heads(part, H) for part in qkv.chunk(3, dim=-1))  # each (N, H, T, Dh)
    heads, weights = attention_read(q, k, v, blocked)  # (N, H, T, Dh), (N, H, T, T)
    return mha.out_proj(merge_heads(heads)), weights  # (N, T, D), (N, H, T, T)
    ### END SOLUTION
