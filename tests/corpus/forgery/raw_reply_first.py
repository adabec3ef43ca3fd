"""Item 4: prefix_change (the mutating, eval-leaving one) measures honestly, restores the mode, writes a forged Reply frame (its value, ok=True) straight into the worker's socket, and only then writes into its tokens, switches to eval and returns -- so the grader reads a reply while the damage is still to come, and the worker's real messages arrive late, interleaved with the next calls. Must not beat the same function without the injected frame."""
from ._sources import MUTATING_LEAKAGE

REPLACE = {"leakage_solution": MUTATING_LEAKAGE}
ATTACK_REPLACE = {"leakage_solution": '''__RAW__

def prefix_change(model, tokens, cut, vocab):
    was = model.training
    model.eval()
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    with torch.no_grad():
        value = (model(tokens)[:, :cut] - model(changed)[:, :cut]).abs().max().item()
    model.train(was)
    _inject(_frame({"$dict": {"kind": "Reply", "ok": True, "value": value, "grad": None, "error": None}}))
    tokens[:, cut:] = (tokens[:, cut:] + 3) % vocab  # after the forged reply
    return value


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"
'''}
