"""Item 2: the patched worker answers the training run's next_token_loss calls (logits (N, 12, 8)) with absurd forged values -- 10**400, nan, inf, a string, a Python float, deeply nested or huge lists, a (N, T) tensor -- with a correct gradient. Each is the student's failure in training (plain message), never "Autograder failed"; no variant beats the solution without the patch."""
VARIANTS = {
    "int_10_400": {"__VALUE__": "10 ** 400"},
    "nan": {"__VALUE__": "torch.tensor(float('nan'))"},
    "string": {"__VALUE__": "'0.5'"},
    "too_deep": {"__VALUE__": "_nest(5000)"},
    "many": {"__VALUE__": "list(range(200_000))"},
    "none": {"__VALUE__": "None"},
}
ADD = [("targets_solution", '''__HARNESS__
import torch


def _nest(depth):
    value = 0.5
    for _ in range(depth):
        value = [value]
    return value


_calls, _protocol = _harness("calls"), _harness("protocol")
if _calls is not None:
    _real_run_call = _calls.run_call

    def _run_call(namespace, call, channel, arena):
        reply = _real_run_call(namespace, call, channel, arena)
        if call.name == "next_token_loss":
            args = _calls.live(list(call.args), channel, arena)
            if tuple(args[0].shape[1:]) == (12, 8):
                return _protocol.Reply(True, value=__VALUE__, grad=reply.grad)
        return reply

    _calls.run_call = _run_call
''')]
LOSES = ["The lab's smoke run trains with your mask, shift and loss"]
