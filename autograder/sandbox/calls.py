"""Answer one call from the grader: build module arguments, run the student's function, report.

Runs inside the worker (and, for the package's own tests, in-process on the reference).
"""
import traceback

import torch
from torch import nn

from .wire import ModuleSpec

LAB_MASKS = {  # mask_fn(T) for the probe models: True = blocked
    "causal": lambda T: torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1),
    "none": lambda T: None,  # reads the whole sequence, future included
    "one_step": lambda T: torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=2),  # sees t + 1
}


def build_module(spec, lab):
    """ModuleSpec -> a live nn.Module, built only from PyTorch and the public lab code."""
    if spec.kind == "mha":
        module = nn.MultiheadAttention(spec.config["embed_dim"], spec.config["num_heads"], batch_first=True)
    elif spec.kind == "lab":
        positions = spec.state.get("positions", torch.zeros(lab.MAX_POSITIONS, lab.WIDTH))
        module = lab.TinyTransformer(positions, LAB_MASKS[spec.config.get("mask", "causal")],
                                     dropout=float(spec.config.get("dropout", 0.0)))
    else:
        raise ValueError(f"unknown module kind {spec.kind!r}")
    if spec.state:
        module.load_state_dict(spec.state)
    return module.train(spec.training)


def _live(value, lab, modules):
    if isinstance(value, ModuleSpec):
        modules.append(build_module(value, lab))
        return modules[-1]
    if isinstance(value, list):
        return [_live(v, lab, modules) for v in value]
    if isinstance(value, tuple):
        return tuple(_live(v, lab, modules) for v in value)
    return value


def describe_error(err, cell_prefix="<cell "):
    """One sentence a student can act on: exception type, message, and the line in their cell."""
    where, function = "", ""
    for frame in traceback.extract_tb(err.__traceback__):
        if frame.filename.startswith(cell_prefix):
            where = f" (notebook {frame.filename.strip('<>')}, line {frame.lineno})"
            function = frame.name if frame.name != "<module>" else ""
    message = str(err).strip().splitlines()[0][:300] if str(err).strip() else ""
    return {"type": type(err).__name__, "message": message, "where": where, "function": function}


def run_call(namespace, lab, name, args, kwargs):
    """Call namespace[name](*args, **kwargs); report value, mutated tensor args and module modes."""
    fn = namespace.get(name)
    if fn is None:
        return {"ok": False, "error": {"type": "Missing", "where": "",
                                       "message": f"no function named `{name}` is defined in the notebook"}}
    if not callable(fn):
        return {"ok": False, "error": {"type": "Missing", "where": "",
                                       "message": f"`{name}` is defined but is not a function"}}
    modules = []
    live_args = [_live(a, lab, modules) for a in args]
    live_kwargs = {k: _live(v, lab, modules) for k, v in kwargs.items()}
    originals = [a.clone() if isinstance(a, torch.Tensor) else None for a in live_args]
    try:
        value = fn(*live_args, **live_kwargs)
    except BaseException as err:  # noqa: BLE001 - SystemExit from student code is just an error here
        if isinstance(err, KeyboardInterrupt):
            raise
        return {"ok": False, "error": describe_error(err)}
    mutated = [i for i, (a, o) in enumerate(zip(live_args, originals))
               if o is not None and not (a.shape == o.shape and torch.equal(a.as_subclass(torch.Tensor), o))]
    return {"ok": True, "value": value, "mutated": mutated, "modes": [m.training for m in modules]}


def run_training(namespace, lab, epochs, positions):
    """The lab's smoke run with the student's mask, shift and loss; returns weights as data."""
    pieces = [namespace.get(n) for n in ("causal_mask_blocked", "shift_for_next_token", "next_token_loss")]
    missing = [n for n, f in zip(("causal_mask_blocked", "shift_for_next_token", "next_token_loss"), pieces)
               if not callable(f)]
    if missing:
        return {"ok": False, "error": {"type": "Missing", "where": "",
                                       "message": "training needs " + ", ".join(f"`{m}`" for m in missing)}}
    try:
        model, best_val = lab.train_lab(epochs, positions, *pieces)
    except BaseException as err:  # noqa: BLE001
        if isinstance(err, KeyboardInterrupt):
            raise
        return {"ok": False, "error": describe_error(err)}
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    return {"ok": True, "value": {"state": state, "best_val": float(best_val)}, "mutated": [], "modes": []}
