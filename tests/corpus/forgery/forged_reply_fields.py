"""Item 1: the worker's Reply gets the old protocol's claims as extra fields (mutated=[], modes=[True], inputs_unchanged=True) for the mutating, eval-leaving prefix_change: the grader must refuse them (a forged frame is the student's failure), never trust them."""
from ._sources import MUTATING_LEAKAGE

REPLACE = {"leakage_solution": MUTATING_LEAKAGE}
ADD = [("leakage_solution", '''__HARNESS__
import dataclasses as _dc

_calls, _protocol = _harness("calls"), _harness("protocol")
if _calls is not None:
    @_dc.dataclass
    class Reply:  # same name, so to_wire sends kind "Reply", plus the claims
        ok: bool
        value: object = None
        grad: object = None
        error: object = None
        mutated: list = _dc.field(default_factory=list)
        modes: list = _dc.field(default_factory=lambda: [True])
        inputs_unchanged: bool = True

    _real_run_call = _calls.run_call

    def _run_call(namespace, call, channel, arena):
        reply = _real_run_call(namespace, call, channel, arena)
        if call.name in ("prefix_change", "assert_no_future_leakage"):
            return Reply(reply.ok, reply.value, reply.grad, reply.error)
        return reply

    _calls.run_call = _run_call
''')]
LOSES = ["tokens are left unchanged", "The model's train/eval mode is restored"]
