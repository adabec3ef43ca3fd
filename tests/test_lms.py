"""`grade-all … --roster roster.csv --lms canvas|moodle`: Canvas upload names, roster matching, the import layouts."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.flows import lms
from autograder.flows.records import ClassRow
from autograder.flows.discover import canvas_upload, discover, student_of_file
from autograder.settings import Limits
from tests.batch.small_class import HOSTILE, ROSTER, write_roster

from autograder.assignment import NAME, ROOT


# ---- fast: the pure pieces -------------------------------------------------------------

@pytest.mark.parametrize("name, expected", [
    (f"smithjane_12345_678901_{NAME}.ipynb", ("smithjane", "12345")),
    (f"smithjane_late_12345_678901_{NAME}.ipynb", ("smithjane", "12345")),
    (f"late_smithjane_12345_678901_{NAME}.ipynb", ("smithjane", "12345")),
    (f"smithjane_LATE_12345_678901_{NAME}-1.ipynb", ("smithjane", "12345")),
    ("smithjane_12345_678901_my_notebook.IPYNB", ("smithjane", "12345")),
    ("alice.ipynb", None),
    ("mary_jones.ipynb", None),
    (f"smithjane_12345_{NAME}.ipynb", None),  # no submission id
    (f"smithjane_12345_678901_{NAME}.txt", None),
])
def test_canvas_upload_names(name, expected):
    assert canvas_upload(name) == expected
    assert student_of_file(name) == (expected[0] if expected else Path(name).stem)


def test_discovery_names_a_canvas_upload_by_its_lastfirst(tmp_path):
    for name in (f"smithjane_12345_678901_{NAME}.ipynb", f"doejohn_late_22222_333333_{NAME}.ipynb",
                 "alice.ipynb"):
        (tmp_path / name).write_text("{}")
    assert [s.student for s in discover(tmp_path, f"{NAME}", Limits().notebook_mib)] == ["alice", "doejohn", "smithjane"]


def _rows(*specs):
    return [ClassRow(student=s, total=t, status="graded", notebook=nb) for s, t, nb in specs]


def test_match_by_student_then_by_canvas_user_id():
    rows = _rows(("alice", 90.0, "alice.ipynb"), ("doejohn", 10.0, f"doejohn_late_22222_333333_{NAME}.ipynb"),
                 ("stranger", 5.0, "stranger.ipynb"))
    roster = [{"student": "alice", "name": "A", "email": "a@x", "lms_id": "1"},
              {"student": "johndoe", "name": "J", "email": "j@x", "lms_id": "22222"},
              {"student": "zoe", "name": "Z", "email": "z@x", "lms_id": "3"}]
    pairs, unmatched, missing = lms.match(rows, roster)
    assert [(e["student"], r.student) for e, r in pairs] == [("alice", "alice"), ("johndoe", "doejohn")]
    assert [r.student for r in unmatched] == ["stranger"]
    assert [e["student"] for e in missing] == ["zoe"]


def test_a_file_name_inside_a_students_folder_is_not_a_canvas_id():
    """Red team round 2: bob names the notebook in his own folder like alice's Canvas download;
    his grade must stay his, and alice (who did not submit) must stay without one."""
    rows = _rows(("bob", 100.0, f"bob/alice_999_1_{NAME}.ipynb"),
                 ("carl", 50.0, f"dana_777_2_{NAME}.ipynb"))  # top level, but Canvas named it for dana
    roster = [{"student": "alice", "name": "A", "email": "a@x", "lms_id": "999"},
              {"student": "bob", "name": "B", "email": "b@x", "lms_id": "555"},
              {"student": "dana", "name": "D", "email": "d@x", "lms_id": "777"}]
    pairs, unmatched, missing = lms.match(rows, roster)
    assert [(e["student"], r.student) for e, r in pairs] == [("bob", "bob")]
    assert [r.student for r in unmatched] == ["carl"] and [e["student"] for e in missing] == ["alice", "dana"]


def test_roster_errors(tmp_path):
    with pytest.raises(lms.RosterError, match="needs --roster"):
        lms.read_roster(None)
    bad = tmp_path / "bad.csv"
    bad.write_text("name,email\nA,a@x\n")
    with pytest.raises(lms.RosterError, match="no student, lms_id column"):
        lms.read_roster(bad)
    twice = tmp_path / "twice.csv"
    write_roster(twice, [ROSTER[0], ROSTER[0]])
    with pytest.raises(lms.RosterError, match="twice"):
        lms.read_roster(twice)


def test_lms_without_a_usable_roster_stops_before_grading(tmp_path):
    (tmp_path / "subs").mkdir()
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(tmp_path / "subs"), "--out",
                           str(tmp_path / "grades.csv"), "--lms", "canvas"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2 and "--lms needs --roster" in proc.stderr
    assert not (tmp_path / "grades.csv").exists()


# ---- slow: the real grade-all on the small class ---------------------------------------------

def _csv(path):
    with open(path, newline="") as handle:
        return list(csv.reader(handle))


def _total_points(out):
    summary = json.loads(Path(f"{out.with_suffix('')}_summary.json").read_text())
    return sum(p["max_points"] for p in summary["parts"].values())


@pytest.mark.slow
def test_canvas_file_has_the_gradebook_import_layout(small_class):
    _, _, out, _ = small_class
    rows = _csv(out.with_name("grades_canvas.csv"))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", f"{NAME}"]
    assert rows[1][0].strip() == "Points Possible" and rows[1][1:5] == ["", "", "", ""]
    assert float(rows[1][5]) == _total_points(out)
    by_id = {r[1]: r for r in rows[2:]}
    assert len(rows) - 2 == len(ROSTER) == len(by_id)  # every roster student, nobody else
    full = _total_points(out)
    assert float(by_id["10001"][5]) == full and by_id["10001"][0] == "Liddell, Alice"  # alice: the solution
    assert float(by_id["12345"][5]) == full  # smithjane's Canvas upload, matched by its lastfirst
    assert float(by_id["22222"][5]) == 0  # doejohn's late upload, matched to johndoe by the Canvas user id
    assert float(by_id["10005"][5]) == 0  # leo: not a notebook
    assert 0 < float(by_id["10003"][5]) < full  # carol's mask mistake
    assert by_id["10009"][5] == ""  # zoe handed in nothing: empty, Canvas keeps what it has
    assert all(r[2:5] == ["", "", ""] for r in rows[2:])


@pytest.mark.slow
def test_moodle_file_has_an_identifier_and_a_grade_column(small_class):
    _, _, out, _ = small_class
    rows = _csv(out.with_name("grades_moodle.csv"))
    assert rows[0] == ["Full name", "Email address", "ID number", f"{NAME}"]
    by_email = {r[1]: r for r in rows[1:]}
    expected = {e["email"] for e in ROSTER if e["student"] != "zoe"}  # Moodle would clear zoe's grade: left out
    assert set(by_email) == expected and len(rows) - 1 == len(expected)
    assert float(by_email["jane@example.edu"][3]) == _total_points(out)
    assert by_email["john@example.edu"][2] == "22222" and float(by_email["john@example.edu"][3]) == 0
    assert all(r[3] != "" for r in rows[1:])


@pytest.mark.slow
def test_unmatched_and_missing_are_listed_never_dropped(small_class):
    _, _, out, proc = small_class
    with out.with_name("grades_roster_check.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    check = {(r["problem"], r["student"]) for r in rows}
    assert check == {("no roster entry", HOSTILE), ("no submission", "zoe")}
    assert "1 submission(s) match no roster entry" in proc.stdout and HOSTILE in proc.stdout
    assert "1 roster student(s) have no submission (left empty): zoe" in proc.stdout
    zoe = next(r for r in rows if r["student"] == "zoe")
    assert zoe["email"].startswith("'=")  # a formula-like roster cell stays text


@pytest.mark.slow
def test_lms_missing_zero_and_moodle_rows(small_class, tmp_path):
    """--lms-missing zero on the same results (all reused): zoe gets 0 in both files."""
    folder, roster, out, _ = small_class
    import shutil
    copy = tmp_path / "out"
    shutil.copytree(out.parent, copy)
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(folder), "--out",
                           str(copy / "grades.csv"), "--roster", str(roster), "--lms", "canvas", "--lms", "moodle",
                           "--lms-missing", "zero"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    canvas = {r[1]: r for r in _csv(copy / "grades_canvas.csv")[2:]}
    moodle = {r[2]: r for r in _csv(copy / "grades_moodle.csv")[1:]}
    assert canvas["10009"][5] == "0" and moodle["10009"][3] == "0"
    assert "8 updated, 0 added, 0 kept" in proc.stdout
