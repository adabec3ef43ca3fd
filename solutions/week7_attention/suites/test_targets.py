"""targets: the next-token shift and the mean cross-entropy over every position."""
import pytest
import torch
from torch.nn import functional as F

from solutions.week7_attention.served.probes import generator
from solutions.week7_attention.suites.expect import expect, expect_close, expect_pair, expect_shape, expect_tensor, expect_unchanged
from solutions.week7_attention.suites.tolerances import TOL

pytestmark = pytest.mark.part("targets")

N, T, V = 2, 5, 7  # logits (N, T, V); all distinct so a transposed reshape scrambles the pairs
SHIFT_N, SHIFT_T = 3, 4  # tokens (SHIFT_N, SHIFT_T + 1)


def _tokens():
    """Every token distinct, rows included: a value tells exactly where it came from."""
    return torch.arange(SHIFT_N * (SHIFT_T + 1)).reshape(SHIFT_N, SHIFT_T + 1)


def _shift(student):
    return expect_pair(student.shift_for_next_token(_tokens()), "shift_for_next_token")


def _problem(seed, n=N, t=T, v=V):
    g = generator(seed)
    return torch.randn(n, t, v, generator=g) * 2, torch.randint(v, (n, t), generator=g)


def _truth(logits, targets):
    """PyTorch's mean cross-entropy in float64, flattening (N, T) into one batch of positions."""
    return F.cross_entropy(logits.double().reshape(-1, logits.size(-1)), targets.reshape(-1))


def _loss(student, logits, targets):
    """The student's loss as a 0-dim tensor (the scalar's shape is graded on its own)."""
    what = "next_token_loss(logits, targets)"
    got = expect_tensor(student.next_token_loss(logits, targets), what)
    expect(got.numel() == 1, f"{what} returned {got.numel()} numbers (shape {tuple(got.shape)}); it should "
                             f"return one: the mean over every (sequence, position) pair.")
    return got.reshape(())


@pytest.mark.points(1)
def test_shift_shapes(student):
    """shift_for_next_token returns inputs and targets of shape (N, T)"""
    inputs, targets = _shift(student)
    shape = (SHIFT_N, SHIFT_T)
    expect_shape(inputs, shape, f"inputs for tokens of shape {(SHIFT_N, SHIFT_T + 1)}", "Drop one token per row.")
    expect_shape(targets, shape, f"targets for tokens of shape {(SHIFT_N, SHIFT_T + 1)}", "Drop one token per row.")


@pytest.mark.points(2)
def test_shift_inputs(student, ref):
    """Inputs are every token but the last"""
    tokens = _tokens()
    inputs, _ = _shift(student)
    expected = tokens[:, :-1]
    expect_close(inputs, expected, "inputs", hint="inputs = tokens[:, :-1]: the model never reads the final token.",
                 why=lambda i: f"should be tokens[{i[0]}, {i[1]}]")
    expect_close(inputs, ref.shift_for_next_token(tokens)[0], "inputs")


@pytest.mark.points(2)
def test_shift_targets(student, ref):
    """Targets are every token but the first (the token that follows)"""
    tokens = _tokens()
    _, targets = _shift(student)
    expect_close(targets, tokens[:, 1:], "targets", hint="targets = tokens[:, 1:]: position t predicts token t+1.",
                 why=lambda i: f"should be tokens[{i[0]}, {i[1] + 1}], the token after position {i[1]}")
    expect_close(targets, ref.shift_for_next_token(tokens)[1], "targets")


@pytest.mark.points(2)
def test_loss_matches_cross_entropy(student, ref):
    """next_token_loss equals F.cross_entropy over all N*T positions"""
    logits, targets = _problem(1)
    got = _loss(student, logits, targets)
    hint = ("Flatten to (N*T, V) logits and (N*T,) targets with reshape (not a transpose), and take the mean "
            "over every position, not a sum or a per-sequence sum.")
    expect_close(got, _truth(logits, targets), f"next_token_loss on (N, T, V) = {(N, T, V)}", TOL["loss"], hint=hint)
    expect_close(got, ref.next_token_loss(logits.double(), targets), f"next_token_loss on (N, T, V) = {(N, T, V)}",
                 TOL["loss"], hint=hint)


@pytest.mark.points(1)
def test_loss_is_scalar(student):
    """next_token_loss returns a 0-dim tensor"""
    logits, targets = _problem(2)
    got = student.next_token_loss(logits, targets)
    expect_tensor(got, "next_token_loss(logits, targets)")
    expect_shape(got, (), "next_token_loss(logits, targets)",
                 "Return the scalar tensor itself (shape ()), not a per-position vector and not .item().")
    expect(got.is_floating_point(), f"next_token_loss returned a {got.dtype} tensor; it should be floating point.")


@pytest.mark.points(1)
def test_loss_other_shape(student):
    """next_token_loss works for other (N, T, V)"""
    logits, targets = _problem(3, n=3, t=4, v=11)
    got = _loss(student, logits, targets)
    expect_close(got, _truth(logits, targets), "next_token_loss on (N, T, V) = (3, 4, 11)", TOL["loss"],
                 hint="Take N, T and V from the tensors (logits.size(-1)) rather than hard-coding them, "
                      "and average over all N*T positions.")


@pytest.mark.points(1)
def test_loss_inputs_unchanged(student):
    """next_token_loss leaves logits and targets unchanged"""
    logits, targets = _problem(4)
    loss = student.call("next_token_loss", logits, targets)
    expect_tensor(loss.value, "next_token_loss")  # the call did its job (expect_unchanged)
    expect_close(loss.value.reshape(()) if loss.value.numel() == 1 else loss.value,
                 _truth(logits, targets), f"next_token_loss on (N, T, V) = {tuple(logits.shape)}", TOL["loss"])
    expect_unchanged(loss, ["logits", "targets"], "next_token_loss")
