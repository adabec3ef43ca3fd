"""leakage mutants. assert_no_future_leakage calls prefix_change and the graded training part
runs the student's assert_no_future_leakage, so each may also cost points in training."""
from tests.corpus import Mutant

TRAINING = ("training",)


def _m(name, function, old, new, why):
    return Mutant(name, "leakage", function, old, new, why, TRAINING)


MUTANTS = [
    _m("prefix_no_eval", "prefix_change",
       "    model.eval()\n", "",
       "forgets model.eval(): dropout makes a causal model look leaky"),
    _m("prefix_mutates_tokens", "prefix_change",
       "changed = tokens.clone()", "changed = tokens",
       "perturbs the caller's tokens in place (and then compares the changed tokens with themselves)"),
    _m("prefix_mode_not_restored", "prefix_change",
       "        model.train(was_training)\n", "        pass\n",
       "leaves the model in eval mode"),
    _m("prefix_compares_all_positions", "prefix_change",
       "            before = model(tokens)[:, :cut]  # (N, cut, V)\n            after = model(changed)[:, :cut]\n",
       "            before = model(tokens)\n            after = model(changed)\n",
       "compares the logits at every position, not just the prefix"),
    _m("prefix_misses_last_prefix_position", "prefix_change",
       "            before = model(tokens)[:, :cut]  # (N, cut, V)\n            after = model(changed)[:, :cut]\n",
       "            before = model(tokens)[:, :cut - 1]\n            after = model(changed)[:, :cut - 1]\n",
       "compares positions < cut - 1 only, missing a one-step peek"),
    _m("prefix_perturbs_from_cut_plus_one", "prefix_change",
       "changed[:, cut:] = (changed[:, cut:] + 3) % vocab",
       "changed[:, cut + 1:] = (changed[:, cut + 1:] + 3) % vocab",
       "changes the tokens after cut but not the one at cut"),
    _m("assert_wrong_direction", "assert_no_future_leakage",
       "assert change <= tol,", "assert change >= tol,",
       "asserts the change is at least tol: raises on causal models, passes leaky ones"),
    _m("assert_returns_bool", "assert_no_future_leakage",
       "    assert change <= tol, ", "    return change <= tol, ",
       "returns a verdict instead of raising"),
    _m("assert_ignores_tol", "assert_no_future_leakage",
       "assert change <= tol,", "assert change <= 1e-5,",
       "compares with a hard-coded 1e-5 instead of the tol argument"),
    _m("assert_message_without_number", "assert_no_future_leakage",
       'f"future-token leakage: prefix logits changed by {change:.3g} > tol {tol:g}"',
       '"future-token leakage detected"',
       "raises with a message that does not state the measured change"),
]
