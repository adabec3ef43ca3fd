"""Week 7's facts, each written once: the name, the nbgrader kernel, the parts and their graded functions, which
calls which.

Everything else reads them through the engine's ``autograder.assignment`` (which finds this
package by the discovery rule of ``autograder/plugin_api.py``). Not here, because they have one
home each already: the points (``@pytest.mark.points`` beside each hidden test), the smoke and
full epochs (``solutions/lab/lab.py`` ``EPOCHS``), the tolerances (``suites/tolerances.py``).

Standard library only: the Makefile and the sandbox import it before (or without) PyTorch.
tests/test_single_source.py fails when a second definition of any of these facts appears elsewhere.
"""
NAME = "week7_attention"

# The Jupyter kernel nbgrader runs this notebook in (the isolated kernel, autograder/flows/nbgrader/kernel.py): its
# name from before assignments were plug-ins, not the derived `week7-attention-isolated`. Courses' gradebooks
# record it per notebook, so it stays.
KERNEL = "week7-isolated"

# Graded function names per part, parts in notebook order. The part ids are the ones used by
# pytest markers, results.json tags, grades.csv columns and `make test-part PART=...`.
PARTS = {
    "softmax_read": ("stable_softmax", "attention_read"),
    "masks": ("causal_mask_blocked", "causal_mask_allowed", "causal_mask_additive",
              "padding_mask_blocked", "sdpa_mask"),
    "multihead": ("split_heads", "merge_heads", "multi_head_self_attention"),
    "positions": ("sinusoidal_positions",),
    "targets": ("shift_for_next_token", "next_token_loss"),
    "leakage": ("prefix_change", "assert_no_future_leakage"),
    "training": (),  # nothing new: the lab's smoke run with the student's mask, shift and loss
}

# Which graded functions call which (directly), as the notebook's stubs ask and the reference does.
# The student's inner calls happen in the sandboxed worker, out of the grader's sight: this map is
# how a failure is traced back to a function that fails its own checks (diagnosis/hints.py)
# and how a diagnosed cause is looked for upstream (diagnosis/core.py).
USES = {
    "attention_read": ("stable_softmax",),
    "causal_mask_additive": ("causal_mask_blocked",),
    "sdpa_mask": ("causal_mask_allowed", "padding_mask_blocked"),
    "multi_head_self_attention": ("split_heads", "merge_heads", "attention_read"),
    "assert_no_future_leakage": ("prefix_change",),
}
