"""Item 1: a cell replaces torch.equal, the worker's run_call/invoke and its Reply, and makes the replicas report every module back in train mode, for a prefix_change that writes into its tokens and leaves the model in eval mode. "Tokens unchanged" is observed in the arena: it must still be lost. The reported flags are what the grader's model is then set to, exactly as if the function had ended with model.train(): that part is bounded by the same function with model.train(was) added (EQUIVALENT), no better."""
from ._sources import MUTATING_LEAKAGE

REPLACE = {"leakage_solution": MUTATING_LEAKAGE}
ADD = [("leakage_solution", '''__HARNESS__
import torch as _torch

_torch.equal = lambda a, b: True  # every comparison in this process says "unchanged"
_calls, _protocol, _replica = _harness("calls"), _harness("protocol"), _harness("replica")
if _calls is not None:
    _real_run_call, _RealReply = _calls.run_call, _protocol.Reply

    class Reply(_RealReply):  # same name and fields, so it is sent; the claims live in the worker only
        def __init__(self, ok, value=None, grad=None, error=None, models=None):
            super().__init__(ok, value, grad, error, models)
            self.inputs_unchanged, self.modes_restored = True, True

    def _run_call(namespace, call, replicas, arena):
        reply = _real_run_call(namespace, call, replicas, arena)
        claimed = {key: None if flags is None else [True] * len(flags) for key, flags in (reply.models or {}).items()}
        return Reply(reply.ok, reply.value, reply.grad, reply.error, claimed)  # "every module in train mode"

    _calls.run_call, _calls.Reply, _protocol.Reply = _run_call, Reply, Reply
    _replica.mode_vector = lambda model: [True for _ in model.modules()]
print("forged claims installed:", _calls is not None)
''')]
LOSES = ["tokens are left unchanged"]
EQUIVALENT = {"leakage_solution": MUTATING_LEAKAGE + '''

def _back_to_train(fn):
    def wrapper(model, *args, **kwargs):
        try:
            return fn(model, *args, **kwargs)
        finally:
            model.train()
    return wrapper


prefix_change = _back_to_train(prefix_change)
'''}
