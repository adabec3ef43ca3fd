"""Assertions whose messages a student can act on.

The engine runs pytest with ``--assert=plain``, so a failing check only says what its
message says. Each helper names the value ("weights", "the mask"), says what came back
instead, and points at one offending entry; whole tensors are never printed.
"""
import re

import torch

from solutions.week7_attention.suites.tolerances import TOL


def describe(value):
    """A short phrase for a returned value of any type."""
    if isinstance(value, torch.Tensor):
        return f"a {str(value.dtype).replace('torch.', '')} tensor of shape {tuple(value.shape)}"
    if value is None:
        return "None (did you forget `return`?)"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)} items"
    return f"a {type(value).__name__} ({value!r:.40})"


class CheckFailed(AssertionError):
    """A failed check: ``message`` says what was found, ``hint`` (optional) a likely cause.

    The feedback level decides what a student sees (values: the message; hints: both).
    """

    def __init__(self, message, hint=""):
        super().__init__(message)
        self.hint = hint


def expect(condition, message, hint=""):
    """The one place a bare condition becomes a failure; ``message`` is the whole story."""
    if not condition:
        raise CheckFailed(message, hint)


def expect_tensor(actual, what):
    expect(isinstance(actual, torch.Tensor), f"{what} should be a torch.Tensor, but your function returned "
                                             f"{describe(actual)}.")
    return actual


def expect_pair(actual, what):
    """A 2-tuple (or list) such as (output, weights); returns it as a tuple."""
    expect(isinstance(actual, (tuple, list)) and len(actual) == 2,
           f"{what} should return a pair (2 values), but returned {describe(actual)}.")
    return tuple(actual)


def expect_shape(actual, expected, what, hint=""):
    expect_tensor(actual, what)
    expected = tuple(expected)
    expect(tuple(actual.shape) == expected, f"{what} has shape {tuple(actual.shape)}, expected {expected}.", hint)
    return actual


def expect_dtype(actual, expected, what, hint=""):
    expect_tensor(actual, what)
    expect(actual.dtype == expected, f"{what} has dtype {actual.dtype}, expected {expected}.", hint)
    return actual


def expect_float(actual, what):
    """A plain Python float (not a tensor, not an int)."""
    expect(isinstance(actual, float), f"{what} should be a Python float (use .item()), but your function "
                                      f"returned {describe(actual)}.")
    return actual


def _index(what, idx):
    """``weights[0, 2, 1]`` for a plain name; ``output with your mask, entry [0, 2, 1],`` for a phrase."""
    if not idx:
        return what
    where, depth, phrase = ", ".join(str(i) for i in idx), 0, False
    for ch in what:
        depth += (ch in "([") - (ch in ")]")
        phrase = phrase or (ch == " " and depth == 0)
    return f"{what}, entry [{where}]," if phrase else f"{what}[{where}]"


def _number(x):
    return str(bool(x)) if isinstance(x, bool) else f"{x:.6g}"


def expect_close(actual, expected, what, tol=TOL["exact"], why=None, hint=""):
    """Entrywise |actual - expected| <= tol.atol + tol.rtol * |expected|; infinities must match exactly.

    why: optional text, or a function of the index tuple, explaining what the worst entry
    is ("blocked key"). hint: one sentence appended on failure (a likely cause).
    """
    expected = torch.as_tensor(expected)
    expect_shape(actual, expected.shape, what, hint)
    if actual.numel() == 0:
        return actual
    if actual.dtype == torch.bool or expected.dtype == torch.bool:
        a, e = actual.to(torch.int64).to(torch.float64), expected.to(torch.int64).to(torch.float64)
    else:
        a, e = actual.detach().to(torch.float64), expected.detach().to(torch.float64)
    bound = tol.atol + tol.rtol * e.abs()
    excess = torch.where(torch.isfinite(e), (a - e).abs() - bound,
                         torch.where(a == e, torch.full_like(a, -1.0), torch.full_like(a, float("inf"))))
    excess = torch.where(torch.isnan(a) | torch.isnan(excess), torch.full_like(a, float("inf")), excess)
    bad = excess > 0
    if not bool(bad.any()):
        return actual
    flat = int(torch.argmax(excess.reshape(-1)))
    idx = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), tuple(a.shape)))
    as_bool = actual.dtype == torch.bool or expected.dtype == torch.bool
    got = bool(a[idx]) if as_bool else float(a[idx])
    want = bool(e[idx]) if as_bool else float(e[idx])
    reason = why(idx) if callable(why) else why
    count = int(bad.sum())
    tail = f" ({reason})" if reason else ""
    within = "" if tol == TOL["exact"] else f" beyond {tol}"
    spread = (f"; {count} of {a.numel()} entries differ{within}." if a.numel() > 1
              else f" (allowed difference: {tol})." if within else ".")
    raise CheckFailed(f"{_index(what, idx)} is {_number(got)}, expected {_number(want)}{tail}{spread}", hint)


def expect_unchanged(outcome, names, what):
    """No positional tensor argument was modified in place (outcome from student.call).

    A side property like this one (or "mode restored", "passes silently on a causal model")
    earns its point only on a call that also did the function's job, checked first by the
    caller: a stub returning a constant leaves its inputs alone too (red team, round 2).
    """
    changed = [names[i] if i < len(names) else f"argument {i}" for i in outcome.mutated]
    expect(not changed, f"{what} modified its input {', '.join(changed)} in place; work on a copy "
                        f"(e.g. x.clone() or out-of-place ops) so the caller's tensors stay as they were.")


def expect_message_has_number(err, what):
    expect(re.search(r"\d", err.detail or "") is not None,
           f"{what} raised AssertionError, but its message ({err.detail!r:.120}) does not state the "
           f"measured change; include the number in the message.")
