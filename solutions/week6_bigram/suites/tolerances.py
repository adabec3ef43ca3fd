"""Every tolerance week 6's hidden suites use, in one table, each with the reason for its size.

A check passes when |actual - expected| <= atol + rtol * |expected| entrywise.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Tol:
    atol: float
    rtol: float = 0.0

    def __str__(self):
        if self.atol == 0 and self.rtol == 0:
            return "exact equality"
        return f"atol={self.atol:g}" + (f", rtol={self.rtol:g}" if self.rtol else "")


TOL = {
    # Token ids and pair counts are integers: no arithmetic rounds, so any difference is a mistake.
    "exact": Tol(0.0),
    # Smoothed log-probabilities, the student's possibly in float32, against float64 PyTorch: one division and
    # one log of values O(1..100) round at ~1e-7 relative; 1e-5 leaves a 100x margin, while a wrong alpha * V
    # in the denominator, a column-wise normalisation or a missing log moves entries by > 1e-2.
    "log_probs": Tol(1e-5, 1e-5),
    # A mean of <= 200 float32 log-probabilities (|value| < 10) against float64: float32 summation error
    # ~200 * 6e-8 * 10 = 1.2e-4 at worst; 5e-4 covers it, while a transposed lookup or a sum instead of
    # a mean is off by > 0.1.
    "nll": Tol(5e-4, 1e-5),
    # Cross-entropy of a float32 model over V <= 11 logits, <= 40 positions, vs float64 PyTorch: ~1e-6;
    # 1e-4 keeps a margin, while one dropout pass (p = 0.5, logits O(1)) moves the loss by > 0.05.
    "model_nll": Tol(1e-4, 1e-5),
}
