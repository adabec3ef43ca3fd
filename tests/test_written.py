"""Written answers: extraction, `python -m autograder written`, hand scores into grade-all rows and the gradebook.

The class is made of real notebooks: the instructor's (model answers), the blank released
one, the same answers with every cell's metadata stripped, a file that is not a notebook,
and a notebook with math, an experiment cell holding a matplotlib plot and printed numbers,
and hostile HTML in an answer. The PDFs are read back with pdftotext (poppler-utils).
"""
import base64
import copy
import csv
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.flows.written import extract as ex
from autograder.flows.records import ClassRow
from autograder.flows.written.hand import HandScoreError, hand_columns, load_hand, merge_hand, template

from autograder.assignment import NAME, ROOT
from autograder.settings import Limits

MIB = Limits().notebook_mib
PWNED = "SCRIPT-RAN"  # appears only if a student's script runs: the page holds it base64-encoded
RUN = f"document.body.innerHTML = atob('{base64.b64encode(PWNED.encode()).decode()}')"
MATH_ANSWER = (r"The loss stays near $\log 8 \approx 2.0794$ only without training; with zeros instead of positions "
               "the test loss was 0.0123 and generation still counted.\n\n$$H = -\\sum_i p_i \\log p_i$$\n\n"
               f"<script>{RUN}</script><img src=x onerror=\"{RUN}\"> <a href=\"javascript:{RUN}\">click</a>")
EXPERIMENT = ("if not GRADING:\n    zero_positions = torch.zeros(MAX_POSITIONS, WIDTH)\n"
              "    print('zero positions: test loss 0.0123')\n    plt.plot(losses); plt.title('Q1 ablation')\n")


def _nb(path):
    return json.loads(Path(path).read_text())


def _png():
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 2.5))
    ax.plot([2.1, 1.2, 0.4, 0.05], marker="o")
    ax.set_title("Q1 ablation: zero positions")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=60)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def _answer_index(nb, grade_id):
    return next(i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)


def make_class(folder, solution):
    """folder/<student>.ipynb for alice (model answers), bob (blank), carol (metadata stripped),
    dave (not a notebook), erin (math, plot, hostile HTML); returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    sol = _nb(solution)
    shutil.copy(solution, folder / "alice.ipynb")
    shutil.copy(ex.RELEASED, folder / "bob.ipynb")
    stripped = copy.deepcopy(sol)
    for cell in stripped["cells"]:
        cell["metadata"] = {}
    (folder / "carol.ipynb").write_text(json.dumps(stripped))
    (folder / "dave.ipynb").write_text("this is not a notebook, it is my essay\n")
    erin = copy.deepcopy(sol)
    q1 = _answer_index(erin, "q1_positions")
    erin["cells"][q1]["source"] = MATH_ANSWER
    erin["cells"].insert(q1, {"cell_type": "code", "execution_count": 40, "metadata": {}, "source": EXPERIMENT,
                              "outputs": [{"output_type": "stream", "name": "stdout",
                                           "text": "zero positions: test loss 0.0123\n"},
                                          {"output_type": "display_data", "metadata": {},
                                           "data": {"image/png": _png(), "text/plain": "<Figure>"}},
                                          {"output_type": "display_data", "metadata": {},
                                           "data": {"text/html": f"<script>{RUN}</script>"}}]})
    lab = next(i for i, c in enumerate(erin["cells"]) if "EPOCHS_TO_RUN" in "".join(c["source"]))
    erin["cells"].insert(lab + 1, {"cell_type": "code", "execution_count": 30, "metadata": {}, "outputs": [],
                                   "source": "if not GRADING:\n    print('my own experiment, naming no question')\n"})
    (folder / "erin.ipynb").write_text(json.dumps(erin))
    return folder


@pytest.fixture(scope="module")
def klass(tmp_path_factory, solution_notebook):
    return make_class(tmp_path_factory.mktemp("written") / "submissions", solution_notebook)


def _model_answers(solution):
    nb = _nb(solution)
    return {q.key: "".join(nb["cells"][_answer_index(nb, q.grade_id)]["source"]) for q in ex.questions()}


# ---- extraction -------------------------------------------------------------------------------

def test_questions_come_from_the_released_notebook():
    qs = ex.questions()
    assert [(q.key, q.grade_id, q.points) for q in qs] == [
        ("q1", "q1_positions", 5.0), ("q2", "q2_baseline", 5.0), ("q3", "q3_attention_maps", 5.0)]
    assert qs[0].text.startswith("**Q1 (ablate positions, 5 points).** Train the same model")


def test_a_notebook_without_written_answers_has_no_questions(tmp_path):
    """An assignment may have no written answers (week 6): has_questions says so, and grade-all then skips the
    extraction instead of failing (tests/test_second_assignment.py runs grade-all on one)."""
    assert ex.has_questions()  # week 7's released notebook
    nb = json.loads(ex.RELEASED.read_text())
    nb["cells"] = [c for c in nb["cells"] if not (c["cell_type"] == "markdown" and ex._nbgrader(c).get("solution"))]
    plain = tmp_path / "plain.ipynb"
    plain.write_text(json.dumps(nb))
    assert not ex.has_questions(plain)
    with pytest.raises(ValueError, match="no written-answer cell"):
        ex.questions(plain)


def test_extraction_of_each_kind_of_notebook(klass, solution_notebook):
    qs, given = ex.questions(), ex.released_code()
    model = _model_answers(solution_notebook)
    alice = ex.extract(klass / "alice.ipynb", "alice", MIB, qs, given)
    assert alice.status == "read" and not alice.other
    assert {k: (a.found, a.text, a.experiments) for k, a in alice.answers.items()} == {
        k: ("grade_id", model[k], []) for k in model}
    bob = ex.extract(klass / "bob.ipynb", "bob", MIB, qs, given)
    assert all(a.blank and a.found == "grade_id" for a in bob.answers.values())
    carol = ex.extract(klass / "carol.ipynb", "carol", MIB, qs, given)
    assert {k: (a.found, a.text) for k, a in carol.answers.items()} == {
        k: ("after the question", model[k]) for k in model}
    dave = ex.extract(klass / "dave.ipynb", "dave", MIB, qs, given)
    assert dave.status == "not-a-notebook" and "not a valid Jupyter notebook" in dave.problem
    erin = ex.extract(klass / "erin.ipynb", "erin", MIB, qs, given)
    q1 = erin.answers["q1"]
    assert q1.text == MATH_ANSWER and [c.source for c in q1.experiments] == [EXPERIMENT]
    kinds = [o.kind for o in q1.experiments[0].outputs]
    assert kinds == ["text", "image"], "printed text and the PNG; the HTML output is not shown"
    assert "test loss 0.0123" in q1.experiments[0].outputs[0].text
    assert [c.source.splitlines()[1] for c in erin.other] == ["    print('my own experiment, naming no question')"]
    assert not erin.answers["q2"].experiments and not erin.answers["q3"].experiments


def test_one_notebook_never_stops_the_class(tmp_path, solution_notebook, monkeypatch):
    """Red team round 3, F3: a Markdown label `**Q<5000 digits> (x).**` made int() raise (Python's
    4300-digit limit) and no student's answers were written; round 4: a cell of "**Q1(" made the search
    quadratic. Neither is a question's label; and a notebook the rule fails on for any reason is that
    student's row only."""
    from autograder.flows.written.command import collect

    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(solution_notebook, folder / "alice.ipynb")
    nb = _nb(solution_notebook)
    nb["cells"].insert(1, {"cell_type": "markdown", "metadata": {}, "source": "**Q" + "9" * 5000 + " (x).** Q" + "7" * 5000})
    (folder / "mallory.ipynb").write_text(json.dumps(nb))
    # Round 4: "**Q1(" repeated, no ")": an unbounded label pattern searched it in quadratic time (600 KB:
    # ~4 min, 2 MB: ~40 min, in the batch parent); bounded, it is read at once like any other notebook.
    nb = _nb(solution_notebook)
    nb["cells"].insert(1, {"cell_type": "markdown", "metadata": {}, "source": "**Q1(" * 120_000})
    (folder / "oscar.ipynb").write_text(json.dumps(nb))
    model = _model_answers(solution_notebook)
    run = subprocess.run([sys.executable, "-c", "import sys; from autograder.flows.written.command import collect; "
                          "print(len(collect(sys.argv[1], int(sys.argv[2]))[1]))", str(folder), str(MIB)], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)  # a hang fails here instead of stalling the test run
    assert run.stdout.strip() == "3", run.stderr[-2000:]
    _, written = collect(folder, MIB)
    assert [w.student for w in written] == ["alice", "mallory", "oscar"]
    assert all(w.status == "read" and {k: a.text for k, a in w.answers.items()} == model for w in written)

    real = ex._extract
    monkeypatch.setattr(ex, "_extract", lambda cells, w, qs, given: (real if w.student == "alice" else None)(
        cells, w, qs, given))  # mallory's notebook makes the rule itself fail (TypeError)
    _, written = collect(folder, MIB)
    by = {w.student: w for w in written}
    assert by["alice"].status == "read" and by["alice"].answers["q1"].text == model["q1"]
    assert by["mallory"].status == by["oscar"].status == ex.UNREADABLE and "could not be read" in by["mallory"].problem


def test_an_image_that_is_not_what_it_claims_is_dropped():
    cell = ex._cell(0, {"source": "x", "outputs": [
        {"output_type": "display_data", "data": {"image/png": base64.b64encode(b"<svg onload=x>").decode()}},
        {"output_type": "display_data", "data": {"image/png": "not base64!"}}]})
    assert cell.outputs == []


# ---- the command --------------------------------------------------------------------------------

def _pdftotext(pdf):
    if not shutil.which("pdftotext"):
        subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", "poppler-utils"],
                       check=False, capture_output=True)
    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext (poppler-utils) is not installed and could not be")
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout


def _words(text):
    return " ".join(text.replace("*", "").replace("`", "").split())


@pytest.fixture(scope="module")
def written(klass, tmp_path_factory):
    from autograder.flows.written.render import chromium

    if not chromium():
        pytest.skip("no Chromium: run `make install-pdf`")
    out = tmp_path_factory.mktemp("written-out") / "written"
    run = subprocess.run([sys.executable, "-m", "autograder", "written", str(klass), "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 submissions, 4 read: Q1 3 answered, Q2 3 answered, Q3 3 answered" in run.stdout
    assert re.search(r"written: 100%.*\| 5/5 \[", run.stderr), f"no progress over the students:\n{run.stderr[-2000:]}"
    return out


@pytest.mark.slow
def test_each_pdf_holds_the_questions_and_the_answers(written, solution_notebook):
    model = _model_answers(solution_notebook)
    qs = ex.questions()
    for student in ("alice", "bob", "carol", "dave", "erin"):
        text = _words(_pdftotext(written / "students" / f"{student}.pdf"))
        assert student in text
        for q in qs:
            assert f"Q{q.number} ({q.title})" in text
            assert _words(q.text.split("**", 2)[2])[:80] in text, "the question's text"
        if student in ("alice", "carol"):
            for q in qs:
                assert _words(model[q.key]) in text, f"{student} {q.key}"
    assert _pdftotext(written / "students" / "bob.pdf").count("Blank: the answer cell is still the placeholder") == 3
    assert "not a valid Jupyter notebook" in _pdftotext(written / "students" / "dave.pdf")


@pytest.mark.slow
def test_math_plots_and_hostile_html_in_the_pdf(written):
    pdf = written / "students" / "erin.pdf"
    text = _pdftotext(pdf)
    assert "with zeros instead of positions the test loss was 0.0123" in _words(text)
    assert "zero positions: test loss 0.0123" in text, "the experiment's printed output"
    assert "zero_positions = torch.zeros(MAX_POSITIONS, WIDTH)" in text, "the experiment's code"
    assert "my own experiment, naming no question" in text and "Other experiment cells" in text
    assert PWNED not in text, "a student's script ran in the page"
    assert "\\log" not in text and "$$" not in text, "math was typeset (MathJax), not printed as TeX"
    if shutil.which("pdfimages"):
        images = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True).stdout
        assert len(images.strip().splitlines()) >= 3, "the plot is in the PDF"
    html = (written / "students" / "erin.html").read_text()
    assert "<script>document" not in html and "onerror" not in html and "javascript:" not in html
    assert "Content-Security-Policy" in html and "https://" not in html.split("</head>")[0]
    assert "font-family: \"DejaVu Sans\"" in html, "the page's own CSS is not escaped"


@pytest.mark.slow
def test_question_pages_list_every_student(written, solution_notebook):
    model = _model_answers(solution_notebook)
    for q in ex.questions():
        page = (written / f"{q.key}.html").read_text()
        for student in ("alice", "bob", "carol", "dave", "erin"):
            assert f"<h2>{student} " in page
        assert "5 students: 3 answered, 2 blank or unreadable" in page
        first_sentence = model[q.key].split(":")[0]
        assert page.count(first_sentence) == 2 + (q.key != "q1"), "alice's, carol's (and erin's) answers"
    index = (written / "index.html").read_text()
    assert all(f"students/{s}.pdf" in index for s in ("alice", "bob", "carol", "dave", "erin"))
    assert (written / "hand.csv").read_text() == "student,q1,q2,q3,comment\n" + "".join(
        f"{s},,,,\n" for s in ("alice", "bob", "carol", "dave", "erin"))
    data = json.loads((written / "written.json").read_text())
    assert [d["student"] for d in data] == ["alice", "bob", "carol", "dave", "erin"]


# ---- hand scores --------------------------------------------------------------------------------

POINTS = {"q1": 5.0, "q2": 5.0, "q3": 5.0}


def _write(tmp_path, text):
    path = tmp_path / "hand.csv"
    path.write_text(text)
    return path


def test_hand_csv_round_trips_into_grade_all_rows(tmp_path):
    path = _write(tmp_path, template(["alice", "bob", "=cmd"], POINTS))
    assert load_hand(path, ["alice", "bob", "=cmd"]) == {
        s: {"q1": None, "q2": None, "q3": None, "comment": ""} for s in ("alice", "bob", "=cmd")}
    path = _write(tmp_path, "student,q1,q2,q3,comment\nalice,5,4.5,,good; see Q3\nbob,0,,1,\n")
    hand = load_hand(path, ["alice", "bob", "carol"], POINTS)
    assert hand == {"alice": {"q1": 5.0, "q2": 4.5, "q3": None, "comment": "good; see Q3"},
                    "bob": {"q1": 0.0, "q2": None, "q3": 1.0, "comment": ""}}
    rows = [ClassRow(student=s, parts={"masks": 18.0}, total=t, status="graded")
            for s, t in (("alice", 100.0), ("bob", 77.0), ("carol", 0.0))]
    merged = merge_hand(rows, hand, POINTS)
    assert [(r.student, r.value("q1"), r.value("q2"), r.value("q3"), r.total) for r in merged] == [
        ("alice", 5.0, 4.5, None, 109.5), ("bob", 0.0, None, 1.0, 78.0), ("carol", None, None, None, 0.0)]
    assert [r.hand_comment for r in merged] == ["good; see Q3", "", ""]
    assert rows[0].total == 100.0 and not rows[0].written, "the rows passed in are not changed"
    assert hand_columns(["student", "masks", "training", "total", "status"], POINTS) == [
        "student", "masks", "training", "q1", "q2", "q3", "total", "status"]


@pytest.mark.parametrize("body, message", [
    ("mallory,1,1,1,\n", "line 2: unknown student 'mallory'"),
    ("alice,6,,,\n", "alice q1 = 6 is above the question's 5 points"),
    ("alice,,five,,\n", "alice q2 = 'five' is not a number"),
    ("alice,,,-1,\n", "alice q3 = '-1' must be between 0 and 5"),
    ("alice,,,nan,\n", "must be between 0 and 5"),
    ("alice,1,,,\nalice,2,,,\n", "line 3: student 'alice' appears twice"),
])
def test_hand_csv_errors_say_what_and_where(tmp_path, body, message):
    path = _write(tmp_path, "student,q1,q2,q3,comment\n" + body)
    with pytest.raises(HandScoreError) as err:
        load_hand(path, ["alice", "bob"], POINTS)
    assert message in str(err.value)


def test_hand_csv_lists_every_problem_and_missing_columns(tmp_path):
    path = _write(tmp_path, "student,q1,q2,q3,comment\nalice,9,x,,\nzed,,,,\n")
    with pytest.raises(HandScoreError, match=r"3 problem\(s\)"):
        load_hand(path, ["alice"], POINTS)
    with pytest.raises(HandScoreError, match="missing column"):
        load_hand(_write(tmp_path, "student,q1,q2\nalice,1,1\n"), ["alice"], POINTS)
    with pytest.raises(HandScoreError, match="no row: zed"):
        merge_hand([ClassRow(student="alice", status="graded", total=1.0)], {"zed": {"q1": 1.0}}, POINTS)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:Object of type")  # nbgrader's own add_submission
def test_hand_csv_into_the_nbgrader_gradebook(tmp_path):
    from nbgrader.api import Gradebook

    from autograder.flows.nbgrader.hand import read_back

    db = ROOT / "build" / "course" / "gradebook.db"
    if not db.exists():
        pytest.skip("no build/course/gradebook.db: run `make release`")
    course = tmp_path / "course"
    course.mkdir()
    shutil.copy(db, course / "gradebook.db")
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in ("alice", "bob"):
            gradebook.add_student(student)
            gradebook.add_submission(f"{NAME}", student)
    hand = _write(tmp_path, "student,q1,q2,q3,comment\nalice,5,4.5,,clear answers\nbob,0,,,\n")

    def command(*args):
        return subprocess.run([sys.executable, "-m", "autograder.flows.nbgrader.hand", str(course), *args],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)

    dry = command(str(hand), "--dry-run")
    assert dry.returncode == 0 and "would change alice q1_positions: empty -> 5" in dry.stdout, dry.stdout + dry.stderr
    qs = ex.questions()
    assert read_back(course, qs, ["alice"]) == {"alice": {"q1": None, "q2": None, "q3": None}}
    run = command(str(hand))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "alice q2_baseline: empty -> 4.5" in run.stdout and "4 change(s) written" in run.stdout
    assert read_back(course, qs, ["alice", "bob"]) == {"alice": {"q1": 5.0, "q2": 4.5, "q3": None},
                                                       "bob": {"q1": 0.0, "q2": None, "q3": None}}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        assert gradebook.find_comment("q1_positions", f"{NAME}", f"{NAME}",
                                      "alice").manual_comment == "clear answers"
        grade = gradebook.find_grade("q1_positions", f"{NAME}", f"{NAME}", "alice")
        assert grade.score == 5.0 and not grade.needs_manual_grade
    assert "0 change(s) written" in command(str(hand)).stdout, "writing the same scores again changes nothing"
    stray = _write(tmp_path, "student,q1,q2,q3,comment\nmallory,1,,,\n")
    refused = command(str(stray))
    assert refused.returncode == 2 and f"mallory: no submission of {NAME}" in refused.stderr


@pytest.mark.slow
def test_grade_all_merges_hand_scores(tmp_path, solution_notebook):
    folder = tmp_path / "subs"
    folder.mkdir()
    shutil.copy(solution_notebook, folder / "alice.ipynb")
    (folder / "dave.ipynb").write_text("not a notebook\n")
    hand = _write(tmp_path, "student,q1,q2,q3,comment\nalice,5,4.5,,\ndave,1,,,late\n")
    grades = tmp_path / "out" / "grades.csv"

    def grade_all(hand_csv):
        return subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(folder), "--out", str(grades),
                               "--hand", str(hand_csv)], cwd=ROOT, capture_output=True, text=True, timeout=600)

    run = grade_all(hand)
    assert run.returncode == 0, run.stdout + run.stderr
    with grades.open() as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames
        rows = {r["student"]: r for r in reader}
    assert header[header.index("training") + 1:header.index("total")] == ["q1", "q2", "q3"]
    assert (rows["alice"]["q1"], rows["alice"]["q2"], rows["alice"]["q3"], rows["alice"]["total"]) == (
        "5", "4.5", "", "109.5")
    assert (rows["dave"]["q1"], rows["dave"]["total"], rows["dave"]["status"]) == ("1", "1", "not-a-notebook")
    written = {w["student"]: w for w in json.loads((tmp_path / "out" / "grades_written.json").read_text())}
    assert set(written) == {"alice", "dave"} and written["dave"]["status"] == "not-a-notebook"
    assert all(not a["blank"] and a["words"] > 5 for a in written["alice"]["answers"].values())  # the model answers
    summary = json.loads((tmp_path / "out" / "grades_summary.json").read_text())
    assert summary["total"]["max_points"] == 115 and summary["parts"]["q2"]["n"] == 1
    bad = _write(tmp_path, "student,q1,q2,q3,comment\nalice,7,,,\n")
    refused = grade_all(bad)
    assert refused.returncode == 2 and "alice q1 = 7 is above the question's 5 points" in refused.stderr
