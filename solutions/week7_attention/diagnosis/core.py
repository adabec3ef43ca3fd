"""Records of what the grader sent and got back, misconceptions, and the matcher.

Trusted side only (never shipped to students, like the hidden suites). A misconception is
a plain function the grader runs itself: a known wrong version of one graded function.
The matcher runs it the way the transport runs the student's function (fresh copies of
tensor arguments, the grader's own models, the gradient through autograd when the call
asked for it) and observes the same things: the value or the exception, which tensor
arguments were written into, and the mode models were left in.
"""
import hashlib
from dataclasses import dataclass, field

import torch
from torch import nn

from autograder.assignment import PARTS as _PARTS
from autograder.assignment import depends_on  # which graded function calls which (assignment.USES)
from .hints import part_label  # "Part 1: Reading with attention", as the notebook titles it
from ..served.lab_models import is_lab_model
from autograder.sandbox.worker import calls as _calls
from ..served.replica import mode_vector, set_modes
from ..suites.tolerances import TOL

# Which part each graded function belongs to (autograder.assignment.PARTS, inverted).
PART_OF = {fn: part for part, fns in _PARTS.items() for fn in fns}

# The tolerance each function's values are compared with: the one its checks use.
TOLERANCE = {
    "stable_softmax": "float32", "attention_read": "float32",
    "causal_mask_blocked": "exact", "causal_mask_allowed": "exact", "causal_mask_additive": "exact",
    "padding_mask_blocked": "exact", "sdpa_mask": "exact",
    "split_heads": "exact", "merge_heads": "exact", "multi_head_self_attention": "module",
    "sinusoidal_positions": "positions",
    "shift_for_next_token": "exact", "next_token_loss": "loss",
    "prefix_change": "leak_match", "assert_no_future_leakage": "exact",
}


@dataclass(frozen=True)
class Family:
    """One cause: several close wrong versions may share it (and its explanation)."""
    id: str
    explanation: str  # for the student, in the lesson's words: why, what it does to a model, what to re-read


@dataclass(frozen=True)
class Misconception:
    id: str
    function: str  # the graded function it imitates
    family: Family
    compute: object  # plain function with the graded function's signature
    origin: str = ""  # for a composed version: the function whose mistake it carries (default: ``function``)

    @property
    def source(self):
        return self.origin or self.function


@dataclass
class Call:
    """One call the grader made of a student function, as sent, and what came back."""
    name: str
    args: tuple
    kwargs: dict
    grad: bool = False
    modes_before: tuple = ()  # the flags of each model argument (every module's) when sent
    rng: object = None  # the CPU generator's state when sent (models with dropout run in the grader)
    result: object = None  # the CallResult


def _models(args, kwargs):
    return [a for a in [*args, *kwargs.values()] if isinstance(a, nn.Module)]


def _copy(value):
    """A tensor, or a dict of them (multi_head_self_attention's params), cloned; anything else (a model: the grader's
    own) as it is. Each recorded call and each run of it gets its own, so that a wrong version writing into its
    arguments changes no other run's."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value


def record(name, args, kwargs, grad=False):
    """A Call for ``name(*args, **kwargs)`` before it is sent: tensors cloned, models kept live."""
    args = tuple(_copy(a) for a in args)
    kwargs = {k: _copy(v) for k, v in kwargs.items()}
    models = _models(args, kwargs)
    return Call(name, args, kwargs, grad, tuple(tuple(mode_vector(m)) for m in models),
                torch.get_rng_state() if models else None)


@dataclass(frozen=True)
class Outcome:
    """What the grader observes of one call: value or error kind, written-into args, model modes."""
    ok: bool
    value: object = None
    grad: object = None
    error: str = ""
    error_has_number: bool = False
    mutated: tuple = ()
    modes: tuple = ()


def observed(call):
    r = call.result
    if not r.ok:
        message = (r.error or {}).get("message", "")
        return Outcome(False, error=(r.error or {}).get("base") or (r.error or {}).get("type", "Error"),
                       error_has_number=any(ch.isdigit() for ch in message))
    return Outcome(True, r.value, r.grad, mutated=tuple(r.mutated), modes=tuple(r.modes))


def _plain(value):
    """A value as the wire would carry it: tensors detached on the CPU, tuples as tuples."""
    if isinstance(value, torch.Tensor):
        return value.detach()
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v) for v in value)
    return value


def run(fn, call):
    """Run ``fn`` on ``call``'s arguments as the transport runs the student's function; its Outcome."""
    args = [_copy(a) for a in call.args]
    kwargs = {k: _copy(v) for k, v in call.kwargs.items()}
    models = _models(args, kwargs)
    after = [mode_vector(m) for m in models]  # restored below: diagnosing never changes a model
    rng = torch.get_rng_state()
    try:
        for m, modes in zip(models, call.modes_before):
            set_modes(m, modes)
        if call.rng is not None:
            torch.set_rng_state(call.rng)
        try:
            value, gradient = _calls.invoke(fn, args, kwargs, call.grad)
        except Exception as err:  # noqa: BLE001 - a wrong version may raise, like the student's
            message = str(err)
            return Outcome(False, error=_calls.builtin_kind(err), error_has_number=any(c.isdigit() for c in message))
        mutated = tuple(i for i, (a, o) in enumerate(zip(args, call.args))
                        if isinstance(o, torch.Tensor) and not (a.shape == o.shape and torch.equal(a, o)))
        modes = tuple(tuple(mode_vector(m)) for m in models if is_lab_model(m))
        return Outcome(True, _plain(value), _plain(gradient), mutated=mutated, modes=modes)
    finally:
        for m, modes in zip(models, after):
            set_modes(m, modes)
        torch.set_rng_state(rng)


def close(a, b, tol):
    """Same structure, dtype and shape, entries within ``tol``; NaN matches NaN, infinities exactly."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype == torch.bool or not (a.is_floating_point() or b.is_floating_point()):
            return torch.equal(a, b)
        x, y = a.double(), b.double()
        both_nan = torch.isnan(x) & torch.isnan(y)
        finite = torch.isfinite(y)
        ok = torch.where(finite, (x - y).abs() <= tol.atol + tol.rtol * y.abs(), x == y) | both_nan
        return bool(ok.all())
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b)
                and all(close(x, y, tol) for x, y in zip(a, b)))
    if isinstance(a, str) and isinstance(b, str):
        return True  # a message (e.g. returned beside a verdict): its wording is not what is diagnosed
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if type(a) is not type(b):
            return False
        if a != a and b != b:  # both NaN
            return True
        return abs(a - b) <= tol.atol + tol.rtol * abs(b) or a == b
    return type(a) is type(b) and a == b


def same(student, other, tol):
    """Does ``other`` (a wrong version's or the reference's Outcome) look exactly like the student's?"""
    if student.ok != other.ok:
        return False
    if not student.ok:
        return student.error == other.error and student.error_has_number == other.error_has_number
    if tuple(student.mutated) != tuple(other.mutated) or tuple(student.modes) != tuple(other.modes):
        return False
    return close(student.value, other.value, tol) and close(student.grad, other.grad, tol)


def _fingerprint(value):
    if isinstance(value, torch.Tensor):
        t = value.detach().contiguous()
        digest = hashlib.blake2b(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"",
                                 digest_size=16).hexdigest()
        return ("T", str(t.dtype), tuple(t.shape), digest)
    if isinstance(value, dict):  # multi_head_self_attention's params: its tensors by content
        parts = tuple((str(k), _fingerprint(v)) for k, v in sorted(value.items(), key=lambda item: str(item[0])))
        return None if any(p is None for _, p in parts) else ("D", parts)
    if isinstance(value, nn.Module):
        return None  # live models are not cached (their weights and mode may differ)
    if isinstance(value, (tuple, list)):
        parts = tuple(_fingerprint(v) for v in value)
        return None if None in parts else parts
    if isinstance(value, torch.dtype):
        return ("dtype", str(value))
    return ("V", repr(value))


def call_key(call):
    parts = [_fingerprint(a) for a in call.args] + [(k, _fingerprint(v)) for k, v in sorted(call.kwargs.items())]
    if any(p is None or (isinstance(p, tuple) and None in p) for p in parts):
        return None
    return (call.name, call.grad, tuple(parts))


@dataclass
class Diagnosis:
    family: Family
    sources: tuple  # the function(s) whose mistake it is, the one others depend on first
    entries: tuple  # misconception ids that matched

    @property
    def source(self):
        return self.sources[0]

    def text(self, part):
        """The cause as a student reads it after 'Likely cause: ' in a check of ``part``."""
        where = " or ".join(f"`{s}`" for s in self.sources)
        owners = sorted({PART_OF.get(s, part) for s in self.sources} - {part})
        first = f" ({part_label(owners[0])}; fix it first)" if owners and len(owners) == 1 and \
            all(PART_OF.get(s) != part for s in self.sources) else ""
        return f"in {where}{first}: {self.family.explanation}"


@dataclass
class Matcher:
    """Matches one test's recorded calls against the library; caches outcomes per call's arguments."""
    library: dict  # function -> [Misconception]
    reference: dict  # function -> the reference function
    cache: dict = field(default_factory=dict)

    def _outcome(self, key, fn, call):
        if key is None:
            return run(fn, call)
        if key not in self.cache:
            self.cache[key] = run(fn, call)
        return self.cache[key]

    def _consistent(self, entry, group):
        """Does ``entry`` give what the student gave on every call of ``group`` (calls of entry.function)?"""
        tol = TOL[TOLERANCE.get(entry.function, "exact")]
        for call in group:
            key = call_key(call)
            if not same(observed(call), self._outcome(key and (entry.id, key), entry.compute, call), tol):
                return False
        return True

    def _refuted(self, entry, history):
        """An earlier call shows the student's function does not behave like this wrong version."""
        if not self._consistent(entry, history.get(entry.function, [])):
            return True
        if entry.origin and history.get(entry.origin):
            bases = [m for m in self.library.get(entry.origin, []) if m.family == entry.family and not m.origin]
            return bool(bases) and not any(self._consistent(m, history[entry.origin]) for m in bases)
        return False

    def _known_wrong(self, name, history):
        group = history.get(name, [])
        if not group or name not in self.reference:
            return False
        tol = TOL[TOLERANCE.get(name, "exact")]
        return any(not same(observed(c), self._outcome(call_key(c) and ("ref", call_key(c)), self.reference[name], c),
                            tol) for c in group if c.result is not None)

    def diagnose(self, calls, history=None):
        """The one Diagnosis these calls support, or None (nothing, or several unrelated causes).

        calls: the failed check's recorded calls. history: {function: [earlier recorded calls]} of
        the same submission; a wrong version they contradict is not considered.
        """
        history = history or {}
        by_function = {}
        for call in calls:
            if call.result is not None and call.name in self.library and not _unanswered(call):
                by_function.setdefault(call.name, []).append(call)
        found = {}  # (family id, source) -> Diagnosis
        for name, group in by_function.items():
            tol = TOL[TOLERANCE.get(name, "exact")]
            wrong = [call for call in group
                     if not same(observed(call), self._outcome(call_key(call) and ("ref", call_key(call)),
                                                              self.reference[name], call), tol)]
            if not wrong:
                continue  # every call of this function looks right: no evidence against it
            # A function it calls is known to be wrong (another check showed it): what this one
            # returns may come from there, so only that function's mistakes are considered.
            upstream = [u for u in depends_on(name) if self._known_wrong(u, history)]
            for entry in self.library[name]:
                if upstream and entry.origin not in upstream:
                    continue
                if self._consistent(entry, group) and not self._refuted(entry, history):
                    hit = found.setdefault((entry.family.id, entry.source),
                                           Diagnosis(entry.family, (entry.source,), ()))
                    hit.entries += (entry.id,)
        families = {family for family, _ in found}
        if len(families) != 1:
            return None
        hits = list(found.values())
        # One cause seen through several functions (a read and the softmax inside it): when the called
        # function matched it directly too, either may hold the mistake, so both are named, upstream first.
        names = [h.source for h in hits]
        sources = sorted(set(names), key=lambda s: (any(_depends(s, o) for o in names), s))
        return Diagnosis(hits[0].family, tuple(sources), tuple(e for h in hits for e in h.entries))


def _unanswered(call):
    """Not written yet (or not defined): no wrong version explains that, so it is not worth computing."""
    return not call.result.ok and (call.result.error or {}).get("type") in ("NotImplementedError", "Missing")


def _depends(user, used):
    return used in depends_on(user)
