"""Item 1: the function switches the model to eval, but a cell makes the replica's forward requests report every module in train mode (the flags the worker sends with each pass). The grader runs its model in the flags it is sent, so dropout is on in those passes: the dropout check is lost, nothing gained."""
ADD = [("leakage_solution", '''__HARNESS__
_protocol = _harness("protocol")
if _protocol is not None:
    _RealOp = _protocol.ModelOp

    class ModelOp(_RealOp):  # same name: sent as a ModelOp, with every flag set to train
        def __init__(self, handle, op, tokens=None, modes=(), state=None):
            super().__init__(handle, op, tokens, [True] * len(modes), state)

    _protocol.ModelOp = ModelOp
''')]
LOSES = ["A model with dropout handed over in train mode is run in eval mode, and measured right"]
