"""`python -m autograder grade-all`: 20 mixed submissions, outputs, equality with `grade`, resume after SIGKILL."""
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from xml.etree import ElementTree

import psutil
import pytest

from autograder import PARTS
from tests.batch.submissions import build

from autograder.assignment import NAME, ROOT
from tests.points import points, total
pytestmark = pytest.mark.slow


def command(folder, out, *extra):
    return [sys.executable, "-m", "autograder", "grade-all", str(folder), "--out", str(out), "--jobs", "2", *extra]


def grade_all(folder, out, *extra):
    proc = subprocess.run(command(folder, out, *extra), cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def scores(rows):
    return {r["student"]: (r["status"], r["total"], *(r[p] for p in PARTS)) for r in rows}


@pytest.fixture(scope="module")
def submissions(tmp_path_factory, solution_notebook, student_notebook):
    folder = tmp_path_factory.mktemp("batch") / "submissions"
    folder.mkdir()
    return folder, build(folder, student_notebook, solution_notebook)


@pytest.fixture(scope="module")
def full_run(submissions, tmp_path_factory):
    folder, _ = submissions
    out = tmp_path_factory.mktemp("full") / "grades.csv"
    started = time.monotonic()
    proc = grade_all(folder, out)
    print(f"uninterrupted grade-all of 20 submissions, --jobs 2: {time.monotonic() - started:.0f} s")
    return out, proc, read_csv(out)


def test_one_row_per_submission_with_its_status(submissions, full_run):
    _, expected = submissions
    out, _, rows = full_run
    assert list(rows[0]) == ["student", *PARTS, "total", "status", "seconds", "notebook", "sha256", "detail"]
    assert {r["student"]: r["status"] for r in rows} == expected
    for r in rows:
        assert float(r["total"]) == pytest.approx(sum(float(r[p]) for p in PARTS)), r
        assert float(r["seconds"]) >= 0


def test_scores_of_known_submissions(full_run):
    _, _, rows = full_run
    by = {r["student"]: r for r in rows}
    for student in ("alice", "bob", "erin", "frank", "paul", "rose"):  # the solution, in every layout
        assert float(by[student]["total"]) == total(), by[student]
    for student in ("carol", "dave", "gina", "quinn", "kate", "leo", "nora", "oscar"):
        assert float(by[student]["total"]) == 0, by[student]
    assert float(by["hank"]["masks"]) < points("masks") and float(by["hank"]["training"]) < points("training")  # diagonal=0
    assert float(by["ivy"]["softmax_read"]) < points("softmax_read") and float(by["ivy"]["masks"]) == points("masks")  # no 1/sqrt(dk)
    assert float(by["jack"]["targets"]) < points("targets") \
        and float(by["jack"]["softmax_read"]) == points("softmax_read")  # swapped shift
    for copy, original in (("sam", "hank"), ("mia", "hank"), ("tom", "ivy")):
        assert scores([by[copy]])[copy] == scores([by[original]])[original]
    assert "several notebooks" in by["oscar"]["detail"] and "final.ipynb" in by["oscar"]["detail"]


def test_feedback_files_summary_and_histograms(full_run):
    out, proc, rows = full_run
    feedback = out.parent / "grades_feedback"
    for r in rows:
        results = json.loads((feedback / r["student"] / "results.json").read_text())
        assert results["score"] == pytest.approx(float(r["total"]))
        assert {"score", "output", "tests"} <= set(results) and results["tests"]
        text = (feedback / r["student"] / "feedback.txt").read_text()
        assert text.startswith(r["student"]) and "total" in text
        others = [o["student"] for o in rows if o["student"] != r["student"]]
        assert not any(f"{o}/" in text.splitlines()[0] for o in others), text.splitlines()[0]
    for name in (*PARTS, "total"):
        drawing = ElementTree.parse(out.parent / "grades_plots" / f"{name}.svg").getroot()
        assert drawing.tag == "{http://www.w3.org/2000/svg}svg" and name in drawing.get("aria-label"), name
    summary = json.loads((out.parent / "grades_summary.json").read_text())
    totals = sorted(float(r["total"]) for r in rows)
    assert summary["submissions"] == 20
    assert summary["total"]["mean"] == pytest.approx(sum(totals) / 20, abs=1e-3)
    assert summary["total"]["median"] == pytest.approx((totals[9] + totals[10]) / 2)
    assert set(summary["parts"]) == set(PARTS)
    assert "median" in proc.stdout and "mean" in proc.stdout
    assert (out.parent / "grades_summary.txt").read_text().strip() in proc.stdout
    assert "20/20" in proc.stderr  # the progress bar


@pytest.mark.parametrize("student,notebook", [("hank", f"hank/{NAME}.ipynb"), ("leo", "leo.ipynb")])
def test_same_results_as_the_single_notebook_cli(submissions, full_run, tmp_path, student, notebook):
    folder, _ = submissions
    out, _, _ = full_run
    single = tmp_path / "results.json"
    subprocess.run([sys.executable, "-m", "autograder", "grade", str(folder / notebook), "--out", str(single)],
                   cwd=ROOT, capture_output=True, check=True, timeout=600)
    alone = json.loads(single.read_text())
    batch = json.loads((out.parent / "grades_feedback" / student / "results.json").read_text())
    assert batch["score"] == alone["score"]
    assert [(t["name"], t["score"], t["status"]) for t in batch["tests"]] == \
        [(t["name"], t["score"], t["status"]) for t in alone["tests"]]


def test_resumes_after_sigkill_without_regrading_finished_results(submissions, full_run, tmp_path):
    folder, _ = submissions
    out = tmp_path / "grades.csv"
    feedback = tmp_path / "grades_feedback"
    run = subprocess.Popen(command(folder, out), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    deadline = time.monotonic() + 900
    while not list(feedback.glob("*/record.json")) and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.2)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    assert not out.exists(), "grade-all finished before it could be killed halfway"
    time.sleep(1)
    survivors = [p for p in psutil.process_iter(["pid", "status"])
                 if _pgid(p.pid) == run.pid and p.info["status"] != psutil.STATUS_ZOMBIE]
    assert not survivors, survivors  # its grading processes, templates and workers went with it

    finished = {p.parent.name: p.stat().st_mtime_ns for p in feedback.glob("*/record.json")}
    assert finished
    for student in finished:  # nothing half-written
        json.loads((feedback / student / "results.json").read_text())
        json.loads((feedback / student / "record.json").read_text())
    log = Path(f"{out.with_suffix('')}.log")
    before = log.stat().st_size

    grade_all(folder, out)
    with open(log) as handle:
        handle.seek(before)
        rerun = handle.read()
    graded = {line.split()[2] for line in rerun.splitlines() if line.split()[1:2] == ["graded"]}
    reused = {line.split()[2] for line in rerun.splitlines() if line.split()[1:2] == ["reused"]}
    assert set(finished) <= reused and not set(finished) & graded, (finished, graded)
    assert graded, "the kill came after every submission was graded"
    assert {p.parent.name: p.stat().st_mtime_ns for p in feedback.glob("*/record.json")
            if p.parent.name in finished} == finished
    _, _, uninterrupted = full_run
    assert scores(read_csv(out)) == scores(uninterrupted)

    grade_all(folder, out)  # a third run grades nothing
    with open(log) as handle:
        handle.seek(before)
        third = handle.read().split("done:", 1)[1]
    assert " graded " not in third and third.count(" reused ") == 18  # every row with a notebook


def _pgid(pid):
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def _outside_tmp():
    """A scratch folder the worker's fresh /tmp does not already hide (only meaningful as root)."""
    for base in ("/srv", "/opt", "/mnt"):
        if os.path.isdir(base) and os.access(base, os.W_OK):
            scratch = Path(tempfile.mkdtemp(prefix="week7-batch-", dir=base))
            scratch.chmod(0o755)  # readable by anyone: only the grader's hiding may stop the worker
            return scratch
    return None


SNOOP = '''import os
def stable_softmax(scores, dim=-1):
    seen = []
    for i, folder in enumerate({folders!r}):
        try:
            seen.append(f"{{i}}=" + ",".join(sorted(os.listdir(folder))))
        except OSError as err:
            seen.append(f"{{i}}={{type(err).__name__}}")
    try:
        with open({victim!r}, "w") as handle:
            handle.write("overwritten")
        seen.append("WROTE")
    except OSError as err:
        seen.append(f"write={{type(err).__name__}}")
    raise RuntimeError("SEEN " + " ".join(seen))
'''


@pytest.mark.skipif(os.geteuid() != 0, reason="the worker is only confined (namespaces, hidden folders) as root")
def test_a_submission_cannot_see_or_alter_the_others(student_notebook):
    import shutil

    import nbformat

    scratch = _outside_tmp()
    if scratch is None:
        pytest.skip("no writable folder outside /tmp")
    try:
        subs, out = scratch / "submissions", scratch / "out" / "grades.csv"
        victim = subs / "victim" / f"{NAME}.ipynb"
        victim.parent.mkdir(parents=True)
        victim.write_text(student_notebook.read_text())
        nb = nbformat.read(student_notebook, as_version=4)
        nb.cells.append(nbformat.v4.new_code_cell(SNOOP.format(
            folders=(str(subs), str(subs / "victim"), str(out.parent), str(out.parent / "grades_feedback")),
            victim=str(victim))))
        (subs / "snoop.ipynb").write_text(nbformat.writes(nb))
        proc = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(subs), "--out", str(out),
                               "--part", "softmax_read"], cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        results = json.loads((out.parent / "grades_feedback" / "snoop" / "results.json").read_text())
        seen = next(t["output"] for t in results["tests"] if "SEEN" in t["output"])
        seen = seen[seen.index("SEEN"):]
        assert "victim" not in seen and "snoop" not in seen and "grades" not in seen, seen
        # The submissions folder is hidden: an empty mount, or not there at all (its top-level
        # directory is outside the system directories the worker may see).
        assert "0= " in seen or "0=FileNotFoundError" in seen, seen
        assert "WROTE" not in seen, seen
        assert victim.read_text() == student_notebook.read_text()
        assert {r["student"] for r in read_csv(out)} == {"snoop", "victim"}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def test_a_part_run_refuses_to_merge_into_a_csv_with_other_parts(tmp_path, student_notebook):
    """`grade-all --part P` into a CSV holding other parts' points would drop them from the merged rows: refused
    before anything is graded (the previous rows are read back as typed rows, flows/records.py)."""
    from autograder.flows import batch_summary
    from autograder.flows.records import ClassRow

    folder = tmp_path / "subs"
    folder.mkdir()
    (folder / "ann.ipynb").write_bytes(Path(student_notebook).read_bytes())
    out = tmp_path / "grades.csv"
    other = PARTS[-1]
    batch_summary.write_csv([ClassRow(student="ann", status="graded", total=3.0, parts={other: 3.0})], out)
    before = out.read_bytes()
    proc = subprocess.run(command(folder, out, "--part", PARTS[0]), cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert f"holds points of {other}" in proc.stderr
    assert out.read_bytes() == before and not (tmp_path / "grades_feedback" / "ann").exists()
