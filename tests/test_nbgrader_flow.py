"""The real nbgrader pipeline (autograde, generate_feedback, export) agrees with the isolated CLI grader.

One temporary copy of the course is built with the release pipeline; six student-style
submissions go into submitted/; `make nbgrader-autograde`'s code grades them once per
session. Each notebook is also graded once by `python -m autograder grade`.
"""
import csv
import threading

import nbformat
import pytest
from nbconvert.preprocessors import ExecutePreprocessor  # noqa: F401 - nbgrader's Execute builds on it
from traitlets.config.loader import PyFileConfigLoader

from autograder import PARTS
from autograder.flows import nbgrader_course as nc
from autograder.flows.crosscheck import compare, crosscheck
from flows.shared import ASSIGNMENT, by_part, cli_results, course
from flows.submissions import dump, submissions

pytestmark = pytest.mark.slow
HIDDEN = ("grade_part", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "autograder.flows", "solutions.reference")


@pytest.fixture(scope="session")
def graded_course(tmp_path_factory):
    path, released, source = course(tmp_path_factory.mktemp("nbgrader"))
    notebooks = {}
    for name, text in submissions(released, source).items():
        notebooks[name] = dump(text, path / "submitted" / name / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    cli = {}
    worker = threading.Thread(target=lambda: cli.update(
        cli_results(list(notebooks.values()), tmp_path_factory.mktemp("cli"))))
    worker.start()  # the CLI grades while nbgrader grades
    log = []
    try:
        nc.autograde_course(path, log=log.append)
    finally:
        worker.join()
    return {"path": path, "notebooks": notebooks, "cli": {n: cli[p] for n, p in notebooks.items()},
            "book": nc.gradebook_points(path), "log": log}


def test_config_handles_nbgrader_traps(graded_course):
    config = PyFileConfigLoader("nbgrader_config.py", path=str(graded_course["path"])).load_config()
    assert config.IgnorePattern.enabled is True
    assert config.OverwriteCells.add_missing_cells is True
    assert nc.RestoreDeletedCells in config.Autograde.sanitize_preprocessors
    assert nc.HideHiddenTests in config.GenerateFeedback.preprocessors
    assert 60 <= config.Execute.timeout <= 600 and config.Execute.interrupt_on_timeout


def test_ignore_pattern_keeps_a_warning_from_zeroing_a_test_cell(graded_course):
    """nbgrader zeroes a test cell with any stderr; the configured pattern drops warnings only."""
    import re
    from nbformat.v4 import new_code_cell, new_output
    from nbgrader.utils import determine_grade

    pattern = PyFileConfigLoader("nbgrader_config.py", path=str(graded_course["path"])).load_config() \
        .IgnorePattern.pattern
    cell = new_code_cell("", metadata={"nbgrader": {"grade": True, "grade_id": "positions_tests", "points": 8,
                                                    "solution": False, "locked": True}})
    for text in ("/tmp/ipykernel_1/1.py:11: UserWarning: careful\n", "WARNING: a logged warning\n",
                 "[W NNPACK.cpp:64] Could not initialize NNPACK\n"):
        cell.outputs = [new_output("stream", name="stderr", text=text),
                        new_output("execute_result", data={"text/plain": "8.0"}, execution_count=1)]
        assert determine_grade(cell)[0] == 0  # the trap
        assert re.search(pattern, text), text
    assert not re.search(pattern, "Traceback (most recent call last):\nNameError: x\n")


@pytest.mark.parametrize("name", ["solution", "blank", "mask_diag", "swapped", "deleted_cell", "warns"])
def test_gradebook_equals_cli(graded_course, name):
    book = graded_course["book"][name]
    assert book is not None, f"{name} was not autograded:\n" + "\n".join(graded_course["log"])
    cli = by_part(graded_course["cli"][name])
    assert set(book) == set(PARTS)
    assert {p: s for p, (s, _) in book.items()} == pytest.approx(cli), name


def test_submissions_score_as_designed(graded_course):
    book = {n: {p: s for p, (s, _) in parts.items()} for n, parts in graded_course["book"].items()}
    full = {p: m for p, (_, m) in graded_course["book"]["solution"].items()}
    assert book["solution"] == full and book["deleted_cell"] == full and book["warns"] == full
    assert sum(book["blank"].values()) == 0
    assert book["mask_diag"]["masks"] < full["masks"] and book["mask_diag"]["softmax_read"] == full["softmax_read"]
    assert book["swapped"]["targets"] < full["targets"] and book["swapped"]["masks"] == full["masks"]


def test_deleted_test_cell_is_restored(graded_course):
    autograded = graded_course["path"] / "autograded" / "deleted_cell" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    nb = nbformat.read(autograded, as_version=4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    assert ids.count("masks_tests") == 1
    assert ids.index("masks_tests") == ids.index("masks_check") + 1  # back in its place


def test_feedback_html_has_no_hidden_tests(graded_course):
    for name in graded_course["notebooks"]:
        html = (graded_course["path"] / "feedback" / name / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
        for marker in HIDDEN:
            assert marker not in html, f"feedback of {name} contains {marker!r}"
        assert "Part masks:" in html  # the per-part result stays visible
    # ... while the autograded notebook (instructor-only) did run the hidden tests
    autograded = graded_course["path"] / "autograded" / "solution" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert "grade_part" in autograded.read_text()


def test_hide_hidden_tests_strips_graded_tracebacks():
    from nbformat.v4 import new_code_cell, new_output
    cell = new_code_cell("# Graded cell\n### BEGIN HIDDEN TESTS\nfrom autograder.flows.nbgrader_cell import "
                         "grade_part\ngrade_part('masks', globals())\n### END HIDDEN TESTS",
                         metadata={"nbgrader": {"grade": True, "solution": False, "grade_id": "masks_tests"}})
    cell.outputs = [new_output("error", ename="RuntimeError", evalue="boom",
                               traceback=['File "/work/autograder/engine/plugin.py", line 1', "RuntimeError: boom"])]
    out, _ = nc.HideHiddenTests().preprocess_cell(cell, {}, 0)
    assert out.source == "# Graded cell"
    assert out.outputs[0]["traceback"] == ["RuntimeError: boom"]


def test_export_writes_grades_csv(graded_course):
    rows = {r["student_id"]: r for r in csv.DictReader((graded_course["path"] / "grades.csv").open())}
    assert set(rows) == set(graded_course["notebooks"])
    assert float(rows["solution"]["raw_score"]) == sum(m for _, m in graded_course["book"]["solution"].values())


def test_crosscheck_agrees_and_reports_a_tampered_gradebook(graded_course):
    from nbgrader.api import Gradebook
    path = graded_course["path"]
    assert crosscheck(path, ["solution", "swapped"], log=lambda *_: None) == {}
    with Gradebook(f"sqlite:///{path / 'gradebook.db'}") as gb:
        grade = gb.find_grade("positions_tests", ASSIGNMENT, ASSIGNMENT, "solution")
        grade.manual_score = 1.0  # a gradebook that disagrees with the isolated grader
        gb.db.commit()
    try:
        differ = crosscheck(path, ["solution"], log=lambda *_: None)
        assert differ == {"solution": [("positions", 1.0, 8.0)]}
    finally:
        with Gradebook(f"sqlite:///{path / 'gradebook.db'}") as gb:
            gb.find_grade("positions_tests", ASSIGNMENT, ASSIGNMENT, "solution").manual_score = None
            gb.db.commit()
    assert compare({"masks": 18.0}, {"masks": 18.0, "targets": 0.0}) == [("targets", None, 0.0)]


def test_kernel_resolves_to_this_venv():
    import sys
    from pathlib import Path
    assert Path(nc.check_kernel()).parent == Path(sys.executable).parent  # not some other python3 kernel
