"""nbgrader as its users run it: a course of the instructor's own, one install step, the plain nbgrader commands.

One course is made once per session (tests/flows/nbgrader_course.py): `nbgrader quickstart`, the
docs/nbgrader.md's install step (`python -m autograder install-nbgrader COURSE`), and a second, ordinary
assignment (week0_basics, test cells of its own). Student-style submissions go into submitted/: the
ordinary ones, the honest-idiom corpus, the attacks of tests/corpus/nbgrader_attacks/ and forgery
cases. Then, with nothing run before it (no service, no record), the real `nbgrader autograde
week7_attention` grades them all, `nbgrader autograde week0_basics` the other assignment,
`nbgrader generate_feedback week7_attention` and `nbgrader export` follow. The six ordinary
notebooks are also graded once by `python -m autograder grade`. Other tests work on copies of the
graded course: `--student`, `--force`, nbgrader's API (what the formgrader's Autograde button
calls), the formgrader in Chromium, `make nbgrader-autograde`'s module, crosscheck, and a course
whose nbgrader_config.py lost the two lines.
"""
import csv
import hashlib
import json
import re
import shutil
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from traitlets.config.loader import PyFileConfigLoader

from autograder import PARTS, notebook_meta
from autograder.assignment import NAME, course_notebook
from autograder.flows.nbgrader import CURRENT, course as nc, feedback as fb, preprocessors as pp
from autograder.flows.nbgrader.record import load_record
from flows.nbgrader_course import ORDINARY, instructor_course, nbgrader, services, shell_env, submit_ordinary, \
    without_our_lines
from flows.shared import ASSIGNMENT, ROOT, by_part, cli_results
from flows.submissions import dump, filled, honest_names, honest_submissions, invalid_json, submissions

sys.path.insert(0, str(ROOT / "tests" / "corpus"))
from hostile._harness import diff, processes, secret_lines, snapshot
from nbgrader_attacks import ATTACKS, EXTRA_FILES, HONEST_MARKUP, HONEST_WORDS, MARK, SCRIPT_MARK, SLEEP
import forgery  # tests/corpus/forgery: items 1-3 of issue 10, here through nbgrader too
from tests.points import points

pytestmark = pytest.mark.slow
HIDDEN = ("grade_part", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "autograder.flows", "solutions.reference")
ORDINARY_NBS = ["solution", "blank", "mask_diag", "swapped", "deleted_cell", "warns"]
BROKEN = "not_a_notebook"  # nbgrader cannot read it: its autograde fails, and says so
FLOW = [sys.executable, "-m", "autograder.flows.nbgrader"]
# Forgery cases graded through this flow as well (each with the same notebook without the forging cell).
FORGERIES = ["forged_claims", "train_mode_lie", "training_grad_only", "absurd_loss[int_10_400]", "arena_truncate"]


def masks_blank(released, source):
    """The solution, except the masks part left as released (the stub raises)."""
    nb = filled(released, source)
    stub = next(c.source for c in released.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "masks_solution")
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "masks_solution":
            cell.source = stub
    return nb


def ours(pids):
    """The processes among ``pids`` that this flow could have left: kernels, the vandal's sleeps."""
    named = {pid: (cmd.decode(errors="replace") if isinstance(cmd, bytes) else str(cmd)).replace("\0", " ")
             for pid, (_, cmd, _) in pids.items()}
    return {pid: cmd for pid, cmd in named.items()
            if SLEEP in cmd or "autograder.flows.nbgrader.kernel" in cmd or CURRENT.kernel in cmd}


def notebook_path(course_dir, kind, student):
    return course_notebook(course_dir, kind, student)


@pytest.fixture(scope="session")
def graded_course(tmp_path_factory):
    path = instructor_course(tmp_path_factory.mktemp("nbgrader"))
    released = nbformat.read(notebook_path(path, "release", None), as_version=4)
    source = nbformat.read(notebook_path(path, "source", None), as_version=4)
    texts = dict(submissions(released, source))
    texts["masks_blank"] = nbformat.writes(masks_blank(released, source))
    texts[BROKEN] = invalid_json()
    texts.update(honest_submissions(released, source))  # tests/corpus/honest.py: full marks here too
    for name, (attack, base) in forgery.build_bounded(FORGERIES).items():  # base: the EQUIVALENT if any
        key = "forgery_" + re.sub(r"\W+", "_", name).strip("_")
        texts[key], texts[key + "_baseline"] = nbformat.writes(attack), nbformat.writes(base)
    baseline = {}
    for name, build in ATTACKS.items():
        texts[name], baseline[name] = build(released, filled(released, source), masks_blank(released, source),
                                            path, ROOT)
    notebooks = {name: dump(text, notebook_path(path, "submitted", name)) for name, text in texts.items()}
    for name, files in EXTRA_FILES.items():
        for relative, text in files.items():
            dump(text, notebook_path(path, "submitted", name).parent / relative)
    submit_ordinary(path)
    stock = tmp_path_factory.mktemp("stock") / "ml101"  # the same course without the install's two lines
    shutil.copytree(path, stock, symlinks=True)
    without_our_lines(stock)
    cli = {}
    worker = threading.Thread(target=lambda: cli.update(
        cli_results([notebooks[n] for n in ORDINARY_NBS], tmp_path_factory.mktemp("cli"))))
    worker.start()  # the CLI grades while nbgrader grades
    watched = {"submitted": path / "submitted", "cache": ROOT / "build" / "cache"}
    before = {k: snapshot(v) for k, v in watched.items()}
    before_pids = ours(processes())
    with services(path):
        started = time.monotonic()
        try:
            run = nbgrader(path, "autograde", ASSIGNMENT)  # nothing before it: no service, no record
        finally:
            worker.join()
        seconds = time.monotonic() - started
        time.sleep(0.5)
        survivors = {p: c for p, c in ours(processes()).items() if p not in before_pids}
        changes = {k: diff(before[k], snapshot(v)) for k, v in watched.items()}
        feedback = nbgrader(path, "generate_feedback", ASSIGNMENT)
        export = nbgrader(path, "export")
        week0 = {"ours": nbgrader(path, "autograde", ORDINARY), "stock": nbgrader(stock, "autograde", ORDINARY)}
        week0_feedback = {"ours": nbgrader(path, "generate_feedback", ORDINARY),
                          "stock": nbgrader(stock, "generate_feedback", ORDINARY)}
        service = service_files(path)
    return {"path": path, "notebooks": notebooks, "texts": texts, "baseline": baseline, "run": run,
            "seconds": seconds, "cli": {n: cli[notebooks[n]] for n in ORDINARY_NBS},
            "book": nc.gradebook_points(path), "auto": nc.gradebook_points(path, auto=True),
            "changes": changes, "survivors": survivors, "feedback": feedback, "export": export,
            "week0": week0, "week0_feedback": week0_feedback, "stock": stock, "service": service,
            "released": released, "source": source}


def service_files(course):
    """(mode of the service's folder, of its socket) while it serves the course."""
    from autograder.flows.nbgrader.address import socket_path
    sock = socket_path(course)
    return stat.S_IMODE(sock.parent.stat().st_mode), stat.S_IMODE(sock.stat().st_mode) if sock.exists() else None


def scores(graded_course, name):
    book = graded_course["book"][name]
    assert book is not None, f"{name} was not autograded:\n{graded_course['run'].stderr[-4000:]}"
    return {p: s for p, (s, _) in book.items()}


def graded(graded_course):
    return [n for n in graded_course["notebooks"] if n != BROKEN]


def test_plain_nbgrader_autograde_grades_every_submission(graded_course):
    run = graded_course["run"]
    print(f"\nnbgrader autograde: {len(graded_course['notebooks'])} submissions in {graded_course['seconds']:.1f} s")
    failed = re.findall(r"There was an error processing assignment '[^']+' for student '([^']+)'", run.stderr)
    assert run.returncode == 1 and failed == [BROKEN], run.stderr[-6000:]  # nbgrader cannot read that one
    for name in graded(graded_course):
        assert notebook_path(graded_course["path"], "autograded", name).exists(), name
        assert (graded_course["path"] / "feedback" / name / ASSIGNMENT / f"{ASSIGNMENT}.html").exists(), name


def test_the_run_shows_its_progress(graded_course):
    """nbgrader's own output says, per student, how far the run is and what that student got."""
    total = len(graded_course["notebooks"])
    lines = [line for line in graded_course["run"].stderr.splitlines() if f"| {ASSIGNMENT}: " in line
             or f"] {ASSIGNMENT}: " in line]
    done = [int(m.group(1)) for line in lines for m in [re.search(rf"\| (\d+)/{total} \[", line)] if m]
    assert len(done) == total - 1 and done == sorted(done) and done[-1] == total, lines[-3:]  # all but the broken one
    assert any(f"mask_diag: {sum(scores(graded_course, 'mask_diag').values()):g} / 100" in line for line in lines)


def test_config_handles_nbgrader_traps_for_this_assignment_only(graded_course):
    config = PyFileConfigLoader("nbgrader_config.py", path=str(graded_course["path"])).load_config()
    assert config.Autograde.autograde_preprocessors[0] is pp.IsolatedExecute
    assert config.Autograde.sanitize_preprocessors[:2] == [pp.RestoreCellMetadata, pp.SandboxGrade]
    assert pp.RestoreDeletedCells in config.Autograde.sanitize_preprocessors
    assert pp.IsolatedIgnorePattern in config.Autograde.autograde_preprocessors
    assert fb.HideHiddenTests in config.GenerateFeedback.preprocessors
    assert config.GenerateFeedback.exporter_class is fb.FeedbackExporter
    generate = config.GenerateAssignment.preprocessors
    assert generate.index(pp.IsolatedKernelspec) + 2 == generate.index(pp.StudentKernelspec)
    # Nothing course-wide: the kernel, the timeout, the ignored stderr and add_missing_cells stay nbgrader's.
    for section, name in (("Execute", "kernel_name"), ("Execute", "timeout"), ("IgnorePattern", "enabled"),
                          ("OverwriteCells", "add_missing_cells")):
        assert name not in config[section], f"c.{section}.{name} is set course-wide"
    assert config.CourseDirectory.course_id == "ml101"  # the course's own settings are kept


def test_ignore_pattern_keeps_a_warning_from_zeroing_a_test_cell():
    """nbgrader zeroes a test cell with any stderr; for this assignment the pattern drops warnings only."""
    from nbformat.v4 import new_code_cell, new_notebook, new_output
    from nbgrader.utils import determine_grade

    for text in ("/tmp/ipykernel_1/1.py:11: UserWarning: careful\n", "WARNING: a logged warning\n",
                 "[W NNPACK.cpp:64] Could not initialize NNPACK\n"):
        def cell():
            made = new_code_cell("", metadata={"nbgrader": {"grade": True, "grade_id": "positions_tests", "points": 8,
                                                            "solution": False, "locked": True}})
            made.outputs = [new_output("stream", name="stderr", text=text),
                            new_output("execute_result", data={"text/plain": "8.0"}, execution_count=1)]
            return made
        assert determine_grade(cell())[0] == 0  # the trap
        for assignment, kept in ((ASSIGNMENT, 8), (ORDINARY, 0)):  # another assignment: nbgrader's own settings
            nb, _ = pp.IsolatedIgnorePattern()(new_notebook(cells=[cell()]), {"nbgrader": {"assignment": assignment}})
            assert determine_grade(nb.cells[0])[0] == kept, (assignment, text)
    assert not re.search(pp.IGNORED_STDERR, "Traceback (most recent call last):\nNameError: x\n")


@pytest.mark.parametrize("name", ORDINARY_NBS)
def test_gradebook_equals_cli(graded_course, name):
    book = scores(graded_course, name)
    assert set(book) == set(PARTS)
    assert book == pytest.approx(by_part(graded_course["cli"][name])), name


def test_a_submission_nbgrader_cannot_read_is_reported_not_zeroed(graded_course):
    assert f"student '{BROKEN}'" in graded_course["run"].stderr
    book = graded_course["auto"][BROKEN]  # nbgrader made an empty entry: scores are None, never a silent 0
    assert book is None or all(s is None for s, _ in book.values())


def test_gradebook_equals_the_isolated_records(graded_course):
    for name in graded(graded_course):
        record = load_record(graded_course["path"], name)
        assert record is not None, name
        assert record["sha256"] == hashlib.sha256(graded_course["notebooks"][name].read_bytes()).hexdigest()
        assert record["confinement"].startswith("confinement: "), record["confinement"]  # the mode, per student
        auto = {p: s for p, (s, _) in graded_course["auto"][name].items()}
        assert auto == pytest.approx({p: v["score"] for p, v in record["parts"].items()}), name


def test_submissions_score_as_designed(graded_course):
    book = {n: scores(graded_course, n) for n in ORDINARY_NBS}
    full = {p: m for p, (_, m) in graded_course["book"]["solution"].items()}
    assert book["solution"] == full and book["deleted_cell"] == full and book["warns"] == full
    assert sum(book["blank"].values()) == 0
    assert book["mask_diag"]["masks"] < full["masks"] and book["mask_diag"]["softmax_read"] == full["softmax_read"]
    assert book["swapped"]["targets"] < full["targets"] and book["swapped"]["masks"] == full["masks"]


def test_the_kernel_ran_no_code(graded_course):
    """nbgrader ran the isolated kernel (its language_info), and each test cell's value is the record's."""
    from autograder.flows.nbgrader.kernel import IsolatedKernel
    nb = nbformat.read(notebook_path(graded_course["path"], "autograded", "mask_diag"), as_version=4)
    assert nb.metadata.language_info == IsolatedKernel.language_info
    assert nb.metadata.kernelspec.name == CURRENT.kernel  # the gradebook's (preprocessors.IsolatedKernelspec)
    record = load_record(graded_course["path"], "mask_diag")
    for cell in nb.cells:
        part = nc.part_of(cell.metadata.get("nbgrader", {}).get("grade_id"))
        if part:
            values = [o for o in cell.outputs if o.output_type == "execute_result"]
            assert [float(v.data["text/plain"]) for v in values] == [record["parts"][part]["score"]], part
            assert not [o for o in cell.outputs if o.get("name") == "stderr" or o.output_type == "error"]


def test_students_get_their_own_kernel_in_the_release(graded_course):
    """The gradebook runs submissions in the isolated kernel; the notebook students download opens in python3."""
    released = nbformat.read(notebook_path(graded_course["path"], "release", None), as_version=4)
    assert released.metadata.kernelspec.name == "python3"
    with sqlite3.connect(graded_course["path"] / "gradebook.db") as db:
        spec = db.execute("SELECT kernelspec FROM notebook WHERE name = ?", (ASSIGNMENT,)).fetchone()[0]
    assert json.loads(spec)["name"] == CURRENT.kernel


def test_deleted_test_cell_is_restored(graded_course):
    nb = nbformat.read(notebook_path(graded_course["path"], "autograded", "deleted_cell"), as_version=4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
    assert ids.count("masks_tests") == 1
    assert ids.index("masks_tests") == ids.index("masks_check") + 1  # back in its place


def hidden_lines(graded_course):
    """Lines of the hidden suites and the reference that no student notebook of this course holds."""
    public = graded_course["texts"]["solution"] + nbformat.writes(graded_course["released"])
    return [s for s in secret_lines() if s not in public and json.dumps(s)[1:-1] not in public]


def test_feedback_html_has_no_hidden_tests(graded_course):
    import html as htmllib
    assert graded_course["feedback"].returncode == 0, graded_course["feedback"].stderr[-3000:]
    secrets = hidden_lines(graded_course)
    assert len(secrets) > 50
    for name in graded(graded_course):
        page = (graded_course["path"] / "feedback" / name / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
        if name in ORDINARY_NBS:  # the attacks' own cells name these on purpose
            for marker in HIDDEN:
                assert marker not in page, f"feedback of {name} contains {marker!r}"
        text = htmllib.unescape(page)
        assert not [s for s in secrets if s in text], name
        assert "Part masks:" in text  # the per-part result stays visible
    # ... while the autograded notebook (instructor-only) holds the test cells' hook
    assert "grade_part" in notebook_path(graded_course["path"], "autograded", "solution").read_text()


# ---- the course's other assignment: nbgrader's own --------------------------------------------------------
def _plain(nb):
    """An autograded notebook without what changes from run to run (nbclient's timings)."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    return nbformat.writes(nb)


def _ordinary_grades(course):
    """[(student, test cell, auto score)] of week0_basics in the course's gradebook."""
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return sorted((student, g.name, g.auto_score) for student in ("alice", "bob", "carol")
                      for g in gb.find_submission_notebook(ORDINARY, ORDINARY, student).grades)


def test_the_other_assignment_is_graded_as_nbgrader_alone_would(graded_course):
    """week0_basics, in the same course: its test cells run in the python3 kernel, and every score, every
    autograded notebook and every feedback page is what the course without the install's lines gives."""
    for run in (*graded_course["week0"].values(), *graded_course["week0_feedback"].values()):
        assert run.returncode == 0, run.stderr[-3000:]
    courses = {"ours": graded_course["path"], "stock": graded_course["stock"]}
    books = {kind: _ordinary_grades(course) for kind, course in courses.items()}
    assert books["ours"] == books["stock"]
    totals = {s: sum(score for student, _, score in books["ours"] if student == s) for s in ("alice", "bob", "carol")}
    assert len(books["ours"]) == 6
    assert totals == {"alice": 2, "bob": 1, "carol": 0}
    for student in ("alice", "bob", "carol"):
        paths = {k: c / "autograded" / student / ORDINARY / f"{ORDINARY}.ipynb" for k, c in courses.items()}
        nbs = {k: nbformat.read(p, as_version=4) for k, p in paths.items()}
        assert _plain(nbs["ours"]) == _plain(nbs["stock"]), student
        shown = "".join(o.get("text", "") for c in nbs["ours"].cells for o in c.get("outputs", []))
        if student == "alice":
            assert "kernel ZMQInteractiveShell" in shown  # an IPython kernel ran it: not the isolated one
        pages = {k: (c / "feedback" / student / ORDINARY / f"{ORDINARY}.html").read_text() for k, c in courses.items()}
        assert pages["ours"] == pages["stock"], student
        assert "week7" not in pages["ours"]


# ---- attacks (tests/corpus/nbgrader_attacks) --------------------------------------------------------
def test_stub_that_reads_hidden_code_gets_nothing(graded_course):
    """(a) Importing solutions.reference, reading the suites, the reference or the instructor notebook
    from a notebook cell finds nothing: 0 for every part, and no hidden line anywhere students look."""
    assert scores(graded_course, "stub_reads_hidden") == scores(graded_course, "blank")
    assert sum(scores(graded_course, "stub_reads_hidden").values()) == 0
    record = load_record(graded_course["path"], "stub_reads_hidden")
    printed = "".join(c.get("output") or "" for c in record["cells"])
    assert "no solutions.reference: ModuleNotFoundError" in printed and "no grade_part" in printed
    secrets = hidden_lines(graded_course)
    autograded = nbformat.read(notebook_path(graded_course["path"], "autograded", "stub_reads_hidden"), as_version=4)
    shown = "\n".join(json.dumps(c.get("outputs", []), ensure_ascii=False) + c.source for c in autograded.cells)
    assert not [s for s in secrets if s in printed or json.dumps(s, ensure_ascii=False)[1:-1] in shown]


def test_vandal_changes_nothing_and_leaves_nothing(graded_course):
    """(b) Rewriting one's own or a classmate's submission, writing build/cache, the gradebook or the
    records, planting files or leaving processes: nothing changes, nothing survives."""
    changes = graded_course["changes"]
    assert changes["submitted"] == {"added": [], "removed": [], "changed": []}
    assert changes["cache"] == {"added": [], "removed": [], "changed": []}
    assert not list(graded_course["path"].rglob(f"*{MARK}*")) and not list(Path("/tmp").glob(f"{MARK}*"))
    assert not list((ROOT / "build").rglob(f"*{MARK}*"))
    assert graded_course["survivors"] == {}
    with sqlite3.connect(graded_course["path"] / "gradebook.db") as db:
        assert db.execute("SELECT count(*) FROM grade WHERE manual_score IS NOT NULL").fetchone()[0] == 0
    full = {p: m for p, (_, m) in graded_course["book"]["solution"].items()}
    assert scores(graded_course, "vandal") == full and scores(graded_course, "solution") == full
    record = load_record(graded_course["path"], "vandal")
    printed = "".join(c.get("output") or "" for c in record["cells"])
    assert "could not rewrite a classmate" in printed and "DID rewrite" not in printed


@pytest.mark.parametrize("name", ["meta_duplicate_id", "meta_test_as_solution", "meta_cell_types", "meta_bogus",
                                  "deleted_cell"])
def test_metadata_tricks_keep_points(graded_course, name):
    """(c) A metadata trick neither fails autograde for the student nor changes a point."""
    baseline = graded_course["baseline"].get(name, "solution")
    assert scores(graded_course, name) == scores(graded_course, baseline)
    assert set(graded_course["book"][name]) == set(PARTS)  # no grade cell of the student's own
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{graded_course['path'] / 'gradebook.db'}") as gb:
        submitted = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, name)
        names = {g.name for g in submitted.grades}
    assert "bonus_tests" not in names and {f"{p}_tests" for p in PARTS} <= names


def test_forged_score_is_not_above_the_honest_one(graded_course):
    """(e) Every forging trick on masks: no more than the same notebook without them."""
    forged, honest = scores(graded_course, "forge"), scores(graded_course, "masks_blank")
    assert honest["masks"] == 0
    assert forged["masks"] <= honest["masks"] and sum(forged.values()) <= sum(honest.values())


def test_files_beside_the_notebook_are_never_run(graded_course):
    """nbgrader copies a submission's other files into the folder its kernel runs in; the kernel
    (python -I) imports none of them, and the score is the notebook's."""
    planted = notebook_path(graded_course["path"], "autograded", "planted_modules").parent
    assert (planted / "ipykernel" / "__init__.py").exists()  # they were there ...
    assert not list(Path("/tmp").glob(f"{MARK}*"))  # ... and never ran
    assert scores(graded_course, "planted_modules") == scores(graded_course, "solution")


def test_the_notebook_kernelspec_is_ignored(graded_course):
    from autograder.flows.nbgrader.kernel import IsolatedKernel
    nb = nbformat.read(notebook_path(graded_course["path"], "autograded", "forge"), as_version=4)
    assert nb.metadata.language_info == IsolatedKernel.language_info


def formgrader_page(course, student):
    """The page the formgrader's Manual Grading shows for ``student``: its own exporter (HTMLExporter with the
    course's config and nbgrader's formgrade template) on the autograded notebook, as SubmissionHandler.get does."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers

    exporter = HTMLExporter(template_name="formgrade", extra_template_basedirs=[handlers.template_path])
    resources = {"assignment_id": ASSIGNMENT, "notebook_id": ASSIGNMENT, "submission_id": "x", "index": 0,
                 "total": 1, "base_url": "/", "student": student, "last_name": "", "first_name": "",
                 "notebook_path": "/notebook.ipynb"}
    html, _ = exporter.from_filename(str(notebook_path(course, "autograded", student)), resources=resources)
    return html


def active_markup(html, mark):
    """Where ``mark`` sits in ``html`` so that a browser acts on it: a script's text, an attribute (handlers,
    links, sources), or a MathJax command that links or styles in text it typesets (outside <pre>/<code>, which
    it skips). Elsewhere, escaped, it is text a grader reads."""
    from html.parser import HTMLParser

    from autograder.flows.written.render import MATHJAX_ACTIVE

    found = []

    class Page(HTMLParser):
        stack: list = []

        def handle_starttag(self, tag, attrs):
            found.extend(f"<{tag} {k}>" for k, v in attrs if v and mark in v)
            if tag not in ("br", "img", "input", "meta", "link", "hr"):
                self.stack.append(tag)

        def handle_endtag(self, tag):
            if tag in self.stack:
                del self.stack[len(self.stack) - 1 - self.stack[::-1].index(tag):]

        def handle_data(self, data):
            typeset = MATHJAX_ACTIVE.search(data) and not {"pre", "code"} & set(self.stack)
            if mark in data and ("script" in self.stack or "style" in self.stack or typeset):
                found.append(f"text in {self.stack[-3:]}")

    Page(convert_charrefs=True).feed(html)
    # And as text, for what Python's parser reads otherwise than a browser (a <script> after `<!-- --!>` is in a
    # comment to html.parser, an element to Chromium): the mark after an unescaped script tag or event handler.
    found += re.findall(rf"<script\b[^<]*{mark}|<[a-z][^<>]*\son\w+\s*=[^<>]*{mark}|href=[\"']?javascript:[^<>]*{mark}",
                        html, flags=re.I)
    return found


def test_student_markup_never_runs_in_the_formgrader(graded_course):
    """Red team of issue 23: an `<img onerror>` in a written answer ran script in the formgrader (the Jupyter
    server's origin, the grader's session) that read the instructor notebook and ran code as the instructor.
    In the page the formgrader shows, every piece of the attack's markup is inert text; the same answer with
    honest markup (a table, math, <sub>, <br>) renders as it did; the points are the solution's."""
    course = graded_course["path"]
    page = formgrader_page(course, "formgrader_script")
    assert SCRIPT_MARK in page  # the answers are shown ...
    assert not active_markup(page, SCRIPT_MARK), active_markup(page, SCRIPT_MARK)  # ... as text only
    autograded = nbformat.read(notebook_path(course, "autograded", "formgrader_script"), as_version=4)
    assert "widgets" not in autograded.metadata  # an exporter that embeds widget state finds none
    honest = [c for c in autograded.cells if c.cell_type == "markdown" and HONEST_WORDS in c.source]
    assert len(honest) == 1 and honest[0].source.endswith(HONEST_MARKUP), "honest markup was changed"
    assert "<table>" in page and "<sub>small</sub>" in page
    assert scores(graded_course, "formgrader_script") == scores(graded_course, "solution")
    # and the solution's own page is the same as the stock rendering would be: nothing of it was shown as text
    assert "Shown as text by the grader" not in formgrader_page(course, "solution")


def test_a_lone_surrogate_in_an_output_is_shown_not_waited_for(graded_course):
    """Red team of issue 23: a cell printing a lone surrogate made the isolated kernel's reply fail, and nbgrader
    waited out its 60 s timeout per such cell, for the whole class. Now each cell's output is there, escaped."""
    course = graded_course["path"]
    autograded = nbformat.read(notebook_path(course, "autograded", "surrogate_output"), as_version=4)
    shown = ["".join(o.get("text", "") for o in c.get("outputs", [])) for c in autograded.cells
             if c.cell_type == "code" and c.source.startswith('print("surrogate')]
    assert shown == [f"surrogate {k}: \\ud800\n" for k in range(3)], shown
    assert scores(graded_course, "surrogate_output") == scores(graded_course, "solution")


def test_every_attack_scores_no_more_than_its_baseline(graded_course):
    for name, baseline in graded_course["baseline"].items():
        assert sum(scores(graded_course, name).values()) <= sum(scores(graded_course, baseline).values()), name


def test_forgeries_gain_nothing_through_nbgrader(graded_course):
    """Issue 10 items 1-3 through `nbgrader autograde`: the gradebook gives the forging notebook no
    more, part by part, than the same notebook without the forging cell."""
    forged = [n for n in graded_course["notebooks"] if n.startswith("forgery_") and not n.endswith("_baseline")]
    assert len(forged) == len(FORGERIES)
    for name in forged:
        attack, base = scores(graded_course, name), scores(graded_course, name + "_baseline")
        gained = {p: (attack[p], base[p]) for p in base if attack.get(p, 0.0) > base[p] + 1e-9}
        assert not gained, f"{name} gained in nbgrader: {gained}"


def test_the_grading_service_is_private(graded_course):
    """Its socket sits in a folder only this user can enter, and is the user's alone."""
    folder, sock = graded_course["service"]
    assert folder == 0o700 and sock is not None and sock & 0o077 == 0


def test_a_folder_others_could_use_is_refused(tmp_path, monkeypatch):
    from autograder.flows.nbgrader import address
    monkeypatch.setattr(address, "BASE", tmp_path)
    folder = tmp_path / f"autograder-{__import__('os').getuid()}"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    with pytest.raises(address.ServiceError, match="not a private folder"):
        address.private_dir()
    folder.rmdir()
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    folder.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(address.ServiceError, match="not a private folder"):
        address.private_dir()


# ---- copies of the graded course: the other ways nbgrader is run ---------------------------------------------
def _copy(graded_course, tmp_path):
    target = tmp_path / "course"
    shutil.copytree(graded_course["path"], target, symlinks=True)
    return target


def _forget(course, *students):
    """As if never autograded: no record, no autograded notebook."""
    for student in students:
        shutil.rmtree(course / "isolated" / student, ignore_errors=True)
        shutil.rmtree(course / "autograded" / student, ignore_errors=True)


def _book(course, student):
    return {p: s for p, (s, _) in nc.gradebook_points(course, [student], auto=True)[student].items()}


def test_one_student_with_nothing_before_and_force_regrades_what_changed(graded_course, tmp_path):
    """`--student` grades a submission never graded; `--force` reuses the record of the same bytes and
    grades changed bytes anew (here: mask_diag's notebook handed in as solution's)."""
    course = _copy(graded_course, tmp_path)
    _forget(course, "swapped")  # solution keeps its record: of the bytes it had
    with services(course):
        one = nbgrader(course, "autograde", ASSIGNMENT, "--student", "swapped")
        assert one.returncode == 0 and "swapped: " in one.stderr and "(graded in the sandbox)" in one.stderr, \
            one.stderr[-4000:]
        assert _book(course, "swapped") == scores(graded_course, "swapped")
        assert load_record(course, "swapped")["sha256"] == load_record(graded_course["path"], "swapped")["sha256"]
        again = nbgrader(course, "autograde", ASSIGNMENT, "--student", "swapped", "--force")
        assert again.returncode == 0 and "(current record)" in again.stderr, again.stderr[-4000:]
        shutil.copy(graded_course["notebooks"]["mask_diag"], notebook_path(course, "submitted", "solution"))
        changed = nbgrader(course, "autograde", ASSIGNMENT, "--student", "solution", "--force")
        assert changed.returncode == 0 and "(graded in the sandbox)" in changed.stderr, changed.stderr[-4000:]
        assert _book(course, "solution") == scores(graded_course, "mask_diag")


API = """
import json, sys
from traitlets.config.loader import PyFileConfigLoader
from nbgrader.apps.api import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
course, assignment, student = sys.argv[1:4]
config = PyFileConfigLoader("nbgrader_config.py", path=course).load_config()
api = NbGraderAPI(CourseDirectory(root=course, config=config), config=config)
print(json.dumps({"autograde": api.autograde(assignment, student),
                  "feedback": api.generate_feedback(assignment, student)}))
"""


def test_the_formgrader_autograde_button_through_nbgraders_api(graded_course, tmp_path):
    """NbGraderAPI.autograde is what the formgrader's Autograde button runs, inside the Jupyter server's own
    process: the sandboxed grade, for a student never graded, and feedback from it."""
    course = _copy(graded_course, tmp_path)
    _forget(course, "mask_diag")
    with services(course):
        run = subprocess.run([sys.executable, "-c", API, str(course), ASSIGNMENT, "mask_diag"], cwd=course,
                             env=shell_env(), capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-4000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["autograde"]["success"], result["autograde"].get("error")
    assert re.search(r"mask_diag: [\d.]+ / 100 \(graded in the sandbox\)", result["autograde"]["log"])
    assert result["feedback"]["success"], result["feedback"].get("error")
    assert _book(course, "mask_diag") == scores(graded_course, "mask_diag")
    page = (course / "feedback" / "mask_diag" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    assert "Part masks:" in page and "BEGIN HIDDEN TESTS" not in page


def test_a_course_that_lost_the_config_lines_runs_no_student_code(graded_course, tmp_path):
    """Without the two lines, plain nbgrader still runs this assignment in the isolated kernel (the gradebook's
    kernelspec): a notebook that would write a file when run writes nothing, and scores 0, never a stale grade."""
    course = _copy(graded_course, tmp_path)
    without_our_lines(course)
    marker = tmp_path / "student-code-ran"
    nb = nbformat.read(graded_course["notebooks"]["solution"], as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(f"open({str(marker)!r}, 'w').write('ran')"))
    nbformat.write(nb, notebook_path(course, "submitted", "vandal"))  # its old record is of other bytes
    _forget(course, "blank")
    run = nbgrader(course, "autograde", ASSIGNMENT, "--force", "--student", "vandal")
    again = nbgrader(course, "autograde", ASSIGNMENT, "--force", "--student", "blank")
    assert not marker.exists()
    for student, r in (("vandal", run), ("blank", again)):
        assert r.returncode == 0, r.stderr[-3000:]
        autograded = nbformat.read(notebook_path(course, "autograded", student), as_version=4)
        assert autograded.metadata.kernelspec.name == CURRENT.kernel
        errors = [o.evalue for c in autograded.cells for o in c.get("outputs", []) if o.output_type == "error"]
        assert any("not of the submitted notebook" in e or "no sandboxed grade" in e for e in errors), errors[:3]
        assert sum(s or 0 for s in _book(course, student).values()) == 0


def test_make_nbgrader_autograde_module_with_a_feedback_level(graded_course, tmp_path):
    """`make nbgrader-autograde`'s module, --feedback score: each test cell shows the part's points only;
    a progress bar over the students, nbgrader's whole output kept in COURSE/logs/, the gradebook verified."""
    course = _copy(graded_course, tmp_path)
    with services(course):
        run = subprocess.run([*FLOW, str(course), "--student", "mask_diag", "--feedback", "score"], cwd=ROOT,
                             capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr
    assert re.search(rf"{ASSIGNMENT}: 100%.*\| 1/1 \[", run.stderr), run.stderr[-2000:]
    logs = sorted((course / "logs").glob("nbgrader-*.log"))
    assert logs and str(logs[-1]) in run.stdout
    text = logs[-1].read_text()
    for command in (f"nbgrader autograde {NAME}", f"nbgrader generate_feedback {NAME}", "nbgrader export"):
        assert f"  {command}" in text, command
    page = (course / "feedback" / "mask_diag" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    got = load_record(course, "mask_diag")["parts"]["masks"]["score"]
    assert 0 < got < points("masks") and f"Part masks: {got:g} / {points('masks'):g}" in page
    assert "causal_mask_blocked is (T, T) bool" not in page
    assert "causal_mask_blocked is (T, T) bool" in \
        (graded_course["path"] / "feedback" / "mask_diag" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()


def test_crosscheck_reports_tampering_and_missing_entries(graded_course, tmp_path):
    """(d) A gradebook changed by hand, an empty grade, an altered record or recorded copy: each reported."""
    from nbgrader.api import Gradebook
    path = _copy(graded_course, tmp_path)
    with Gradebook(f"sqlite:///{path / 'gradebook.db'}") as gb:
        gb.find_grade("positions_tests", ASSIGNMENT, ASSIGNMENT, "solution").manual_score = 1.0
        grade = gb.find_grade("masks_tests", ASSIGNMENT, ASSIGNMENT, "swapped")
        grade.auto_score = grade.manual_score = None  # an empty entry: never read as 0
        gb.db.commit()
    record = json.loads((path / "isolated" / "mask_diag" / "record.json").read_text())
    record["parts"]["masks"]["score"] = points("masks")
    (path / "isolated" / "mask_diag" / "record.json").write_text(json.dumps(record))
    copy_nb = path / "isolated" / "warns" / "submitted.ipynb"
    copy_nb.write_text(graded_course["texts"]["solution"])  # a different notebook than recorded
    shutil.rmtree(path / "isolated" / "blank")
    assert "swapped" in nc.verify(path, ["swapped"])
    args = [sys.executable, "-m", "autograder", "crosscheck", str(path)]
    run = subprocess.run([*args, *[f"--student={s}" for s in ("solution", "swapped", "mask_diag", "warns",
                                                                "blank", "deleted_cell")]],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stdout + run.stderr
    out = run.stdout
    assert "5 student(s)" in out, out
    assert f"positions      gradebook        1   isolated {points('positions'):>8g}" in out
    assert f"masks          gradebook  missing   isolated {points('masks'):>8g}" in out
    assert "masks (record)" in out and "(recorded copy altered or unreadable)" in out and "(no isolated record)" in out
    assert "deleted_cell" not in out.split("student(s)", 1)[1]
    agree = subprocess.run([*args, "--student=deleted_cell", "--student=vandal"], cwd=ROOT, capture_output=True,
                           text=True, timeout=600)
    assert agree.returncode == 0 and "every gradebook agrees" in agree.stdout, agree.stdout + agree.stderr


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_formgrader_in_a_real_browser(graded_course, tmp_path):
    """The formgrader page in Chromium: the Autograde button grades a student never graded, in the sandbox;
    a TA types a written answer's score in Manual Grading; Generate Feedback; `nbgrader export` has both."""
    from flows.browser import Browser, chromium
    executable = chromium()
    if not executable:
        pytest.skip("needs Debian's chromium (`make install-pdf` installs it)")
    course = _copy(graded_course, tmp_path)
    _forget(course, "mask_diag")
    port, token = _free_port(), "week7-" + hashlib.sha256(str(tmp_path).encode()).hexdigest()[:16]
    command = [str(Path(sys.executable).with_name("jupyter")), "server", f"--port={port}", "--no-browser",
               f"--IdentityProvider.token={token}", "--ServerApp.ip=127.0.0.1"]
    if __import__("os").geteuid() == 0:
        command.append("--allow-root")
    server = subprocess.Popen(command, cwd=course, env=shell_env(), stdout=subprocess.DEVNULL,
                              stderr=open(tmp_path / "server.log", "w"))  # noqa: SIM115 - closed with the server
    url = f"http://127.0.0.1:{port}"
    browser = None
    try:
        with services(course):
            deadline = time.monotonic() + 120
            while True:
                try:
                    urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=5)
                    break
                except OSError:
                    assert time.monotonic() < deadline and server.poll() is None, (tmp_path / "server.log").read_text()
                    time.sleep(0.5)
            browser = Browser(tmp_path / "profile", executable)
            browser.open(f"{url}/login?next=%2Fformgrader%2Fmanage_submissions%2F{ASSIGNMENT}")
            browser.js(f"document.querySelector('input[name=password]').value = {token!r}")
            browser.js("document.querySelector('form').submit()")
            row = ("[...document.querySelectorAll('#main-table tr')].find(r => r.querySelector('.student-id') && "
                   "r.querySelector('.student-id').textContent.trim() === 'mask_diag')")
            assert "needs autograding" in browser.wait(f"{row} && {row}.textContent")
            browser.js(f"{row}.querySelector('.autograde a').click()")
            modal = "document.querySelector('#success-modal, #error-modal')"
            shown = browser.wait(f"{modal} && {modal}.id + ': ' + {modal}.innerText", seconds=600)
            browser.screenshot(tmp_path / "autograded.png")
            assert shown.startswith("success-modal: "), shown[-3000:]
            assert re.search(r"mask_diag: [\d.]+ / 100 \(graded in the sandbox\)", shown), shown[-3000:]
            assert _book(course, "mask_diag") == scores(graded_course, "mask_diag")
            # Manual Grading: the written answer Q1 of this submission gets 4 of 5 points.
            with urllib.request.urlopen(f"{url}/formgrader/api/submitted_notebooks/{ASSIGNMENT}/{ASSIGNMENT}"
                                        f"?token={token}") as reply:
                notebook_id = next(n["id"] for n in json.load(reply) if n["student"] == "mask_diag")
            browser.open(f"{url}/formgrader/submissions/{notebook_id}/?index=0")
            assert browser.wait("document.body && document.body.innerText.includes('Model answer (q1_positions')")
            browser.wait("window.formgrader && formgrader.grades && formgrader.grades.loaded")  # its score boxes live
            browser.js("$('#q1_positions').val(4).change() && true")  # a TA types 4 and leaves the box
            deadline = time.monotonic() + 60
            while _manual(course, "mask_diag", "q1_positions") != 4.0:
                assert time.monotonic() < deadline, "the score typed in the formgrader never reached the gradebook"
                time.sleep(0.3)
            browser.open(f"{url}/formgrader/manage_submissions/{ASSIGNMENT}")
            browser.wait(f"{row} && {row}.querySelector('.generate-feedback a')")
            browser.js(f"{row}.querySelector('.generate-feedback a').click()")
            shown = browser.wait(f"{modal} && {modal}.id + ': ' + {modal}.innerText", seconds=300)
            assert shown.startswith("success-modal: "), shown[-3000:]
    finally:
        if browser is not None:
            browser.close()
        server.terminate()
        server.wait(timeout=30)
    page = (course / "feedback" / "mask_diag" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    assert "Part masks:" in page and "BEGIN HIDDEN TESTS" not in page and "Model answer" not in page
    assert nbgrader(course, "export").returncode == 0
    row = next(r for r in csv.DictReader((course / "grades.csv").open())
               if r["student_id"] == "mask_diag" and r["assignment"] == ASSIGNMENT)
    assert float(row["raw_score"]) == pytest.approx(sum(scores(graded_course, "mask_diag").values()) + 4)


def _manual(course, student, grade_id):
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        return gb.find_grade(grade_id, ASSIGNMENT, ASSIGNMENT, student).manual_score


# ---- units ------------------------------------------------------------------------------------------------
def test_feedback_levels_render_each_check():
    from autograder.engine.plugin import TestResult
    from autograder.flows.nbgrader.record import part_text
    results = [TestResult("t::a", "masks", "A holds", 1, 1, "passed"),
               TestResult("t::b", "masks", "B holds", 2, 0, "failed", "found 3, expected 4", hint="check the sign")]
    assert part_text("masks", 1, 3, results, "score") == "Part masks: 1 / 3\n"
    assert part_text("masks", 1, 3, results, "checks").splitlines()[1:] == ["  ok   A holds (1/1)", "  FAIL B holds (0/2)"]
    assert part_text("masks", 1, 3, results, "values").endswith("FAIL B holds (0/2): found 3, expected 4\n")
    assert part_text("masks", 1, 3, results, "hints").endswith(": found 3, expected 4 check the sign\n")


def test_symlinked_submission_is_refused(graded_course, tmp_path):
    from autograder.flows.nbgrader.record import Unreadable, read_submission
    from autograder.settings import Limits
    path = _copy(graded_course, tmp_path)
    target = notebook_path(path, "submitted", "blank")
    target.unlink()
    target.symlink_to(notebook_path(path, "submitted", "solution"))
    with pytest.raises(Unreadable, match="symbolic links are refused"):
        read_submission(path, "blank", Limits().notebook_mib)


def test_a_folder_in_place_of_the_notebook_is_named_once(tmp_path):
    """The refusal names the notebook as the student submitted it (the loop over the path once took over the
    parameter's name, and the message said week7_attention.ipynb.ipynb: helper-29's typing pass found it)."""
    from autograder.flows.nbgrader.record import ASSIGNMENT, Unreadable, read_submission
    (tmp_path / "submitted" / "alice" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").mkdir(parents=True)
    with pytest.raises(Unreadable) as refused:
        read_submission(tmp_path, "alice", 32)
    assert str(refused.value) == f"{ASSIGNMENT}.ipynb is not a regular file"


def test_hide_hidden_tests_strips_graded_tracebacks():
    from nbformat.v4 import new_code_cell, new_output
    cell = new_code_cell("# Graded cell\n### BEGIN HIDDEN TESTS\nfrom autograder.flows.nbgrader_cell import "
                         "grade_part\ngrade_part('masks', globals())\n### END HIDDEN TESTS",
                         metadata={"nbgrader": {"grade": True, "solution": False, "grade_id": "masks_tests"}})
    cell.outputs = [new_output("error", ename="RuntimeError", evalue="boom",
                               traceback=['File "/work/autograder/engine/plugin.py", line 1', "RuntimeError: boom"])]
    out, _ = fb.HideHiddenTests().preprocess_cell(cell, {}, 0)
    assert out.source == "# Graded cell"
    assert out.outputs[0]["traceback"] == ["RuntimeError: boom"]


def test_export_writes_grades_csv(graded_course):
    assert graded_course["export"].returncode == 0, graded_course["export"].stderr[-2000:]
    rows = {r["student_id"]: r for r in csv.DictReader((graded_course["path"] / "grades.csv").open())
            if r["assignment"] == ASSIGNMENT}
    assert set(graded(graded_course)) <= set(rows)
    assert float(rows["solution"]["raw_score"]) == sum(m for _, m in graded_course["book"]["solution"].values())


def test_kernel_spec_is_this_venvs_isolated_kernel():
    from autograder.flows.nbgrader.kernelspec import MODULE, check_kernel
    argv = check_kernel()
    assert Path(argv[0]).parent == Path(sys.executable).parent and argv[1:4] == ["-I", "-m", MODULE]


def test_grading_inside_the_student_kernel_is_retired():
    with pytest.raises(ImportError, match="retired"):
        import autograder.flows.nbgrader_cell  # noqa: F401


# ---- niceties: no spurious checksum warnings, feedback titles and wrapping, model answers ----------------------
def autograde_log_by_student(text):
    """{student: the autograde log lines about that student} (nbgrader names each one as it starts)."""
    out, current = {}, None
    for line in text.splitlines():
        started = re.search(r"Creating/updating student with ID '([^']+)'", line)
        if started:
            current = started.group(1)
        if current:
            out.setdefault(current, []).append(line)
    return out


def test_untouched_test_cells_raise_no_checksum_warning(graded_course):
    """Test cells hold hidden tests only in the instructor notebook: an untouched released cell is restored
    silently; a test cell a student really changed is still reported by nbgrader."""
    per_student = autograde_log_by_student(graded_course["run"].stderr)
    for name in ORDINARY_NBS:
        lines = per_student[name]
        assert not [line for line in lines if "checksum" in line], (name, [line for line in lines if "checksum" in line])
    assert "| WARNING] Missing grade cell masks_tests" in "\n".join(per_student["deleted_cell"])


def test_overwrite_restores_an_edited_test_cell_with_a_warning(graded_course):
    """The silent restore is only for the exact released text: an edited test cell still warns and is replaced."""
    from nbgrader.api import Gradebook
    from nbformat.v4 import new_code_cell

    course_dir = graded_course["path"]
    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        source = gb.find_source_cell("masks_tests", ASSIGNMENT, ASSIGNMENT).source
    assert "BEGIN HIDDEN TESTS" in source
    released = pp.released_source(source)
    assert "BEGIN HIDDEN TESTS" not in released and released.strip()
    warnings = []
    for text, warned in ((released, False), (released + "\nprint('mine')", True)):
        cell = new_code_cell(text, metadata={"nbgrader": {"grade": True, "grade_id": "masks_tests", "points": points("masks"),
                                                          "locked": True, "solution": False}})
        restore = pp.RestoreDeletedCells()
        with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
            restore.gradebook, restore.notebook_id, restore.assignment_id = gb, ASSIGNMENT, ASSIGNMENT
            restore.report_change = lambda *args: warnings.append(args)
            restore.preprocess_cell(cell, {}, 0)
        assert cell.source == source
        assert bool(warnings) == warned, warnings


def feedback_html(graded_course, name):
    return (graded_course["path"] / "feedback" / name / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()


def test_feedback_toc_names_each_part_with_its_points(graded_course):
    from autograder.engine.catalog import part_points

    html = feedback_html(graded_course, "solution")
    toc = html[html.index('<div id="toc">'):html.index("</div>", html.index('<div id="toc">'))]
    titles = re.findall(r'<li><a href="#([^"]+)">([^<]+)</a>', toc)
    parts = [(f"{part}_tests", f"{part} ({points:g} points)") for part, points in part_points().items()]
    written = [(gid, f"Q{i} {gid} (written, 5 points)")
               for i, gid in enumerate(("q1_positions", "q2_baseline", "q3_attention_maps"), 1)]
    assert titles == parts + written, titles
    assert "Test cell" not in toc and "Written response" not in toc
    assert html.count('<div id="toc">') == 1 and html.count("Part 2 — Masks") == 1


def test_feedback_wraps_long_lines(graded_course):
    html = feedback_html(graded_course, "mask_diag")
    head = html[:html.index("</head>")]
    assert re.search(r"div\.output_area pre[^{]*\{[^}]*white-space:\s*pre-wrap", head), "pre-wrap CSS in <head>"


def test_model_answers_are_shown_to_graders_never_to_students(graded_course):
    source = graded_course["source"]
    models = {c.metadata.nbgrader.grade_id: c.source for c in source.cells
              if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution")}
    assert len(models) == 3
    for name in ("solution", "blank"):
        nb = nbformat.read(notebook_path(graded_course["path"], "autograded", name), as_version=4)
        for i, cell in enumerate(nb.cells):
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in models:
                shown = nb.cells[i + 1]
                assert notebook_meta.cell_kind(shown) == pp.MODEL_ANSWER, (name, grade_id)
                assert "nbgrader" not in shown.metadata
                assert "graders only" in shown.source
                for line in models[grade_id].splitlines():
                    assert line in shown.source
        assert sum(notebook_meta.cell_kind(c) == pp.MODEL_ANSWER for c in nb.cells) == 3
        html = feedback_html(graded_course, name)
        assert "graders only" not in html and "Model answer" not in html
        if name == "blank":  # (the "solution" student's answers are the model answers)
            for text in models.values():
                assert text[:60] not in html, name


def test_honest_idioms_get_full_marks(graded_course):
    """tests/corpus/honest.py through nbgrader: every part of every corpus notebook in full in the gradebook."""
    honest = [n for n in graded_course["notebooks"] if n.startswith("honest_")]
    assert len(honest) >= 15
    for name in honest:
        short = {p: (s, points(p)) for p, s in scores(graded_course, name).items() if s < points(p)}
        assert not short, f"{name} ({honest_names(int(name.rsplit('_', 1)[1]))}) lost points: {short}"
