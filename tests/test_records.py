"""grade-all's typed records (autograder/flows/records.py): each owns its JSON and CSV forms, and reads what it wrote."""
import json

import pytest

from autograder.assignment import PART_IDS as PARTS
from autograder.engine.submission_file import SubmissionStatus
from autograder.flows import batch_summary
from autograder.flows.records import BatchRecord, ClassRow, columns

FIRST, LAST = PARTS[0], PARTS[-1]


def _row(**changes):
    fields = dict(student="=cmd|' /C calc'!A0", status="graded", total=71.5, seconds=3.25, sha256="ab" * 32,
                  notebook="sub/=x.ipynb", detail="-looks like a formula",
                  parts={p: float(i) for i, p in enumerate(PARTS)}, written={"q2": 4.5, "q10": None})
    fields.update(changes)
    return ClassRow(**fields)


def test_a_row_reads_back_from_the_csv_it_wrote(tmp_path):
    """Text is escaped so no spreadsheet runs it, and unescaped on reading; empty cells are None; columns in order."""
    rows = [_row(), _row(student="bob", status=SubmissionStatus.GRADER_ERROR.value, total=None,
                         parts={p: None for p in PARTS}, written={"q2": None, "q10": None})]
    batch_summary.write_csv(rows, tmp_path / "g.csv")
    header = (tmp_path / "g.csv").read_text().splitlines()[0].split(",")
    assert header == ["student", *PARTS, "q2", "q10", "total", "status", "seconds", "notebook", "sha256", "detail"]
    assert "'=cmd" in (tmp_path / "g.csv").read_text()  # escaped in the file
    assert batch_summary.read_csv(tmp_path / "g.csv") == rows


def test_an_empty_total_is_zero_unless_the_grader_failed(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text(f"student,{FIRST},total,status\nann,,,no notebook\nbob,,,{SubmissionStatus.GRADER_ERROR}\n")
    ann, bob = batch_summary.read_csv(path)
    assert (ann.total, bob.total) == (0.0, None)
    assert ann.parts[FIRST] is None


def test_a_csv_without_the_columns_is_refused(tmp_path):
    (tmp_path / "g.csv").write_text("name,score\nann,1\n")
    with pytest.raises(ValueError, match="no status, student, total column"):
        batch_summary.read_csv(tmp_path / "g.csv")


def test_the_record_reads_back_and_version_1_files_still_load(tmp_path):
    """record.json keeps version 1's flat row, so a rerun after an upgrade still reuses finished results."""
    record = BatchRecord(student="ann", sha256="ab" * 32, key="k1", row=_row(student="ann"), finished="2026-12-05T10:00:00")
    path = tmp_path / "record.json"
    path.write_text(record.to_json())
    assert BatchRecord.load(path) == record
    version_1 = {"version": 1, "student": "ann", "sha256": "cd" * 32, "key": "k2", "finished": "x",
                 "row": {"student": "ann", "total": 12.0, "status": "graded", "seconds": 1.0, "sha256": "cd" * 32,
                         "notebook": "ann.ipynb", "detail": "", FIRST: 12.0, LAST: 0.0}}
    path.write_text(json.dumps(version_1))
    loaded = BatchRecord.load(path)
    assert loaded is not None and loaded.row.parts == {FIRST: 12.0, LAST: 0.0} and loaded.row.total == 12.0
    assert loaded.reusable("cd" * 32, "k2")
    assert not loaded.reusable("cd" * 32, "other grader") and not loaded.reusable("ef" * 32, "k2")


@pytest.mark.parametrize("text", ["", "{", "[]", '{"student": "a"}', '{"student": "a", "sha256": "x", "key": "k", '
                                  '"row": {"student": 3, "status": "graded"}}'])
def test_a_record_that_is_not_one_is_graded_again(tmp_path, text):
    path = tmp_path / "record.json"
    path.write_text(text)
    assert BatchRecord.load(path) is None
    assert BatchRecord.load(tmp_path / "absent.json") is None


def test_a_grader_error_is_never_reused():
    row = _row(status=SubmissionStatus.GRADER_ERROR, total=None)
    assert not BatchRecord(student="a", sha256="s", key="k", row=row, finished="").reusable("s", "k")


def test_hand_scores_add_to_the_total_and_leave_the_row_alone():
    row = _row(written={})
    marked = row.with_hand({"q1": 5.0, "q2": None, "comment": "see q2"}, {"q1": 5.0, "q2": 5.0})
    assert (marked.total, marked.written, marked.hand_comment) == (76.5, {"q1": 5.0, "q2": None}, "see q2")
    assert (row.total, row.written) == (71.5, {})
    assert columns([marked])[len(PARTS) + 1:len(PARTS) + 3] == ["q1", "q2"]


def test_what_a_merge_counts_as_changed():
    row = _row()
    assert not row.differs(_row(seconds=99.0, detail="other"))  # timing and wording are not a change
    assert row.differs(_row(total=70.0))
    assert row.differs(_row(parts={**row.parts, LAST: 1.5}))
    assert row.differs(_row(sha256="ef" * 32))


def test_a_shard_manifest_reads_back_and_a_foreign_one_is_refused(tmp_path):
    from autograder.flows.batch_shard import Manifest, Shard, read_manifest, write_manifest

    csv_path = tmp_path / "grades_2.csv"
    students = ["ann", "b\udcffb", "=cmd"]  # an id from a file name that is not UTF-8 keeps its surrogate
    write_manifest(csv_path, Shard(2, 3), students)
    manifest = read_manifest(csv_path)
    assert (manifest.shard, manifest.students) == (Shard(2, 3), students)
    assert Manifest.from_json(manifest.to_json()) == manifest
    for text in ('{"version": 2, "shard": [1, 2], "class": []}', '{"version": 1, "shard": [1, 2], "class": [3]}',
                 '{"version": 1, "shard": [1, 2], "class": [], "secret": 7}', "[]", "not json"):
        (tmp_path / "grades_2_shard.json").write_text(text)
        with pytest.raises(ValueError, match="is not a shard manifest"):
            read_manifest(csv_path)
    (tmp_path / "grades_2_shard.json").unlink()
    with pytest.raises(ValueError, match="is missing"):
        read_manifest(csv_path)
