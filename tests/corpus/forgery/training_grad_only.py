"""Item 2: shift_for_next_token and next_token_loss raise NotImplementedError while a cell patches the worker so that the grader's training-time loss requests (grad=True calls) are answered with private, correct code. Training runs in the grader and also needs the shift and the validation loss (plain calls), so it must fail exactly as without the patch."""
from ._sources import PRIVATE_PIECES, STUB_TARGETS

REPLACE = {"targets_solution": STUB_TARGETS}
ADD = [("targets_solution", '''__HARNESS__
import torch
from torch.nn import functional as F
''' + PRIVATE_PIECES + '''
_calls, _protocol = _harness("calls"), _harness("protocol")
if _calls is not None:
    _real_run_call = _calls.run_call

    def _run_call(namespace, call, channel, arena):
        if call.grad and call.name == "next_token_loss":
            logits, targets = _calls.live(list(call.args), channel, arena)
            value, grad = _private_value_and_grad(logits, targets)
            return _protocol.Reply(True, value=value, grad=grad)
        return _real_run_call(namespace, call, channel, arena)

    _calls.run_call = _run_call
''')]
LOSES = ["The lab's smoke run trains with your mask, shift and loss"]
