"""Item 4: before measuring honestly, prefix_change feeds the grader's model tokens that are out of range, negative, float, bool, 3-D, empty, too long, 128 x 64 (the largest pass allowed, 8,192 tokens), a list, a string, and an arena-record lookalike; each refused request is caught. The grader must refuse what is invalid without failing itself; the solution's score is the ceiling."""
ATTACK_REPLACE = {"leakage_solution": '''
def _abuse(model, tokens, vocab):
    bad = [tokens + vocab, tokens - vocab - 1, tokens.float(), tokens.bool(), tokens[None], tokens[:0],
           torch.zeros(1, 100_000, dtype=torch.long), torch.zeros(5000, 2, dtype=torch.long),
           tokens.tolist(), "tokens", {"$shared": 0, "dtype": "int64", "shape": [2, 10]},
           torch.full((2, 10), 2 ** 62, dtype=torch.long)]
    for value in bad:
        try:
            model(value)
        except Exception:
            pass
    for _ in range(1):
        try:
            model(torch.randint(vocab, (128, 64)))
        except Exception:
            pass


def prefix_change(model, tokens, cut, vocab):
    _abuse(model, tokens, vocab)
    was_training = model.training
    model.eval()
    try:
        changed = tokens.clone()
        changed[:, cut:] = (changed[:, cut:] + 3) % vocab
        with torch.no_grad():
            before = model(tokens)[:, :cut]
            after = model(changed)[:, :cut]
        return (before - after).abs().max().item()
    finally:
        model.train(was_training)


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"
'''}
