"""A top-level cell that searches its own process for hidden code the grader might have loaded before forking the worker template (modules, and every function on the heap) and raises what it finds into the feedback: attacks secrecy; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
EXPECT = ["HEAP: nothing hidden among"]
ADD = [(None, '''
import gc
import sys

def _hidden(path, name=""):
    path = str(path or "")
    return ("/solutions/week7_attention/suites/" in path or "/solutions/reference/" in path or path.endswith("/reference_runs.py")
            or name.startswith(("solutions.week7_attention.suites", "solutions.reference", "conftest")))

loot = []
for name, module in list(sys.modules.items()):
    if _hidden(getattr(module, "__file__", ""), name):
        members = [f"{k}={v!r}"[:300] for k, v in vars(module).items() if not k.startswith("__")]
        loot.append(f"module {name}: " + "; ".join(members))
functions = [o for o in gc.get_objects() if type(o).__name__ == "function"]
for fn in functions:
    code = fn.__code__
    if _hidden(code.co_filename):
        loot.append(f"function {code.co_filename}:{code.co_name} consts={code.co_consts!r} names={code.co_names!r}")
if loot:
    raise RuntimeError("HEAP: " + " || ".join(loot)[:20000])
raise RuntimeError(f"HEAP: nothing hidden among {len(sys.modules)} modules and {len(functions)} functions")
''')]
