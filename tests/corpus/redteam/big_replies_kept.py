"""Every graded function returns a 60 MiB tensor (under the 64 MiB reply cap): the grader kept every call's reply for the diagnosis (Student.calls, the failed checks' calls, a per-function history) until the grade ended, so the *grading* process, outside the worker's 4 GiB group, peaked at 4.2 GiB against 0.3 GiB for the solution (red team, round 2)."""
MIB = 60
# After the last solution cell (None: at the end of the notebook), so it replaces every definition.
ADD = [(None, '''
import torch as _t
_N = int(__MIB__ * 2**20 / 4)


def _big(*a, **k):
    return _t.zeros(_N)


for _name in __GRADED__:
    globals()[_name] = _big
''')]
