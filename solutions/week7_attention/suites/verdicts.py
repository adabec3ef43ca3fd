"""A student's leakage check asked about several models at once, in an order drawn per submission.

assert_no_future_leakage answers one bit per call (pass or raise). If its checks asked in a
fixed order, a function that counted its calls could replay the verdicts the feedback of an
earlier round revealed, without running the model (red team, round 5: 91 against 84). So each
pool holds causal and leaky models, the order of their kinds comes from the submission's probe
seed (engine/probes.py), and the points need every verdict of the pool right: a counter
guessing the order succeeds once in C(8, 4) = 70 submissions.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from solutions.week7_attention.served.probes import generator
from autograder.engine.student import StudentError

# The order's probe number is one no model is built from. A model's weights go to the worker (its replica),
# and a probe's seed can be recovered from the weights it shuffled (engine/probes.py, seed): the order
# drawn from the seed of the pool's first model would have been read off that model.
ORDER_PROBES = 1_000_000
KINDS = ("causal",) * 4 + ("none", "none", "one_step", "one_step")  # four causal, four leaky
WHAT = {"causal": "a causal model", "none": "a model that reads the whole sequence",
        "one_step": "a model that peeks one step ahead"}


@dataclass
class Verdict:
    kind: str  # the model's mask: "causal", "none" or "one_step"
    raised: StudentError | None  # the AssertionError it raised, or None when it passed silently
    error: str = ""  # another exception: why the check itself failed

    @property
    def right(self) -> bool:
        return not self.error and (self.raised is None) == (self.kind == "causal")


def pool(probe: int, ask: Callable[[str, int], None]) -> list[Verdict]:
    """Ask ``ask(kind, position)`` (which calls the student's check, raising StudentError on AssertionError)
    for each kind of KINDS, in the order drawn from probe ORDER_PROBES + ``probe``; the verdicts in that order."""
    order = torch.randperm(len(KINDS), generator=generator(ORDER_PROBES + probe)).tolist()
    verdicts = []
    for position, index in enumerate(order):
        kind = KINDS[index]
        try:
            ask(kind, position)
            verdicts.append(Verdict(kind, None))
        except StudentError as err:
            if err.kind == "AssertionError":
                verdicts.append(Verdict(kind, err))
            else:
                verdicts.append(Verdict(kind, None, f"raised {err.name}: {err.detail[:200]}"))
    return verdicts


def first_wrong(verdicts: list[Verdict], kinds: tuple[str, ...] = ("causal", "none", "one_step"),
                what: dict[str, str] = WHAT) -> str:
    """What the first wrong verdict on a model of ``kinds`` did, as a phrase ("" when all are right);
    ``what`` names the models ({kind: "a causal model", ...})."""
    for v in verdicts:
        if v.kind in kinds and not v.right:
            if v.error:
                return f"on {what[v.kind]} it {v.error}"
            if v.kind == "causal":
                return f"it raised AssertionError on {what[v.kind]}, which cannot see the future ({v.raised.detail[:120]})"
            return f"it passed {what[v.kind]} silently"
    return ""
