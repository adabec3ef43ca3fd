"""grade-all's submission discovery (autograder/flows/batch.py ``discover``): the layouts, fast and pure.

The hostile entries (links, FIFOs, directories named like a notebook, oversized files) are in
tests/test_outputs.py::test_grade_all_discovery; the Canvas names in tests/test_lms.py. Here:
every layout the module docstring promises, mixed in one folder, and the rules between them.
"""
from autograder.assignment import NAME, NOTEBOOK_FILE
from autograder.flows.discover import discover
from autograder.settings import Limits


def _nb(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}")
    return path


def _found(folder):
    return {s.student: (s.notebook and s.notebook.relative_to(folder).as_posix(), s.status) for s in discover(folder, NAME, Limits().notebook_mib)}


def test_every_layout_in_one_folder(tmp_path):
    _nb(tmp_path / "ann.ipynb")  # DIR/<student>.ipynb
    _nb(tmp_path / "ben" / "whatever.ipynb")  # DIR/<student>/*.ipynb
    _nb(tmp_path / "cat" / NAME / NOTEBOOK_FILE)  # DIR/<student>/<assignment>/*.ipynb (nbgrader's submitted/)
    _nb(tmp_path / f"smithjane_12345_678901_{NOTEBOOK_FILE}")  # a Canvas upload
    (tmp_path / "README.md").write_text("not a submission")
    (tmp_path / "roster.csv").write_text("student\n")
    assert _found(tmp_path) == {"ann": ("ann.ipynb", ""), "ben": ("ben/whatever.ipynb", ""),
                                "cat": (f"cat/{NAME}/{NOTEBOOK_FILE}", ""),
                                "smithjane": (f"smithjane_12345_678901_{NOTEBOOK_FILE}", "")}
    assert [s.student for s in discover(tmp_path, NAME, Limits().notebook_mib)] == ["ann", "ben", "cat", "smithjane"]  # sorted


def test_an_nbgrader_course_is_read_from_its_submitted_folder(tmp_path):
    _nb(tmp_path / "submitted" / "dee" / NAME / NOTEBOOK_FILE)
    _nb(tmp_path / "source" / NAME / NOTEBOOK_FILE)  # the instructor's, never a student
    (tmp_path / "gradebook.db").write_text("")
    assert _found(tmp_path / "submitted") == {"dee": (f"dee/{NAME}/{NOTEBOOK_FILE}", "")}
    assert [s.student for s in discover(tmp_path, NAME, Limits().notebook_mib)] == ["dee"]


def test_the_assignment_folder_is_preferred_to_other_subfolders(tmp_path):
    _nb(tmp_path / "eve" / NAME / NOTEBOOK_FILE)
    _nb(tmp_path / "eve" / "week6" / "old.ipynb")
    assert _found(tmp_path) == {"eve": (f"eve/{NAME}/{NOTEBOOK_FILE}", "")}


def test_a_notebook_at_the_student_folders_top_wins_over_subfolders(tmp_path):
    _nb(tmp_path / "fay" / "final.ipynb")
    _nb(tmp_path / "fay" / NAME / NOTEBOOK_FILE)
    assert _found(tmp_path) == {"fay": ("fay/final.ipynb", "")}


def test_several_notebooks_or_none_is_a_row_that_says_so(tmp_path):
    _nb(tmp_path / "gus" / "a.ipynb")
    _nb(tmp_path / "gus" / "b.ipynb")
    (tmp_path / "hal").mkdir()
    (tmp_path / "hal" / "notes.txt").write_text("no notebook")
    found = {s.student: s for s in discover(tmp_path, NAME, Limits().notebook_mib)}
    assert found["gus"].notebook is None and found["gus"].status == "several-notebooks"
    assert "a.ipynb, b.ipynb" in found["gus"].detail
    assert found["hal"].notebook is None and found["hal"].status == "no-notebook"


def test_hidden_entries_and_checkpoints_are_skipped(tmp_path):
    _nb(tmp_path / "ivy" / NOTEBOOK_FILE)
    _nb(tmp_path / "ivy" / ".ipynb_checkpoints" / f"{NAME}-checkpoint.ipynb")
    _nb(tmp_path / ".hidden.ipynb")
    _nb(tmp_path / "_private" / NOTEBOOK_FILE)
    assert _found(tmp_path) == {"ivy": (f"ivy/{NOTEBOOK_FILE}", "")}


def test_the_same_student_twice_gets_two_rows(tmp_path):
    _nb(tmp_path / "jo.ipynb")
    _nb(tmp_path / "jo" / NOTEBOOK_FILE)
    assert sorted(s.student for s in discover(tmp_path, NAME, Limits().notebook_mib)) == ["jo", "jo~2"]


def test_skip_leaves_out_a_path(tmp_path):
    _nb(tmp_path / "kim.ipynb")
    out = tmp_path / "grades_feedback"
    _nb(out / "kim" / "feedback.ipynb")
    assert [s.student for s in discover(tmp_path, NAME, Limits().notebook_mib, skip=[out])] == ["kim"]


def test_a_suffix_never_takes_another_students_name(tmp_path):
    """Red team round 2: alice.ipynb, a Canvas download of alice's, and alice~2.ipynb were graded
    as alice, alice~2, alice~2: one result lost, another written twice."""
    _nb(tmp_path / "alice.ipynb")
    _nb(tmp_path / f"alice_1_2_{NAME}.ipynb")
    _nb(tmp_path / "alice~2.ipynb")
    found = _found(tmp_path)
    assert found == {"alice": ("alice.ipynb", ""), "alice~2": ("alice~2.ipynb", ""),
                     "alice~3": (f"alice_1_2_{NAME}.ipynb", "")}


def test_names_alike_in_the_csv_get_two_rows(tmp_path):
    """A tab in a file name is written to the CSV as the four characters \\x09: a file that spells
    them out is another student, and must not share (and overwrite) the row."""
    _nb(tmp_path / "ann\tlee.ipynb")
    _nb(tmp_path / "ann\\x09lee.ipynb")
    from autograder.flows.batch_summary import student_key
    keys = [student_key(s.student) for s in discover(tmp_path, NAME, Limits().notebook_mib)]
    assert len(set(keys)) == 2, keys
