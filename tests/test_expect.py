"""solutions/week7_attention/suites/expect.py: the wording of a failed check and which entry it names.

A student reads one line per failed check, so the line must name the entry that is furthest out of
tolerance (not the first one that differs), say how many entries differ, quote the tolerance used,
and never print a whole tensor. Fast unit tests (make test-fast).
"""
import pytest
import torch

from solutions.week7_attention.suites.expect import CheckFailed, describe, expect_close, expect_shape, expect_unchanged
from solutions.week7_attention.suites.tolerances import TOL


def failure(*args, **kwargs):
    with pytest.raises(CheckFailed) as caught:
        expect_close(*args, **kwargs)
    return str(caught.value)


def test_within_tolerance_passes_and_returns_the_value():
    x = torch.ones(2, 3)
    tol = TOL["float32"]
    assert expect_close(x + tol.atol / 2, x, "out", tol=tol) is not None


def test_the_worst_entry_is_named_not_the_first():
    expected = torch.zeros(3, 4)
    actual = expected.clone()
    actual[0, 1] = 0.5  # first to differ
    actual[2, 3] = 7.0  # furthest out
    text = failure(actual, expected, "weights", tol=TOL["float32"])
    assert text.startswith("weights[2, 3] is 7, expected 0"), text
    assert f"2 of 12 entries differ beyond {TOL['float32']}" in text


def test_the_excess_is_relative_to_the_tolerance_of_each_entry():
    # A larger absolute difference on a large expected value can be within rtol; the smaller one is not.
    tol = TOL["float32"]
    expected = torch.tensor([1000.0, 0.0])
    actual = torch.tensor([1000.0 * (1 + tol.rtol / 2), 1e-3])
    assert failure(actual, expected, "out", tol=tol).startswith("out[1] is 0.001, expected 0")


def test_nan_and_infinities():
    text = failure(torch.tensor([0.0, float("nan")]), torch.tensor([0.0, 1.0]), "p", tol=TOL["float32"])
    assert text.startswith("p[1] is nan, expected 1"), text
    # -inf where -inf is expected is exact; +inf there is named
    assert expect_close(torch.tensor([float("-inf"), 1.0]), torch.tensor([float("-inf"), 1.0]), "m") is not None
    text = failure(torch.tensor([float("inf"), 1.0]), torch.tensor([float("-inf"), 1.0]), "m")
    assert text.startswith("m[0] is inf, expected -inf"), text


def test_bool_masks_are_named_as_bools_with_the_reason():
    expected = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)
    actual = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=0)
    text = failure(actual, expected, "causal_mask_blocked(3)", why=lambda idx: "key at or before the query")
    assert text.startswith("causal_mask_blocked(3)[0, 0] is True, expected False (key at or before the query)"), text
    assert "3 of 9 entries differ." in text and "beyond" not in text  # exact: no tolerance to quote


def test_a_phrase_gets_entry_brackets_and_a_scalar_gets_its_tolerance():
    text = failure(torch.zeros(2, 2), torch.eye(2), "output with your mask", tol=TOL["float32"])
    assert text.startswith("output with your mask, entry [0, 0], is 0, expected 1"), text
    text = failure(torch.tensor(2.0), torch.tensor(1.0), "the loss", tol=TOL["float32"])
    assert text == f"the loss is 2, expected 1 (allowed difference: {TOL['float32']}).", text


def test_six_significant_digits_and_no_tensor_dump():
    expected = torch.full((50, 50), 0.123456789)
    text = failure(expected + 1, expected, "big", tol=TOL["float32"])
    assert "1.12346" in text and "0.123457" in text and "tensor(" not in text and len(text) < 200


def test_wrong_shape_or_type_says_what_came_back():
    with pytest.raises(CheckFailed, match=r"out has shape \(2, 3\), expected \(3, 2\)"):
        expect_close(torch.zeros(2, 3), torch.zeros(3, 2), "out")
    with pytest.raises(CheckFailed, match=r"out should be a torch.Tensor, but your function returned None \(did you "
                                          r"forget `return`\?\)"):
        expect_shape(None, (1,), "out")
    assert describe((1, 2)) == "a tuple of 2 items" and describe(3.5) == "a float (3.5)"


def test_unchanged_names_the_argument_written_into():
    class Outcome:
        mutated = [1]

    with pytest.raises(CheckFailed, match="prefix_change modified its input tokens in place"):
        expect_unchanged(Outcome, ["model", "tokens"], "prefix_change")
    Outcome.mutated = []
    expect_unchanged(Outcome, ["model", "tokens"], "prefix_change")
