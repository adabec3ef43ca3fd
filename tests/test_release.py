"""`make release`: real nbgrader output, no leaks (the check can fail), no drift."""
from pathlib import Path

import nbformat
import pytest

from solutions.release import __main__ as release
from solutions.release.build import build_source_notebook, hidden_call
from solutions.release.leaks import find_leaks, reference_body_lines
from autograder import assignment
from autograder.engine.catalog import part_points

from conftest import STUDENT_NB


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    points, released = release.build_course(course)
    source = nbformat.read(assignment.course_notebook(course), as_version=4)
    return course, points, released, source


def test_release_is_clean_and_matches_the_committed_notebook(course):
    course_dir, points, released, source = course
    assert find_leaks(released, source) == []
    assert release.student_text(released) == STUDENT_NB.read_text(), \
        "the committed student notebook is stale: run `make release UPDATE=1` and commit"
    assert (course_dir / "gradebook.db").exists() and (course_dir / "nbgrader_config.py").exists()
    assert points == part_points()  # the notebook carries the points declared beside the tests


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


def test_release_refuses_drift(tmp_path, capsys):
    """`make release` fails when the committed student notebook differs from what the sources generate.
    Its steps show on grade-all's progress bar, the failure said once the bar is done."""
    stale = tmp_path / f"{assignment.NAME}.ipynb"
    stale.write_text(STUDENT_NB.read_text().replace("Week 7", "Week 6", 1))
    assert release.main([], course=tmp_path / "course", student_nb=stale) == 1
    assert "Week 6" in stale.read_text(), "a failed check must not rewrite the notebook"
    assert release.main(["--update"], course=tmp_path / "course", student_nb=stale) == 0
    assert stale.read_text() == STUDENT_NB.read_text()
    err = capsys.readouterr().err
    assert "nbgrader generate_assignment]" in err and "| 4/4 [" in err and "RELEASE BLOCKED" in err, err[-2000:]


def test_source_notebook_has_every_graded_function_once():
    nb = build_source_notebook(part_points())
    text = "\n".join(c.source for c in nb.cells)
    for names in assignment.PARTS.values():
        for name in names:
            assert text.count(f"def {name}(") == 1, name


def test_student_copy_has_no_instructor_banner_and_the_leak_check_catches_one(course):
    from solutions.release.build import GENERATED_NOTE
    course_dir, _, released, source = course
    assert source.cells[0].source.startswith(GENERATED_NOTE), "the instructor notebook keeps its banner"
    for nb in (released, nbformat.read(STUDENT_NB, as_version=4),
               nbformat.read(assignment.course_notebook(course_dir, "release"), as_version=4)):
        assert nb.cells[0].source.startswith("# Week 7"), nb.cells[0].source[:200]
        assert not any("make release" in c.source for c in nb.cells)
    planted = nbformat.reads(nbformat.writes(released), as_version=4)
    planted.cells[0].source = GENERATED_NOTE + "\n\n" + planted.cells[0].source
    assert any("instructor banner" in p for p in find_leaks(planted, source))


def test_how_to_submit_states_the_grader_s_real_limits():
    """The section near the top names the file, where it goes, what runs, and the limits the grader enforces."""
    import re
    from autograder.settings import Limits

    cells = nbformat.read(STUDENT_NB, as_version=4).cells
    at = next(i for i, c in enumerate(cells) if "**How to submit**" in c.source)
    assert at <= 1, "the How to submit section belongs near the top"
    text = cells[at].source.split("**How to submit**", 1)[1]
    limits = Limits()
    for needle in (f"{assignment.NAME}.ipynb", "Gradescope", "nbgrader", "GRADING=1", "if not GRADING:",
                   f"{limits.call_seconds:g} s for each call", f"{limits.cell_seconds:g} s for each cell",
                   f"{limits.submission_seconds:g} s for the whole submission", f"{limits.notebook_mib} MiB"):
        assert needle in text, needle
    assert len(re.findall(r"^\* ", text, re.M)) <= 8, "keep it short"


def test_written_questions_show_their_points(course):
    """Each written question's prose states the points of the answer cell that follows it."""
    _, _, released, _ = course
    cells = released.cells
    answers = [i for i, c in enumerate(cells) if c.cell_type == "markdown"
               and c.metadata.get("nbgrader", {}).get("grade")]
    assert len(answers) == 3
    for i in answers:
        points = cells[i].metadata.nbgrader.points
        question = cells[i - 1].source.split("\n\n")[-1]
        assert question.lstrip().startswith(f"**Q{answers.index(i) + 1} ") and f"{points:g} points" in question, \
            question[:200]


def test_release_names_what_makes_the_parts_disagree(monkeypatch):
    """A graded function or a part added in one place only stops the release, naming the file to fix."""
    from solutions.release import build
    points = part_points()
    nb = build_source_notebook(points)
    assert build.part_problems(nb, points) == []
    part = next(p for p, names in assignment.PARTS.items() if names)
    monkeypatch.setattr(build, "PARTS", {**assignment.PARTS, part: (*assignment.PARTS[part], "extra_function"),
                                         "extra_part": ()})
    problems = build.part_problems(nb, {**points, "extra_part": 0})
    assert any(f"PARTS[{part!r}] lists" in p and "extra_function" in p for p in problems), problems
    assert any("'extra_part' has no hidden tests" in p and "solutions/week7_attention/suites/test_extra_part.py" in p
               for p in problems), problems
    assert any("python graded extra_part" in p for p in problems), problems
    with pytest.raises(build.SourceMismatch):
        build_source_notebook({**points, "extra_part": 0})


def test_a_release_keeps_the_assignments_an_earlier_release_registered(tmp_path, monkeypatch, capsys):
    """Guide trial, 2026-12-05: releasing week 8 added its line to build/course/nbgrader_config.py, then `make release`
    (week 7) copied the template over it, and plain nbgrader left week 8's notebooks to its own kernel. Each line an
    earlier release wrote stays; a package that is gone loses its line, and says so."""
    from solutions.release.__main__ import refresh_config

    package = tmp_path / "pkgs" / "week9_fake"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from autograder.plugin_api import Assignment\n"
        "ASSIGNMENT = Assignment(name='week9_fake', parts={'p': ('f',)}, uses={}, package=__name__, suites='s',\n"
        "                        reference='r', lab='l.py', notebook_source='n.md', student_notebook='a.ipynb',\n"
        "                        served='week9_fake.served')\n")
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    course = tmp_path / "course"
    course.mkdir()
    config = course / "nbgrader_config.py"
    config.write_text("c = get_config()\ngrade_in_sandbox(c, 'week9_fake')\ngrade_in_sandbox(c, \"gone_week3\")\n")
    refresh_config(course)
    text = config.read_text()
    assert text.startswith(Path(release.__file__).with_name("nbgrader_config.py").read_text())  # the template's
    assert text.count("grade_in_sandbox(c, 'week9_fake')") == 1
    assert "gone_week3" not in text and "gone_week3 is no longer importable" in capsys.readouterr().err
    refresh_config(course)  # again: nothing doubled
    assert config.read_text() == text
