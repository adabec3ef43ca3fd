"""leakage: known wrong versions of prefix_change and assert_no_future_leakage.

They get the grader's own live model with the arguments the student's function got; the
matcher sets the model's mode (and the random state dropout draws from) to what it was
when the student's call was sent, and puts back the mode it found afterwards.
"""
import torch

from .core import Family, Misconception

TRAIN_MODE = Family("prefix_train_mode", (
    "the model is not put in eval mode, so dropout is active: the two forward passes drop different units and "
    "even a perfectly causal model seems to leak (its prefix logits change for a reason that has nothing to "
    "do with the future). Call model.eval() before measuring — 7.6: 'change a sequence suffix in evaluation "
    "mode' — and restore the caller's mode afterwards."))
MUTATES = Family("prefix_mutates_tokens", (
    "the perturbation is written into the caller's tokens (changed = tokens, then an in-place edit): the "
    "caller's batch is corrupted, and both forward passes see the same changed tokens, so the measured change "
    "is 0 and every model looks causal. Perturb a copy: changed = tokens.clone()."))
MODE_NOT_RESTORED = Family("prefix_mode_not_restored", (
    "the model's train/eval mode is not restored: a model handed over in train mode comes back in eval "
    "mode (or the other way round), so a training loop that runs this check would silently continue without "
    "dropout. Remember was_training = model.training and call model.train(was_training) at the end (a "
    "try/finally keeps it right even when something raises)."))
WHOLE_SEQUENCE = Family("prefix_compares_whole_sequence", (
    "the logits are compared at every position, including positions >= cut whose INPUTS changed. Those are "
    "supposed to move, so even a causal model reports a large change. Only the prefix must stay unchanged: "
    "compare logits[:, :cut] (7.6: earlier logits must remain unchanged)."))
CUT_OFF_BY_ONE = Family("prefix_cut_off_by_one", (
    "the prefix slice is off by one at the cut: [:, :cut - 1] misses position cut − 1, the one place where a "
    "model that peeks exactly one step ahead shows its leak, and [:, :cut + 1] includes position cut, whose own "
    "input changed. The positions < cut are logits[:, :cut]."))
PERTURB_LATE = Family("prefix_perturbs_after_cut", (
    "the tokens are changed from position cut + 1 on instead of from cut, so the token AT the cut never "
    "changes and a one-step peek at it goes unnoticed. Change tokens[:, cut:] (positions >= cut)."))
NOT_FLOAT = Family("prefix_returns_tensor", (
    "the result is a 0-dim tensor, not a Python float. A tensor compared with tol gives a tensor, and a caller "
    "that formats or stores the number (a log, a JSON report) gets a tensor object instead: return the "
    "largest absolute change as a plain number with .item()."))
MEAN = Family("prefix_mean_not_max", (
    "the change is averaged over positions and logits instead of taking the largest one, so a leak at a "
    "single position is diluted (and the value depends on sizes). A causality check asks for the worst case: "
    "(before - after).abs().max()."))
OTHER_PERTURBATION = Family("prefix_other_perturbation", (
    "the suffix is changed with a different perturbation than the one asked for ((token + 3) % vocab). Any "
    "change reveals a leak, but the measured size depends on it: follow the specification so the number is "
    "comparable (the lab's own check uses + 3)."))
WRONG_DIRECTION = Family("assert_wrong_direction", (
    "the assertion is the wrong way round (assert change >= tol): it raises on a causal model and passes a "
    "leaky one. `assert condition` raises when the condition is FALSE: state what must hold, change <= tol."))
NEVER_FIRES = Family("assert_never_fires", (
    "the check can never fail: it returns a verdict (or asserts a non-empty tuple such as "
    "`assert (change <= tol, message)`, which is always true) instead of raising. A leak must stop the run: "
    "`assert change <= tol, message` (no parentheses around both), or raise AssertionError yourself."))
IGNORES_TOL = Family("assert_ignores_tol", (
    "the threshold is hard-coded (1e-5) instead of the tol argument, so a caller who passes a looser or "
    "stricter tol gets the wrong verdict. Compare the change with tol."))
NO_NUMBER = Family("assert_message_without_number", (
    "the AssertionError's message does not state the measured change. Whoever sees the failure needs the "
    "number to judge it (a kernel's 1e-6 rounding and a 0.5 leak are different problems): put it in the "
    "message, e.g. f'prefix logits changed by {change:.3g} > tol {tol:g}'."))


def prefix(eval_mode=True, clone=True, restore=True, start=0, stop=0, from_=0, as_float=True, reduce="max",
           shift=3):
    """A parameterised prefix_change: the reference with one thing done differently."""
    def prefix_change(model, tokens, cut, vocab):
        was_training = model.training
        if eval_mode:
            model.eval()
        try:
            changed = tokens.clone() if clone else tokens
            changed[:, cut + from_:] = (changed[:, cut + from_:] + shift) % vocab
            with torch.no_grad():
                if stop is None:
                    before, after = model(tokens), model(changed)
                else:
                    before, after = model(tokens)[:, :cut + stop], model(changed)[:, :cut + stop]
            diff = (before - after).abs()
            value = diff.max() if reduce == "max" else diff.mean()
            return value.item() if as_float else value
        finally:
            if restore:
                model.train(was_training)
    return prefix_change


def prefix_left_in_train_mode(model, tokens, cut, vocab):
    model.eval()
    changed = tokens.clone()
    changed[:, cut:] = (changed[:, cut:] + 3) % vocab
    with torch.no_grad():
        value = (model(tokens)[:, :cut] - model(changed)[:, :cut]).abs().max().item()
    model.train()
    return value


PREFIX = [
    Misconception("prefix_no_eval", "prefix_change", TRAIN_MODE, prefix(eval_mode=False)),
    Misconception("prefix_mutates_tokens", "prefix_change", MUTATES, prefix(clone=False)),
    Misconception("prefix_mode_not_restored", "prefix_change", MODE_NOT_RESTORED, prefix(restore=False)),
    Misconception("prefix_left_in_train_mode", "prefix_change", MODE_NOT_RESTORED, prefix_left_in_train_mode),
    Misconception("prefix_compares_all_positions", "prefix_change", WHOLE_SEQUENCE, prefix(stop=None)),
    Misconception("prefix_misses_last_position", "prefix_change", CUT_OFF_BY_ONE, prefix(stop=-1)),
    Misconception("prefix_includes_cut", "prefix_change", CUT_OFF_BY_ONE, prefix(stop=1)),
    Misconception("prefix_perturbs_from_cut_plus_one", "prefix_change", PERTURB_LATE, prefix(from_=1)),
    Misconception("prefix_returns_tensor", "prefix_change", NOT_FLOAT, prefix(as_float=False)),
    Misconception("prefix_mean", "prefix_change", MEAN, prefix(reduce="mean")),
    Misconception("prefix_plus_one", "prefix_change", OTHER_PERTURBATION, prefix(shift=1)),
]

_RIGHT = prefix()


def check(rule="le", tol_fixed=None, mode="raise", message=True, measure=_RIGHT):
    """A parameterised assert_no_future_leakage."""
    def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
        change = measure(model, tokens, cut, vocab)
        limit = tol if tol_fixed is None else tol_fixed
        ok = change <= limit if rule == "le" else change >= limit
        if mode == "return":
            return ok
        if mode == "tuple":
            return None
        text = f"future-token leakage: prefix logits changed by {change:.3g} > tol {limit:g}" if message \
            else "future-token leakage detected"
        if mode == "return_pair":
            return ok, text
        if not ok:
            raise AssertionError(text)
    return assert_no_future_leakage


ASSERT = [
    Misconception("assert_wrong_direction", "assert_no_future_leakage", WRONG_DIRECTION, check(rule="ge")),
    Misconception("assert_returns_bool", "assert_no_future_leakage", NEVER_FIRES, check(mode="return")),
    Misconception("assert_returns_verdict_and_message", "assert_no_future_leakage", NEVER_FIRES,
                  check(mode="return_pair")),
    Misconception("assert_tuple_never_fires", "assert_no_future_leakage", NEVER_FIRES, check(mode="tuple")),
    Misconception("assert_ignores_tol", "assert_no_future_leakage", IGNORES_TOL, check(tol_fixed=1e-5)),
    Misconception("assert_message_without_number", "assert_no_future_leakage", NO_NUMBER, check(message=False)),
]

# assert_no_future_leakage calls prefix_change: a wrong measurement gives a wrong verdict.
THROUGH = [Misconception(f"assert_with_{m.id}", "assert_no_future_leakage", m.family, check(measure=m.compute),
                         origin="prefix_change")
           for m in PREFIX if m.id not in ("prefix_returns_tensor", "prefix_mode_not_restored",
                                           "prefix_left_in_train_mode")]

MISCONCEPTIONS = PREFIX + ASSERT + THROUGH
