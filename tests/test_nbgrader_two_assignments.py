"""Two assignments of ours and an ordinary one in ONE nbgrader course, each graded by the plain `nbgrader autograde`.

The course is an instructor's own (tests/flows/nbgrader_course.py: `nbgrader quickstart`, the install step for
week 7, the ordinary week0_basics); week 6 goes into the same folder by the same install step run with
``AUTOGRADER_ASSIGNMENT=solutions.week6_bigram`` (it adds the line `grade_in_sandbox(c, "solutions.week6_bigram")`).
Then, with nothing run before them, `nbgrader autograde week6_bigram`, `... week7_attention` and
`... week0_basics`, as typed. Week 6 is graded by its own package (its parts, suites and points) in its own
grading service and kernel, sandboxed as week 7 is (the same evidence tests/test_nbgrader_flow.py reads: a
record of the submitted bytes, the gradebook equal to it, nbgrader's notebook run by the isolated kernel, which
runs no code); week 7 is graded as before; week0_basics by nbgrader alone, exactly as in a course without our
lines. Student ann submits both of ours: the records of the two assignments never mix.
"""
import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import time
from dataclasses import replace

import nbformat
import pytest
from traitlets.config.loader import PyFileConfigLoader

from autograder.flows.nbgrader import REGISTERED, graded as graded_as, kernel_name, records_folder
from autograder.flows.nbgrader import client, course as nc, preprocessors as pp
from autograder.flows.nbgrader.record import load_record
from autograder.plugin_api import ASSIGNMENT_VARIABLE, DEFAULT_ASSIGNMENT
from flows.nbgrader_course import BIN, ORDINARY, instructor_course, nbgrader, ok, shell_env, submit_ordinary, \
    without_our_lines
from flows.shared import ROOT
from flows.submissions import dump, filled, replace_once

pytestmark = pytest.mark.slow

WEEK6, WEEK7 = graded_as("solutions.week6_bigram"), graded_as(DEFAULT_ASSIGNMENT)
# week 6: honest (the reference), blank (the release), one mistake (counts transposed: the bigram part only),
# and an honest notebook whose metadata claims to be week 7's (it is still week 6's, graded by week 6).
# week 7: ann honest, ben blank (ann has both: records of two assignments, one student).
WEEK6_KINDS = {"ann": "honest", "ben": "blank", "cy": "transposed", "mallory": "claims_week7"}
WEEK7_KINDS = {"ann": "honest", "ben": "blank"}


def _notebook(course, stage, name, student=None):
    folder = course / stage / (student or "") / name
    return folder / f"{name}.ipynb"


def _week6(kind, released, source):
    if kind == "blank":
        return released
    if kind == "transposed":
        return filled(released, source, {"bigram_solution": replace_once(
            "(ids[:-1], ids[1:]), torch.ones", "(ids[1:], ids[:-1]), torch.ones")})
    nb = filled(released, source)
    if kind == "claims_week7":  # what a student can change: the notebook's metadata; nothing reads it to choose
        nb.metadata["kernelspec"] = {"display_name": "week7", "language": "python", "name": WEEK7.kernel}
        nb.metadata["nbgrader"] = {"assignment": WEEK7.name, "package": DEFAULT_ASSIGNMENT}
        nb.metadata["week7"] = {"assignment": WEEK7.name}
    return nb


def _install_week6(course):
    env = dict(shell_env(), **{ASSIGNMENT_VARIABLE: WEEK6.package})
    return ok(subprocess.run([str(BIN / "python"), "-m", "autograder", "install-nbgrader", str(course)], cwd=ROOT,
                             env=env, capture_output=True, text=True, timeout=600))


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    started = time.monotonic()
    path = instructor_course(tmp_path_factory.mktemp("two"))  # quickstart, week 7 installed, week0_basics
    install = _install_week6(path)
    for name, kinds, make in ((WEEK6.name, WEEK6_KINDS, _week6),
                              (WEEK7.name, WEEK7_KINDS, lambda kind, r, s: r if kind == "blank" else filled(r, s))):
        released = nbformat.read(_notebook(path, "release", name), as_version=4)
        source = nbformat.read(_notebook(path, "source", name), as_version=4)
        for student, kind in kinds.items():
            dump(nbformat.writes(make(kind, released, source)), _notebook(path, "submitted", name, student))
    submit_ordinary(path)
    stock = tmp_path_factory.mktemp("stock") / "ml101"  # the same course without any of our lines
    shutil.copytree(path, stock, symlinks=True)
    without_our_lines(stock)
    config = stock / "nbgrader_config.py"
    config.write_text(config.read_text().split(f"\n# {WEEK6.name} is graded in the sandbox")[0] + "\n")
    setup = time.monotonic() - started
    runs, seconds = {}, {}
    try:
        for name in (WEEK6.name, WEEK7.name, ORDINARY):
            clock = time.monotonic()
            runs[name] = nbgrader(path, "autograde", name)  # nothing before it: no service, no record
            seconds[name] = time.monotonic() - clock
        runs["stock"] = nbgrader(stock, "autograde", ORDINARY)
        runs["feedback"] = nbgrader(path, "generate_feedback", WEEK6.name)
        # week 7's service asked for a week 6 grade (its socket, week 6's name): refused, never graded by week 7
        try:
            wrong = client.ask(path, client.grade_request("ann", {}, [], WEEK6.name), 60, WEEK7)
        except Exception as err:  # noqa: BLE001 - shown in the assertion
            wrong = {"ok": None, "error": repr(err)}
    finally:
        client.stop(path, WEEK7.name)
        client.stop(path, WEEK6.name)
    print(f"\nsetup {setup:.1f} s; nbgrader autograde " + ", ".join(f"{k} {v:.1f} s" for k, v in seconds.items()))
    return {"path": path, "stock": stock, "runs": runs, "install": install, "wrong": wrong,
            "book6": nc.gradebook_points(path, list(WEEK6_KINDS), auto=True, assignment=WEEK6),
            "book7": nc.gradebook_points(path, list(WEEK7_KINDS), auto=True, assignment=WEEK7)}


def _scores(book, student):
    assert book[student] is not None, f"{student} was not autograded"
    return {part: score for part, (score, _) in book[student].items()}


def test_each_autograde_succeeds(course):
    for name in (WEEK6.name, WEEK7.name, ORDINARY, "stock", "feedback"):
        run = course["runs"][name]
        assert run.returncode == 0, (name, run.stderr[-6000:])
    for student in WEEK6_KINDS:
        # each student's line in nbgrader's output (a record made ahead of nbgrader's request is a current one)
        assert re.search(rf"{WEEK6.name}: .*{student}: [\d.]+ / 100 \((graded in the sandbox|current record)\)",
                         course["runs"][WEEK6.name].stderr), student


def test_the_config_names_each_package(course):
    """Two lines per assignment of ours in the course's config; the preprocessors act on those two only."""
    text = (course["path"] / "nbgrader_config.py").read_text()
    assert re.search(r"^grade_in_sandbox\(c\)$", text, re.M)
    assert re.search(rf"^grade_in_sandbox\(c, '{re.escape(WEEK6.package)}'\)$", text, re.M)
    assert "added the two lines that grade week6_bigram" in course["install"].stdout
    assert _install_week6(course["path"]).stdout.count("already grades week6_bigram") == 1  # idempotent
    assert (course["path"] / "nbgrader_config.py").read_text() == text
    PyFileConfigLoader("nbgrader_config.py", path=str(course["path"])).load_config()  # registers what it names
    assert REGISTERED[WEEK6.name].package == WEEK6.package and REGISTERED[WEEK7.name].package == DEFAULT_ASSIGNMENT
    resources = {"nbgrader": {"assignment": WEEK6.name, "student": "x"}}
    assert pp.ours(resources) == WEEK6 and pp.ours({"nbgrader": {"assignment": ORDINARY}}) is None


def test_week6_is_graded_by_its_own_package(course):
    book = course["book6"]
    honest = _scores(book, "ann")
    assert set(honest) == set(WEEK6.parts) and sum(honest.values()) == 100, honest
    assert sum(_scores(book, "ben").values()) == 0
    mistake = _scores(book, "cy")
    assert 0 < mistake["bigram"] < honest["bigram"], mistake
    assert {p: s for p, s in mistake.items() if p != "bigram"} == {p: s for p, s in honest.items() if p != "bigram"}
    assert _scores(book, "mallory") == honest  # its metadata named week 7: graded as week 6 all the same


def test_week6_ran_sandboxed(course):
    """A record of exactly the submitted bytes (its own folder), the gradebook equal to it, and nbgrader's run of
    the notebook in week 6's isolated kernel, which runs no code (its language_info, each test cell's value the
    record's part score, nothing on stderr)."""
    from autograder.flows.nbgrader.kernel import IsolatedKernel

    path = course["path"]
    assert (path / records_folder(WEEK6.name)).is_dir() and records_folder(WEEK6.name) != "isolated"
    for student in WEEK6_KINDS:
        record = load_record(path, student, WEEK6.name)
        assert record is not None and record["assignment"] == WEEK6.name, student
        submitted = _notebook(path, "submitted", WEEK6.name, student).read_bytes()
        assert record["sha256"] == hashlib.sha256(submitted).hexdigest(), student
        assert _scores(course["book6"], student) == pytest.approx({p: v["score"] for p, v in record["parts"].items()})
        nb = nbformat.read(_notebook(path, "autograded", WEEK6.name, student), as_version=4)
        assert nb.metadata.language_info == IsolatedKernel.language_info, student
        assert nb.metadata.kernelspec.name == WEEK6.kernel == "week6-bigram-isolated", student
        cells = 0
        for cell in nb.cells:
            part = nc.part_of(cell.metadata.get("nbgrader", {}).get("grade_id"), WEEK6.parts)
            if part:
                cells += 1
                values = [o for o in cell.outputs if o.output_type == "execute_result"]
                assert [float(v.data["text/plain"]) for v in values] == [record["parts"][part]["score"]], part
                assert not [o for o in cell.outputs if o.get("name") == "stderr" or o.output_type == "error"]
        assert cells == len(WEEK6.parts), student
    with sqlite3.connect(path / "gradebook.db") as db:
        spec = db.execute("SELECT kernelspec FROM notebook WHERE name = ?", (WEEK6.name,)).fetchone()[0]
    assert json.loads(spec)["name"] == WEEK6.kernel
    released = nbformat.read(_notebook(path, "release", WEEK6.name), as_version=4)
    assert released.metadata.kernelspec.name == "python3"  # students open it in their own kernel
    log = (path / "logs" / f"grading-service-{WEEK6.name}.log").read_text()
    assert f"serving {WEEK6.name} of " in log and "graded mallory: 100 / 100" in log, log[-3000:]
    assert "error" in course["wrong"] and course["wrong"]["ok"] is False, course["wrong"]
    assert f"grades {WEEK7.name}, not '{WEEK6.name}'" in course["wrong"]["error"], course["wrong"]


def test_week6_feedback_has_no_hidden_tests(course):
    page = (course["path"] / "feedback" / "cy" / WEEK6.name / f"{WEEK6.name}.html").read_text()
    assert "Part bigram:" in page and "BEGIN HIDDEN TESTS" not in page and "grade_part" not in page


def test_the_kernel_is_the_one_the_package_declares_else_derived():
    """Week 7 declares its kernel's name of before the plug-ins (plugin_api.Assignment.kernel: gradebooks record it);
    week 6 declares none and gets `<name>-isolated`; a declared name that Jupyter would refuse is an error."""
    assert (WEEK7.facts.kernel, WEEK7.kernel) == ("week7-isolated", "week7-isolated")
    assert (WEEK6.facts.kernel, WEEK6.kernel) == ("", "week6-bigram-isolated")
    assert kernel_name(replace(WEEK6.facts, kernel="course-b.week6_isolated")) == "course-b.week6_isolated"
    with pytest.raises(ValueError, match="not a Jupyter kernel name"):
        kernel_name(replace(WEEK6.facts, kernel="week 6/isolated"))


def test_week7_is_graded_as_before(course):
    book, path = course["book7"], course["path"]
    full = _scores(book, "ann")
    assert sum(full.values()) == 100 and sum(_scores(book, "ben").values()) == 0, full
    for student in WEEK7_KINDS:
        record = load_record(path, student)  # COURSE/isolated/<student>/, as before
        assert record is not None and record["assignment"] == WEEK7.name
        assert _scores(book, student) == pytest.approx({p: v["score"] for p, v in record["parts"].items()})
        nb = nbformat.read(_notebook(path, "autograded", WEEK7.name, student), as_version=4)
        assert nb.metadata.kernelspec.name == "week7-isolated"
    assert (path / "logs" / "grading-service.log").exists()


def test_the_ordinary_assignment_is_nbgraders_own(course):
    """week0_basics: its test cells ran in python3; every score and autograded notebook as without our lines."""
    from nbgrader.api import Gradebook

    def grades(path):
        with Gradebook(f"sqlite:///{path / 'gradebook.db'}") as gb:
            return sorted((s, g.name, g.auto_score) for s in ("alice", "bob", "carol")
                          for g in gb.find_submission_notebook(ORDINARY, ORDINARY, s).grades)

    ours, stock = grades(course["path"]), grades(course["stock"])
    assert ours == stock and len(ours) == 6
    assert {s: sum(x for t, _, x in ours if t == s) for s in ("alice", "bob", "carol")} == \
        {"alice": 2, "bob": 1, "carol": 0}
    for student in ("alice", "bob", "carol"):
        nbs = [nbformat.read(_notebook(c, "autograded", ORDINARY, student), as_version=4)
               for c in (course["path"], course["stock"])]
        for nb in nbs:
            for cell in nb.cells:
                cell.metadata.pop("execution", None)
        assert nbformat.writes(nbs[0]) == nbformat.writes(nbs[1]), student
        shown = "".join(o.get("text", "") for c in nbs[0].cells for o in c.get("outputs", []))
        assert "kernel ZMQInteractiveShell" in shown, student  # an IPython kernel ran it: not an isolated one
