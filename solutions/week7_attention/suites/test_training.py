"""training: the lab's smoke run, trained by the grader with the student's mask, shift and loss.

The model and the optimizer never leave the grading process (engine/training.py): the
worker only answers what the student's functions return. Everything below evaluates
the grader's own trained model with the reference pieces on the reserved test split.
"""
import math

import pytest

from solutions.week7_attention.served import reference_runs
from solutions.week7_attention.served.probes import lab, lab_model
from autograder.engine.student import SubmissionFault
from solutions.week7_attention.served.training import train_with_student
from solutions.week7_attention.suites.expect import expect
from solutions.week7_attention.suites.tolerances import TOL
from solutions.week7_attention.suites.verdicts import first_wrong, pool

pytestmark = pytest.mark.part("training")


@pytest.fixture(scope="session")
def run(student):
    """The student's smoke run, done once per submission: model, validation loss, test loss, masks.

    Whatever goes wrong is kept and re-raised by each test, so every training check
    reports the same student-facing reason (never "Autograder failed").
    """
    try:
        # Limits.training_seconds: the whole run; the smoke run's own compute takes well under one.
        model, best_val, masks = train_with_student(student, lab().EPOCHS["smoke"], student.limits.training_seconds)
        test = reference_runs.test_loss(model.state_dict())
    except SubmissionFault as err:
        return err
    except (AssertionError, ArithmeticError, LookupError, TypeError, ValueError, RuntimeError) as err:
        return AssertionError(f"the training run could not go on with what your functions returned "
                              f"({type(err).__name__}: {str(err).splitlines()[0][:200] if str(err) else ''})")
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    return {"state": state, "best_val": float(best_val), "masks": masks, "test": test}


def _get(run):
    if isinstance(run, Exception):
        raise run
    return run


@pytest.mark.points(2)
def test_training_runs(run):
    """The lab's smoke run trains with your mask, shift and loss"""
    result = _get(run)
    expect(math.isfinite(result["best_val"]),
           f"the validation-selected loss is {result['best_val']}, not a finite number")


@pytest.mark.points(5)
def test_beats_uniform_baseline(run):
    """Test loss after the smoke run beats the uniform baseline log(8)"""
    result = _get(run)
    baseline = lab().BASELINE
    expect(result["test"] < baseline,
           f"reserved test loss {result['test']:.4f} is not below the uniform baseline "
           f"log(8) = {baseline:.4f}: the model learned nothing usable")


@pytest.mark.points(4)
def test_matches_reference_run(run):
    """Test loss matches the reference smoke run"""
    result = _get(run)
    reference_test = reference_runs.smoke_run().test
    gap = abs(result["test"] - reference_test)
    expect(gap <= TOL["smoke_test_loss"].atol,
           f"reserved test loss {result['test']:.4f} differs from the reference run's "
           f"{reference_test:.4f} by {gap:.4f} (allowed {TOL['smoke_test_loss'].atol}): with the same seeds, "
           "correct pieces train the same model")


@pytest.mark.points(3)
def test_trained_model_is_causal(run, ref):
    """The trained model passes the reference leakage check"""
    result = _get(run)
    masks = result["masks"]
    model = lab().TinyTransformer(reference_runs.positions(), lambda T: masks.get(T))
    model.load_state_dict(result["state"])
    tokens = reference_runs.splits()["test"][:4, :-1]
    change = ref.prefix_change(model, tokens, 5, lab().VOCAB)
    expect(change <= TOL["no_leak"].atol,
           f"changing tokens 5.. moved the logits at positions 0..4 by {change:.3g}: "
           "the model you trained can read the future (check causal_mask_blocked)")


@pytest.fixture(scope="module")
def your_checks(run, student):
    """The student's assert_no_future_leakage on the trained weights under four causal and four leaky masks,
    each on its own rows of the test split, in an order drawn per submission (suites/verdicts.py)."""
    if isinstance(run, Exception):
        return run  # the run's own failure, raised by each check (a fixture that raised would be ours)
    result = run
    tokens = reference_runs.splits()["test"][:, :-1]  # (128, 12): rows 4k .. 4k+3 for the k-th question

    def ask(kind, position):
        student.assert_no_future_leakage(lab_model(kind, state=result["state"]), tokens[4 * position:4 * position + 4],
                                         5, lab().VOCAB)
    return pool(41, ask)


# Accepting the causal model counts for a check that also rejects the leaky copies, and the other way round:
# a check that always says the same (never raises, or always does) earns nothing (red team, round 3), and the
# verdicts are asked in an order no call counter can replay (round 5).
COPIES = {"causal": "the trained model with its causal mask", "none": "a copy with the causal mask removed",
          "one_step": "a copy that peeks one step ahead"}


@pytest.mark.points(2)
def test_your_check_accepts_trained_model(your_checks):
    """Your assert_no_future_leakage accepts the trained causal model"""
    your_checks = _get(your_checks)
    wrong = first_wrong(your_checks, ("causal",), COPIES)
    expect(not wrong, f"your check should accept the trained model, but {wrong}.")
    wrong = first_wrong(your_checks, what=COPIES)
    expect(not wrong, f"your check accepts the trained model, but {wrong}: a check that never fires earns nothing "
                      f"for accepting.")


@pytest.mark.points(2)
def test_your_check_rejects_leaky_copy(your_checks):
    """Your assert_no_future_leakage rejects a leaky copy of the trained model"""
    your_checks = _get(your_checks)
    wrong = first_wrong(your_checks, ("none", "one_step"), COPIES)
    expect(not wrong, f"your check should reject a leaky copy of the trained model, but {wrong}.")
    wrong = first_wrong(your_checks, what=COPIES)
    expect(not wrong, f"your check rejects the leaky copies, but {wrong}: a check that always fires earns nothing "
                      f"for rejecting.")
