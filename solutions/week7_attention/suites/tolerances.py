"""Every tolerance the hidden suites use, in one table, each with the reason for its size.

A check passes when |actual - expected| <= atol + rtol * |expected| entrywise. Threshold
entries (no-leak, clear leak) use only ``atol``; ``rtol`` is 0 there.
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
    # Masks, token shifts, head splits of integer-valued inputs, and weights that must be
    # *exactly* zero: no arithmetic is involved, so any difference is a real mistake.
    "exact": Tol(0.0),
    # The lesson prints softmax([2, 0.5, -1]) to 4 decimals; half a unit in the last place.
    "lesson": Tol(5e-5),
    # A float32 computation (a few matmuls, exp, one division; values O(1)) against a
    # float64 truth: float32 rounds at ~6e-8 relative per op, so 1e-5 leaves >100x margin,
    # while every mistake we target (wrong scale, transpose, mask) moves entries by >1e-2.
    "float32": Tol(1e-5, 1e-4),
    # float32 student vs float32 PyTorch module (nn.MultiheadAttention, TransformerEncoder):
    # fused addmm/baddbmm kernels sum in a different order, and the input projection plus
    # out_proj add two more matmuls of width up to 64 on top of "float32".
    "module": Tol(3e-5, 3e-4),
    # The position table may be computed in float32 by the student: the angle pos * rate for
    # pos < 64 carries ~64 * 6e-8 = 4e-6 absolute error before sin/cos; 1e-4 keeps a wide margin,
    # while a swapped sin/cos or an i-for-2i exponent is off by O(0.1..1).
    "positions": Tol(1e-4),
    # Mean cross-entropy in float32 (log-sum-exp over V=7, mean of <=12 terms) vs float64.
    "loss": Tol(1e-5, 1e-5),
    # A causal model's prefix logits do not depend on the suffix at all; the brief allows
    # 1e-5 for float32 kernels that may reorder sums when the sequence content changes.
    "no_leak": Tol(1e-5),
    # A model that reads the future moves its logits by O(0.1..1) under a +3 token change;
    # anything below 1e-3 would mean the function did not actually measure the leak.
    "clear_leak": Tol(1e-3),
    # The same float32 model run twice (here and in the worker) on the same tokens: equal up
    # to kernel reordering. A different perturbation (+1, random) changes the value by >>0.1%.
    "leak_match": Tol(1e-5, 1e-3),
    # assert_no_future_leakage's ``tol`` probes: a tol this many times above the measured
    # change must pass and one this many times below must raise (a pure ratio, no rounding).
    "tol_probe_factor": Tol(4.0),
    # Reserved-test loss of the 2-epoch smoke run against the reference run (~0.55). Same seeds
    # and correct pieces give the same model; other correct idioms (log-softmax + gather,
    # arange masks) differ by float32 rounding over 8 AdamW steps, far below 0.02, while a
    # wrong mask or shift moves the loss by >0.3.
    "smoke_test_loss": Tol(0.02),
}
