"""Build red-team notebooks from the instructor (solution) notebook: python mk.py SOLUTION OUTDIR.

Each attack: (name, {grade_id: new source (replaces the cell)}, [cells appended at the end]).
Nothing here runs a notebook; grade the written files with the CLI.
"""
import copy
import json
import sys
from pathlib import Path

BIG_RETURNS = '''
import torch as _t
_GRADED = ["stable_softmax", "attention_read", "causal_mask_blocked", "causal_mask_allowed",
           "causal_mask_additive", "padding_mask_blocked", "sdpa_mask", "split_heads", "merge_heads",
           "multi_head_self_attention", "sinusoidal_positions", "shift_for_next_token", "next_token_loss",
           "prefix_change", "assert_no_future_leakage"]
_N = int(__MIB__ * 2**20 / 4)
def _big(*a, **k):
    return _t.zeros(_N)
for _name in _GRADED:
    globals()[_name] = _big
'''


def code_cell(source):
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}


def build(solution, replace=None, add=(), edit=None):
    nb = copy.deepcopy(solution)
    if edit:
        gid, old, new = edit
        for cell in nb["cells"]:
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == gid:
                src = "".join(cell["source"])
                assert src.count(old) == 1, (gid, old)
                cell["source"] = src.replace(old, new)
    for cell in nb["cells"]:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if replace and gid in replace:
            cell["source"] = replace[gid]
    nb["cells"] += [code_cell(s) for s in add]
    return nb


# The honest mistake: next_token_loss sums instead of averaging (targets part, then training, follow).
SUMMED_LOSS = ("F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))  # (N*T, V) vs (N*T,)",
               "F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), reduction='sum')")

# The worker's harness is the student's: rescale the gradient the grader trains with (grad=True calls
# only). The value, and so every plain call and the consistency re-check, stays the summed one.
GRAD_RESCALE = """
import sys as _sys
_calls = _sys.modules.get("autograder.sandbox.worker.calls")
if _calls is not None:
    _invoke = _calls.invoke
    def _rescaled(fn, args, kwargs, grad=False):
        value, gradient = _invoke(fn, args, kwargs, grad)
        if grad and gradient is not None:
            gradient = gradient / args[1].numel()  # the gradient of the mean: not of the value returned
        return value, gradient
    _calls.invoke = _rescaled
"""

# A detached loss (value right, no autograd graph): docs/security.md says training gets nothing from it.
# The patched harness answers grad=True calls with a numerical gradient of the student's own value.
DETACHED_LOSS = ("return F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1))  # (N*T, V) vs (N*T,)",
                 "return torch.tensor(F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1)).item())")
NUMERIC_GRAD = """
import sys as _sys
_calls = _sys.modules.get("autograder.sandbox.worker.calls")
if _calls is not None:
    _invoke = _calls.invoke
    def _numeric(fn, args, kwargs, grad=False):
        if not grad:
            return _invoke(fn, args, kwargs, grad)
        logits, rest = args[0].detach().double(), args[1:]
        flat, h = logits.reshape(-1), 0.05  # the value comes back as float32
        gradient = torch.empty_like(flat)
        for i in range(flat.numel()):  # central differences of the student's own (detached) value
            old = float(flat[i])
            flat[i] = old + h; up = float(fn(logits, *rest))
            flat[i] = old - h; down = float(fn(logits, *rest))
            flat[i] = old
            gradient[i] = (up - down) / (2 * h)
        return fn(args[0], *rest).detach().reshape(()), gradient.reshape(args[0].shape).float()
    _calls.invoke = _numeric
"""

ATTACKS = {
    # every graded function returns a MIB-MiB float tensor: does the grading process keep them all?
    "big_returns_60": ({}, [BIG_RETURNS.replace("__MIB__", "60")]),
    "big_returns_8": ({}, [BIG_RETURNS.replace("__MIB__", "8")]),
    # causal_mask_blocked with diagonal=0 (an honest 77/100): a distinguishable neighbour for collide.sh
    "diag0": ({}, [], ("masks_solution", "dtype=torch.bool), diagonal=1)\n    ### END SOLUTION\n\n\ndef causal_mask_allowed",
                       "dtype=torch.bool), diagonal=0)\n    ### END SOLUTION\n\n\ndef causal_mask_allowed")),
    "summed_loss_honest": ({}, [], ("targets_solution", *SUMMED_LOSS)),
    "summed_loss_grad_rescaled": ({}, [GRAD_RESCALE], ("targets_solution", *SUMMED_LOSS)),
    "detached_loss_honest": ({}, [], ("targets_solution", *DETACHED_LOSS)),
    "detached_loss_numeric_grad": ({}, [NUMERIC_GRAD], ("targets_solution", *DETACHED_LOSS)),
}

if __name__ == "__main__":
    solution = json.loads(Path(sys.argv[1]).read_text())
    out = Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    for name, (replace, add, *edit) in ATTACKS.items():
        if len(sys.argv) > 3 and name not in sys.argv[3:]:
            continue
        (out / f"{name}.ipynb").write_text(json.dumps(build(solution, replace, add, *edit), indent=1))
        print(out / f"{name}.ipynb")
