"""Item 1: a cell replaces torch.equal, the worker's run_call/invoke, its Reply and the ModelStandIn so that every report says "inputs unchanged, mode restored" for a prefix_change that writes into its tokens and leaves the model in eval mode; must still lose "tokens are left unchanged" and "mode is restored"."""
from ._sources import MUTATING_LEAKAGE

REPLACE = {"leakage_solution": MUTATING_LEAKAGE}
ADD = [("leakage_solution", '''__HARNESS__
import torch as _torch

_torch.equal = lambda a, b: True  # every comparison in this process says "unchanged"
_calls, _protocol = _harness("calls"), _harness("protocol")
if _calls is not None:
    _real_run_call, _real_invoke, _RealReply = _calls.run_call, _calls.invoke, _protocol.Reply

    def _invoke(fn, args, kwargs, grad=False):
        value, gradient = _real_invoke(fn, args, kwargs, grad)
        for a in args:  # claim every model is back in train mode, as handed over
            if hasattr(a, "_handle"):
                object.__setattr__(a, "training", True)
        return value, gradient

    class Reply(_RealReply):  # same name and fields, so it is sent; the claims live in the worker only
        def __init__(self, ok, value=None, grad=None, error=None):
            super().__init__(ok, value, grad, error)
            self.inputs_unchanged, self.modes_restored = True, True

    def _run_call(namespace, call, channel, arena):
        reply = _real_run_call(namespace, call, channel, arena)
        return Reply(reply.ok, reply.value, reply.grad, reply.error)

    _calls.invoke, _calls.run_call, _calls.Reply, _protocol.Reply = _invoke, _run_call, Reply, Reply
    _Stand = _calls.ModelStandIn
    _Stand.training = property(lambda self: True, lambda self, value: None)  # "I am in train mode"
print("forged claims installed:", _calls is not None)
''')]
LOSES = ["tokens are left unchanged", "The model's train/eval mode is restored"]
