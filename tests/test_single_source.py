"""Each fact of the assignment is written once (issue 12): a second definition fails here, saying where.

The facts' home is autograder/assignment.py (name, parts and graded functions, paths, code
sets); the smoke and full epochs live in solutions/lab/lab.py (EPOCHS); the points beside
each hidden test. The scanner reads the Python files of autograder/, solutions/, tests/
and bench/ (their syntax trees: docstrings and comments are prose, not definitions) and
reports, outside those homes:

  name      a one-line string constant holding the assignment's name (f-strings included:
            write f"{NAME}..."); multi-line strings are notebook cells and prose and pass
  parts     an assignment to PARTS (``PARTS = ...`` / ``PARTS: ... = ...``) with a literal
            value, or any list/tuple/set/dict literal naming every part (a subset, such as
            the parts one corpus case attacks, is data and passes)
  root      a root computed from ``__file__``: ``....parents[n]`` or nested
            ``os.path.dirname(...)`` on it
  code set  a literal made of two or more of the grader's code folders (``"autograder/engine"``,
            ``"solutions.reference"``, ...) and nothing else, or a path to one of those folders
            built as ``... / "autograder" / "suites"`` (a path to one file inside passes)
  epochs    an assignment to SMOKE_EPOCHS / FULL_EPOCHS / EPOCHS outside solutions/lab/lab.py
  uses      an assignment of a dict literal to USES (which graded function calls which)

templates/student-ci/.github/scripts/public_checks.py is not scanned: it runs in student
repositories without this package and keeps its own copy by design (test_student_ci.py
keeps it equal).
"""
import ast
from pathlib import Path

import pytest

from autograder import assignment

SCANNED = ("autograder", "solutions", "tests", "bench")
HOME = "autograder/assignment.py"
EPOCHS_HOME = "solutions/lab/lab.py"
CODE_SET_STRINGS = {s for entry in (*assignment.HIDDEN, *assignment.ENGINE, *assignment.LAB, *assignment.GRADER)
                    if not entry.endswith(".py") and "/" in entry for s in (entry, entry.replace("/", "."))}
CODE_SET_CHAINS = {("autograder", "suites"), ("autograder", "engine"), ("autograder", "sandbox"),
                   ("autograder", "flows"), ("solutions", "reference"), ("solutions", "lab")}
# file: why it may keep a definition for now (each entry is a known debt, named in the report).
EXEMPT = {}


def _docstrings(tree):
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _names(target):
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Attribute):
        return {target.attr}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_names(t) for t in target.elts)) if target.elts else set()
    return set()


def _uses_file(node):
    return any(isinstance(n, ast.Name) and n.id == "__file__" for n in ast.walk(node))


def _strings(nodes):
    return [n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _chain(node):
    """The string constants of a ``a / "x" / "y"`` chain, left to right."""
    parts = []
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        if isinstance(node.right, ast.Constant) and isinstance(node.right.value, str):
            parts.append(node.right.value)
        node = node.left
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        parts.append(node.value)
    return tuple(reversed(parts))


def scan_source(text, relpath):
    """[(line, rule, what)] of the second definitions in one file's source."""
    if relpath == HOME:
        return []
    tree = ast.parse(text)
    docs = _docstrings(tree)
    parts = set(assignment.PART_IDS)
    found = []
    inner = {id(n.left) for n in ast.walk(tree) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div)}
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            if assignment.NAME in node.value and "\n" not in node.value:
                found.append((line, "name", repr(node.value)[:80]))
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = set().union(*(_names(t) for t in targets))
            literal = isinstance(node.value, (ast.Dict, ast.Tuple, ast.List, ast.Set))
            if "PARTS" in names and literal:
                found.append((line, "parts", "PARTS assigned a literal"))
            if "USES" in names and isinstance(node.value, ast.Dict):
                found.append((line, "uses", "USES assigned a literal"))
            if names & {"SMOKE_EPOCHS", "FULL_EPOCHS", "EPOCHS"} and relpath != EPOCHS_HOME \
                    and node.value is not None and not isinstance(node.value, (ast.Attribute, ast.Name)):
                found.append((line, "epochs", f"{sorted(names & {'SMOKE_EPOCHS', 'FULL_EPOCHS', 'EPOCHS'})} assigned"))
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            elements = node.keys if isinstance(node, ast.Dict) else node.elts
            strings = _strings([e for e in elements if e is not None])
            if parts.issubset(strings):
                found.append((line, "parts", "a literal naming every part"))
            folders = CODE_SET_STRINGS.intersection(strings)
            if len(folders) >= 2 and len(folders) == len(set(strings)):
                found.append((line, "code set", f"a literal naming {sorted(folders)}"))
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "parents" and _uses_file(node.value):
            found.append((line, "root", "root computed from __file__ (.parents[...])"))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "dirname" \
                and node.args and isinstance(node.args[0], ast.Call) \
                and getattr(node.args[0].func, "attr", getattr(node.args[0].func, "id", "")) == "dirname" \
                and _uses_file(node.args[0]):
            found.append((line, "root", "root computed from __file__ (nested dirname)"))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and id(node) not in inner:
            chain = _chain(node)  # the whole chain, once: ROOT / "autograder" / "suites"
            if chain[-2:] in CODE_SET_CHAINS:
                found.append((line, "code set", f"path built as {' / '.join(map(repr, chain))}"))
    return sorted(set(found))


def scan_tree(root):
    """{relative path: [(line, rule, what)]} over the scanned folders of a checkout at ``root``."""
    root = Path(root)
    report = {}
    for top in SCANNED:
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if "__pycache__" in path.parts or rel in EXEMPT:
                continue
            found = scan_source(path.read_text(), rel)
            if found:
                report[rel] = found
    return report


def _describe(report):
    return "\n".join(f"  {rel}:{line}: {rule}: {what}" for rel, found in report.items() for line, rule, what in found)


def test_each_fact_is_defined_once():
    report = scan_tree(assignment.ROOT)
    assert not report, ("a fact of the assignment is defined outside autograder/assignment.py "
                        "(read it from there instead):\n" + _describe(report))


def test_exemptions_are_still_needed():
    """An exemption whose file has become clean (or is gone) is removed from EXEMPT."""
    for rel, why in EXEMPT.items():
        path = assignment.ROOT / rel
        assert path.exists() and scan_source(path.read_text(), rel), f"{rel} no longer needs its exemption ({why})"


PLANTED = {
    "name": 'SUBMISSION = "week7_attention.ipynb"\n',
    "name in an f-string": 'path = f"{course}/week7_attention/x"\n',
    "parts dict": 'PARTS = {"masks": ["causal_mask_blocked"]}\n',
    "parts annotated": 'PARTS: tuple = ("masks",)\n',
    "parts list": 'ORDER = ["softmax_read", "masks", "multihead", "positions", "targets", "leakage", "training"]\n',
    "parts keys": ('P = {"softmax_read": 18, "masks": 18, "multihead": 16, "positions": 8, "targets": 10,\n'
                   '     "leakage": 12, "training": 18}\n'),
    "root parents": 'from pathlib import Path\nROOT = Path(__file__).resolve().parents[2]\n',
    "root dirname": 'import os\nROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n',
    "code set folders": 'SOURCES = ("autograder/engine", "autograder/suites")\n',
    "code set modules": 'if name.startswith(("autograder.suites", "solutions.reference")): pass\n',
    "code set path": 'HIDDEN = ROOT / "solutions" / "reference"\n',
    "epochs": 'SMOKE_EPOCHS = 2\n',
    "uses": 'USES = {"attention_read": ("stable_softmax",)}\n',
}
RULE = {"name": "name", "name in an f-string": "name", "parts dict": "parts", "parts annotated": "parts",
        "parts list": "parts", "parts keys": "parts", "root parents": "root", "root dirname": "root",
        "code set folders": "code set", "code set modules": "code set", "code set path": "code set", "epochs": "epochs",
        "uses": "uses"}


@pytest.mark.parametrize("case", sorted(PLANTED))
def test_scanner_finds_a_planted_second_definition(case):
    found = scan_source(PLANTED[case], "autograder/flows/planted.py")
    assert [rule for _, rule, _ in found] == [RULE[case]], found


ALLOWED = {
    "docstring": '"""Reads week7_attention/week7_attention.ipynb; PARTS = (...)."""\n',
    "a notebook cell": 'CELL = """\nopen("week7_attention.ipynb")\n"""\n',
    "reading the facts": ("from autograder.assignment import NAME, PARTS, ROOT, SUITES\n"
                          "nb = ROOT / 'assignments' / NAME / f'{NAME}.ipynb'\nparts = PARTS\n"),
    "a re-export": "from autograder.assignment import PART_IDS as PARTS\n",
    "some parts": 'KEEPS = ["softmax_read", "masks", "multihead", "positions", "targets", "leakage"]\n',
    "markers": 'MARKERS = ("BEGIN SOLUTION", "autograder.flows", "solutions.reference")\n',
    "one file inside": 'link.symlink_to(ROOT / "autograder" / "engine" / "grade.py")\n',
    "epochs read": 'epochs = lab.EPOCHS["smoke"]\nEPOCHS = lab.EPOCHS\n',
}


@pytest.mark.parametrize("case", sorted(ALLOWED))
def test_scanner_allows_reading_the_facts(case):
    assert scan_source(ALLOWED[case], "tests/test_x.py") == []


def test_scanner_allows_the_homes():
    assert scan_source((assignment.ROOT / HOME).read_text(), HOME) == []
    assert scan_source("EPOCHS = {'smoke': 2, 'full': 25}\n", EPOCHS_HOME) == []


def test_a_planted_file_fails_the_tree_scan(tmp_path):
    """The whole-tree scan on a small copy: clean, then one planted definition, reported with its place."""
    for rel in (HOME, "autograder/engine/catalog.py", "solutions/reference/__init__.py"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text((assignment.ROOT / rel).read_text())
    assert scan_tree(tmp_path) == {}
    (tmp_path / "bench" / "bench2.py").parent.mkdir()
    (tmp_path / "bench" / "bench2.py").write_text('import sys\n\nASSIGNMENT = "week7_attention"\n')
    report = scan_tree(tmp_path)
    assert report == {"bench/bench2.py": [(3, "name", repr(assignment.NAME))]}
    assert "bench/bench2.py:3: name" in _describe(report)
