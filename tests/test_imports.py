"""The product's import graph (tests/import_graph.py): no new circle, and no product module imports the tests."""
from tests import import_graph
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
