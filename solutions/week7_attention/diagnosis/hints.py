"""Hints that follow the cause: the feedback-text stage that runs once every check has run.

A check's static hint (``expect_close(..., hint=...)`` in the hidden suites) is written for a
student whose other functions are right. Two things the grader learns while grading can make it
wrong, and then it is replaced, never followed by a contradiction:

* **A diagnosed cause** (``TestResult.cause``, solutions.week7_attention.diagnosis): it was found from this
  student's own values, so it takes the place of the static hint (the "Likely cause:" line is then
  the only hint the check shows).
* **A function it depends on fails its own checks**: the student's ``multi_head_self_attention``
  calls their own ``attention_read`` inside the sandboxed worker, out of the grader's sight. The
  declared map ``autograder.assignment.USES`` says which graded function calls which; when one of
  those (or another part's function the check called directly, as the training run does) failed
  one of *its own* checks in this grade, the hint becomes
  "`attention_read` (Part 1: Reading with attention) fails its own checks; fix it first."

A check is a function's *own* when it belongs to that function's part and calls no other graded
function. A check whose function was not written yet (NotImplementedError, missing) keeps its
message, which already says so. Everything here is pure: it reads names and TestResults, runs no
student code, and never changes a score.
"""
import json
import re
from dataclasses import dataclass
from functools import lru_cache

from autograder.assignment import PART_IDS, PARTS, STUDENT_NOTEBOOK, depends_on

PART_OF = {fn: part for part, fns in PARTS.items() for fn in fns}
ORDER = {fn: i for i, fn in enumerate(fn for fns in PARTS.values() for fn in fns)}  # notebook order
UNANSWERED = ("NotImplementedError", "Missing")  # not written yet: the message says so already

# "## Part 1 — Reading with attention (`softmax_read`)": a part's heading in the notebook.
HEADING = re.compile(r"^#{1,6}\s*Part\s+(\d+)\s*[—–-]+\s*(.+?)\s*\(`(\w+)`\)\s*$", re.M)


def parse_part_titles(markdown):
    """{part id: (number, title)} from the notebook's Markdown headings ``## Part N — Title (`id`)``."""
    found = {}
    for number, title, part in HEADING.findall(markdown):
        found.setdefault(part, (int(number), title))
    return found


@lru_cache(maxsize=1)
def _notebook_titles():
    """The released notebook's part headings (the titles students read), or {} when it is unreadable."""
    try:
        cells = json.loads(STUDENT_NOTEBOOK.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                         for c in cells if c.get("cell_type") == "markdown")
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return parse_part_titles(text)


def part_label(part, titles=None):
    """"Part 1: Reading with attention" for part id "softmax_read" (its notebook heading).

    titles: {part: (number, title)} (default: read from the released notebook); without a heading
    the part's number in notebook order and its id are used ("Part 1: softmax_read").
    """
    titles = _notebook_titles() if titles is None else titles
    if part in titles:
        number, title = titles[part]
        return f"Part {number}: {title}"
    number = PART_IDS.index(part) + 1 if part in PART_IDS else "?"
    return f"Part {number}: {part}"


@dataclass(frozen=True)
class Check:
    """A failed check as this stage sees it: its result, the graded functions it called, and
    whether one of them was not written yet."""
    result: object  # TestResult
    called: tuple  # graded function names the check called (its own calls and its part's shared setup)
    unanswered: bool = False

    @classmethod
    def from_calls(cls, result, calls):
        """From the check's recorded calls (diagnosis.core.Call, answered): names in call order."""
        names = tuple(dict.fromkeys(c.name for c in calls if c.name in PART_OF))
        unanswered = any(c.result is not None and not c.result.ok
                         and (c.result.error or {}).get("type") in UNANSWERED for c in calls)
        return cls(result, names, unanswered)

    @property
    def own_function(self):
        """The one graded function this check is about ("" when it calls several, or another part's)."""
        if len(self.called) == 1 and PART_OF.get(self.called[0]) == self.result.part:
            return self.called[0]
        return ""


def failing_own_checks(checks):
    """The graded functions that failed at least one of their own checks, in notebook order."""
    failing = {c.own_function for c in checks if c.own_function and c.result.status == "failed"}
    return sorted(failing, key=ORDER.get)


def dependencies(check):
    """The graded functions a check's failure may come from, other than the one it is about: every
    function the called ones use (USES, transitively), and the called ones themselves unless the
    check is that one function's own."""
    found = [] if check.own_function else list(check.called)
    for name in check.called:
        found += [d for d in depends_on(name) if d not in found]
    return [d for d in found if d != check.own_function]


def roots(functions):
    """Of these failing functions, those that use none of the others (fix them first), notebook order."""
    return sorted((f for f in functions if not any(o != f and o in depends_on(f) for o in functions)),
                  key=lambda f: ORDER.get(f, len(ORDER)))


def redirect(functions, titles=None):
    """The hint naming functions that fail their own checks, grouped by part, or "" for none.

    >>> redirect(["attention_read"], {"softmax_read": (1, "Reading with attention")})
    '`attention_read` (Part 1: Reading with attention) fails its own checks; fix it first.'
    """
    if not functions:
        return ""
    groups = {}
    for f in functions:
        groups.setdefault(PART_OF.get(f, ""), []).append(f"`{f}`")
    named = [f"{_and(names)} ({part_label(part, titles)})" for part, names in groups.items()]
    one = len(functions) == 1
    return f"{_and(named)} {'fails its' if one else 'fail their'} own checks; fix {'it' if one else 'them'} first."


def _and(items):
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def follow_the_cause(checks, titles=None):
    """Replace the static hint of each failed check where the grader knows better (in place).

    checks: every failed check of the grade (Check). A diagnosed cause replaces the hint; else,
    when functions the check depends on fail their own checks, the hint names them (redirect).
    Returns the checks whose hint changed.
    """
    failing = set(failing_own_checks(checks))
    changed = []
    for check in checks:
        r = check.result
        if r.status != "failed":
            continue
        if r.cause:
            hint = ""  # the "Likely cause:" line is the hint
        elif check.unanswered:
            continue
        else:
            upstream = roots([d for d in dependencies(check) if d in failing])
            if not upstream:
                continue
            hint = redirect(upstream, titles)
        if hint != r.hint:
            r.hint = hint
            changed.append(check)
    return changed
