"""bigram: pair counts (checked against torch.bincount), add-alpha log-probabilities (against log_softmax),
the mean next-token negative log-likelihood (against F.nll_loss). Every size is distinct and every table
asymmetric, so a transposed table or a swapped lookup cannot pass."""
import pytest
import torch
from torch.nn import functional as F

from solutions.week6_bigram.served import generator
from solutions.week6_bigram.suites.expect import expect, expect_close, expect_float, expect_shape, expect_tensor
from solutions.week6_bigram.suites.tolerances import TOL

pytestmark = pytest.mark.part("bigram")


def _ids(probe, V, T):
    return torch.randint(V, (T,), generator=generator(probe))


def _count_truth(ids, V):
    """PyTorch's own count of the pairs (current, next): bincount of current * V + next."""
    return torch.bincount(ids[:-1] * V + ids[1:], minlength=V * V).reshape(V, V)


def _counts(student, ids, V):
    got = student.bigram_counts(ids, V)
    return expect_shape(got, (V, V), f"bigram_counts(ids, V={V})", "Return a (V, V) table, V as given.")


def _why(i):
    return f"how often token {i[1]} follows token {i[0]}"


@pytest.mark.points(8)
def test_counts_match_bincount(student):
    """bigram_counts counts every (current, next) pair"""
    V, ids = 7, _ids(1, 7, 61)
    expect_close(_counts(student, ids, V), _count_truth(ids, V), "counts", why=_why,
                 hint="counts[i, j] += 1 for each position t with ids[t] = i and ids[t + 1] = j (not the transpose).")


@pytest.mark.points(4)
def test_counts_unseen_tokens(student):
    """bigram_counts has a row and a column for every token of the vocabulary, seen or not"""
    V, ids = 9, _ids(2, 5, 40)
    expect_close(_counts(student, ids, V), _count_truth(ids, V), "counts", why=_why,
                 hint="Use the V you are given, not ids.max() + 1.")


@pytest.mark.points(4)
def test_counts_direction(student):
    """counts[i, j] counts j following i (a hand-made case)"""
    ids = torch.tensor([0, 1, 1, 2, 0, 1])
    truth = torch.zeros(3, 3, dtype=torch.long)
    for a, b in ((0, 1), (1, 1), (1, 2), (2, 0), (0, 1)):
        truth[a, b] += 1
    expect_close(_counts(student, ids, 3), truth, "counts for ids [0, 1, 1, 2, 0, 1]", why=_why,
                 hint="Rows are the current token, columns the next one.")


@pytest.mark.points(2)
def test_counts_leave_ids_alone(student):
    """bigram_counts does not modify its ids"""
    V, ids = 6, _ids(3, 6, 30)
    result = student.call("bigram_counts", ids, V)
    expect_close(expect_tensor(result.value, "bigram_counts"), _count_truth(ids, V), "counts", why=_why)
    expect(not result.mutated, "bigram_counts modified its ids in place; work on a copy.")


def _log_probs_truth(counts, alpha):
    """log_softmax of log(counts + alpha) is log((counts + alpha) / row sum): PyTorch normalises, not us."""
    return torch.log_softmax(torch.log(counts.double() + alpha), dim=1)


def _random_counts(probe, V, zero_row=None):
    counts = torch.randint(0, 12, (V, V), generator=generator(probe))
    if zero_row is not None:
        counts[zero_row] = 0
    return counts


def _log_probs(student, counts, alpha):
    V = counts.size(0)
    got = student.bigram_log_probs(counts, alpha)
    expect_shape(got, (V, V), f"bigram_log_probs of ({V}, {V}) counts")
    expect(got.is_floating_point(), f"bigram_log_probs returned a {got.dtype} tensor; log-probabilities are floats.")
    return got


HINT = "log((counts + alpha) / (counts + alpha).sum(dim=1, keepdim=True)): each row (current token) sums to 1."


@pytest.mark.points(6)
def test_log_probs_match(student):
    """bigram_log_probs matches PyTorch's log_softmax of log(counts + alpha), alpha = 1"""
    counts = _random_counts(4, 6)
    expect_close(_log_probs(student, counts, 1.0), _log_probs_truth(counts, 1.0), "log_probs", TOL["log_probs"],
                 hint=HINT)


@pytest.mark.points(4)
def test_log_probs_other_alpha(student):
    """bigram_log_probs uses the alpha it is given (0.25), and smooths a row never seen"""
    counts = _random_counts(5, 8, zero_row=3)
    expect_close(_log_probs(student, counts, 0.25), _log_probs_truth(counts, 0.25), "log_probs", TOL["log_probs"],
                 hint="Add alpha to every count, and alpha * V to every row's total.")


@pytest.mark.points(2)
def test_log_probs_rows_normalised(student):
    """Each row of exp(bigram_log_probs) sums to 1"""
    counts = _random_counts(6, 5)
    got = _log_probs(student, counts, 0.5)
    expect_close(got.double().exp().sum(dim=1), torch.ones(5), "row sums of exp(log_probs)", TOL["log_probs"],
                 hint="Normalise over the next token (dim=1), not over the current one.")


def _table(probe, V):
    """Normalised, asymmetric log-probabilities."""
    return torch.log_softmax(torch.randn(V, V, generator=generator(probe)) * 2, dim=1)


def _nll_truth(log_probs, ids):
    return F.nll_loss(log_probs.double()[ids[:-1]], ids[1:]).item()


def _nll(student, log_probs, ids, what):
    got = student.bigram_nll(log_probs, ids)
    if isinstance(got, torch.Tensor) and got.numel() == 1:
        got = float(got.reshape(()))
    expect(isinstance(got, (float, int)), f"{what} should return a number, but returned {got!r:.40}.")
    return float(got)


@pytest.mark.points(6)
def test_nll_matches_nll_loss(student):
    """bigram_nll equals F.nll_loss of the table's rows for each current token"""
    log_probs, ids = _table(7, 7), _ids(8, 7, 50)
    got = _nll(student, log_probs, ids, "bigram_nll")
    expect_close(got, _nll_truth(log_probs, ids), "bigram_nll", TOL["nll"],
                 hint="Average -log_probs[ids[t], ids[t + 1]] over the len(ids) - 1 positions (row: current token).")


@pytest.mark.points(2)
def test_nll_returns_float(student):
    """bigram_nll returns a Python float"""
    log_probs, ids = _table(9, 5), _ids(10, 5, 20)
    got = expect_float(student.bigram_nll(log_probs, ids), "bigram_nll")
    expect_close(got, _nll_truth(log_probs, ids), "bigram_nll", TOL["nll"])


@pytest.mark.points(2)
def test_nll_other_size(student):
    """bigram_nll works for another vocabulary and length"""
    log_probs, ids = _table(11, 4), _ids(12, 4, 9)
    expect_close(_nll(student, log_probs, ids, "bigram_nll"), _nll_truth(log_probs, ids), "bigram_nll", TOL["nll"])
