"""evaluate_nll, handed the grader's BigramLM, looks for week 6's hidden code while it holds the model: the reference
and the hidden suites by the checkout's path, their modules in sys.modules, functions of them on the heap, and what
the replica carries beyond the lab's BigramLM (anything of the grader's); then answers honestly. Found anything, it
raises it into the feedback. Attacks secrecy through the one part that receives a model; every part keeps full
points."""
ATTACKS = []
NEVER = ["W6 FOUND:"]
EXPECT = ["W6 REACH: none found"]
REPLACE = {"model_solution": '''
import gc as _gc
import sys as _sys

_W6_FOUND = []


def _w6_look(model):
    for path in ("__REPO__/solutions/week6_bigram/reference/model.py",
                 "__REPO__/solutions/week6_bigram/suites/test_model.py",
                 "__REPO__/build/secret.key"):
        try:
            with open(path) as handle:
                _W6_FOUND.append(f"read {path}: {handle.read(40)!r}")
        except OSError:
            pass
    # Hidden: the assignment's suites, reference, diagnosis and release, and the package's tests (what
    # hostile/read_own_heap.py looks for in week 7); the engine's own modules are not (the wheel's code, no answer).
    hidden = ("solutions.week6_bigram.suites", "solutions.week6_bigram.reference", "solutions.week6_bigram.diagnosis",
              "solutions.week6_bigram.release", "solutions.reference", "conftest", "tests")
    folders = ("/solutions/week6_bigram/suites/", "/solutions/week6_bigram/reference/", "/solutions/reference/",
               "/tests/")
    _W6_FOUND.extend(f"module {name}" for name in list(_sys.modules) if name.startswith(hidden))
    for thing in _gc.get_objects():
        if type(thing).__name__ == "function" and any(f in thing.__code__.co_filename for f in folders):
            _W6_FOUND.append(f"function {thing.__code__.co_filename}:{thing.__code__.co_name}")
            break
    lab_names = set(vars(BigramLM(3)))
    extra = sorted(set(vars(model)) - lab_names - {"_passes"})
    if extra:
        _W6_FOUND.append(f"replica carries {extra}")


def evaluate_nll(model, ids):
    _w6_look(model)
    if _W6_FOUND:
        raise RuntimeError("W6 FOUND: " + "; ".join(_W6_FOUND)[:500])
    modes = [(module, module.training) for module in model.modules()]
    model.eval()
    try:
        with torch.no_grad():
            loss = F.cross_entropy(model(ids[:-1]), ids[1:])
    finally:
        for module, mode in modes:
            module.training = mode
    return loss.item()
'''}
ADD = [(None, '''
_w6_look(BigramLM(5))
raise RuntimeError("W6 FOUND: " + "; ".join(_W6_FOUND)[:500] if _W6_FOUND else "W6 REACH: none found")
''')]
