"""Week 6's facts, each written once: the name, the parts and their graded functions, which calls which.

Everything else reads them through the engine's ``autograder.assignment`` (which finds this
package by the discovery rule of ``autograder/plugin_api.py``: ``AUTOGRADER_ASSIGNMENT=solutions.week6_bigram``).
Not here, because they have one home each already: the points (``@pytest.mark.points`` beside each
hidden test), the tolerances (``suites/tolerances.py``).

Standard library only.
"""
NAME = "week6_bigram"

# Graded function names per part, parts in notebook order (pytest markers, results.json tags, grades.csv columns).
PARTS = {
    "tokens": ("build_vocab", "encode", "decode"),
    "bigram": ("bigram_counts", "bigram_log_probs", "bigram_nll"),
    "model": ("evaluate_nll",),
}

# Which graded functions call which (directly), as the notebook's stubs ask: none calls another.
USES: dict[str, tuple[str, ...]] = {}
