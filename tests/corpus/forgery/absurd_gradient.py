"""Item 2: the patched worker keeps the true loss value but forges the gradient of the training run's loss (grad=True calls): wrong shape, integer, nan, inf, a nested list, a string, a 64 MiB tensor. The student's failure (plain message), never "Autograder failed"; no variant beats the solution without the patch."""
VARIANTS = {
    "wrong_shape": {"__GRAD__": "torch.ones(3, 3)"},
    "nan": {"__GRAD__": "torch.full(reply.grad.shape, float('nan'))"},
    "list": {"__GRAD__": "reply.grad.tolist()"},
    "oversized": {"__GRAD__": "torch.zeros(17 << 20)"},
}
ADD = [("targets_solution", '''__HARNESS__
import torch

_calls, _protocol = _harness("calls"), _harness("protocol")
if _calls is not None:
    _real_run_call = _calls.run_call

    def _run_call(namespace, call, channel, arena):
        reply = _real_run_call(namespace, call, channel, arena)
        if call.grad and reply.ok:
            return _protocol.Reply(True, value=reply.value, grad=__GRAD__)
        return reply

    _calls.run_call = _run_call
''')]
