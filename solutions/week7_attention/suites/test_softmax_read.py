"""softmax_read: stable_softmax and attention_read against torch.softmax, SDPA and the reference."""
import math

import pytest
import torch
from torch.nn import functional as F

from solutions.week7_attention.served.probes import generator
from autograder.engine.student import SubmissionFault
from solutions.week7_attention.suites.expect import (CheckFailed, expect_close, expect_dtype, expect_pair, expect_shape,
                                      expect_unchanged)
from solutions.week7_attention.suites.tolerances import TOL

pytestmark = pytest.mark.part("softmax_read")

N, H, TQ, TK, DK, DV = 2, 3, 4, 6, 5, 7  # distinct sizes: a wrong transpose cannot line up by chance


def _randn(*shape, seed):
    return torch.randn(*shape, generator=generator(seed))


def _blocked(*shape, seed, keep_first=True):
    """Random bool mask, True = blocked; key 0 stays allowed so no row is fully blocked."""
    mask = torch.rand(*shape, generator=generator(seed)) < 0.4
    if keep_first:
        mask[..., 0] = False
    return mask


def _sdpa(q, k, v, blocked=None, temperature=1.0):
    """PyTorch's own read in float64; SDPA's bool mask means *allowed*, hence ~blocked."""
    scale = 1.0 / (math.sqrt(q.size(-1)) * temperature)
    return F.scaled_dot_product_attention(q.double(), k.double(), v.double(),
                                          attn_mask=None if blocked is None else ~blocked, scale=scale)


def _read(student, q, k, v, *rest, what="attention_read"):
    out, weights = expect_pair(student.attention_read(q, k, v, *rest), what)
    return out, weights


@pytest.mark.points(2)
def test_lesson_example(student):
    """softmax([2, 0.5, -1]) matches the lesson's [0.7856, 0.1753, 0.0391]"""
    scores = torch.tensor([2.0, 0.5, -1.0])
    got = student.stable_softmax(scores)
    expect_close(got, torch.tensor([0.7856, 0.1753, 0.0391]), "stable_softmax([2, 0.5, -1])", TOL["lesson"])
    expect_close(got, torch.softmax(scores.double(), -1), "stable_softmax([2, 0.5, -1])", TOL["float32"])


@pytest.mark.points(1)
def test_huge_scores(student):
    """Scores in the thousands do not overflow"""
    scores = torch.tensor([[1000.0, 999.0, 998.0], [3000.0, -3000.0, 2999.0], [-2000.0, -2001.0, -2005.0]])
    got = student.stable_softmax(scores)
    expect_close(got, torch.softmax(scores.double(), -1), "stable_softmax(huge scores)", TOL["float32"],
                 hint="exp(1000) overflows to inf; subtract the maximum along `dim` before exponentiating.")


@pytest.mark.points(1)
@pytest.mark.parametrize("dim", [0, 1, -1], ids=["dim=0", "dim=1", "dim=-1"])
def test_rows_along_dim(student, dim):
    """Normalises along the requested dim, keeping shape and dtype"""
    scores = _randn(N, TQ, TK, seed=11).double() * 3  # float64 in, float64 out
    got = student.stable_softmax(scores, dim)
    expect_dtype(got, torch.float64, f"stable_softmax(float64 scores, dim={dim})",
                 "Return the same dtype you were given.")
    expect_close(got, torch.softmax(scores, dim), f"stable_softmax(scores of shape {tuple(scores.shape)}, "
                 f"dim={dim})", TOL["float32"],
                 hint=f"Take the max and the sum along dim={dim} with keepdim=True.")


@pytest.mark.points(1)
def test_minus_inf_entries(student):
    """Entries equal to -inf get weight exactly 0"""
    scores = _randn(TQ, TK, seed=12)
    blocked = _blocked(TQ, TK, seed=13)
    scores = scores.masked_fill(blocked, float("-inf"))
    got = expect_shape(student.stable_softmax(scores), (TQ, TK), "stable_softmax(scores)")
    expect_close(torch.where(blocked, got, 0.0), torch.zeros(TQ, TK), "stable_softmax(scores)", TOL["exact"],
                 why=lambda i: "its score was -inf" if blocked[i] else None)
    expect_close(got, torch.softmax(scores.double(), -1), "stable_softmax(scores with -inf)", TOL["float32"])


@pytest.mark.points(1)
def test_fully_minus_inf_slice(student):
    """A slice of all -inf gives zeros, not NaN"""
    scores = _randn(TQ, TK, seed=14)
    scores[1] = float("-inf")
    expected = torch.softmax(scores.double(), -1)
    expected[1] = 0.0  # torch.softmax gives NaN here; the lesson's convention is all zeros
    got = student.stable_softmax(scores)
    expect_close(got, expected, "stable_softmax(scores whose row 1 is all -inf)", TOL["float32"],
                 why=lambda i: "row of all -inf" if i[0] == 1 else None,
                 hint="(-inf) - (-inf) is NaN: shift an all -inf slice by 0 and divide a zero sum by 1.")


@pytest.mark.points(2)
def test_read_matches_sdpa(student, ref):
    """attention_read matches F.scaled_dot_product_attention with a mask"""
    q, k, v = _randn(N, TQ, DK, seed=21), _randn(N, TQ, DK, seed=22), _randn(N, TQ, DV, seed=23)
    blocked = _blocked(N, TQ, TQ, seed=24)
    out, weights = _read(student, q, k, v, blocked)
    expect_close(out, _sdpa(q, k, v, blocked), "output", TOL["float32"],
                 hint="Scores are q @ k.transpose(-2, -1) / sqrt(dk), blocked (True) entries set to -inf.")
    expect_close(weights, ref.attention_read(q.double(), k.double(), v.double(), blocked)[1], "weights",
                 TOL["float32"], why=lambda i: "blocked key" if blocked[i] else "allowed key")


@pytest.mark.points(1)
def test_blocked_keys_exactly_zero(student):
    """Blocked keys get weight exactly 0"""
    q, k, v = _randn(N, TQ, DK, seed=31), _randn(N, TK, DK, seed=32), _randn(N, TK, DV, seed=33)
    blocked = _blocked(N, TQ, TK, seed=34)
    _, weights = _read(student, q, k, v, blocked)
    expect_shape(weights, (N, TQ, TK), "weights")
    expect_close(torch.where(blocked, weights, 0.0), torch.zeros(N, TQ, TK), "weights", TOL["exact"],
                 why="blocked key", hint="True in `blocked` means the key is blocked (set its score to -inf).")


@pytest.mark.points(1)
def test_fully_blocked_query(student):
    """A fully blocked query row gets all-zero weights and output"""
    q, k, v = _randn(N, TQ, DK, seed=41), _randn(N, TK, DK, seed=42), _randn(N, TK, DV, seed=43)
    blocked = _blocked(N, TQ, TK, seed=44)
    blocked[0, 2] = True
    out, weights = _read(student, q, k, v, blocked)
    row = torch.zeros(N, TQ, 1, dtype=torch.bool)
    row[0, 2] = True  # only query 2 of batch 0 is graded here; the others have their own tests
    expect_shape(weights, (N, TQ, TK), "weights")
    expect_close(torch.where(row, weights, 0.0), torch.zeros(N, TQ, TK), "weights", TOL["exact"],
                 why="every key of this query is blocked",
                 hint="Set blocked scores to -inf (not a finite number such as -1e9 or 0) and use your "
                      "stable_softmax, which turns an all -inf row into zeros, not NaN.")
    expect_shape(out, (N, TQ, DV), "output")
    expect_close(torch.where(row, out, 0.0), torch.zeros(N, TQ, DV), "output", TOL["exact"],
                 why="every key of this query is blocked")


@pytest.mark.points(1)
def test_cross_attention(student):
    """Cross-attention: Tq != Tk and dv != dk"""
    q, k, v = _randn(N, TQ, DK, seed=51), _randn(N, TK, DK, seed=52), _randn(N, TK, DV, seed=53)
    blocked = _blocked(N, TQ, TK, seed=54)
    out, weights = _read(student, q, k, v, blocked)
    expect_shape(weights, (N, TQ, TK), "weights", "Weights are (..., Tq, Tk): one row per query.")
    expect_shape(out, (N, TQ, DV), "output", "The output is (..., Tq, dv).")
    expect_close(out, _sdpa(q, k, v, blocked), "output", TOL["float32"])


@pytest.mark.points(1)
def test_leading_dims(student):
    """Batch and head dims in front: (N, H, T, dk)"""
    q, k, v = _randn(N, H, TQ, DK, seed=61), _randn(N, H, TK, DK, seed=62), _randn(N, H, TK, DV, seed=63)
    out, weights = _read(student, q, k, v)
    expect_shape(weights, (N, H, TQ, TK), "weights", "Transpose only the last two dims of k.")
    expect_close(out, _sdpa(q, k, v), "output", TOL["float32"])


@pytest.mark.points(1)
def test_broadcast_mask(student):
    """A (Tq, Tk) mask broadcasts over (N, H, Tq, Tk)"""
    q, k, v = _randn(N, H, TQ, DK, seed=71), _randn(N, H, TK, DK, seed=72), _randn(N, H, TK, DV, seed=73)
    blocked = _blocked(TQ, TK, seed=74)
    out, weights = _read(student, q, k, v, blocked)
    expect_close(out, _sdpa(q, k, v, blocked), "output", TOL["float32"])
    expect_close(weights, _sdpa_weights(q, k, blocked), "weights", TOL["float32"],
                 why=lambda i: "blocked key" if blocked[i[-2:]] else "allowed key")


def _sdpa_weights(q, k, blocked, temperature=1.0):
    """Weights through SDPA itself: reading the identity as values returns the weight matrix."""
    eye = torch.eye(k.size(-2), dtype=torch.float64).expand(*k.shape[:-1], k.size(-2))
    return _sdpa(q, k, eye, blocked, temperature)


@pytest.mark.points(1)
@pytest.mark.parametrize("temperature", [0.5, 2.0], ids=["temperature=0.5", "temperature=2.0"])
def test_temperature(student, ref, temperature):
    """Temperature divides the scaled scores"""
    q, k, v = _randn(N, TQ, DK, seed=81) * 2, _randn(N, TK, DK, seed=82) * 2, _randn(N, TK, DV, seed=83)
    blocked = _blocked(N, TQ, TK, seed=84)
    out, weights = _read(student, q, k, v, blocked, temperature)
    hint = "Scores are q kᵀ / √dk / temperature (divide by the temperature; do not fold it into the √)."
    try:
        expect_close(weights, _sdpa_weights(q, k, blocked, temperature), f"weights at temperature {temperature}",
                     TOL["float32"], hint=hint)
        expected = ref.attention_read(q.double(), k.double(), v.double(), blocked, temperature)[0]
        expect_close(out, expected, f"output at temperature {temperature}", TOL["float32"], hint=hint)
    except CheckFailed as failed:
        if not _reads_right_without_temperature(student, q, k, v, blocked):
            failed.hint = ("The read is already wrong without a temperature (see \"attention_read matches "
                           "F.scaled_dot_product_attention\"): get scores = q kᵀ / √dk right first.")
        raise


def _reads_right_without_temperature(student, q, k, v, blocked):
    """Does the student's read of the same inputs, temperature left at its default, match SDPA?

    Asked only once a temperature check failed, so that its hint blames the temperature only when
    the rest of the read is right (the check itself and its points do not depend on the answer).
    """
    try:
        out, weights = student.attention_read(q, k, v, blocked)
        expect_close(weights, _sdpa_weights(q, k, blocked), "weights", TOL["float32"])
        expect_close(out, _sdpa(q, k, v, blocked), "output", TOL["float32"])
    except (SubmissionFault, AssertionError, TypeError, ValueError, RuntimeError):
        return False
    return True


@pytest.mark.points(1)
def test_inputs_unchanged(student, ref):
    """Inputs are not modified in place"""
    q, k, v = _randn(N, TQ, DK, seed=91), _randn(N, TK, DK, seed=92), _randn(N, TK, DV, seed=93)
    blocked = _blocked(N, TQ, TK, seed=94)
    read = student.call("attention_read", q, k, v, blocked, 0.5)
    out, _ = expect_pair(read.value, "attention_read")  # the call did its job (expect_unchanged)
    expect_close(out, ref.attention_read(q.double(), k.double(), v.double(), blocked, 0.5)[0],
                 "output at temperature 0.5", TOL["float32"])
    expect_unchanged(read, ["q", "k", "v", "blocked"], "attention_read")
    scores = _randn(TQ, TK, seed=95) * 50
    softmax = student.call("stable_softmax", scores)
    expect_close(softmax.value, torch.softmax(scores.double(), -1), "stable_softmax(scores)", TOL["float32"])
    expect_unchanged(softmax, ["scores"], "stable_softmax")
