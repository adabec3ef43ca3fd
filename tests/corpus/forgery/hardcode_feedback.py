"""Item 3: hard-coding from feedback. Round 1's prefix_change and next_token_loss return a fingerprint of what they were handed (a number 100000..999999 from the probe model's logits on fixed tokens, the tokens and cut; from the logits and targets; six digits, as the feedback prints six significant digits, so that two probes share a fingerprint only by a one-in-90,000 chance per pair), so the feedback prints "is <fingerprint>, expected <value>". Round 2 is built only from round 1's results.json: for a fingerprint seen there it returns the printed expected value, otherwise it raises NotImplementedError like the honest stub (BASELINE: round 2's code with an empty table). Probes are drawn per notebook, so round 2 must score no more than the stub in leakage and targets.

Not a plain case (round 2 needs round 1's feedback): use round_one(), round_two(results), baseline().
"""
import json
import re

from . import _apply, base_notebook

ROUNDS = True
ATTACKED = ("leakage", "targets")
EXPECTED = re.compile(r"\bis (\d{6}), expected (-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)\b")

_FINGERPRINT = '''
import hashlib as _hashlib


def _fingerprint(*values):
    digest = _hashlib.sha256()
    for value in values:
        digest.update(value.detach().contiguous().numpy().tobytes() if isinstance(value, torch.Tensor)
                      else repr(value).encode())
    return 100_000 + int.from_bytes(digest.digest()[:4], "big") % 900_000


def _model_fingerprint(model, tokens, cut):
    was = model.training
    model.eval()
    try:
        with torch.no_grad():
            logits = model(torch.arange(10).reshape(1, 10) % 8)
    finally:
        model.train(was)
    return _fingerprint(logits.round(decimals=4), tokens, cut)
'''

_ROUND_ONE = {
    "leakage_solution": _FINGERPRINT + '''

def prefix_change(model, tokens, cut, vocab):
    return float(_model_fingerprint(model, tokens, cut))


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"
''',
    "targets_solution": _FINGERPRINT + '''

def shift_for_next_token(tokens):
    return tokens[:, :-1], tokens[:, 1:]


def next_token_loss(logits, targets):
    return torch.tensor(float(_fingerprint(logits, targets)))
''',
}

_ROUND_TWO = '''
TABLE = __TABLE__  # fingerprint -> the expected value printed in round 1's feedback
''' + _FINGERPRINT + '''

def prefix_change(model, tokens, cut, vocab):
    key = str(_model_fingerprint(model, tokens, cut))
    if key in TABLE:
        return TABLE[key]
    raise NotImplementedError()


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    change = prefix_change(model, tokens, cut, vocab)
    assert change <= tol, f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"
'''

_ROUND_TWO_TARGETS = '''
TABLE = __TABLE__
''' + _FINGERPRINT + '''

def shift_for_next_token(tokens):
    return tokens[:, :-1], tokens[:, 1:]


def next_token_loss(logits, targets):
    key = str(_fingerprint(logits, targets))
    if key in TABLE:
        return torch.tensor(TABLE[key])
    raise NotImplementedError()
'''


def round_one():
    return _apply(base_notebook(), _ROUND_ONE)


def table(results):
    """{fingerprint: expected value} from a results.json dict (only what the feedback printed)."""
    found = {}
    for test in results["tests"]:
        for key, value in EXPECTED.findall(test.get("output", "")):
            found[key] = float(value)
    return found


def round_two(results):
    entries = json.dumps(table(results))
    return _apply(base_notebook(), {"leakage_solution": _ROUND_TWO.replace("__TABLE__", entries),
                                    "targets_solution": _ROUND_TWO_TARGETS.replace("__TABLE__", entries)})


def baseline():
    return _apply(base_notebook(), {"leakage_solution": _ROUND_TWO.replace("__TABLE__", "{}"),
                                    "targets_solution": _ROUND_TWO_TARGETS.replace("__TABLE__", "{}")})


def one_byte_changed(nb):
    """The same notebook with one byte more (a space at the end of its first Markdown cell)."""
    import copy
    nb = copy.deepcopy(nb)
    first = next(c for c in nb.cells if c.cell_type == "markdown")
    first.source += " "
    return nb
