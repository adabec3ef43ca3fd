"""Assertions whose messages a student can act on (the engine runs pytest with --assert=plain)."""
import torch

from solutions.week6_bigram.suites.tolerances import TOL


class CheckFailed(AssertionError):
    """A failed check: ``message`` says what was found, ``hint`` (optional) a likely cause."""

    def __init__(self, message, hint=""):
        super().__init__(message)
        self.hint = hint


def describe(value):
    if isinstance(value, torch.Tensor):
        return f"a {str(value.dtype).replace('torch.', '')} tensor of shape {tuple(value.shape)}"
    if value is None:
        return "None (did you forget `return`?)"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)} items"
    return f"a {type(value).__name__} ({value!r:.40})"


def expect(condition, message, hint=""):
    if not condition:
        raise CheckFailed(message, hint)


def expect_tensor(actual, what):
    expect(isinstance(actual, torch.Tensor), f"{what} should be a torch.Tensor, but your function returned "
                                             f"{describe(actual)}.")
    return actual


def expect_shape(actual, expected, what, hint=""):
    expect_tensor(actual, what)
    expect(tuple(actual.shape) == tuple(expected), f"{what} has shape {tuple(actual.shape)}, expected "
                                                   f"{tuple(expected)}.", hint)
    return actual


def expect_float(actual, what):
    expect(isinstance(actual, float), f"{what} should be a Python float (use .item()), but your function "
                                      f"returned {describe(actual)}.")
    return actual


def expect_close(actual, expected, what, tol=TOL["exact"], why=None, hint=""):
    """Entrywise |actual - expected| <= tol.atol + tol.rtol * |expected|; names the worst entry on failure."""
    expected = torch.as_tensor(expected)
    if isinstance(actual, float):
        actual = torch.tensor(actual, dtype=torch.float64)
    expect_shape(actual, expected.shape, what, hint)
    if actual.dtype == torch.bool:
        actual = actual.long()
    a, e = actual.detach().to(torch.float64), expected.detach().to(torch.float64)
    excess = (a - e).abs() - (tol.atol + tol.rtol * e.abs())
    excess = torch.where(torch.isnan(a) | torch.isnan(excess), torch.full_like(a, float("inf")), excess)
    bad = excess > 0
    if not bool(bad.any()):
        return actual
    flat = int(torch.argmax(excess.reshape(-1)))
    idx = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), tuple(a.shape))) if a.dim() else ()
    where = f"{what}[{', '.join(map(str, idx))}]" if idx else what
    reason = why(idx) if callable(why) else why
    tail = f" ({reason})" if reason else ""
    within = "" if tol == TOL["exact"] else f" (allowed difference: {tol})"
    count = int(bad.sum())
    spread = f"; {count} of {a.numel()} entries differ{within}." if a.numel() > 1 else f"{within}."
    raise CheckFailed(f"{where} is {float(a[idx]):.6g}, expected {float(e[idx]):.6g}{tail}{spread}", hint)
