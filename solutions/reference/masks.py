"""masks: causal and padding masks in each PyTorch boolean convention.

nn.MultiheadAttention / nn.TransformerEncoder read True as *blocked*;
F.scaled_dot_product_attention reads True as *allowed*. Same picture, opposite bits.
"""
import torch


def causal_mask_blocked(T):
    """(T, T) bool, True strictly above the diagonal: query i may not read key j > i.

    This is the ``mask`` of nn.TransformerEncoder and the ``attn_mask`` of
    nn.MultiheadAttention, where True means blocked.
    """
    ### BEGIN SOLUTION
    return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    ### END SOLUTION


def causal_mask_allowed(T):
    """(T, T) bool, True on and below the diagonal: query i may read key j <= i.

    This is the boolean ``attn_mask`` of F.scaled_dot_product_attention, where True
    means allowed: the logical negation of causal_mask_blocked(T).
    """
    ### BEGIN SOLUTION
    return torch.tril(torch.ones(T, T, dtype=torch.bool))
    ### END SOLUTION


def causal_mask_additive(T, dtype=torch.float32):
    """(T, T) float of ``dtype``: 0.0 where allowed, -inf where blocked (j > i).

    Added to the scores before softmax; the same matrix as
    nn.Transformer.generate_square_subsequent_mask(T).
    """
    ### BEGIN SOLUTION
    mask = torch.zeros(T, T, dtype=dtype)
    return mask.masked_fill(causal_mask_blocked(T), float("-inf"))
    ### END SOLUTION


def padding_mask_blocked(lengths, T):
    """(N, T) bool, True at padding positions t >= lengths[n].

    lengths: 1-D long tensor (N,), the real length of each sequence (<= T).
    This is the ``key_padding_mask`` of nn.MultiheadAttention (True = blocked).
    """
    ### BEGIN SOLUTION
    return torch.arange(T)[None, :] >= lengths[:, None]  # (N, T)
    ### END SOLUTION


def sdpa_mask(lengths, T):
    """(N, 1, T, T) bool for F.scaled_dot_product_attention: True where query i may read key j.

    Key j is allowed when it is not in the future (j <= i) and is not padding
    (j < lengths[n]). The singleton dim broadcasts over heads.
    """
    ### BEGIN SOLUTION
    real_key = ~padding_mask_blocked(lengths, T)  # (N, T)
    allowed = causal_mask_allowed(T)[None, :, :] & real_key[:, None, :]  # (N, T, T)
    return allowed[:, None, :, :]  # (N, 1, T, T)
    ### END SOLUTION
