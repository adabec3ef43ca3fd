"""leakage: does changing the future move the past? The causal model's unit test."""
import torch


def prefix_change(model, tokens, cut, vocab):
    """Largest |change| of the logits at positions < cut when positions >= cut change.

    model maps (N, T) long tokens to (N, T, V) logits. Run it in eval mode (dropout
    off) and without gradients on ``tokens`` and on a copy whose tokens at positions
    >= cut are shifted by 3 (mod vocab). ``tokens`` is left unchanged and the model's
    train/eval mode is restored. Returns a Python float.
    """
    ### BEGIN SOLUTION
    was_training = model.training
    model.eval()
    try:
        changed = tokens.clone()
        changed[:, cut:] = (changed[:, cut:] + 3) % vocab
        with torch.no_grad():
            before = model(tokens)[:, :cut]  # (N, cut, V)
            after = model(changed)[:, :cut]
        return (before - after).abs().max().item()
    finally:
        model.train(was_training)
    ### END SOLUTION


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    """Raise AssertionError, stating the change, if prefix_change exceeds tol."""
    ### BEGIN SOLUTION
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"
    ### END SOLUTION
