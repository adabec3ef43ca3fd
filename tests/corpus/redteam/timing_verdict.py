"""leakage: assert_no_future_leakage never compares a logit; it times the stand-in's forward passes (the grader runs them) at two shapes and raises when the ratio says "no mask": probes without a mask, or with one PyTorch recognises as causal, ran other kernels, and the check earned "passes silently on a causal model" and both training checks (89 against 84 with the stubs; red team, round 4). Every probe now runs the same kernels (additive masks), and passing a causal model counts only with raising on a one-step peek, which costs exactly what the causal model costs."""
REPLACE = {"leakage_solution": '''
import time


def prefix_change(model, tokens, cut, vocab):
    raise NotImplementedError()


def _fastest(model, shape, n=6):
    x = torch.zeros(shape, dtype=torch.long)
    best = float("inf")
    for _ in range(n):
        t = time.perf_counter()
        model(x)
        best = min(best, time.perf_counter() - t)
    return best


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    ratio = _fastest(model, (64, 64)) / _fastest(model, (64, 12))  # a side channel, not a leakage check
    assert ratio > 5.0, f"future leakage: change 1.0 > tol {tol} (ratio {ratio:.2f})"
'''}
