"""model: evaluating a model the caller hands in, and handing it back as it was."""
import torch
from torch.nn import functional as F


def evaluate_nll(model, ids):
    """Mean next-token cross-entropy of ``model`` (ids (T,) -> logits (T, V)) on the 1-D ``ids``, as a Python float.

    Computed in eval mode (no dropout) and without gradients; the model's train/eval mode, weights and
    gradients are left as they were.
    """
    ### BEGIN SOLUTION
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        with torch.no_grad():
            logits = model(ids[:-1])
            loss = F.cross_entropy(logits, ids[1:])
    finally:
        for module, mode in modes:
            module.training = mode
    return loss.item()
    ### END SOLUTION
