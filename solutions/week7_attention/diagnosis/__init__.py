"""Diagnosis of failed checks against a library of known misconceptions (trusted side only).

When a hidden check fails, ``diagnose(calls, part)`` looks at the calls the grader made of
the student's functions during that check (recorded by engine/student.py) and asks, for
each known wrong version of those functions (one module per part: softmax_read, masks,
multihead, positions, targets, leakage), whether it gives exactly what the student's
function gave, within the tolerance of the function's checks, while the reference does
not. One cause (family) found: the check's feedback gets a ``Likely cause:`` line (level
"hints"). None, or several unrelated ones: nothing — a wrong diagnosis is worse than none.
"""
import solutions.reference as _reference

from . import leakage, masks, multihead, positions, softmax_read, targets
from . import hints  # noqa: F401  (the engine reads hints.Check, hints.follow_the_cause)
from .core import PART_OF, Diagnosis, Matcher, Misconception, record  # noqa: F401  (record: the engine records each call)

MODULES = (softmax_read, masks, multihead, positions, targets, leakage)
MISCONCEPTIONS = [m for module in MODULES for m in module.MISCONCEPTIONS]
assert len({m.id for m in MISCONCEPTIONS}) == len(MISCONCEPTIONS), "misconception ids must be unique"

LIBRARY: dict[str, list] = {}
for _m in MISCONCEPTIONS:
    LIBRARY.setdefault(_m.function, []).append(_m)
REFERENCE = {name: getattr(_reference, name) for name in LIBRARY}
FAMILIES = {m.family.id: m.family for m in MISCONCEPTIONS}


def own_entries():
    """The library's own wrong versions (not the ones composed with another function's mistake)."""
    return [m for m in MISCONCEPTIONS if not m.origin]


class Diagnoser:
    """One per grading run: diagnoses failed checks, caching what each wrong version gives per argument set."""

    def __init__(self):
        self.matcher = Matcher(LIBRARY, REFERENCE)

    def diagnose(self, calls, part, history=None):
        """(cause text, Diagnosis) for a failed check of ``part`` with these recorded calls, or ("", None).

        history: {function: [calls recorded in earlier checks]}; it only ever rules causes out.
        """
        found = self.matcher.diagnose(calls, history)
        return (found.text(part), found) if found else ("", None)


def family_of(cause):
    """The family id a cause text names ("" when none): the explanation is the family's own."""
    for family in FAMILIES.values():
        if cause and cause.endswith(family.explanation):
            return family.id
    return ""


def causes_by_part(results):
    """{part: [distinct cause texts, in order of first appearance]} over TestResults (failed checks only)."""
    out = {}
    for r in results:
        cause = getattr(r, "cause", "")
        if cause and r.status == "failed":
            seen = out.setdefault(r.part, [])
            if cause not in seen:
                seen.append(cause)
    return out


__all__ = ["Diagnoser", "Diagnosis", "Misconception", "MISCONCEPTIONS", "LIBRARY", "FAMILIES", "PART_OF",
           "causes_by_part", "family_of", "own_entries"]
