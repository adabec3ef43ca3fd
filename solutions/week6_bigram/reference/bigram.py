"""bigram: counting pairs of consecutive tokens, smoothing them into log-probabilities, scoring a text."""
import torch


def bigram_counts(ids, V):
    """(V, V) counts: entry [i, j] is how often token j directly follows token i in the 1-D ``ids``."""
    ### BEGIN SOLUTION
    counts = torch.zeros(V, V, dtype=torch.long)
    counts.index_put_((ids[:-1], ids[1:]), torch.ones(len(ids) - 1, dtype=torch.long), accumulate=True)
    return counts
    ### END SOLUTION


def bigram_log_probs(counts, alpha):
    """Add-alpha smoothed log P(next = j | current = i): log((counts[i, j] + alpha) / (row sum + alpha * V)), (V, V) float."""
    ### BEGIN SOLUTION
    smoothed = counts.double() + alpha
    return (smoothed / smoothed.sum(dim=1, keepdim=True)).log().float()
    ### END SOLUTION


def bigram_nll(log_probs, ids):
    """Mean negative log-likelihood of each next token of ``ids`` under the (V, V) table: a Python float."""
    ### BEGIN SOLUTION
    picked = log_probs[ids[:-1], ids[1:]]
    return -picked.double().mean().item()
    ### END SOLUTION
