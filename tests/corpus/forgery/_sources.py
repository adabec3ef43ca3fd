"""Function sources shared by several cases (not a case: the leading underscore)."""

# prefix_change that writes into its tokens and leaves the model in eval mode (the item 1).
MUTATING_LEAKAGE = '''
def prefix_change(model, tokens, cut, vocab):
    model.eval()  # and never restored
    with torch.no_grad():
        before = model(tokens)[:, :cut]
        tokens[:, cut:] = (tokens[:, cut:] + 3) % vocab  # in place: the caller's tokens change
        after = model(tokens)[:, :cut]
    return (before - after).abs().max().item()


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"
'''

# The same measurement, correct except that it never switches the model to eval mode.
TRAIN_MODE_LEAKAGE = '''
def prefix_change(model, tokens, cut, vocab):
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    with torch.no_grad():
        before = model(tokens)[:, :cut]
        after = model(changed)[:, :cut]
    return (before - after).abs().max().item()


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"
'''

STUB_TARGETS = '''
def shift_for_next_token(tokens):
    raise NotImplementedError()


def next_token_loss(logits, targets):
    raise NotImplementedError()
'''

# Private, correct pieces a forging cell answers with (never bound to the graded names).
PRIVATE_PIECES = '''
def _private_shift(tokens):
    return tokens[:, :-1].clone(), tokens[:, 1:].clone()


def _private_loss(logits, targets):
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))


def _private_value_and_grad(logits, targets):
    logits = logits.detach().clone().requires_grad_(True)
    value = _private_loss(logits, targets)
    (grad,) = torch.autograd.grad(value, logits)
    return value.detach(), grad
'''
