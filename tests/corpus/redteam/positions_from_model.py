"""positions (issue 21's red team): the lab models' position table reached the worker with their replicas, and it was the reference's sinusoidal table; prefix_change saved it and sinusoidal_positions returned columns of it without computing anything (7 of 8 points against 0). The models handed to students now hold a random table: the attack scores what a stub returning zeros of the right shape scores (EQUIVALENT)."""
HONEST_LEAKAGE = '''
def prefix_change(model, tokens, cut, vocab):
    global _HARVEST
    if "_HARVEST" not in globals():
        _HARVEST = model.positions.detach().clone()
    was_training = model.training
    model.eval()
    try:
        changed = tokens.clone()
        changed[:, cut:] = (changed[:, cut:] + 3) % vocab
        with torch.no_grad():
            return (model(tokens)[:, :cut] - model(changed)[:, :cut]).abs().max().item()
    finally:
        model.train(was_training)


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"
'''
REPLACE = {"leakage_solution": HONEST_LEAKAGE, "positions_solution": '''
def sinusoidal_positions(length, width):
    table = globals().get("_HARVEST")
    if table is None or width > table.size(1) or table.size(1) % width or length > table.size(0):
        raise NotImplementedError()
    step = table.size(1) // width
    return table[:length, [(c // 2) * step * 2 + c % 2 for c in range(width)]].float().clone()
'''}
EQUIVALENT = {"leakage_solution": HONEST_LEAKAGE, "positions_solution": '''
def sinusoidal_positions(length, width):
    return torch.zeros(length, width)
'''}
