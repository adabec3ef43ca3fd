"""Item 1: the harness (not the function) undoes the mutating prefix_change's effects: run_call copies the call arena before the call and writes it back after, and reports the models' flags as they were handed over. The grader sees what really happened to its objects, so this is exactly as good as the same undo written as a wrapper in the notebook (EQUIVALENT): no better."""
from ._sources import MUTATING_LEAKAGE

REPLACE = {"leakage_solution": MUTATING_LEAKAGE}
ADD = [("leakage_solution", '''__HARNESS__
_calls = _harness("calls")
if _calls is not None:
    _real_run_call = _calls.run_call

    def _run_call(namespace, call, replicas, arena):
        saved = bytes(arena[:1 << 16])
        handed = {str(a.handle): list(a.modes) for a in call.args if type(a).__name__ == "RemoteModel"}
        reply = _real_run_call(namespace, call, replicas, arena)
        arena[:1 << 16] = saved
        reply.models = handed
        return reply

    _calls.run_call = _run_call
''')]
EQUIVALENT = {"leakage_solution": MUTATING_LEAKAGE + '''

def _undo(fn):
    def wrapper(model, tokens, *args, **kwargs):
        was, saved = model.training, tokens.clone()
        try:
            return fn(model, tokens, *args, **kwargs)
        finally:
            tokens.copy_(saved)
            model.train(was)
    return wrapper


prefix_change = _undo(prefix_change)
'''}
