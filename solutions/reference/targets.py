"""targets: next-token inputs/targets and the mean cross-entropy over every position."""
from torch.nn import functional as F


def shift_for_next_token(tokens):
    """tokens (N, T+1) long -> (inputs, targets), each (N, T).

    inputs = tokens[:, :-1] and targets = tokens[:, 1:]: position t is supervised
    with the token that follows it.
    """
    ### BEGIN SOLUTION
    return tokens[:, :-1], tokens[:, 1:]
    ### END SOLUTION


def next_token_loss(logits, targets):
    """Mean cross-entropy over every (sequence, position) pair.

    logits: (N, T, V) float; targets: (N, T) long. Returns a scalar tensor.
    """
    ### BEGIN SOLUTION
    V = logits.size(-1)
    return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))  # (N*T, V) vs (N*T,)
    ### END SOLUTION
