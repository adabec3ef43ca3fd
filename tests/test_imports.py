"""The product's import graph (tests/import_graph.py): no new circle, and no product module imports the tests; the
engine imports no assignment and names no week in its code."""
import ast
import re
from pathlib import Path

from autograder.plugin_api import DEFAULT_ASSIGNMENT
from tests import import_graph
from tests.ast_text import docstrings
from tests.import_graph import circles, graph

# The circles left to undo (issue 30's flows layer); each is a set of modules importing one another.
# A circle that disappears must leave this list too, so the list only ever shrinks.
KNOWN: set[frozenset[str]] = set()  # none left: the flows share discover.py, terminal.py, sandbox_grading.py


def test_no_new_import_circle():
    found = set(circles(graph()))
    new = [" <-> ".join(sorted(c)) for c in found - KNOWN]
    gone = [" <-> ".join(sorted(c)) for c in KNOWN - found]
    assert not new, f"new import circles: {new} (move the shared names into a module of their own)"
    assert not gone, f"these circles are gone or changed: {gone}; update KNOWN"


def test_no_product_module_imports_the_tests():
    offenders = sorted(f"{module} imports {name}"
                       for module, names in import_graph.external_imports().items()
                       for name in names if name == "tests" or name.startswith("tests."))
    assert not offenders, offenders


def test_the_graph_sees_circles_and_deferred_imports(tmp_path):
    # A circle through a function-level import is a circle all the same.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import g\n")
    (package / "b.py").write_text("def g():\n    from . import a\n")
    (package / "c.py").write_text("from pkg import a\nimport tests.corpus\n")
    edges = graph(tmp_path, ("pkg",))
    assert edges["pkg.c"] == {"pkg.a"}
    assert circles(edges) == [frozenset({"pkg.a", "pkg.b"})]
    assert "tests.corpus" in import_graph.external_imports(tmp_path, ("pkg",))["pkg.c"]


# The engine knows no assignment (issue 29): no module of autograder/ imports assignment content by name.
# It finds the assignment by the discovery rule (autograder/plugin_api.py) and reads everything through it.
def _assignment_content_imports(root=import_graph.ROOT):
    """[(engine module, what it imports)] for imports of assignment content: the solutions package (the
    assignment packages, the reference, the lab, the release tooling) or hidden suites and misconception
    libraries by name, wherever they lie."""
    forbidden = ("solutions",)
    offenders = []
    for module, names in import_graph.external_imports(root, ("autograder",)).items():
        for name in names:
            parts = name.split(".")
            if parts[0] in forbidden or "suites" in parts or "diagnosis" in parts:
                offenders.append((module, name))
    return sorted(offenders)


def test_the_engine_imports_no_assignment():
    offenders = _assignment_content_imports()
    assert not offenders, ("engine modules import assignment content; reach it through autograder.assignment "
                           "(plugin_api.Assignment) instead:\n" + "\n".join(f"  {m} imports {n}" for m, n in offenders))


def test_the_assignment_check_sees_imports(tmp_path):
    engine = tmp_path / "autograder/engine"
    engine.mkdir(parents=True)
    (engine.parent / "__init__.py").write_text("")
    (engine / "__init__.py").write_text("")
    (engine / "a.py").write_text("def f():\n    from ..diagnosis import Diagnoser\n")  # a deferred import counts
    (engine / "b.py").write_text("import solutions.reference as ref\n")
    (engine / "c.py").write_text("from ..assignment import served\n")  # through the plug-in: allowed
    assert _assignment_content_imports(tmp_path) == [("autograder.engine.a", "autograder.diagnosis.Diagnoser"),
                                                     ("autograder.engine.b", "solutions.reference")]


# The engine's code names no week either (issue 29): a fact of an assignment comes from its package, and a name of the
# engine's own says autograder. Docstrings and comments are prose and may cite week 7 as the example plug-in; string
# and bytes constants (f-strings' too) and identifiers are code. What the engine's code may still name, per file:
LEGACY_NAMES = {  # the names of the time the engine served week 7 alone, kept so that old courses and scripts work
    "autograder/plugin_api.py": {DEFAULT_ASSIGNMENT},  # the package graded when $AUTOGRADER_ASSIGNMENT is unset
    "autograder/assignment.py": {"WEEK7_WORKDIR"},  # OLD_WORKDIR_VARIABLES (tests/test_packaging.py)
    "autograder/settings.py": {"week7-grader.toml"},  # LEGACY_CONFIG_FILE (tests/test_settings.py)
    "autograder/notebook_meta.py": {"week7"},  # FORMER_KEYS, a cell's metadata key (tests/test_notebook_meta.py)
    "autograder/flows/batch_shard.py": {"week7"},  # FINGERPRINT_SALT, byte for byte (tests/test_shards.py)
}
EXAMPLE_NAMES = {  # names that are only examples of an assignment name, shown to an author
    "autograder/authoring/scaffold.py": {"week8_rnn"},  # new-assignment's help and its bad-name message (authoring.md)
}
WEEK = re.compile(r"[\w.-]*week[\s_-]?\d[\w.-]*", re.I)


def _code_texts(tree):
    """(line, text) of every string or bytes constant that is not a docstring, and of every name the code binds or
    reads (variables, attributes, functions, classes, arguments, keywords, imports)."""
    docs = docstrings(tree)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) and id(node) not in docs:
            yield line, node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
        for field in ("id", "attr", "name", "arg", "asname", "module"):
            value = getattr(node, field, None)
            if isinstance(value, str):
                yield line, value


def _week_names(root=import_graph.ROOT):
    """[(file, line, name)] of the weeks the engine's code names outside LEGACY_NAMES and EXAMPLE_NAMES."""
    found = []
    for path in sorted((Path(root) / "autograder").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        allowed = LEGACY_NAMES.get(rel, set()) | EXAMPLE_NAMES.get(rel, set())
        for line, text in _code_texts(ast.parse(path.read_text(), rel)):
            found += [(rel, line, m.group()) for m in WEEK.finditer(text) if m.group() not in allowed]
    return sorted(set(found))


def test_the_engine_names_no_week():
    offenders = _week_names()
    assert not offenders, ("the engine's code names a week: take the fact from the assignment (plugin_api.Assignment) "
                           "or give the name the engine's own (a legacy alias goes into LEGACY_NAMES, with its test):\n"
                           + "\n".join(f"  {f}:{line}: {name}" for f, line, name in offenders))


def test_each_allowed_week_name_is_still_there():
    # An alias that is gone leaves the lists too, so the allow-list only ever shrinks.
    for rel, names in {**LEGACY_NAMES, **EXAMPLE_NAMES}.items():
        tree = ast.parse((import_graph.ROOT / rel).read_text())
        present = {m.group() for _, text in _code_texts(tree) for m in WEEK.finditer(text)}
        assert names <= present, f"{rel} no longer names {sorted(names - present)}: drop it from the allow-list"


def test_the_week_check_sees_code_not_prose(tmp_path):
    flows = tmp_path / "autograder/flows"
    flows.mkdir(parents=True)
    (flows / "a.py").write_text(
        '"""Week 7\'s kernel, week7-isolated, is an example here."""\n'  # a docstring: prose
        "# week7: a comment is prose too\n"
        'KERNEL = "week7-isolated"\n'
        'SALT = b"week 6 salt"\n'
        "class K:\n"
        '    """week6 in a class docstring."""\n'
        "    def f(self, name):\n"
        "        self.week7 = f\"{name} of Week_8\"\n"
        "        return week6_count(keyword_week9=1)\n")
    assert _week_names(tmp_path) == [("autograder/flows/a.py", 3, "week7-isolated"), ("autograder/flows/a.py", 4, "week 6"),
                                     ("autograder/flows/a.py", 8, "Week_8"), ("autograder/flows/a.py", 8, "week7"),
                                     ("autograder/flows/a.py", 9, "keyword_week9"), ("autograder/flows/a.py", 9, "week6_count")]
    (tmp_path / "autograder/settings.py").write_text('LEGACY_CONFIG_FILE = "week7-grader.toml"\n')
    assert ("autograder/settings.py", 1, "week7-grader.toml") not in _week_names(tmp_path)  # an allowed alias


def test_the_assignment_package_can_be_imported_first():
    # A spawned process (the misconception library's measurement pool) unpickles a function of the assignment
    # package before anything else: importing it first must not meet the engine loading it half-made (CI of
    # 2026-12-04: "solutions.week7_attention defines no ASSIGNMENT").
    import subprocess
    import sys

    from autograder import assignment
    plugin = assignment.ASSIGNMENT
    for first in (plugin.package, plugin.diagnosis, f"{plugin.diagnosis}.measure", "autograder.plugin_api"):
        run = subprocess.run([sys.executable, "-c", f"import {first}; import autograder.assignment as a; "
                              "print(a.NAME, len(a.PART_IDS))"], cwd=import_graph.ROOT, capture_output=True, text=True)
        assert run.returncode == 0, f"importing {first} first: {run.stderr[-1500:]}"
        assert run.stdout.split() == [assignment.NAME, str(len(assignment.PART_IDS))], (first, run.stdout)
