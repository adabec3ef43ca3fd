"""leakage: prefix_change and assert_no_future_leakage read the answer off the model's own mask (model.mask_fn, which says whether the model may read the future) instead of running the model; the mask stays with the grader, so calling it raises."""
PART = "leakage"
POINTS = 0
REPLACE = {"leakage_solution": '''
def prefix_change(model, tokens, cut, vocab):
    blocked = model.mask_fn(tokens.size(1))
    return 0.0 if bool(blocked[:cut, cut:].all()) else 1.0


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"
'''}
