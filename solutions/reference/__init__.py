"""Reference answers for every graded function, one module per part.

The ``### BEGIN SOLUTION`` / ``### END SOLUTION`` comments are nbgrader markup: the
notebook builder copies these functions verbatim into the instructor notebook, and
``nbgrader generate_assignment`` replaces each marked body with a stub.
"""
from .attention import attention_read, stable_softmax
from .leakage import assert_no_future_leakage, prefix_change
from .masks import (causal_mask_additive, causal_mask_allowed, causal_mask_blocked,
                    padding_mask_blocked, sdpa_mask)
from .multihead import merge_heads, multi_head_self_attention, split_heads
from .positions import sinusoidal_positions
from .targets import next_token_loss, shift_for_next_token

# Graded function names per part, in notebook order: solutions/week7_attention/assignment.py is their one home.
from autograder.assignment import PARTS  # re-export
