"""leakage: prefix_change and assert_no_future_leakage on lab models that are causal or leak.

Each model stays in the grading process: the student's function gets a replica whose
forward passes the grader runs itself, in the flags the replica had (engine/lab_models.py),
so whether dropout was on in a pass is observed here; the flags a model is left with are
the replica's, set on the grader's model as model.train() would. Expected values come from
the reference on a twin of the same model. A model that leaks exactly one step ahead
("one_step") catches checks that only look far ahead.

A property that a constant also has earns its point only together with the job itself
(red team, rounds 2 and 3): "about 0 on a causal model", "ran in eval mode" and "mode
restored" count for a prefix_change whose value on a model that reads the future is the
right one; "passes silently on a causal model" counts for a check that also raises on a
leaky model, and "raises on leaky models" and "respects tol" for one that also passes a
causal one. Those three read one pool of verdicts on causal and leaky models, asked in an
order drawn per submission (suites/verdicts.py), so that no call counter can replay them.
"""
import pytest
import torch

from solutions.week7_attention.served.probes import generator, lab, lab_model
from autograder.engine.student import StudentError
from solutions.week7_attention.suites.expect import (expect, expect_close, expect_float, expect_message_has_number,
                                      expect_unchanged)
from solutions.week7_attention.suites.tolerances import TOL
from solutions.week7_attention.suites.verdicts import first_wrong, pool

pytestmark = pytest.mark.part("leakage")

N, T, CUT = 2, 10, 5
PERTURB = ("Change the tokens at positions >= cut to (token + 3) % vocab, run the model in eval mode on both, "
           "and return the largest |change| of the logits at positions < cut.")


def _tokens(seed=1):
    return torch.randint(lab().VOCAB, (N, T), generator=generator(seed))


def _change(student, model, tokens=None, cut=CUT):
    tokens = _tokens() if tokens is None else tokens
    return expect_float(student.prefix_change(model, tokens, cut, lab().VOCAB), "prefix_change")


def _reference(ref, mask, n, cut=CUT):
    """The reference's prefix_change on a twin of probe model ``n``."""
    return torch.tensor(ref.prefix_change(lab_model(mask, n), _tokens(), cut, lab().VOCAB), dtype=torch.float64)


def _expect_value(got, expected, what):
    expect_close(torch.tensor(got, dtype=torch.float64), expected, what, TOL["leak_match"], hint=PERTURB)


def _measures_the_leak(student, ref, n, property_):
    """prefix_change gives the reference's value on a model that reads the future (probe ``n``): the job,
    without which ``property_`` (one a constant has too) earns nothing."""
    got = _change(student, lab_model("none", n))
    expected = _reference(ref, "none", n)
    expect(abs(got - float(expected)) <= TOL["leak_match"].atol + TOL["leak_match"].rtol * abs(float(expected)),
           f"{property_}, but on a model that reads the future it gives {got:.3g} (expected about "
           f"{float(expected):.3g}): a prefix_change that does not measure the change earns nothing here. {PERTURB}")


@pytest.mark.points(1)
def test_causal_model_is_zero(student, ref):
    """prefix_change is ~0 on a causal model"""
    got = _change(student, lab_model("causal", 1))
    expect(abs(got) < TOL["no_leak"].atol, f"prefix_change on a causal model is {got:.3g}, expected about 0 "
                                           f"(below {TOL['no_leak'].atol:g}). Compare only logits at positions "
                                           f"< cut, i.e. [:, :cut].")
    _measures_the_leak(student, ref, 12, "prefix_change is about 0 on a causal model")


@pytest.mark.points(2)
def test_leaky_model(student, ref):
    """prefix_change measures the leak of a model that reads the whole sequence"""
    expected = _reference(ref, "none", 2)
    got = _change(student, lab_model("none", 2))
    expect(got > TOL["clear_leak"].atol, f"prefix_change on a model that reads the future is {got:.3g}; it "
                                         f"should be clearly above 0 (about {float(expected):.3g}). {PERTURB}")
    _expect_value(got, expected, "prefix_change on a model that reads the future")


@pytest.mark.points(1)
def test_one_step_model(student, ref):
    """prefix_change catches a model that peeks exactly one step ahead"""
    expected = _reference(ref, "one_step", 3)
    got = _change(student, lab_model("one_step", 3))
    expect(got > TOL["clear_leak"].atol, f"prefix_change on a model that reads position t+1 is {got:.3g}; it "
                                         f"should be about {float(expected):.3g}. Include position cut - 1 in "
                                         f"the prefix: logits[:, :cut].")
    _expect_value(got, expected, "prefix_change on a model that reads position t+1")


@pytest.mark.points(1)
def test_eval_mode_with_dropout(student, ref):
    """A model with dropout handed over in train mode is run in eval mode, and measured right"""
    model = lab_model("none", 4, dropout=0.2, training=True)
    expected = ref.prefix_change(lab_model("none", 4, dropout=0.2, training=True), _tokens(), CUT, lab().VOCAB)
    outcome = student.call("prefix_change", model, _tokens(), CUT, lab().VOCAB)
    got = expect_float(outcome.value, "prefix_change")
    expect(outcome.forward_modes, "prefix_change never ran the model; run it on tokens and on the changed copy.")
    expect(not any(outcome.forward_modes),
           f"prefix_change ran the model {sum(outcome.forward_modes)} of {len(outcome.forward_modes)} times in "
           f"train mode (dropout on); call model.eval() before running it.")
    _expect_value(got, torch.tensor(expected, dtype=torch.float64),
                  "prefix_change on a model with dropout that reads the future, handed over in train mode")


@pytest.mark.points(1)
def test_mode_restored(student, ref):
    """The model's train/eval mode is restored"""
    model = lab_model("none", 5, dropout=0.2, training=True)
    expected = ref.prefix_change(lab_model("none", 5, dropout=0.2, training=True), _tokens(), CUT, lab().VOCAB)
    outcome = student.call("prefix_change", model, _tokens(), CUT, lab().VOCAB)
    expect(outcome.forward_modes, "prefix_change never ran the model, so it had no mode to restore: run it on the "
                                  "tokens and on the changed tokens, and compare the logits before the cut.")
    expect(model.training, "the model was in train mode before prefix_change and in eval mode after; "
                           "remember model.training and call model.train(was_training) at the end.")
    still_eval = [name for name, m in model.named_modules() if not m.training]
    expect(not still_eval, f"the model itself is back in train mode, but {', '.join(still_eval[:3])} "
                           f"{'is' if len(still_eval) == 1 else 'are'} still in eval mode (dropout stays off in "
                           f"them); model.train(was_training) sets every module back.")
    _expect_value(expect_float(outcome.value, "prefix_change"), torch.tensor(expected, dtype=torch.float64),
                  "prefix_change on a model with dropout that reads the future")  # the call did its job


@pytest.mark.points(1)
def test_tokens_unchanged(student, ref):
    """tokens are left unchanged"""
    outcome = student.call("prefix_change", lab_model("none", 6), _tokens(), CUT, lab().VOCAB)
    _expect_value(expect_float(outcome.value, "prefix_change"), _reference(ref, "none", 6),
                  "prefix_change on a model that reads the future")  # the call did its job (expect_unchanged)
    expect_unchanged(outcome, ["model", "tokens"], "prefix_change")


@pytest.mark.points(1)
@pytest.mark.parametrize("cut", [3, 8], ids=["cut=3", "cut=8"])
def test_other_cuts(student, ref, cut):
    """prefix_change honours cut"""
    _expect_value(_change(student, lab_model("none", 7), cut=cut), _reference(ref, "none", 7, cut),
                  f"prefix_change(cut={cut}) on a model that reads the future")


def _expect_raises(student, model, what, check_message=True, **kwargs):
    """assert_no_future_leakage must raise AssertionError (and say by how much)."""
    try:
        student.call("assert_no_future_leakage", model, _tokens(), CUT, lab().VOCAB, **kwargs)
    except StudentError as err:
        if err.kind != "AssertionError":
            raise AssertionError(f"assert_no_future_leakage raised {err.name} on {what}; it should raise "
                                 f"AssertionError (e.g. with an `assert change <= tol, message`).") from None
        if check_message:
            expect_message_has_number(err, "assert_no_future_leakage")
        return
    raise AssertionError(f"assert_no_future_leakage returned normally on {what}; it should raise "
                         f"AssertionError.")


@pytest.fixture(scope="module")
def verdicts(student):
    """The student's assert_no_future_leakage (default tol) on four causal and four leaky probe models, in an
    order drawn per submission (suites/verdicts.py): what the three checks below read."""
    def ask(kind, position):
        student.call("assert_no_future_leakage", lab_model(kind, 40 + position), _tokens(), CUT, lab().VOCAB)
    return pool(40, ask)


@pytest.mark.points(1)
def test_assert_passes_on_causal(verdicts):
    """assert_no_future_leakage passes silently on a causal model"""
    wrong = first_wrong(verdicts, ("causal",))
    expect(not wrong, f"assert_no_future_leakage should pass silently on a causal model, but {wrong}.")
    wrong = first_wrong(verdicts)
    expect(not wrong, f"assert_no_future_leakage passes causal models, but {wrong}: a check that does not tell "
                      f"causal models from leaky ones earns nothing for staying silent.")


@pytest.mark.points(1)
def test_assert_raises_on_leaks(verdicts):
    """assert_no_future_leakage raises AssertionError, stating the change, on leaky models"""
    wrong = first_wrong(verdicts, ("none", "one_step"))
    expect(not wrong, f"assert_no_future_leakage should raise AssertionError on leaky models, but {wrong}.")
    for v in verdicts:
        if v.raised is not None:
            expect_message_has_number(v.raised, "assert_no_future_leakage")
    wrong = first_wrong(verdicts)
    expect(not wrong, f"assert_no_future_leakage raises on leaky models, but {wrong}: a check that always fires "
                      f"earns nothing for firing.")


@pytest.mark.points(1)
def test_assert_respects_tol(student, ref, verdicts):
    """assert_no_future_leakage respects tol"""
    change, factor = float(_reference(ref, "none", 11)), TOL["tol_probe_factor"].atol
    try:
        student.call("assert_no_future_leakage", lab_model("none", 11), _tokens(), CUT, lab().VOCAB, tol=change * factor)
    except StudentError as err:
        if err.kind != "AssertionError":
            raise
        raise AssertionError(f"assert_no_future_leakage raised with tol={change * factor:.3g}, although the "
                             f"model's change is only {change:.3g}; compare the change with the `tol` argument.") \
            from None
    _expect_raises(student, lab_model("none", 11), f"a leaky model with tol={change / factor:.3g} (below its change {change:.3g})",
                   check_message=False, tol=change / factor)
    wrong = first_wrong(verdicts)
    expect(not wrong, f"assert_no_future_leakage follows tol on a leaky model, but with the default tol {wrong}: a "
                      f"check that does not measure the change earns nothing for following tol.")
