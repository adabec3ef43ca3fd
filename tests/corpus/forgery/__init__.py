"""Forgery corpus (issue 10, items 1-3 and more): a student who has read the engine's source lies from
inside the worker. Every case comes with a BASELINE, the same notebook without the forging cell; a
forgery must score no more than its baseline, per part and in total, and must never be
"Autograder failed" / grader-error.

A case is a module with a one-line docstring and:

    SOURCE          "solution" (default; build/course/source/...) or "blank" (the released notebook)
    REPLACE         {grade_id: source}: cells replaced in the attack AND the baseline
    ATTACK_REPLACE  {grade_id: source}: cells replaced in the attack only (the forgery is the function)
    ADD             [(after_grade_id or None for the end, source)]: forging cells, attack only
    LOSES           titles of checks the attack must fail (proof that the forged property is observed)
    EQUIVALENT      optional {grade_id: source}: an honest notebook (no forging, the same logic in the
                    student's own functions) whose score bounds the attack instead of the baseline;
                    for forgeries that are only a detour for code the student could write plainly
    VARIANTS        optional {suffix: {placeholder: text}}: one case per variant, "name[suffix]"

`build_cases()` returns {name: (attack notebook, baseline notebook)} (nbformat nodes), for any flow.
`equivalents()` returns {name: honest notebook} for the cases that have one; `build_bounded()` returns
{name: (attack, the notebook that bounds it)}.
"""
import copy
import importlib
import pkgutil

import nbformat

from autograder.assignment import INSTRUCTOR_NOTEBOOK as SOLUTION, ROOT, STUDENT_NOTEBOOK as BLANK

# Shared by the forging cells: the worker's own harness modules, found the way an attacker would.
HARNESS = '''
import sys as _sys

def _harness(short):
    """autograder.sandbox.<short> as loaded in this worker (None outside the grader)."""
    for _name, _module in list(_sys.modules.items()):
        if _name.startswith("autograder.sandbox") and _name.rsplit(".", 1)[-1] == short:
            return _module
    return None
'''

# A frame in the worker's wire format, written straight into its socket(s).
RAW = '''
import json as _json
import os as _os
import struct as _struct

def _frame(body):
    header = _json.dumps({"body": body, "sizes": []}).encode()
    return _struct.pack(">Q", len(header)) + header

def _inject(data):
    for _fd in _os.listdir("/proc/self/fd"):
        try:
            if _os.readlink(f"/proc/self/fd/{_fd}").startswith("socket:"):
                _os.write(int(_fd), data)
        except OSError:
            pass
'''


def case_names():
    names = []
    for module in sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")):
        if getattr(load(module), "ROUNDS", False):  # needs an earlier round's feedback: not a plain case
            continue
        variants = getattr(load(module), "VARIANTS", None)
        names += [f"{module}[{v}]" for v in variants] if variants else [module]
    return names


def load(module):
    return importlib.import_module(f"{__name__}.{module}")


def _split(name):
    module, _, variant = name.partition("[")
    return load(module), variant.rstrip("]")


def _fill(source, params):
    for key, value in params.items():
        source = source.replace(key, value)
    return source.replace("__HARNESS__", HARNESS).replace("__RAW__", RAW).replace("__REPO__", str(ROOT))


def _position(nb, grade_id):
    for i, cell in enumerate(nb.cells):
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            return i
    raise KeyError(f"no cell with grade_id {grade_id!r}")


def _apply(nb, replace=None, add=(), params=None):
    nb = copy.deepcopy(nb)
    params = params or {}
    for grade_id, source in (replace or {}).items():
        nb.cells[_position(nb, grade_id)].source = _fill(source, params)
    for after, source in add:
        cell = nbformat.v4.new_code_cell(_fill(source, params))
        nb.cells.insert(len(nb.cells) if after is None else _position(nb, after) + 1, cell)
    return nb


def base_notebook(source="solution"):
    return nbformat.read(str(SOLUTION if source == "solution" else BLANK), as_version=4)


def build(name):
    """(attack notebook, baseline notebook) of one case."""
    case, variant = _split(name)
    params = case.VARIANTS[variant] if variant else {}
    base = base_notebook(getattr(case, "SOURCE", "solution"))
    baseline = _apply(base, getattr(case, "REPLACE", {}), (), params)
    attack = _apply(baseline, getattr(case, "ATTACK_REPLACE", {}), getattr(case, "ADD", []), params)
    return attack, baseline


def build_cases(names=None):
    return {name: build(name) for name in (names or case_names())}


def build_bounded(names=None):
    """{name: (attack, bound)}: the bound is the case's EQUIVALENT where it has one, else its baseline."""
    names = names or case_names()
    honest = equivalents(names)
    return {name: (attack, honest.get(name, baseline)) for name, (attack, baseline) in build_cases(names).items()}


def equivalents(names=None):
    out = {}
    for name in names or case_names():
        case, variant = _split(name)
        if getattr(case, "EQUIVALENT", None):
            params = case.VARIANTS[variant] if variant else {}
            base = base_notebook(getattr(case, "SOURCE", "solution"))
            out[name] = _apply(_apply(base, getattr(case, "REPLACE", {}), (), params), case.EQUIVALENT, (), params)
    return out


def loses(name):
    return list(getattr(_split(name)[0], "LOSES", []))


def describe(name):
    return (_split(name)[0].__doc__ or "").strip().splitlines()[0]
