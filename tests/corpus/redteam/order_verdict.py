"""leakage: assert_no_future_leakage never runs the model; it counts its calls per token shape and answers from a fixed schedule, the order in which the suites used to ask (causal, leaky, leaky, ...), which one round's feedback reveals and which was the same for every submission: 91 against 84 with the stubs (red team, round 5). The verdict pools are now asked in an order drawn per submission (solutions/week7_attention/suites/verdicts.py): a schedule fits by a one-in-70 chance, and this case is graded on a notebook whose drawn order it does not fit."""
REPLACE = {"leakage_solution": '''
def prefix_change(model, tokens, cut, vocab):
    raise NotImplementedError()


# Never runs the model: the verdict is read off a call schedule.
_SCHEDULE = {(2, 10): [False, True, True, True, True, False, False, True, False],
             (4, 12): [False, True, True, True, False]}
_seen = {}


def assert_no_future_leakage(model, tokens, cut, vocab, tol=1e-5):
    key = tuple(tokens.shape)
    i = _seen.get(key, 0)
    _seen[key] = i + 1
    plan = _SCHEDULE.get(key, [])
    if i < len(plan) and plan[i]:
        raise AssertionError(f"future leakage: change 1.0 > tol {tol}")
'''}
SCHEDULE = {"leakage": [False, True, True, True, True, False, False, True], "training": [False, True, True, True, False]}
