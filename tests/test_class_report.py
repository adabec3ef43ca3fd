"""report.html (grade-all and `python -m autograder class-report`): counts, escaping, and a real headless browser."""
import csv
import json
import os
import re
import shutil
import struct
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from autograder.flows.records import ClassRow
from autograder.flows import batch_summary, class_report
from tests.batch.small_class import EXPECTED, HOSTILE

from autograder.assignment import ROOT
from autograder.engine.submission_file import SubmissionStatus
CATEGORY = {"attempted": class_report.ATTEMPTED, "blank": class_report.BLANK, "none": class_report.NO_NOTEBOOK}


class Page(HTMLParser):
    """The elements of a page: tables by id (rows of cell texts), <img> and <svg> attributes (with the bars
    each drawing holds), <details>, <script>s."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tables, self.images, self.details, self.scripts, self.meta = {}, [], [], 0, []
        self.drawings = []
        self._table = self._row = self._cell = self._details = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._table = self.tables.setdefault(attrs.get("id") or f"table{len(self.tables)}", [])
        elif tag == "tr" and self._table is not None:
            self._row = []
            self._table.append(self._row)
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "img":
            self.images.append(attrs)
        elif tag == "svg":
            self.drawings.append({**attrs, "bars": 0})
        elif tag == "rect" and self.drawings and attrs.get("fill") not in (None, "white"):  # bars, legend keys
            self.drawings[-1]["bars"] += 1
        elif tag == "details":
            self._details = {**attrs, "text": [], "items": []}
            self.details.append(self._details)
        elif tag == "li" and self._details is not None:
            self._details["items"].append("")
        elif tag == "script":
            self.scripts += 1
        elif tag == "meta":
            self.meta.append(attrs)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "table":
            self._table = self._row = None
        elif tag == "details":
            self._details = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._details is not None:
            self._details["text"].append(data)
            if self._details["items"]:
                self._details["items"][-1] += data


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", data[:16]
    return struct.unpack(">II", data[16:24])


# ---- fast: escaping and the counting, on made-up files -----------------------------------------

def _fake_class(tmp_path, hostile_message):
    rows = [
        ClassRow(student="ann", status="graded", total=5.0, notebook="ann.ipynb", seconds=1.0, sha256="a"),
        ClassRow(student=HOSTILE, status="graded", total=0.0, notebook="x.ipynb", seconds=1.0, sha256="b"),
        ClassRow(student="cid", status="not-a-notebook", total=0.0, notebook="cid.ipynb", seconds=0.0, sha256="c"),
    ]
    for r in rows:
        r.parts = {p: None for p in class_report.PARTS}
        r.parts["masks"] = r.total
    out = tmp_path / "grades.csv"
    batch_summary.write_csv(rows, out)
    (tmp_path / "grades_summary.json").write_text(json.dumps({"parts": {"masks": {"max_points": 10}}}))
    checks = {
        "ann": [{"part": "masks", "title": "mask shape", "status": "passed"},
                {"part": "masks", "title": "mask values", "status": "failed", "message": hostile_message,
                 "cause": "<b>off by one</b>"}],
        HOSTILE: [{"part": "masks", "title": "mask shape", "status": "failed",
                   "message": "`causal_mask_blocked` is not implemented yet (it raises NotImplementedError)"},
                  {"part": "masks", "title": "mask values", "status": "failed",
                   "message": "`causal_mask_blocked` is not implemented yet (it raises NotImplementedError)"}],
    }
    for student, found in checks.items():
        batch_summary.write_atomic(tmp_path / "grades_checks" / f"{student}.json",
                                   json.dumps({"checks": found}))
    return out


def test_report_escapes_everything_a_student_controls(tmp_path):
    message = '</td><script>alert(1)</script><img src=x onerror=alert(2)>\x1b[2J "quoted" & more'
    out = _fake_class(tmp_path, message)
    page_text = class_report.write(out).read_text()
    assert "<script" not in page_text and "<img src=x" not in page_text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page_text and "\\x1b[2J" in page_text
    page = Page(page_text)
    assert page.scripts == 0
    csp = [m for m in page.meta if m.get("http-equiv") == "Content-Security-Policy"]
    assert csp and "default-src 'none'" in csp[0]["content"] and "script-src" not in csp[0]["content"]
    assert page.images == [] and page.drawings  # the plots are our own inline drawings, the only graphics
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page_text)  # nothing fetched from anywhere
    kinds = {row[0]: int(row[1]) for row in page.tables["overview"][1:]}
    assert kinds == {class_report.ATTEMPTED: 1, class_report.BLANK: 1, class_report.NO_NOTEBOOK: 1}
    assert page.tables["most-failed"][1][:4] == ["masks", "mask values", "1", "1"]  # the blank one is not counted
    assert page.tables["causes"][1][:2] == ["<b>off by one</b>", "1"]  # shown as text
    values = next(d for d in page.details if "mask values" in "".join(d["text"]))
    assert values["items"] == ["ann"] and values["data-failed"] == "1"


def test_report_without_causes_has_no_cause_table(tmp_path):
    out = _fake_class(tmp_path, "wrong")
    for path in (tmp_path / "grades_checks").iterdir():
        path.write_text(path.read_text().replace('"cause": "<b>off by one</b>"', '"cause": ""'))
    assert "causes" not in Page(class_report.write(out).read_text()).tables


@pytest.mark.parametrize("status", list(SubmissionStatus))
def test_every_refused_upload_is_counted_apart(status):
    # A zero without a notebook says nothing about any part: such rows go to their own category
    # and their own colour in the plots, whatever the reason the upload was refused (too-large included).
    row = ClassRow(student="s", total=0.0, status=status.value, parts={"masks": 0.0})  # as read back from the CSV
    refused = status in (SubmissionStatus.NOT_A_NOTEBOOK, SubmissionStatus.TOO_LARGE,
                         SubmissionStatus.NO_NOTEBOOK, SubmissionStatus.SEVERAL_NOTEBOOKS)
    assert status.gradable is not refused
    assert (class_report.category(row, []) == class_report.NO_NOTEBOOK) is refused


def test_merge_keeps_others_and_says_what_changed(tmp_path):
    # The previous rows come back from a real grades CSV: "-eve" is escaped there as "'-eve", and a
    # student literally named "'-eve" must stay a different row (the escape is undone on reading).
    old = [ClassRow(student=s, total=t, status="graded", sha256=s) for s, t in
           (("alice", 100.0), ("bob", 0.0), ("-eve", 10.0), ("'-eve", 20.0), ("carl", 50.0))]
    batch_summary.write_csv(old, tmp_path / "grades.csv")
    old = batch_summary.read_csv(tmp_path / "grades.csv")
    assert [r.student for r in old] == ["alice", "bob", "-eve", "'-eve", "carl"]
    new = [ClassRow(student="bob", total=90.0, status="graded", sha256="bob2"),
           ClassRow(student="-eve", total=10.0, status="graded", sha256="-eve"),
           ClassRow(student="dina", total=70.0, status="graded", sha256="dina")]
    merged, counts = batch_summary.merge(old, new)
    assert counts == {"updated": 2, "changed": 1, "added": 1, "kept": 3}
    assert [r.student for r in merged] == ["'-eve", "-eve", "alice", "bob", "carl", "dina"]
    assert next(r for r in merged if r.student == "bob").total == 90.0
    assert next(r for r in merged if r.student == "'-eve").total == 20.0
    # Written and read again, nothing is escaped twice.
    batch_summary.write_csv(merged, tmp_path / "grades.csv")
    assert [r.student for r in batch_summary.read_csv(tmp_path / "grades.csv")] == [r.student for r in merged]


# ---- slow: the real grade-all on the small class ---------------------------------------------

def _rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.slow
def test_report_counts_from_the_files(small_class):
    _, _, out, proc = small_class
    assert f"wrote {out.with_name('report.html')}" in proc.stdout
    data = class_report.load(out)
    assert {s["row"].student: s["category"] for s in data["students"]} == \
        {student: CATEGORY[cat] for student, (_, cat) in EXPECTED.items()}
    assert {r["student"]: r["status"] for r in _rows(out)} == {s: status for s, (status, _) in EXPECTED.items()}
    a = class_report.analyse(data)
    masks = {title: names for (part, title), names in a["failed"].items() if part == "masks"}
    assert masks and all(sorted(names) == sorted(["carol", HOSTILE]) for names in masks.values() if names)
    assert a["attempted"]["masks"] == 5  # alice, carol, dave, smithjane and the hostile name
    assert not any("not implemented yet" in m for m, _ in a["messages"])


@pytest.fixture(scope="module")
def chromium():
    found = shutil.which("chromium")
    if not found and os.geteuid() == 0:
        subprocess.run("apt-get update && apt-get install -y chromium", shell=True, capture_output=True,
                       timeout=900, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        found = shutil.which("chromium")
    if not found:
        pytest.skip("needs the Debian package chromium (not installed, and not root to apt-get install it)")
    return found


def _browser(chromium, *args):
    proc = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           "--no-first-run", *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


@pytest.mark.slow
def test_report_renders_in_a_headless_browser(small_class, chromium, tmp_path):
    _, _, out, _ = small_class
    report = out.with_name("report.html")
    dom = _browser(chromium, "--dump-dom", report.as_uri())
    page = Page(dom)
    assert page.scripts == 0
    kinds = {row[0]: int(row[1]) for row in page.tables["overview"][1:]}
    expected = {CATEGORY[c]: sum(cat == c for _, cat in EXPECTED.values()) for c in CATEGORY}
    assert kinds == expected  # 5 attempted, 2 blank, 1 not a notebook
    statuses = {row[0]: int(row[1]) for row in page.tables["statuses"][1:]}
    assert statuses == {"graded": 7, "not-a-notebook": 1}
    parts = [row[0] for row in page.tables["distribution"][1:]]
    assert parts == [*class_report.PARTS, "total"]
    total = page.tables["distribution"][-1]
    assert total[2] == "5"  # attempted
    assert total[-2:] == ["2", "1"]  # blank, no notebook
    failed = [row for row in page.tables["most-failed"][1:] if row[0] == "masks"]
    assert failed and all(row[2:4] == ["2", "5"] for row in failed)
    assert len(page.tables["messages"]) > 1
    masks = [d for d in page.details if d.get("data-part") == "masks" and d["data-failed"] != "0"]
    assert masks and all(sorted(d["items"]) == sorted(["carol", HOSTILE]) for d in masks)
    # The hostile name is text, never an element: the only graphics are the plots, one per part and the total.
    assert page.images == [] and len(page.drawings) == len(class_report.PARTS) + 1
    for drawing in page.drawings:
        assert drawing["role"] == "img" and drawing["aria-label"] and drawing["bars"] > 2, drawing
    shot = tmp_path / "report.png"
    _browser(chromium, "--window-size=1200,3000", f"--screenshot={shot}", report.as_uri())
    assert png_size(shot.read_bytes()) == (1200, 3000) and shot.stat().st_size > 50_000  # plots drawn, not blank


@pytest.mark.slow
def test_class_report_command_makes_the_same_page_again(small_class, tmp_path):
    _, _, out, _ = small_class
    again = tmp_path / "again.html"
    proc = subprocess.run([sys.executable, "-m", "autograder", "class-report", str(out), "--out", str(again)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    strip = lambda t: re.sub(r"generated [0-9: -]+", "", t)  # noqa: E731
    assert strip(again.read_text()) == strip(out.with_name("report.html").read_text())


# ---- merging into an existing --out ---------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("replace", [False, True])
def test_regrading_some_students_merges_into_the_class(small_class, solution_notebook, student_notebook, tmp_path,
                                                       replace):
    from tests.batch.submissions import filled
    import nbformat

    _, _, out, _ = small_class
    copy = tmp_path / "out"
    shutil.copytree(out.parent, copy)
    before = {r["student"]: r for r in _rows(copy / "grades.csv")}
    regrade = tmp_path / "regrade"
    regrade.mkdir()
    release = nbformat.read(student_notebook, as_version=4)
    (regrade / "bob.ipynb").write_text(nbformat.writes(filled(release, nbformat.read(solution_notebook, 4))))
    (regrade / "nina.ipynb").write_text(nbformat.writes(release))
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(regrade), "--out",
                           str(copy / "grades.csv"), *(["--replace"] if replace else [])],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    after = {r["student"]: r for r in _rows(copy / "grades.csv")}
    assert float(after["bob"]["total"]) > 0 and float(before["bob"]["total"]) == 0
    assert float(after["nina"]["total"]) == 0
    if replace:
        assert set(after) == {"bob", "nina"} and "kept" not in proc.stdout
        return
    kept = len(before) - 1
    assert f"grades.csv: 1 updated, 1 added, {kept} kept" in proc.stdout
    assert set(after) == set(before) | {"nina"}
    for student in set(before) - {"bob"}:
        assert after[student] == before[student], student  # untouched, byte for byte in every column
    assert (copy / "grades_feedback" / "alice" / "results.json").exists()
    assert (copy / "grades_checks" / "alice.json").exists()
    page = Page((copy / "report.html").read_text())  # the report covers the whole class again
    assert sum(int(row[1]) for row in page.tables["overview"][1:]) == len(before) + 1


@pytest.mark.slow
def test_an_out_that_is_not_a_grades_csv_is_left_alone(tmp_path):
    (tmp_path / "subs").mkdir()
    other = tmp_path / "marks.csv"
    other.write_text("name,mark\nalice,3\n")
    proc = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(tmp_path / "subs"), "--out",
                           str(other)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--replace" in proc.stderr
    assert other.read_text() == "name,mark\nalice,3\n"
