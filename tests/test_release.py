"""`make release`: real nbgrader output, no leaks (the check can fail), no drift."""
import nbformat
import pytest

from solutions.release import __main__ as release
from solutions.release.build import build_source_notebook, hidden_call
from solutions.release.leaks import find_leaks, reference_body_lines
from autograder.engine.catalog import part_points

from conftest import STUDENT_NB


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    points, released = release.build_course(course)
    source = nbformat.read(course / "source" / "week7_attention" / "week7_attention.ipynb", as_version=4)
    return course, points, released, source


def test_release_is_clean_and_matches_the_committed_notebook(course):
    course_dir, points, released, source = course
    assert find_leaks(released, source) == []
    assert release.student_text(released) == STUDENT_NB.read_text(), \
        "the committed student notebook is stale: run `make release UPDATE=1` and commit"
    assert (course_dir / "gradebook.db").exists() and (course_dir / "nbgrader_config.py").exists()
    assert sum(points.values()) == 100


def test_graded_cells_carry_the_points_declared_beside_the_tests(course):
    _, points, released, _ = course
    graded = {c.metadata.nbgrader.grade_id: c.metadata.nbgrader.points for c in released.cells
              if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"}
    assert graded == {f"{part}_tests": value for part, value in points.items()}


def test_leak_check_catches_a_planted_solution_line(course):
    _, _, released, source = course
    planted = nbformat.reads(nbformat.writes(released), as_version=4)
    line = sorted(reference_body_lines() - set().union(*[set(c.source.splitlines()) for c in released.cells]))[0]
    planted.cells[3].source += "\n    " + line
    problems = find_leaks(planted, source)
    assert any("line of the reference solution" in p for p in problems), problems


def test_leak_check_catches_a_planted_hidden_test(course):
    _, _, released, source = course
    planted = nbformat.reads(nbformat.writes(released), as_version=4)
    graded = next(c for c in planted.cells if c.metadata.get("nbgrader", {}).get("grade"))
    graded.source += "\n" + hidden_call("masks")
    problems = find_leaks(planted, source)
    assert any("BEGIN HIDDEN TESTS" in p for p in problems) and any("still holds test code" in p for p in problems)


def test_release_refuses_drift(tmp_path):
    """`make release` fails when the committed student notebook differs from what the sources generate."""
    stale = tmp_path / "week7_attention.ipynb"
    stale.write_text(STUDENT_NB.read_text().replace("Week 7", "Week 6", 1))
    assert release.main([], course=tmp_path / "course", student_nb=stale) == 1
    assert "Week 6" in stale.read_text(), "a failed check must not rewrite the notebook"
    assert release.main(["--update"], course=tmp_path / "course", student_nb=stale) == 0
    assert stale.read_text() == STUDENT_NB.read_text()


def test_source_notebook_has_every_graded_function_once():
    nb = build_source_notebook(part_points())
    import solutions.reference as ref
    text = "\n".join(c.source for c in nb.cells)
    for names in ref.PARTS.values():
        for name in names:
            assert text.count(f"def {name}(") == 1, name
