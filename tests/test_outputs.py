"""Every output survives what a submission controls, in every flow.

Unit tests (fast, no PyTorch): engine/safe_text.py and engine/submission_file.py, the
Gradescope upload finder and grade-all's discovery. End to end (slow, through the real
commands): the hostile cases of tests/corpus/hostile/_outputs/ graded by `grade` and by
`grade-all` beside honest neighbours, feedback levels, uploads that are not regular
files, notebooks over the size limit, and large honest notebooks.
"""
import csv
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from autograder.assignment import INSTRUCTOR_NOTEBOOK, NAME, NOTEBOOK_FILE, ROOT, STUDENT_NOTEBOOK
sys.path.insert(0, str(ROOT / "tests" / "corpus"))
from hostile import _outputs as corpus
from hostile import build as build_notebook

from autograder.engine import safe_text, submission_file
from autograder.engine.safe_text import REDACTED, Redactor, csv_cell, csv_text, grader_secrets, text, xml_text
from autograder.settings import FEEDBACK_LEVELS, Limits
from tests.points import points, total

LIMIT_MIB = Limits().notebook_mib  # the default every flow reads an upload within
LIMIT_BYTES = LIMIT_MIB << 20

NB = NOTEBOOK_FILE
SOLUTION = INSTRUCTOR_NOTEBOOK
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


# ---- safe_text ------------------------------------------------------------------------------------
def test_text_escapes_controls_and_surrogates():
    assert text("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert text("x\ry\bz\x00\x7f\x85") == "x\\x0dy\\x08z\\x00\\x7f\\x85"
    assert text("half \ud800 \udcff") == "half \\ud800 \\udcff"
    assert text("one\ntwo\tthree") == "one\\x0atwo\\x09three"
    assert text("one\ntwo\tthree", multiline=True) == "one\ntwo\tthree"
    assert text("rtl \u202e evil \u2066 zw\u200b") == "rtl \\u202e evil \\u2066 zw\\u200b"
    assert text("café 注意 ✓") == "café 注意 ✓"  # printable text is left alone
    for nasty in ("\ud800", "\x1b]0;title\x07", "\udcff\r\n"):
        text(nasty).encode("utf-8")  # never an encoding error
        text(nasty, multiline=True).encode("utf-8")

    class Hostile:
        def __str__(self):
            raise RuntimeError("no")
    assert text(Hostile()) == "<Hostile>"


def test_csv_cells_are_never_formulas():
    for value in ("=HYPERLINK(\"http://x\",\"y\")", "+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1", "\uff1d1"):
        cell = csv_cell(value)
        assert cell.startswith("'"), (value, cell)
        assert "\t" not in cell and "\r" not in cell
    assert csv_cell("alice") == "alice" and csv_cell("a=b") == "a=b"
    assert csv_cell(-3.5) == -3.5 and csv_cell(None) is None  # numbers stay numbers
    assert csv_cell("zo\udcffe") == "zo\\udcffe"


def test_csv_escaping_can_be_undone():
    """Two names never share a cell: a leading quote is escaped too, and csv_text undoes the escape."""
    names = ["=bob", "'=bob", "''=bob", "bob", "'bob", "-1", "O'Brien"]
    cells = [csv_cell(n) for n in names]
    assert len(set(cells)) == len(names), cells
    assert [csv_text(c) for c in cells] == names


def test_xml_text_always_parses():
    nasty = "a\x00b\x1b[31m\ud800\ufffe\uffff\x0c end"
    suite = ET.Element("testsuite", name=xml_text(nasty, False))
    ET.SubElement(suite, "failure", message=xml_text(nasty, False)).text = xml_text(nasty)
    parsed = ET.fromstring(ET.tostring(suite, encoding="unicode"))
    assert "\\x1b[31m" in parsed.get("name") and "\ufffe" not in parsed.get("name")


def test_grader_secrets_and_redaction():
    secrets = grader_secrets(
        environ={"LMS_TOKEN": "tok-1234567890", "SHORT": "abc", "LANG": "C.UTF-8", "EMPTY": ""},
        argv=["/srv/grader/.venv/bin/python", "-m", "autograder", "grade", NB, "--out", "/srv/out/results.json",
              "--part", "training", "--hide=/srv/private-dir", "--feedback", "values"],
        mounts=["/", "/proc", "/usr/lib/python3", "/srv/mounted-secrets", "/etc/hosts"])
    for secret in ("tok-1234567890", "/srv/grader/.venv/bin/python", "/srv/grader/.venv/bin",
                   "/srv/out/results.json", "/srv/private-dir", "/srv/mounted-secrets"):
        assert secret in secrets, secret
    for public in ("abc", "C.UTF-8", NB, "training", "values", "autograder", "--out", "/usr/lib/python3",
                   "/etc/hosts", ""):
        assert public not in secrets, public
    redact = Redactor(secrets)
    assert redact("x tok-1234567890 y /srv/out/results.json") == f"x {REDACTED} y {REDACTED}"
    assert redact("/srv/grader/.venv/bin/python3") == f"{REDACTED}3"  # the longest secret first
    assert redact("the lab's training run") == "the lab's training run"
    assert redact("cut: /srv/grader/.ve") == f"cut: {REDACTED}"  # a message cut inside a long secret
    assert redact("tok-12345") == "tok-12345"  # a short start of a short secret is no secret


def test_redaction_of_this_process(monkeypatch):
    marker = f"marker-{uuid.uuid4().hex}"
    monkeypatch.setenv("LMS_TOKEN", marker)
    monkeypatch.setattr(safe_text, "_redactor", None)
    try:
        assert safe_text.student(f"env: {marker}\x1b[0m") == f"env: {REDACTED}\\x1b[0m"
    finally:
        safe_text._redactor = None


def test_command_lines_parse_without_pytorch():
    """Why the shared settings have a module of their own (autograder/settings.py): every command's
    parser reads them, and the batch parent, which never grades, must not pay for importing PyTorch."""
    script = ("import sys; import autograder.cli, autograder.flows.batch, autograder.flows.gradescope.build; "
              "print('torch' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


# ---- submission_file -------------------------------------------------------------------------------
def test_reads_a_regular_notebook(tmp_path):
    path = tmp_path / NB
    path.write_bytes(b'{"cells": []}')
    assert submission_file.read_notebook(path, LIMIT_MIB) == b'{"cells": []}'


@pytest.mark.parametrize("kind,what", [("symlink", "a symbolic link"), ("fifo", "a named pipe (FIFO)"),
                                       ("directory", "a directory"), ("dangling", "a symbolic link")])
def test_refuses_what_is_not_a_regular_file(tmp_path, kind, what):
    path = tmp_path / NB
    target = tmp_path / "target.ipynb"
    target.write_text("{}")
    {"symlink": lambda: path.symlink_to(target), "fifo": lambda: os.mkfifo(path),
     "directory": lambda: path.mkdir(), "dangling": lambda: path.symlink_to(tmp_path / "gone")}[kind]()
    started = time.monotonic()
    with pytest.raises(submission_file.SubmissionFileError) as err:
        submission_file.read_notebook(path, LIMIT_MIB)
    assert time.monotonic() - started < 2  # a FIFO never blocks the reader
    assert str(err.value) == f"{NB} is {what}, not a regular file; upload the notebook file itself"
    assert err.value.kind == "not-a-notebook"


def test_refuses_a_device_and_a_missing_file(tmp_path):
    with pytest.raises(submission_file.SubmissionFileError, match="null is a device, not a regular file"):
        submission_file.read_notebook("/dev/null", LIMIT_MIB)
    with pytest.raises(submission_file.SubmissionFileError, match="does not exist") as err:
        submission_file.read_notebook(tmp_path / NB, LIMIT_MIB)
    assert err.value.kind == "no-notebook"


def test_size_limit_is_the_students(tmp_path):
    path = tmp_path / NB
    with open(path, "wb") as handle:  # sparse: costs no disk
        handle.truncate(LIMIT_BYTES + (1 << 20))
    with pytest.raises(submission_file.SubmissionFileError) as err:
        submission_file.read_notebook(path, LIMIT_MIB)
    assert err.value.kind == "too-large"
    limit = LIMIT_MIB
    assert str(err.value).startswith(f"your notebook {NB} is {limit + 1:.1f} MiB; the limit is {limit} MiB")
    path.write_bytes(b"x" * (1 << 20))
    assert len(submission_file.read_notebook(path, 1)) == 1 << 20
    path.write_bytes(b"x" * ((1 << 20) + 1))
    with pytest.raises(submission_file.SubmissionFileError, match="is 1.1 MiB; the limit is 1 MiB"):
        submission_file.read_notebook(path, 1)


def test_read_code_cells_uses_it(tmp_path):
    from autograder.engine.grade import NotebookError, read_code_cells
    link = tmp_path / NB
    link.symlink_to(ROOT / "autograder" / "engine" / "grade.py")
    with pytest.raises(NotebookError) as err:
        read_code_cells(link, LIMIT_MIB)
    assert "symbolic link, not a regular file" in str(err.value) and err.value.kind == "not-a-notebook"


# ---- finding uploads without following them ----------------------------------------------------------
def test_gradescope_find_notebook_follows_nothing(tmp_path):
    from autograder.flows.gradescope.run import find_notebook
    sub = tmp_path / "submission"
    sub.mkdir()
    (sub / NB).symlink_to(ROOT / "autograder" / "engine" / "grade.py")
    assert find_notebook(sub) == (sub / NB, "")  # found, then refused when read (same message everywhere)
    (sub / NB).unlink()
    os.mkfifo(sub / NB)
    assert find_notebook(sub) == (sub / NB, "")
    (sub / NB).unlink()
    (sub / "linked").symlink_to(STUDENT_NOTEBOOK.parent)  # a folder link is never entered
    notebook, problem = find_notebook(sub)
    assert notebook is None and "no Jupyter notebook" in problem and "linked" in problem
    (sub / "linked").unlink()
    (sub / NB).mkdir()
    (sub / NB / NB).write_text("{}")
    assert find_notebook(sub) == (sub / NB, "")  # the folder named like a notebook: refused when read


def test_grade_all_discovery(tmp_path):
    from autograder.flows.discover import discover
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "alice.ipynb").write_text("{}")
    (subs / '=HYPERLINK("x").ipynb').write_text("{}")
    (subs / "link.ipynb").symlink_to(ROOT / "autograder" / "engine" / "grade.py")
    os.mkfifo(subs / "fifo.ipynb")
    (subs / "dir.ipynb").mkdir()
    with open(subs / "big.ipynb", "wb") as handle:
        handle.truncate(LIMIT_BYTES + 1)
    (subs / "carol").mkdir()
    os.mkfifo(subs / "carol" / NB)
    (subs / os.fsdecode(b"zo\xffe.ipynb")).write_text("{}")
    (subs / "README.md").write_text("roster")
    found = {s.student: s for s in discover(subs, f"{NAME}", LIMIT_MIB)}
    assert set(found) == {"alice", '=HYPERLINK("x")', "link", "fifo", "dir", "big", "carol", "zo\udcffe"}
    for name in ("alice", '=HYPERLINK("x")', "zo\udcffe"):
        assert found[name].notebook is not None and not found[name].status
    expected = {"link": ("not-a-notebook", "link.ipynb is a symbolic link"),
                "fifo": ("not-a-notebook", "fifo.ipynb is a named pipe (FIFO)"),
                "dir": ("not-a-notebook", "dir.ipynb is a directory"),
                "carol": ("not-a-notebook", f"{NB} is a named pipe (FIFO)"),
                "big": ("too-large", "your notebook big.ipynb is")}
    for name, (status, detail) in expected.items():
        assert found[name].notebook is None and found[name].status == status, name
        assert found[name].detail.startswith(detail), found[name].detail


# ---- reports at each feedback level (no worker: a report built by hand) ------------------------------
def _report():
    from autograder.engine.grade import GradeReport
    from autograder.engine.plugin import TestResult
    from autograder.engine.supervisor import CellReport
    results = [
        TestResult("t1", "masks", "mask is (T, T) bool", 2.0, 0.0, "failed",
                   "`causal_mask_blocked` raised Evil\x1b[2K\r  total 100 / 100: \ud800", hint="HINT-TEXT"),
        TestResult("t2", "masks", "mask matches", 3.0, 3.0, "passed"),
        TestResult("t3", "positions", "positions shape", 4.0, 0.0, "grader-error",
                   "Autograder failed on this check; your instructor has the details. It is not your fault.",
                   internal="Traceback ..."),
    ]
    cells = [CellReport(4, {"type": "Odd\ud800Error", "message": "cell msg \x1b[31m", "function": "f\x1b"})]
    return GradeReport("week7\x1b[2J.ipynb", results, cells, problem="problem \x07", seconds=1.0)


@pytest.mark.parametrize("level", FEEDBACK_LEVELS)
def test_every_writer_at_every_level(level):
    from autograder.engine import report as rep
    report = _report()
    table = rep.table(report, level=level)
    data = rep.gradescope(report, level=level)
    xml = rep.junit(report, level=level)
    everything = table + json.dumps(data, ensure_ascii=False) + xml
    everything.encode("utf-8")
    assert "\x1b" not in everything and "\ud800" not in everything and "\r" not in everything
    ET.fromstring(xml)
    assert [line for line in table.splitlines() if line.strip().startswith("total")] == ["  total              3 / 9"]
    outputs = [t["output"] for t in data["tests"]]
    if level == "score":
        assert [t["name"] for t in data["tests"]] == ["masks", "Autograder failed: positions"]
        assert [(t["score"], t["max_score"]) for t in data["tests"]] == [(3.0, 5.0), (0.0, 4.0)]
        assert "mask is (T, T) bool" not in everything and "cell 5" not in everything
        assert len(ET.fromstring(xml)) == 2
    else:
        assert [t["name"] for t in data["tests"]] == ["mask is (T, T) bool", "mask matches",
                                                      "Autograder failed: positions shape"]
        assert "x mask is (T, T) bool" in table and "cell 5 raised Odd\\ud800Error in `f\\x1b`" in table
    if level in ("score", "checks"):
        assert "total 100" not in everything.replace("Score", "")
        assert "cell msg" not in everything and outputs[0] == ""
    if level in ("values", "hints"):
        assert outputs[0].startswith("`causal_mask_blocked` raised Evil\\x1b[2K\\x0d  total 100 / 100: \\ud800")
        assert "cell msg \\x1b[31m" in table
    assert ("HINT-TEXT" in everything) == (level == "hints")
    assert "problem \\x07" in table and "problem \\x07" in data["output"]


# ---- end to end -----------------------------------------------------------------------------------
def _hostile_notebook(folder, marker):
    import nbformat
    nb = build_notebook(SOLUTION, corpus.notebook_cases(), {"__MARKER__": marker})
    path = Path(folder) / NB
    nbformat.write(nb, str(path))
    return path


def _env(marker):
    return dict(os.environ, LMS_TOKEN=marker, PYTHONDONTWRITEBYTECODE="1")


def _expected_parts(cases):
    zero = {p for c in cases for p in c.ATTACKS}
    from hostile import blocked_by
    full = {p for c in cases for p in c.KEEPS} - blocked_by(zero)
    return zero, full


def _scores(results):
    parts = {}
    for test in results["tests"]:
        got, top = parts.get(test["tags"][0], (0.0, 0.0))
        parts[test["tags"][0]] = (got + test["score"], top + test["max_score"])
    return parts


def _assert_no_leak(outputs, markers):
    for name, content in outputs.items():
        for marker in markers:
            assert marker not in content, f"{marker} leaked into {name}"
        assert "\x1b" not in content and "\\u001b" not in content, f"a raw escape reached {name}"
        assert not any(0xD800 <= ord(c) <= 0xDFFF for c in content), f"a lone surrogate reached {name}"


@pytest.fixture(scope="module")
def hostile_grade(tmp_path_factory, solution_notebook):
    marker = f"lms-{uuid.uuid4().hex}"
    folder = tmp_path_factory.mktemp("hostile-text")
    notebook = _hostile_notebook(folder, marker)
    argv_secret = folder / f"argv-{uuid.uuid4().hex}"
    argv_secret.mkdir()
    out = folder / "out"
    out.mkdir()
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(notebook), "--out",
                          str(out / "results.json"), "--junit-xml", str(out / "junit.xml"), "--hide", str(argv_secret)],
                         cwd=ROOT, env=_env(marker), capture_output=True, timeout=900)
    return {"run": run, "marker": marker, "argv": argv_secret.name, "out": out}


@pytest.mark.slow
def test_grade_hostile_text(hostile_grade):
    run, out = hostile_grade["run"], hostile_grade["out"]
    stdout = run.stdout.decode("utf-8")  # strict: the table is valid UTF-8
    assert run.returncode == 0, run.stderr.decode(errors="replace")[-3000:]
    results = json.loads((out / "results.json").read_text())
    junit = (out / "junit.xml").read_text(encoding="utf-8")
    ET.fromstring(junit)
    _assert_no_leak({"stdout": stdout, "stderr": run.stderr.decode(errors="replace"),
                     "results.json": json.dumps(results, ensure_ascii=False), "junit": junit},
                    [hostile_grade["marker"], hostile_grade["argv"]])
    zero, full = _expected_parts(corpus.notebook_cases())
    scores = _scores(results)
    assert all(scores[p][0] == 0 for p in zero) and all(scores[p][0] == scores[p][1] for p in full), scores
    for case in corpus.notebook_cases():
        for expected in case.EXPECT:
            assert expected in results["output"] or any(expected in t["output"] for t in results["tests"]), expected
    # the attack ran; the worker's environment does not even hold the token (the redaction is the backstop)
    assert "LOOT token=None" in json.dumps(results)
    totals = [line for line in stdout.splitlines() if line.strip().startswith("total")]
    assert totals == [f"  total         {results['score']:>6g} / {total():g}"], totals


@pytest.mark.slow
@pytest.mark.parametrize("level", ["score", "checks", "values"])
def test_grade_feedback_levels(tmp_path, solution_notebook, level):
    """The same notebook at each level: what each shows (hints, the default, is test_grade_hostile_text)."""
    import nbformat
    from tests.batch.submissions import MASK_DIAGONAL, filled
    from tests.flows.shared import course
    _, released, source = course(tmp_path / "course")
    path = tmp_path / NB
    nbformat.write(filled(released, source, MASK_DIAGONAL), str(path))
    runs = {}
    for lvl in (level, "hints"):
        run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--out",
                              str(tmp_path / f"{lvl}.json"), "--part", "masks", "--feedback", lvl],
                             cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-3000:]
        runs[lvl] = (run.stdout, json.loads((tmp_path / f"{lvl}.json").read_text()))
    (table, data), (_, hints) = runs[level], runs["hints"]
    assert data["score"] == hints["score"] < points("masks")
    failed = [t for t in hints["tests"] if t["status"] == "failed"]
    if level == "score":
        assert [(t["name"], t["score"]) for t in data["tests"]] == [("masks", hints["score"])]
        assert "x " not in table
    else:
        assert [t["name"] for t in data["tests"]] == [t["name"] for t in hints["tests"]]
        outputs = {t["name"]: t["output"] for t in data["tests"]}
        for test in failed:
            if level == "checks":
                assert outputs[test["name"]] == "" and f"x {test['name']}" in table.replace("\n        ", " ")
            else:
                assert outputs[test["name"]] and test["output"].startswith(outputs[test["name"]])
        if level == "values":
            assert any(outputs[t["name"]] != t["output"] for t in failed), "no check of the part has a hint"


@pytest.fixture(scope="module")
def batch(tmp_path_factory, solution_notebook):
    """grade-all over honest neighbours, the hostile-text notebook and every hostile upload; then a rerun."""
    marker = f"lms-{uuid.uuid4().hex}"
    base = tmp_path_factory.mktemp("batch-outputs")
    subs = base / "submissions"
    subs.mkdir()
    honest = SOLUTION.read_text()
    (subs / "alice.ipynb").write_text(honest)
    (subs / "bob").mkdir()
    (subs / "bob" / NB).write_text(honest.replace('"cells": [', '"cells": [{"cell_type": "markdown", '
                                                  '"metadata": {}, "source": "bob"}, ', 1))
    (subs / "mallory").mkdir()
    _hostile_notebook(subs / "mallory", marker)
    (subs / os.fsdecode(b"zo\xffe.ipynb")).write_text(honest)  # a file name that is not UTF-8
    for case in corpus.upload_cases():
        student = subs / case.__name__.rsplit(".", 1)[1]
        student.mkdir()
        _upload(case, student)
    with open(subs / "huge.ipynb", "wb") as handle:
        handle.truncate(LIMIT_BYTES + (1 << 20))
    out = base / "grades" / "grades.csv"
    cmd = [sys.executable, "-m", "autograder", "grade-all", str(subs), "--out", str(out), "--jobs", "2"]
    first = subprocess.run(cmd, cwd=ROOT, env=_env(marker), capture_output=True, timeout=1500)
    log_size = Path(f"{out.with_suffix('')}.log").stat().st_size if first.returncode == 0 else 0
    second = subprocess.run(cmd, cwd=ROOT, env=_env(marker), capture_output=True, timeout=900)
    return {"first": first, "second": second, "out": out, "marker": marker, "subs": subs, "log_size": log_size}


def _upload(case, folder, root=ROOT):
    path = folder / case.UPLOAD["name"]
    kind = case.UPLOAD["kind"]
    if kind == "symlink":
        path.symlink_to(root / case.UPLOAD["target"])
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
        (path / NB).write_text(SOLUTION.read_text())
    else:
        path.write_text(SOLUTION.read_text())
    return path


def _read_csv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.slow
def test_grade_all_one_submission_never_stops_the_batch(batch):
    first = batch["first"]
    assert first.returncode == 0, first.stderr.decode(errors="replace")[-3000:]
    rows = {r["student"]: r for r in _read_csv(batch["out"])}
    expected = {"alice": "graded", "bob": "graded", "mallory": "graded", "zo\\udcffe": "graded",
                "huge": "too-large", **{c.__name__.rsplit(".", 1)[1]: c.STATUS for c in corpus.upload_cases()}}
    assert {s: r["status"] for s, r in rows.items()} == expected
    for student in ("alice", "bob", "zo\\udcffe", "hyperlink_name"):
        assert float(rows[student]["total"]) == total(), rows[student]
    zero, full = _expected_parts(corpus.notebook_cases())
    assert all(float(rows["mallory"][p]) == 0 for p in zero), rows["mallory"]
    assert all(float(rows["mallory"][p]) > 0 for p in full), rows["mallory"]
    for case in corpus.upload_cases():
        row = rows[case.__name__.rsplit(".", 1)[1]]
        assert row["detail"].startswith(case.MESSAGE), row
        if case.STATUS != "graded":
            feedback = batch["out"].parent / "grades_feedback" / case.__name__.rsplit(".", 1)[1]
            assert case.MESSAGE in json.loads((feedback / "results.json").read_text())["output"]
    assert rows["huge"]["detail"].startswith("your notebook huge.ipynb is 33.0 MiB; the limit is 32 MiB")


@pytest.mark.slow
def test_grade_all_csv_cells_and_outputs_are_safe(batch):
    out, marker = batch["out"], batch["marker"]
    assert batch["first"].returncode == 0
    raw = out.read_text(encoding="utf-8")
    for row in csv.reader(raw.splitlines()):
        for cell in row:
            assert not cell.startswith(FORMULA_START) or _number(cell), (cell, row)
    outputs = {"grades.csv": raw, "stdout": batch["first"].stdout.decode("utf-8"),
               "stderr": batch["first"].stderr.decode("utf-8", errors="replace"),
               "grades.log": Path(f"{out.with_suffix('')}.log").read_text(encoding="utf-8")}
    for path in (out.parent / "grades_feedback").rglob("*"):
        if path.is_file():
            outputs[str(path)] = path.read_text(encoding="utf-8")
    _assert_no_leak(outputs, [marker])
    mallory = (out.parent / "grades_feedback" / "mallory" / "feedback.txt").read_text()
    got = float({r["student"]: r for r in _read_csv(out)}["mallory"]["total"])
    assert [line for line in mallory.splitlines() if line.strip().startswith("total")] == \
        [f"  total         {got:>6g} / {total():g}"]
    assert "\\x1b[2K" in mallory and "LOOT token=None" in json.dumps(
        json.loads((out.parent / "grades_feedback" / "mallory" / "results.json").read_text()))


def _number(cell):
    try:
        float(cell)
        return True
    except ValueError:
        return False


@pytest.mark.slow
def test_grade_all_hyperlink_name_at_top_level(tmp_path, solution_notebook):
    """A formula file name as the student id itself (the first CSV cell), graded beside an honest neighbour."""
    subs = tmp_path / "subs"
    subs.mkdir()
    name = '=HYPERLINK("https:example.invalid","click me")'
    (subs / f"{name}.ipynb").write_text(SOLUTION.read_text())
    (subs / "alice.ipynb").write_text(SOLUTION.read_text())
    out = tmp_path / "grades.csv"
    run = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(subs), "--out", str(out),
                          "--part", "masks"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    rows = {r["student"]: r for r in _read_csv(out)}
    assert set(rows) == {"'" + name, "alice"}
    assert rows["'" + name]["notebook"] == "'" + name + ".ipynb"
    assert float(rows["'" + name]["total"]) == float(rows["alice"]["total"]) == points("masks")
    assert (tmp_path / "grades_feedback" / name / "results.json").exists()


@pytest.mark.slow
def test_grade_all_rerun_resumes(batch):
    second, out = batch["second"], batch["out"]
    assert second.returncode == 0, second.stderr.decode(errors="replace")[-3000:]
    with open(f"{out.with_suffix('')}.log", encoding="utf-8") as handle:
        handle.seek(batch["log_size"])
        rerun = handle.read()
    assert " graded " not in rerun, rerun
    assert rerun.count(" reused ") == 5  # alice, bob, mallory, the non-UTF-8 name, the =HYPERLINK name
    assert len(_read_csv(out)) == 9


# ---- size: over the limit is the student's; large and honest grades ---------------------------------
@pytest.mark.slow
def test_grade_notebook_over_the_limit(tmp_path):
    path = tmp_path / NB
    with open(path, "wb") as handle:
        handle.truncate(LIMIT_BYTES + (3 << 19))
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--out",
                          str(tmp_path / "results.json")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]  # the student's failure, not a grader fault
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["score"] == 0 and not any(t["name"].startswith("Autograder failed") for t in results["tests"])
    assert f"your notebook {NB} is 33.5 MiB; the limit is 32 MiB" in results["output"]


def large_notebook(path, mib=5):
    """The solution with a big data literal in one cell (> 1 MiB) and a long comment in another."""
    import nbformat
    nb = nbformat.read(str(SOLUTION), as_version=4)
    values = ", ".join(f"{(i * 7919 % 100003) / 100003:.9f}" for i in range(int(mib * 0.8 * (1 << 20) / 13)))
    nb.cells.append(nbformat.v4.new_code_cell(f"MEASUREMENTS = [{values}]\nassert len(MEASUREMENTS) > 1000\n"))
    nb.cells.append(nbformat.v4.new_code_cell("# " + "notes " * int(mib * 0.2 * (1 << 20) / 6) + "\nx = 1\n"))
    nbformat.write(nb, str(path))
    assert path.stat().st_size >= mib << 20
    return path


@pytest.mark.slow
def test_large_honest_notebook_grades(tmp_path, solution_notebook):
    """5 MiB (a 4 MiB literal in one cell): full points through `grade` and `grade-all`."""
    (tmp_path / "subs").mkdir()
    path = large_notebook(tmp_path / "subs" / "big.ipynb")
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(path), "--out",
                          str(tmp_path / "results.json")], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["score"] == total(), results["output"] + "\n" + "\n".join(
        f"{t['name']}: {t['output']}" for t in results["tests"] if t["score"] < t["max_score"])[:3000]
    (tmp_path / "subs" / "alice.ipynb").write_text(SOLUTION.read_text())
    out = tmp_path / "grades.csv"
    run = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(tmp_path / "subs"), "--out", str(out),
                          "--jobs", "2"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    rows = {r["student"]: r for r in _read_csv(out)}
    assert run.returncode == 0, run.stderr[-3000:]
    assert (rows["big"]["status"], float(rows["big"]["total"])) == ("graded", total()), rows["big"]
    assert float(rows["alice"]["total"]) == total()



def test_an_earlier_results_file_is_removed_and_nothing_else(tmp_path):
    """Before grading, `grade` removes an earlier results file so that nobody takes it for this run's; only a
    regular file. (`--out /dev/null`, as `make bench` writes, once unlinked the machine's /dev/null as root.)"""
    from autograder.cli import _remove

    old = tmp_path / "results.json"
    old.write_text("{}")
    fifo, folder, link = tmp_path / "fifo", tmp_path / "folder", tmp_path / "link"
    os.mkfifo(fifo)
    folder.mkdir()
    link.symlink_to(old)
    for kept in (fifo, folder, link):
        _remove(str(kept))
        assert os.path.lexists(kept), kept
    _remove(str(old))
    assert not old.exists()
    _remove(str(tmp_path / "missing.json"))


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root")
def test_grade_out_to_a_device_leaves_the_device(tmp_path):
    import stat

    null = tmp_path / "null"
    os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a second /dev/null
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(STUDENT_NOTEBOOK), "--out", str(null)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert stat.S_ISCHR(os.lstat(null).st_mode)
