"""The nbgrader flow (`make nbgrader-autograde`): the real nbgrader keeps the books, the isolated grader decides.

One temporary copy of the course is built with the release pipeline; student-style
submissions and the attacks of tests/corpus/nbgrader_attacks/ go into submitted/; the
module `make nbgrader-autograde` runs (python -m autograder.flows.nbgrader, with the real
`nbgrader autograde`, generate_feedback and export) grades them once per session. The six
ordinary notebooks are also graded once by `python -m autograder grade`.
"""
import csv
import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest
from traitlets.config.loader import PyFileConfigLoader

from autograder import PARTS
from autograder.flows.nbgrader import KERNEL_NAME, course as nc
from autograder.flows.nbgrader import preprocessors as pp
from autograder.flows.nbgrader.record import load_record
from flows.shared import ASSIGNMENT, ROOT, by_part, cli_results, course
from flows.submissions import dump, filled, honest_names, honest_submissions, invalid_json, submissions

sys.path.insert(0, str(ROOT / "tests" / "corpus"))
from hostile._harness import diff, processes, secret_lines, snapshot
from nbgrader_attacks import ATTACKS, EXTRA_FILES, MARK, SLEEP
import forgery  # tests/corpus/forgery: items 1-3 of issue 10, here through nbgrader too
from autograder.assignment import NAME
from tests.points import points

pytestmark = pytest.mark.slow
HIDDEN = ("grade_part", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS", "autograder.flows", "solutions.reference")
ORDINARY = ["solution", "blank", "mask_diag", "swapped", "deleted_cell", "warns"]
BROKEN = "not_a_notebook"  # nbgrader cannot autograde it: the flow must say so and exit 1
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
            if SLEEP in cmd or "autograder.flows.nbgrader.kernel" in cmd or KERNEL_NAME in cmd}


def notebook_path(course_dir, kind, student):
    return course_dir / kind / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


@pytest.fixture(scope="session")
def graded_course(tmp_path_factory):
    path, released, source = course(tmp_path_factory.mktemp("nbgrader"))
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
    cli = {}
    worker = threading.Thread(target=lambda: cli.update(
        cli_results([notebooks[n] for n in ORDINARY], tmp_path_factory.mktemp("cli"))))
    worker.start()  # the CLI grades while the flow grades
    watched = {"submitted": path / "submitted", "cache": ROOT / "build" / "cache"}
    before = {k: snapshot(v) for k, v in watched.items()}
    before_pids = ours(processes())
    started = time.monotonic()
    try:
        run = subprocess.run([*FLOW, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    finally:
        worker.join()
    seconds = time.monotonic() - started
    time.sleep(0.5)
    return {"path": path, "notebooks": notebooks, "texts": texts, "baseline": baseline, "run": run,
            "seconds": seconds, "cli": {n: cli[notebooks[n]] for n in ORDINARY},
            "book": nc.gradebook_points(path), "auto": nc.gradebook_points(path, auto=True),
            "changes": {k: diff(before[k], snapshot(v)) for k, v in watched.items()},
            "survivors": {p: c for p, c in ours(processes()).items() if p not in before_pids},
            "released": released, "source": source}


def scores(graded_course, name):
    book = graded_course["book"][name]
    assert book is not None, f"{name} was not autograded:\n{graded_course['run'].stderr[-4000:]}"
    return {p: s for p, (s, _) in book.items()}


def graded(graded_course):
    return [n for n in graded_course["notebooks"] if n != BROKEN]


def test_flow_autogrades_every_submission(graded_course):
    run = graded_course["run"]
    print(f"\nnbgrader flow: {len(graded_course['notebooks'])} submissions in {graded_course['seconds']:.1f} s")
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-6000:]
    error = run.stderr[run.stderr.index("ERROR: the gradebook does not hold"):]
    assert "1 student(s)" in error and f"  {BROKEN}: nbgrader autograde failed" in error, error
    for name in graded(graded_course):
        assert notebook_path(graded_course["path"], "autograded", name).exists(), name
        assert (graded_course["path"] / "feedback" / name / ASSIGNMENT / f"{ASSIGNMENT}.html").exists(), name


def test_config_handles_nbgrader_traps(graded_course):
    config = PyFileConfigLoader("nbgrader_config.py", path=str(graded_course["path"])).load_config()
    assert config.Execute.kernel_name == KERNEL_NAME
    assert config.Autograde.autograde_preprocessors[0] is pp.IsolatedExecute
    assert config.Autograde.sanitize_preprocessors[0] is pp.RestoreCellMetadata
    assert pp.MatchesRecord in config.Autograde.sanitize_preprocessors
    assert config.IgnorePattern.enabled is True
    assert config.OverwriteCells.add_missing_cells is True
    assert pp.RestoreDeletedCells in config.Autograde.sanitize_preprocessors
    assert pp.HideHiddenTests in config.GenerateFeedback.preprocessors
    assert 10 <= config.Execute.timeout <= 600 and config.Execute.interrupt_on_timeout


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


@pytest.mark.parametrize("name", ORDINARY)
def test_gradebook_equals_cli(graded_course, name):
    book = scores(graded_course, name)
    assert set(book) == set(PARTS)
    assert book == pytest.approx(by_part(graded_course["cli"][name])), name


def test_a_submission_nbgrader_cannot_autograde_is_reported_not_zeroed(graded_course):
    record = load_record(graded_course["path"], BROKEN)
    assert record["score"] == 0 and "not a valid Jupyter notebook" in record["problem"]
    book = graded_course["auto"][BROKEN]  # nbgrader made an empty entry: scores are None, never a silent 0
    assert book is None or all(s is None for s, _ in book.values())


def test_gradebook_equals_the_isolated_records(graded_course):
    for name in graded(graded_course):
        record = load_record(graded_course["path"], name)
        assert record is not None, name
        assert record["sha256"] == hashlib.sha256(graded_course["notebooks"][name].read_bytes()).hexdigest()
        auto = {p: s for p, (s, _) in graded_course["auto"][name].items()}
        assert auto == pytest.approx({p: v["score"] for p, v in record["parts"].items()}), name


def test_submissions_score_as_designed(graded_course):
    book = {n: scores(graded_course, n) for n in ORDINARY}
    full = {p: m for p, (_, m) in graded_course["book"]["solution"].items()}
    assert book["solution"] == full and book["deleted_cell"] == full and book["warns"] == full
    assert sum(book["blank"].values()) == 0
    assert book["mask_diag"]["masks"] < full["masks"] and book["mask_diag"]["softmax_read"] == full["softmax_read"]
    assert book["swapped"]["targets"] < full["targets"] and book["swapped"]["masks"] == full["masks"]


def test_the_kernel_ran_no_code(graded_course):
    """nbgrader ran kernel week7-isolated (its language_info), and each test cell's value is the record's."""
    from autograder.flows.nbgrader.kernel import IsolatedKernel
    nb = nbformat.read(notebook_path(graded_course["path"], "autograded", "mask_diag"), as_version=4)
    assert nb.metadata.language_info == IsolatedKernel.language_info
    record = load_record(graded_course["path"], "mask_diag")
    for cell in nb.cells:
        part = nc.part_of(cell.metadata.get("nbgrader", {}).get("grade_id"))
        if part:
            values = [o for o in cell.outputs if o.output_type == "execute_result"]
            assert [float(v.data["text/plain"]) for v in values] == [record["parts"][part]["score"]], part
            assert not [o for o in cell.outputs if o.get("name") == "stderr" or o.output_type == "error"]


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
    secrets = hidden_lines(graded_course)
    assert len(secrets) > 50
    for name in graded(graded_course):
        page = (graded_course["path"] / "feedback" / name / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
        if name in ORDINARY:  # the attacks' own cells name these on purpose
            for marker in HIDDEN:
                assert marker not in page, f"feedback of {name} contains {marker!r}"
        text = htmllib.unescape(page)
        assert not [s for s in secrets if s in text], name
        assert "Part masks:" in text  # the per-part result stays visible
    # ... while the autograded notebook (instructor-only) holds the test cells' hook
    assert "grade_part" in notebook_path(graded_course["path"], "autograded", "solution").read_text()


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
        graded = gb.find_submission_notebook(ASSIGNMENT, ASSIGNMENT, name)
        names = {g.name for g in graded.grades}
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


def test_every_attack_scores_no_more_than_its_baseline(graded_course):
    for name, baseline in graded_course["baseline"].items():
        assert sum(scores(graded_course, name).values()) <= sum(scores(graded_course, baseline).values()), name


def test_forgeries_gain_nothing_through_nbgrader(graded_course):
    """Issue 10 items 1-3 through `make nbgrader-autograde`: the gradebook gives the forging notebook no
    more, part by part, than the same notebook without the forging cell."""
    forged = [n for n in graded_course["notebooks"] if n.startswith("forgery_") and not n.endswith("_baseline")]
    assert len(forged) == len(FORGERIES)
    for name in forged:
        attack, base = scores(graded_course, name), scores(graded_course, name + "_baseline")
        gained = {p: (attack[p], base[p]) for p in base if attack.get(p, 0.0) > base[p] + 1e-9}
        assert not gained, f"{name} gained in nbgrader: {gained}"


# ---- crosscheck, feedback levels, the refusals ------------------------------------------------------
def _copy(graded_course, tmp_path):
    target = tmp_path / "course"
    shutil.copytree(graded_course["path"], target, symlinks=True)
    return target


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
    assert "swapped" in nc.verify(path, ["swapped"], {"swapped": load_record(path, "swapped")})
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


def test_feedback_level_score_shows_points_only(graded_course, tmp_path):
    """--feedback score: each test cell shows the part's points and nothing about single checks."""
    path = _copy(graded_course, tmp_path)
    run = subprocess.run([*FLOW, str(path), "--student", "mask_diag", "--feedback", "score"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    page = (path / "feedback" / "mask_diag" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
    got = load_record(path, "mask_diag")["parts"]["masks"]["score"]
    assert 0 < got < points("masks") and f"Part masks: {got:g} / {points('masks'):g}" in page and "causal_mask_blocked is (T, T) bool" not in page
    assert "causal_mask_blocked is (T, T) bool" in \
        (graded_course["path"] / "feedback" / "mask_diag" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()


def test_feedback_levels_render_each_check():
    from autograder.engine.plugin import TestResult
    from autograder.flows.nbgrader.record import part_text
    results = [TestResult("t::a", "masks", "A holds", 1, 1, "passed"),
               TestResult("t::b", "masks", "B holds", 2, 0, "failed", "found 3, expected 4", hint="check the sign")]
    assert part_text("masks", 1, 3, results, "score") == "Part masks: 1 / 3\n"
    assert part_text("masks", 1, 3, results, "checks").splitlines()[1:] == ["  ok   A holds (1/1)", "  FAIL B holds (0/2)"]
    assert part_text("masks", 1, 3, results, "values").endswith("FAIL B holds (0/2): found 3, expected 4\n")
    assert part_text("masks", 1, 3, results, "hints").endswith(": found 3, expected 4 check the sign\n")


def test_bare_nbgrader_autograde_refuses_without_a_record(graded_course, tmp_path):
    """`nbgrader autograde` run by hand (no isolated record): the student fails, no points are invented."""
    path = _copy(graded_course, tmp_path)
    shutil.rmtree(path / "isolated" / "solution")
    shutil.rmtree(path / "autograded" / "solution")
    run = nc.nbgrader(path, "autograde", ASSIGNMENT, "--force", "--student", "solution", check=False)
    assert run.returncode != 0 and "no isolated grade recorded for solution" in run.stderr
    assert not notebook_path(path, "autograded", "solution").exists()


def test_symlinked_submission_is_refused(graded_course, tmp_path):
    from autograder.flows.nbgrader.record import Unreadable, read_submission
    path = _copy(graded_course, tmp_path)
    target = notebook_path(path, "submitted", "blank")
    target.unlink()
    target.symlink_to(notebook_path(path, "submitted", "solution"))
    with pytest.raises(Unreadable, match="symbolic links are refused"):
        read_submission(path, "blank")


def test_hide_hidden_tests_strips_graded_tracebacks():
    from nbformat.v4 import new_code_cell, new_output
    cell = new_code_cell("# Graded cell\n### BEGIN HIDDEN TESTS\nfrom autograder.flows.nbgrader_cell import "
                         "grade_part\ngrade_part('masks', globals())\n### END HIDDEN TESTS",
                         metadata={"nbgrader": {"grade": True, "solution": False, "grade_id": "masks_tests"}})
    cell.outputs = [new_output("error", ename="RuntimeError", evalue="boom",
                               traceback=['File "/work/autograder/engine/plugin.py", line 1', "RuntimeError: boom"])]
    out, _ = pp.HideHiddenTests().preprocess_cell(cell, {}, 0)
    assert out.source == "# Graded cell"
    assert out.outputs[0]["traceback"] == ["RuntimeError: boom"]


def test_export_writes_grades_csv(graded_course):
    rows = {r["student_id"]: r for r in csv.DictReader((graded_course["path"] / "grades.csv").open())}
    assert set(graded(graded_course)) <= set(rows)
    assert float(rows["solution"]["raw_score"]) == sum(m for _, m in graded_course["book"]["solution"].values())


def test_kernel_spec_is_this_venvs_isolated_kernel():
    argv = nc.check_kernel()
    assert Path(argv[0]).parent == Path(sys.executable).parent and argv[1:4] == ["-I", "-m", nc.KERNEL_MODULE]


def test_grading_inside_the_student_kernel_is_retired():
    with pytest.raises(ImportError, match="retired"):
        import autograder.flows.nbgrader_cell  # noqa: F401


# ---- niceties: the log, no spurious checksum warnings, feedback titles and wrapping, model answers ----
def flow_log(graded_course):
    logs = sorted((graded_course["path"] / "logs").glob("nbgrader-*.log"))
    assert logs, "the flow keeps nbgrader's whole log in COURSE/logs/"
    return logs[-1]


def autograde_log_by_student(text):
    """{student: the autograde log lines about that student} (nbgrader names each one as it starts)."""
    out, current = {}, None
    for line in text.splitlines():
        started = re.search(r"Creating/updating student with ID '([^']+)'", line)
        if started:
            current = started.group(1)
        if line.startswith("===== ") and "autograde" not in line:
            current = None
        if current:
            out.setdefault(current, []).append(line)
    return out


def test_the_full_nbgrader_log_is_kept_and_the_console_says_where(graded_course):
    path = flow_log(graded_course)
    assert str(path) in graded_course["run"].stdout, graded_course["run"].stdout[-2000:]
    text = path.read_text()
    for command in (f"nbgrader autograde {NAME}", f"nbgrader generate_feedback {NAME}",
                    "nbgrader export"):
        assert f"  {command}" in text, command
    assert "Creating/updating student with ID 'solution'" in text  # nbgrader's own INFO lines, not a summary


def test_untouched_test_cells_raise_no_checksum_warning(graded_course):
    """Test cells hold hidden tests only in the instructor notebook: an untouched released cell is restored
    silently; a test cell a student really changed is still reported by nbgrader."""
    per_student = autograde_log_by_student(flow_log(graded_course).read_text())
    for name in ORDINARY:
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
                assert shown.metadata.get("week7", {}).get("kind") == pp.MODEL_ANSWER, (name, grade_id)
                assert "nbgrader" not in shown.metadata
                assert "graders only" in shown.source
                for line in models[grade_id].splitlines():
                    assert line in shown.source
        assert sum(c.metadata.get("week7", {}).get("kind") == pp.MODEL_ANSWER for c in nb.cells) == 3
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
