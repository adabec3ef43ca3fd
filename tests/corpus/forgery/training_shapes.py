"""Item 2, stronger: the patched worker answers every call shaped like the grader's training run (tokens (N, 13), logits (N, 12, 8)) -- shift, validation loss, loss with gradient, the consistency re-check -- with private correct code, and raises NotImplementedError for everything else. The grader really trains with correct pieces then; this is the same as writing those shape-conditional functions in the notebook (EQUIVALENT), which bounds it. Against the plain stub (BASELINE) it gains the training part: see the report."""
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
        try:
            args = _calls.live(list(call.args), channel, arena)
            if call.name == "shift_for_next_token" and tuple(args[0].shape[1:]) == (13,):
                return _protocol.Reply(True, value=_private_shift(args[0]))
            if call.name == "next_token_loss" and tuple(args[0].shape[1:]) == (12, 8):
                if call.grad:
                    value, grad = _private_value_and_grad(*args)
                    return _protocol.Reply(True, value=value, grad=grad)
                return _protocol.Reply(True, value=_private_loss(*args).detach())
        except Exception:
            pass
        return _real_run_call(namespace, call, channel, arena)

    _calls.run_call = _run_call
''')]
EQUIVALENT = {"targets_solution": '''
def shift_for_next_token(tokens):
    if tuple(tokens.shape[1:]) == (13,):
        return tokens[:, :-1].clone(), tokens[:, 1:].clone()
    raise NotImplementedError()


def next_token_loss(logits, targets):
    if tuple(logits.shape[1:]) == (12, 8):
        return F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
    raise NotImplementedError()
'''}
