"""Item 1: the ModelStandIn's train()/eval() no longer reach the grader but claim they did (self.training flips locally); the solution's prefix_change then measures a model the grader still runs in train mode: must lose the dropout check, gain nothing."""
ADD = [("leakage_solution", '''__HARNESS__
_calls = _harness("calls")
if _calls is not None:
    def _silent_train(self, mode=True):
        self.training = bool(mode)  # says it switched; the grader never hears of it
        return self

    _calls.ModelStandIn.train = _silent_train
''')]
LOSES = ["A model with dropout handed over in train mode is run in eval mode, and measured right"]
