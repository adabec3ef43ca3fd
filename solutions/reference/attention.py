"""softmax_read: the numerically stable softmax and one attention read."""
import math

import torch



def stable_softmax(scores, dim=-1):
    """Softmax of ``scores`` along ``dim``, safe for huge scores and fully blocked rows.

    Subtract the maximum along ``dim`` before exponentiating (softmax is unchanged by
    a shift, and exp never overflows). Entries equal to -inf get weight exactly 0. A
    slice whose entries are all -inf gets all zeros, never NaN.

    scores: float tensor of any shape.  Returns: same shape and dtype.
    """
    ### BEGIN SOLUTION
    peak = scores.amax(dim=dim, keepdim=True)
    # An all -inf slice has peak -inf and (-inf) - (-inf) = nan; shift it by 0 instead.
    peak = torch.where(torch.isfinite(peak), peak, torch.zeros_like(peak))
    weights = torch.exp(scores - peak)
    total = weights.sum(dim=dim, keepdim=True)
    # Dividing by 1 leaves an all-zero slice at zero instead of 0/0.
    return weights / torch.where(total > 0, total, torch.ones_like(total))
    ### END SOLUTION


def attention_read(q, k, v, blocked=None, temperature=1.0):
    """One scaled dot-product attention read.

    q: (..., Tq, dk) queries; k: (..., Tk, dk) keys; v: (..., Tk, dv) values.
    Tq may differ from Tk (cross-attention); leading dims (batch, heads) broadcast.
    blocked: bool tensor broadcastable to (..., Tq, Tk), True = this key is blocked
        for this query (the nn.MultiheadAttention convention), or None.
    temperature: scores are q kᵀ / √dk / temperature; below 1 sharpens, above 1 flattens.

    Returns (output (..., Tq, dv), weights (..., Tq, Tk)). Each row of weights sums
    to 1 over the keys, blocked keys get exactly 0, and a fully blocked row is all 0.
    """
    ### BEGIN SOLUTION
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)) / temperature  # (..., Tq, Tk)
    if blocked is not None:
        scores = scores.masked_fill(blocked, float("-inf"))
    weights = stable_softmax(scores, dim=-1)
    return weights @ v, weights  # (..., Tq, dv), (..., Tq, Tk)
    ### END SOLUTION
