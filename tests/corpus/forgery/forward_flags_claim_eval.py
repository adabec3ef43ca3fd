"""Item 1, the other way: a prefix_change that never leaves train mode, with a cell that makes each forward request report every module in eval mode. The grader runs its model in the flags it is sent, so the passes are eval passes, measured right, as if the function had called model.eval() first and model.train(was) after: bounded by exactly that function (EQUIVALENT), no better."""
from ._sources import TRAIN_MODE_LEAKAGE

REPLACE = {"leakage_solution": TRAIN_MODE_LEAKAGE}
ADD = [("leakage_solution", '''__HARNESS__
_protocol = _harness("protocol")
if _protocol is not None:
    _RealOp = _protocol.ModelOp

    class ModelOp(_RealOp):  # same name: sent as a ModelOp, every flag set to eval
        def __init__(self, handle, op, tokens=None, modes=(), state=None):
            super().__init__(handle, op, tokens, [False] * len(modes), state)

    _protocol.ModelOp = ModelOp
''')]
EQUIVALENT = {"leakage_solution": TRAIN_MODE_LEAKAGE + '''

def _in_eval(fn):
    def wrapper(model, *args, **kwargs):
        was = model.training
        model.eval()
        try:
            return fn(model, *args, **kwargs)
        finally:
            model.train(was)
    return wrapper


prefix_change = _in_eval(prefix_change)
'''}
