"""Hostile and broken submissions, each built from the solution notebook.

A case is a module with a one-line docstring (what it attacks, which part, which parts
keep full points) and:

    ATTACKS  parts that must score 0
    KEEPS    parts that must keep full points (when graded alone)
    REPLACE  {grade_id: source}: solution cells whose source is replaced
    ADD      [(after_grade_id or None for the end, source)]: new code cells
    NEVER    strings that must appear in no output (stdout, stderr, results.json)
    EXPECT   strings that must appear in results.json's output (proof the attack ran)

Sources may use placeholders the test fills in: __REPO__ (the grader's checkout),
__OUT_DIR__ (the directory of --out), __CANARY__ (a world-writable directory in the
host's /tmp), __LISTEN_PORT__ (a TCP listener on the host's loopback), __ABSTRACT__
(an abstract Unix socket listening on the host) and __MARKER__ (unique per run).
"""
import importlib
import pkgutil

import nbformat

# A part whose graded functions call another part's functions (or whose hidden tests do):
# breaking the inner part breaks the outer one too, so it is neither attacked nor kept.
DEPENDS = {"multihead": {"softmax_read"}, "training": {"masks", "targets", "leakage"}}


def case_names():
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def load(name):
    return importlib.import_module(f"{__name__}.{name}")


def blocked_by(parts):
    """Parts that cannot keep full points when ``parts`` are broken."""
    parts = set(parts)
    return parts | {outer for outer, inner in DEPENDS.items() if inner & parts}


def fill(source, params):
    for key, value in params.items():
        source = source.replace(key, str(value))
    return source


def build(solution_path, cases, params):
    """The solution notebook with every case's replacements and added cells."""
    nb = nbformat.read(str(solution_path), as_version=4)

    def position(grade_id):
        for i, cell in enumerate(nb.cells):
            if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
                return i
        raise KeyError(f"no cell with grade_id {grade_id!r} in {solution_path}")

    for case in cases:
        for grade_id, source in getattr(case, "REPLACE", {}).items():
            nb.cells[position(grade_id)].source = fill(source, params)
        for after, source in getattr(case, "ADD", []):
            cell = nbformat.v4.new_code_cell(fill(source, params))
            nb.cells.insert(len(nb.cells) if after is None else position(after) + 1, cell)
    return nb
