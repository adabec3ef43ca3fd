"""Every command in the README and the manual under docs/ works as written on a fresh clone (issues 12, 30).

Which commands. They are read from README.md and then each file of docs/, in the order MANUAL declares (a new
file under docs/ must be added there, or test_the_manual_is_every_doc fails): every line of a ```bash block
(trailing comments dropped; a `# or: CMD` comment is a command too, and a comment line that
starts with `[` continues the one above it) and every inline code span of the prose that
starts like a command (`make …`, `python -…`, `.venv/bin/…`, `../../.venv/bin/…`, `cd …`,
`git …`, `VAR=value…`). Each must be in PLAN: run for real, run as `make -n` only, skipped, or a
name in a sentence rather than a command to type; all but the first with the reason.
`test_every_readme_command_is_planned` (fast) fails on a README command PLAN does not know,
and on a PLAN entry the README no longer has, so a new command is run or its skip justified:
`run()` (exit 0, plus any check) is the one-line entry for a command that can run here.

How they run (slow). `git clone` of this checkout into a temporary folder, checked out at
HEAD plus the uncommitted changes to tracked files (`git stash create`, which changes neither
the work tree nor any ref); untracked files are not in it, as they would not be in anyone's
clone. Then the commands in the README's order (a step's `after` moves it: regrading one
student needs the class graded first), each as `bash -c` from the clone's root (or
the folder the README names), in the environment of a shell that never activated anything:
no virtualenv's bin/ on PATH (the one `make test` puts there is removed), no VIRTUAL_ENV,
PYTHONPATH, PYTHONHASHSEED or make variables. The README's placeholders become real paths
(PLACEHOLDERS; every `[--option]` is given); what the README tells a person to do between
commands (put submissions in build/course/submitted/, unzip the Gradescope zip, fill in
hand.csv) is done by the step's `before`. The class is two notebooks in `submissions/`: ada
(the instructor notebook, every solution) and bob (the blank student notebook). Each command's
exit code and what the README promises of it (files written, scores, exit 2, what the
feedback level puts in the zip, ...) are checked, and at the end `git status` of the clone is
clean: .gitignore covers everything the commands wrote. The clone (~1.5 GB with its venv) is
deleted afterwards.

What is fresh and what is not. Fresh: the clone, its `.venv` (a real `make install` through
the README's first command `make release`: a new venv, the pinned requirements, the package
installed editable from the clone, and both kernels), its `build/` (course, secret, reference cache) and every file
the commands write. Shared with the machine: pip's download cache (so the install takes
~40 s, not a download; CI's own fresh clone proves the same install), the system's python3
and Debian packages (`make install-pdf` finds Chromium there once `make test` installed it),
and HOME's configuration.
"""
import csv
import json
import os
import re
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import pytest

from autograder.assignment import COURSE, NAME, PART_IDS, ROOT, STUDENT_NOTEBOOK, course_notebook
from tests.fresh import fresh_clone, shell_env
from tests.points import total

# The manual, in the order its commands run: README.md, then docs/. The order matters: nbgrader.md's course
# is graded before class.md's hand scores go into its gradebook, gradescope.md's zip is built before it is run.
MANUAL = ["README.md", "docs/install.md", "docs/assignment.md", "docs/authoring.md", "docs/settings.md", "docs/grading.md",
          "docs/nbgrader.md", "docs/gradescope.md", "docs/class.md", "docs/student-ci.md", "docs/security.md",
          "docs/speed.md", "docs/layout.md", "docs/history.md"]
README = "\n".join((ROOT / name).read_text() for name in MANUAL)
GRADESCOPE_ROOT = "../gradescope-root"  # relative, as the README allows; outside the clone's tree
INSTRUCTOR_COURSE = "../ml101"  # "a course of your own": outside the clone's tree
# README placeholder -> what the test types, in this order; `[--option]` means the option is given.
PLACEHOLDERS = [
    (r"path/to/notebook\.ipynb", "submissions/ada.ipynb"),
    (r"NOTEBOOK=path\.ipynb", "NOTEBOOK=submissions/ada.ipynb"),
    (r"\bNOTEBOOK\b(?!=)", "submissions/bob.ipynb"),
    (r"PART=…", "PART=masks"),
    (r"FEEDBACK=…", "FEEDBACK=values"),
    (r"\bROOT\b", GRADESCOPE_ROOT),
    (r"<part>", "masks"),
    (r"\bthat-folder/", "../regrade/"),  # the few students to regrade; outside the clone's tree
    (r"~/courses/ml101", INSTRUCTOR_COURSE),
    (r"--student alice", "--student ada"),
    (r"\[([^\]]*)\]", r"\1"),
]
COMMAND_START = re.compile(r"(make( |$)|python3? -|\.venv/|\.\./\.\./\.venv/|cd |git |[A-Z_]+=\S)")
COURSE_REL = COURSE.relative_to(ROOT)
STUDENT_REL = STUDENT_NOTEBOOK.relative_to(ROOT)
PARTS = len(PART_IDS)


# ---- the README's commands -----------------------------------------------------------------------------------

def _block_commands(block):
    commands = []
    for line in block.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            comment = stripped[1:].strip()
            if comment.startswith("or: "):
                commands.append(comment[4:])
            elif comment.startswith("[") and commands:  # continues the command above
                commands[-1] += " " + comment
            continue  # an instruction to a person (done by a step's `before`)
        if stripped:
            commands.append(re.split(r"\s+#\s", stripped)[0])
    return commands


def typed_form(written):
    """The README's command with its placeholders replaced (PLACEHOLDERS)."""
    for pattern, value in PLACEHOLDERS:
        written = re.sub(pattern, value, written)
    return written


def readme_commands(text=README):
    """[(README text, the command the test types)] in the README's order, each typed form once."""
    found = []
    for match in re.finditer(r"(?ms)^```(\w*)\n(.*?)^```|`([^`\n]+)`", text):
        if match.group(1) == "bash":
            found += _block_commands(match.group(2))
        elif match.group(3) and COMMAND_START.match(match.group(3)):
            found.append(match.group(3))
    commands = {}
    for written in found:
        written = " ".join(written.split())
        commands.setdefault(typed_form(written), written)
    return [(written, typed) for typed, written in commands.items()]


# ---- the plan: what happens to each command ------------------------------------------------------------------

@dataclass
class Step:
    kind: str  # run | dry (make -n) | skip | prose
    reason: str = ""
    check: Optional[Callable] = None  # (clone, output) -> None, asserting what the README promises
    before: Optional[Callable] = None  # (clone) -> None: what the README tells a person to do first
    returncode: int = 0
    cwd: str = "."
    stdin: Optional[str] = None
    after: Optional[str] = None  # run right after this command, not at its own place in the README
    venv: bool = False  # in the shell the README activated the venv in (`source .venv/bin/activate`)


def run(check=None, **kw):
    return Step("run", check=check, **kw)


def dry(reason, check=None):
    return Step("dry", reason, check=check)


def skip(reason, check=None):
    return Step("skip", reason, check=check)


def prose(reason):
    return Step("prose", reason)


def through_make(command, cost):
    """A `# or: make ...` line: the command above it, typed by make; make -n checks it types that command."""
    return dry(f"the line above through make ({cost}); make -n checks it types that command",
               check=has(command))


def has(*needles):
    def check(clone, out):
        for needle in needles:
            assert needle in out, f"expected {needle!r} in the output"
    return check


def rows(path):
    return {row["student"]: row for row in csv.DictReader(path.open())}


def results_score(path):
    return json.loads(path.read_text())["score"]


def made_release(clone, out):
    assert "Release ready." in out
    for path in (COURSE_REL / "gradebook.db", course_notebook(COURSE_REL, "release"), course_notebook(COURSE_REL),
                 STUDENT_REL, Path(".venv/.installed")):
        assert (clone / path).is_file(), f"{path} missing after `make release`"


def installed(clone, out):  # the two kernels the README names (`make release` alone needs only the first)
    for kernel in ("python3", "week7-isolated"):
        assert (clone / f".venv/share/jupyter/kernels/{kernel}/kernel.json").is_file(), f"no kernel {kernel}"


def cleaned(clone, out):
    assert not (clone / "build/cache").exists(), "make clean left build/cache"
    assert (clone / COURSE_REL / "gradebook.db").is_file(), "make clean removed the course"
    assert (clone / ".venv/.installed").is_file()


def graded_solution(clone, out):
    assert results_score(clone / "results.json") == total()


def graded_blank_with_options(clone, out):
    results = json.loads((clone / "results.json").read_text())
    assert results["score"] == 0 and results["tests"]
    assert all(t["tags"] == ["masks"] and t["visibility"] == "after_due_date" for t in results["tests"])
    assert ET.parse(clone / "junit.xml").getroot().iter("testcase")


def zipped(**settings):
    """The zip carries these settings as data (autograder.toml: FEEDBACK=... is feedback, VISIBILITY=...)."""
    def check(clone, out):
        import tomllib
        with zipfile.ZipFile(clone / "build/gradescope/autograder.zip") as zf:
            carried = tomllib.loads(zf.read("autograder.toml").decode())
        for name, value in settings.items():
            assert carried[name.lower()] == value, f"the zip's settings have {name.lower()}={carried[name.lower()]!r}"
    return check


def submit_to_course(clone):
    for student in ("ada", "bob"):
        target = clone / course_notebook(COURSE_REL, "submitted", student)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(clone / "submissions" / f"{student}.ipynb", target)


def nbgraded(clone, out):
    grades = {row["student_id"]: row for row in csv.DictReader((clone / COURSE_REL / "grades.csv").open())}
    assert float(grades["ada"]["score"]) == total() and float(grades["bob"]["score"]) == 0
    assert (clone / COURSE_REL / "isolated/ada/record.json").is_file()
    assert list((clone / COURSE_REL / "feedback/ada").rglob("*.html"))


def course_installed(clone, out):
    course = clone / INSTRUCTOR_COURSE
    assert "grade_in_sandbox(c)" in (course / "nbgrader_config.py").read_text()
    assert (course / "gradebook.db").is_file() and course_notebook(course, "release").is_file()


def submit_to_instructor_course(clone):
    for student in ("ada", "bob"):
        target = clone / course_notebook(INSTRUCTOR_COURSE, "submitted", student)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(clone / "submissions" / f"{student}.ipynb", target)


def autograded_in_course(clone, out):
    from autograder.flows.nbgrader.course import gradebook_points
    course = clone / INSTRUCTOR_COURSE
    book = gradebook_points(course, ["ada", "bob"], auto=True)
    assert sum(s for s, _ in book["ada"].values()) == total() and sum(s for s, _ in book["bob"].values()) == 0
    assert (course / "isolated/ada/record.json").is_file() and "(graded in the sandbox)" in out


def in_course(check=None, **kw):
    """A plain nbgrader command typed in the instructor's course, the venv activated."""
    return run(check, cwd=INSTRUCTOR_COURSE, venv=True, **kw)


def unzip_for_gradescope(clone):
    root = (clone / GRADESCOPE_ROOT).resolve()
    shutil.rmtree(root, ignore_errors=True)
    (root / "submission").mkdir(parents=True)
    with zipfile.ZipFile(clone / "build/gradescope/autograder.zip") as zf:
        zf.extractall(root / "source")
    shutil.copy(root / "source/run_autograder", root / "run_autograder")
    (root / "run_autograder").chmod(0o755)
    shutil.copy(clone / "submissions/ada.ipynb", root / "submission")


def gradescope_graded(clone, out):
    assert results_score((clone / GRADESCOPE_ROOT).resolve() / "results/results.json") == total()


def class_graded(clone, out):
    graded = rows(clone / "grades.csv")
    assert float(graded["ada"]["total"]) == total() and float(graded["bob"]["total"]) == 0
    assert {row["status"] for row in graded.values()} == {"graded"}
    assert results_score(clone / "grades_feedback/ada/results.json") == total()
    assert (clone / "report.html").is_file() and (clone / "grades_written.json").is_file()


def regrade_folder(clone):  # "put only their notebooks in a folder"
    folder = (clone / "../regrade").resolve()
    folder.mkdir(exist_ok=True)
    shutil.copy(clone / "submissions/ada.ipynb", folder)


def write_roster(clone):
    (clone / "roster.csv").write_text("student,name,email,lms_id\nada,Ada L,ada@example.org,101\n"
                                      "bob,Bob B,bob@example.org,102\n")


def canvas_written(clone, out):
    canvas = {row["ID"]: row for row in csv.DictReader((clone / "grades_canvas.csv").open())}
    assert float(canvas["101"][NAME]) == total() and float(canvas["102"][NAME]) == 0


def report_written(clone, out):
    assert "report.html" in out and (clone / "report.html").stat().st_size > 0


def written_pdfs(clone, out):
    for student in ("ada", "bob"):
        assert (clone / f"written/students/{student}.pdf").read_bytes()[:4] == b"%PDF"
    assert set(rows(clone / "written/hand.csv")) == {"ada", "bob"}


def fill_hand_csv(clone):  # a TA's work between `written` and `grade-all --hand`
    (clone / "written/hand.csv").write_text("student,q1,q2,q3,comment\nada,5,,,well argued\nbob,,,,\n")


def hand_in_total(clone, out):
    ada = rows(clone / "grades.csv")["ada"]
    assert ada["q1"] == "5" and float(ada["total"]) == total() + 5


def student_repo(clone, out):
    repo = clone / "build/student-repo"
    assert (repo / f"{NAME}.ipynb").is_file() and (repo / ".github/workflows").is_dir()


CLASS_GRADE_ALL = ".venv/bin/python -m autograder grade-all submissions/ --out grades.csv --jobs 2"
PLAN = {
    "make release": run(made_release),
    "make test": dry("the package's own tests, this file among them (it would run itself); CI runs it as "
                     ".ci/run in its own fresh clone"),
    "make install": run(installed),
    ".venv/bin/python -m autograder settings": run(has('feedback = "hints"', "[limits]", "call_seconds = 10.0")),
    ".venv/bin/python -m autograder settings --markdown > docs/settings.md": run(
        lambda clone, out: unchanged(clone, "docs/settings.md")),
    ".venv/bin/python -m autograder.sandbox.steps": run(has("namespaces: keeper", "user namespace: keeper",
                                                         "landlock: keeper", "none: keeper")),
    ".venv/bin/python -m autograder plan": run(has("outside the plan", "guarantees: a submission cannot",
                                                  "Watch (without a control group)")),
    ".venv/bin/python -m autograder plan --markdown --into docs/security.md": run(
        lambda clone, out: unchanged(clone, "docs/security.md")),
    "make install-pdf": run(lambda clone, out: shutil.which("chromium") or pytest.fail("no chromium")),
    "make test-fast": dry("the package's tests not marked slow, this file's fast tests among them; `make test` "
                          "(CI) runs all of them"),
    "make clean": run(cleaned),
    "make clean-course": run(has("kept build/course"), stdin="no\n"),
    "make test-part PART=masks": dry("a hidden suite and the package tests marked masks, mutants included (minutes); "
                                     "`make test` (CI) runs the same tests",
                                     check=has("solutions/week7_attention/suites/test_masks.py", "-m masks")),
    "make smoke": run(has("max prefix change before training: 0.00e+00", "2.0794")),
    "make train": dry("25 epochs (~7 s more); test_lab runs its command, `python -m solutions.lab`, and checks the "
                      "README's numbers", check=has("-m solutions.lab")),
    "make release UPDATE=1": dry("`make release` (run above) with --update, which rewrites the committed notebook "
                                 "only when the sources changed (~10 s); test_release runs --update",
                                 check=has("-m autograder release --update")),
    "git diff": run(lambda clone, out: not out.strip() or pytest.fail(
        "committed files changed by the commands so far:\n" + out[-2000:])),
    ".venv/bin/python -m autograder grade submissions/bob.ipynb --part masks": skip(
        "the `grade` line of 'Grading one notebook' with fewer options; that line is run, --part masks included"),
    ".venv/bin/python -m autograder grade-all ../regrade/ --out grades.csv": run(
        has("grades.csv: 1 updated, 0 added, 1 kept"), before=regrade_folder, after=CLASS_GRADE_ALL),
    "make gradescope FEEDBACK=checks VISIBILITY=after_published": run(
        zipped(FEEDBACK="checks", VISIBILITY="after_published")),
    "make gradescope VISIBILITY=after_due_date": run(zipped(FEEDBACK="hints", VISIBILITY="after_due_date")),
    "GRADING=1": prose("the variable the grader sets for the notebook, not a command"),
    "make autograde SUBMISSION=submissions/ada.ipynb OUT=results.json": run(graded_solution),
    ".venv/bin/python -m autograder grade submissions/bob.ipynb --out results.json --part masks --junit-xml "
    "junit.xml --visibility after_due_date --budget 300 --feedback values": run(graded_blank_with_options),
    "make gradescope FEEDBACK=values": run(zipped(FEEDBACK="values")),
    "make nbgrader-autograde FEEDBACK=values": dry(
        "`make nbgrader-autograde` (run below) with one option (~25 s more); make -n checks it reaches the "
        "command, test_nbgrader_flow grades at every level", check=has("--feedback values")),
    "python -m autograder grade": prose("names the command in a sentence; typed in full (.venv/bin/python) above"),
    "make nbgrader-autograde": run(nbgraded, before=submit_to_course),
    f".venv/bin/python -m autograder install-nbgrader {INSTRUCTOR_COURSE}": run(course_installed),
    "source .venv/bin/activate": skip(
        "activation lasts for one shell and each command runs in its own: the nbgrader lines below run with the "
        "venv's bin first on PATH (their step's venv=True); checked: the script is there",
        check=lambda clone, out: (clone / ".venv/bin/activate").is_file() or pytest.fail("no .venv/bin/activate")),
    f"cd {INSTRUCTOR_COURSE}": skip("the nbgrader lines below run in the course folder (their step's cwd)"),
    f"nbgrader autograde {NAME}": in_course(autograded_in_course, before=submit_to_instructor_course),
    f"nbgrader autograde {NAME} --student ada --force": in_course(has("ada: 100 / 100 (current record)")),
    f"nbgrader generate_feedback {NAME}": in_course(
        lambda clone, out: list((clone / INSTRUCTOR_COURSE / "feedback/ada").rglob("*.html")) or pytest.fail("none")),
    "nbgrader export": in_course(has("Exporting grades")),
    "make crosscheck": run(has("every gradebook agrees with the isolated grader")),
    "python -m autograder.flows.nbgrader": prose("names what `make nbgrader-autograde` runs (run above)"),
    "python -I": prose("how the kernel week7-isolated is started"),
    "cd build/course && ../../.venv/bin/jupyter lab": skip(
        "starts a server for a person's browser; checked: the path holds an executable jupyter",
        check=lambda clone, out: os.access(clone / COURSE_REL / "../../.venv/bin/jupyter", os.X_OK)
        or pytest.fail("no ../../.venv/bin/jupyter from build/course")),
    f"../../.venv/bin/python -m nbgrader generate_feedback {NAME} --force": run(
        lambda clone, out: list((clone / COURSE_REL / "feedback/bob").rglob("*.html")) or pytest.fail("no feedback"),
        cwd=str(COURSE_REL)),
    "../../.venv/bin/python -m nbgrader export": run(has("Exporting grades"), cwd=str(COURSE_REL)),
    "make gradescope": run(zipped(FEEDBACK="hints", VISIBILITY="visible")),
    f"GRADESCOPE_ROOT={GRADESCOPE_ROOT} GRADESCOPE_PYTHON=.venv/bin/python {GRADESCOPE_ROOT}/run_autograder": run(
        gradescope_graded, before=unzip_for_gradescope),
    CLASS_GRADE_ALL: run(class_graded),
    "make grade-all SUBMISSIONS=submissions/ GRADES=grades.csv JOBS=2": through_make(
        ".venv/bin/python -m autograder grade-all submissions/ --out grades.csv --jobs 2",
        "a rerun grades nothing new"),
    ".venv/bin/python -m autograder grade-all submissions/ --out grades.csv --roster roster.csv --lms canvas": run(
        canvas_written, before=write_roster),
    ".venv/bin/python -m autograder class-report grades.csv": run(report_written),
    ".venv/bin/python -m autograder written submissions/ --out written/": run(written_pdfs),
    "make written SUBMISSIONS=submissions/ WRITTEN=written/": through_make(
        ".venv/bin/python -m autograder written submissions/ --out written/", "~7 s of Chromium again"),
    ".venv/bin/python -m autograder grade-all submissions/ --out grades.csv --hand written/hand.csv": run(
        hand_in_total, before=fill_hand_csv),
    ".venv/bin/python -m autograder.flows.nbgrader.hand build/course written/hand.csv --dry-run": run(
        has("would change ada q1_positions: empty -> 5")),  # writing it: test_written
    "make student-repo": run(student_repo),
    "AUTOGRADER_ASSIGNMENT=solutions.week6_bigram make student-repo": skip(
        "week 6's student repository: tests/test_second_assignment.py runs week 6's parts file and public checks on an "
        "honest and a blank notebook"),
    f".venv/bin/python -m tests.environments docker-root -- .venv/bin/python -m autograder grade {STUDENT_REL} "
    "--out /tmp/results.json": skip(
        "one command in an emulated environment: tests/test_environments.py::test_one_command_runs_as_the_emulated_user "
        "runs the launcher's CLI (its user, variables, exit status), and the campaigns grade through the same launcher"),
    f"AUTOGRADER_ASSIGNMENT=solutions.week6_bigram .venv/bin/python -m autograder install-nbgrader {INSTRUCTOR_COURSE}": skip(
        "the second assignment into the same course: tests/test_nbgrader_two_assignments.py installs both with "
        "install-nbgrader, the variable naming week 6's package, beside an ordinary nbgrader assignment"),
    f"cd {INSTRUCTOR_COURSE} && nbgrader autograde week6_bigram && nbgrader autograde {NAME}": skip(
        "tests/test_nbgrader_two_assignments.py runs both plain autogrades in one course and checks the gradebook"),
    "make student-ci-check": run(has(f"0 / {PARTS} parts pass"), returncode=2),
    "make student-ci-check NOTEBOOK=submissions/ada.ipynb": dry(
        "the workflow's line as above on another notebook (~10 s); make -n checks that notebook is the one copied; "
        "test_student_ci runs the script on solved notebooks",
        check=has("cp submissions/ada.ipynb build/student-repo/")),
    "make bench": dry("measures grading speed for ~10 minutes (bench/results.md); not a test"),
    "make lint": run(has("All checks passed")),
    "make install TORCH_INDEX=https://download.pytorch.org/whl/cpu": skip(
        "PyTorch's index is not reachable here; checked: make -B -n shows torch alone taken from it first",
        check=lambda clone, out: make_shows(clone, "install TORCH_INDEX=https://download.pytorch.org/whl/cpu",
                                            "--no-deps --index-url https://download.pytorch.org/whl/cpu "
                                            "\"$(grep -E '^torch==' requirements.txt)\"")),
    "make install PYTHON=/usr/bin/python3": skip(
        "`make test-system-python` (below; `make test` runs it) runs it for real in a clone of its own; checked: "
        "make -B -n makes the venv with that interpreter",
        check=lambda clone, out: make_shows(clone, "install PYTHON=/usr/bin/python3", "/usr/bin/python3 -m venv .venv")),
    "make test-system-python": dry("`make test` runs it (CI); ~2 min: a clone, a venv from /usr/bin/python3, the fast "
                                   "tier", check=has("install release", "test-fast", "git stash create")),
    ".venv/bin/autograder": prose("names the checkout's console script; the commands below type it in full"),
    ".venv/bin/python -m autograder": prose("names the module the commands below run"),
    ".venv/bin/autograder grade-all submissions/ --shard 1/2 --out shards/1/grades.csv": run(
        has("shard 1/2 of the class")),
    ".venv/bin/autograder grade-all submissions/ --shard 2/2 --out shards/2/grades.csv": run(
        has("shard 2/2 of the class")),
    ".venv/bin/autograder grade-all merge shards/1/grades.csv shards/2/grades.csv --out shards/grades.csv "
    "--roster roster.csv --lms canvas": run(lambda clone, out: merged_shards(clone)),
}


def unchanged(clone, path):
    """The committed ``path`` is what the command just wrote (a generated page regenerated to itself)."""
    diff = subprocess.run(["git", "diff", "--", path], cwd=clone, capture_output=True, text=True).stdout
    assert not diff, f"{path} changed when regenerated:\n{diff[-2000:]}"


def make_shows(clone, arguments, line):
    """`make -B -n ARGUMENTS` in the clone prints ``line`` (the command that setting adds or changes)."""
    proc = subprocess.run(["make", "-B", "-n", *arguments.split()], cwd=clone, env=shell_env(), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and line in proc.stdout, f"make -B -n {arguments}:\n{proc.stdout[-3000:]}{proc.stderr}"


def merged_shards(clone):
    graded = rows(clone / "shards" / "grades.csv")
    assert float(graded["ada"]["total"]) == total() and float(graded["bob"]["total"]) == 0
    canvas = {row["ID"]: row for row in csv.DictReader((clone / "shards" / "grades_canvas.csv").open())}
    assert float(canvas["101"][NAME]) == total()
    assert (clone / "shards" / "report.html").is_file() and (clone / "shards" / "grades_written.json").is_file()


def bash_blocks(text=README):
    return [m.group(2) for m in re.finditer(r"(?ms)^```(\w*)\n(.*?)^```", text) if m.group(1) == "bash"]


def code_blocks(language, text=README):
    return [m.group(2) for m in re.finditer(r"(?ms)^```(\w*)\n(.*?)^```", text) if m.group(1) == language]


# The README's lines that build the wheel, install it in a venv outside the checkout and grade with its
# `autograder`: tests/test_wheel.py runs them as written (a fresh clone, the venv beside it).
WHEEL_COMMANDS = [typed_form(" ".join(c.split())) for block in bash_blocks() if "../grader-venv/bin/autograder" in block
                  for c in _block_commands(block)]
PLAN.update({command: skip("run as written by tests/test_wheel.py, in a fresh clone of its own with the venv "
                           "beside it (~1 min of pip), then every other command of the installed package")
             for command in WHEEL_COMMANDS})


# The authoring guide's commands (docs/authoring.md, a throwaway assignment of its own): tests/test_authoring.py runs
# them as written, in a clone of its own, and grades what they make (reference 100, blank 0, one mistake).
AUTHORING_COMMANDS = [typed for _, typed in readme_commands((ROOT / "docs" / "authoring.md").read_text())]
PLAN.update({command: skip("run as written by tests/test_authoring.py, in a clone of its own with a throwaway "
                           "assignment name, which grades what they make")
             for command in AUTHORING_COMMANDS if command not in PLAN})


# ---- fast: the plan covers the README ------------------------------------------------------------------------

def test_the_manual_is_every_doc():
    """Every page under docs/ is read for commands (in MANUAL), and the README links to each."""
    pages = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))
    assert sorted(MANUAL[1:]) == pages, "docs/ pages missing from (or gone but still in) tests/test_readme.py MANUAL"
    readme = (ROOT / "README.md").read_text()
    assert [page for page in pages if f"]({page})" not in readme] == [], "docs/ pages the README does not link to"


def test_every_readme_command_is_planned():
    typed = [t for _, t in readme_commands()]
    unknown = [f"{w!r} (typed as {t!r})" for w, t in readme_commands() if t not in PLAN]
    assert not unknown, ("README commands neither run nor justified in tests/test_readme.py PLAN:\n  "
                         + "\n  ".join(unknown))
    stale = [c for c in PLAN if c not in typed]
    assert not stale, f"PLAN entries the README no longer has: {stale}"
    for command, step in PLAN.items():
        assert step.kind == "run" or step.reason, f"{command!r}: a command not run needs a reason"
        assert not step.after or step.after in typed, f"{command!r} runs after {step.after!r}, not in the README"
    assert sorted(run_order()) == sorted(typed)


def test_readme_names_the_main_commands():
    typed = [t for _, t in readme_commands()]
    for target in ("make release", "make test", "make autograde", "make grade-all", "make nbgrader-autograde",
                   "make crosscheck", "make gradescope", "make student-ci-check", "make smoke", "make bench"):
        assert any(c == target or c.startswith(target + " ") for c in typed), f"README lost `{target}`"


def test_readme_runs_nothing_with_a_bare_python():
    """Outside make nothing is on PATH: a README command starting with `python` would use whatever python the
    shell has (no torch, no psutil). Sentences may name the module; commands say .venv/bin/python."""
    bare = [t for _, t in readme_commands() if re.match(r"python3? ", t) and PLAN.get(t, Step("run")).kind != "prose"]
    assert not bare, f"README commands with a bare python (write .venv/bin/python): {bare}"


@pytest.mark.parametrize("command", [t for _, t in readme_commands() if t.startswith("make ")])
def test_make_can_plan_every_readme_command(command):
    proc = subprocess.run(["make", "-n", *command.split()[1:]], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"`{command}` from the README: make -n failed\n{proc.stderr[-2000:]}"
    assert "No rule to make target" not in proc.stderr


# ---- slow: every command, for real, in a fresh clone ---------------------------------------------------------

def activated(env, clone):
    """The environment after `source .venv/bin/activate` in the clone."""
    venv = clone / ".venv"
    return dict(env, VIRTUAL_ENV=str(venv), PATH=str(venv / "bin") + os.pathsep + env.get("PATH", ""))


def shell(command, clone, step, env):
    return subprocess.run(["bash", "-c", command], cwd=clone / step.cwd, env=env, input=step.stdin or "",
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=900)


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory, solution_notebook):
    """Every planned command of the README, in its order, in one fresh clone: {typed command: failure or None}."""
    base = tmp_path_factory.mktemp("readme")
    clone = fresh_clone(base / "clone")
    (clone / "submissions").mkdir()
    shutil.copy(solution_notebook, clone / "submissions/ada.ipynb")
    shutil.copy(clone / STUDENT_REL, clone / "submissions/bob.ipynb")
    env, outcome, timings = shell_env(), {}, []
    for typed in run_order():
        step = PLAN.get(typed)
        if step is None or step.kind == "prose" or (step.kind == "skip" and not step.check):
            continue
        start, proc = time.monotonic(), None
        try:
            if step.before:
                step.before(clone)
            if step.kind != "skip":
                dry_run = step.kind == "dry"
                form, expected = (f"make -n {typed[len('make '):]}", 0) if dry_run else (typed, step.returncode)
                proc = shell(form, clone, step, activated(env, clone) if step.venv else env)
                assert proc.returncode == expected, f"`{form}` exited {proc.returncode}, expected {expected}"
            if step.check:
                step.check(clone, proc.stdout if proc else "")
            outcome[typed] = None
        except Exception as error:  # noqa: BLE001 - recorded here, reported by the command's own test
            tail = proc.stdout[-3000:] if proc else ""
            outcome[typed] = f"{type(error).__name__}: {error}\n--- output (tail) ---\n{tail}"
        timings.append((time.monotonic() - start, typed))
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=clone,
                            capture_output=True, text=True).stdout
    outcome["git status"] = status.strip() and f"files the README's commands wrote that .gitignore misses:\n{status}"
    print("\n".join(f"{seconds:6.1f} s  {command}" for seconds, command in timings))
    yield outcome
    from autograder.flows.nbgrader import client
    for course in (clone / COURSE_REL, clone / INSTRUCTOR_COURSE):
        client.stop(course)  # the courses' grading services, which would wait their idle time
    shutil.rmtree(base, ignore_errors=True)


def run_order():
    """The README's order, except that a step with `after` follows that command (a regrade needs a class)."""
    order = [t for _, t in readme_commands() if not (t in PLAN and PLAN[t].after)]
    for typed in [t for _, t in readme_commands() if t in PLAN and PLAN[t].after]:
        order.insert(order.index(PLAN[typed].after) + 1, typed)
    return order


def planned(*kinds):
    return [t for _, t in readme_commands() if t in PLAN and PLAN[t].kind in kinds]


@pytest.mark.slow
@pytest.mark.parametrize("command", [*planned("run", "dry"), *[t for t in planned("skip") if PLAN[t].check],
                                     "git status"])
def test_readme_command_works_in_a_fresh_clone(readme_run, command):
    failure = readme_run.get(command, "not run")
    assert not failure, f"README command `{command}` in a fresh clone:\n{failure}"


# ---- fast: the job-array recipes run the two commands of the shards' bash block -----------------------------

RECORDER = """#!/usr/bin/env python3
import json, os, sys
with open(os.environ["WEEK7_RECORD"], "a") as handle:
    handle.write(json.dumps(sys.argv[1:]) + "\\n")
"""


def recorded(script, tmp_path, env, shell="bash"):
    """The argv of every `autograder` call ``script`` makes, with a stand-in `autograder` on PATH."""
    stub = tmp_path / "stub" / "autograder"
    if not stub.exists():
        stub.parent.mkdir()
        stub.write_text(RECORDER)
        stub.chmod(0o755)
    record = tmp_path / "calls.jsonl"
    record.unlink(missing_ok=True)
    run = subprocess.run([shell, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                         env={**shell_env(), **env, "WEEK7_RECORD": str(record),
                              "PATH": f"{stub.parent}{os.pathsep}{shell_env()['PATH']}"})
    assert run.returncode == 0, run.stderr
    return [json.loads(line) for line in record.read_text().splitlines()]


def shard_call(i, n, *jobs):
    return ["grade-all", "submissions/", "--shard", f"{i}/{n}", "--out", f"shards/{i}/grades.csv", *jobs]


def test_job_array_recipes_run_the_two_commands(tmp_path):
    """Slurm, Kubernetes and GitHub Actions: for every index of the array, exactly the shard command of the
    bash block run above (shard I/N into shards/I/), each I once; then the merge of shards/*/grades.csv."""
    import yaml

    block = next(b for b in bash_blocks() if "--shard 1/2" in b)
    typed = [c.split()[1:] for c in _block_commands(block)]  # without .venv/bin/autograder
    assert typed[:2] == [shard_call(1, 2), shard_call(2, 2)] and typed[2][:2] == ["grade-all", "merge"]

    grade_sh = next(b for b in code_blocks("sh") if "#SBATCH --array" in b)
    merge_sh = next(b for b in code_blocks("sh") if "grade-all merge" in b)
    first, last = map(int, re.search(r"#SBATCH --array=(\d+)-(\d+)", grade_sh).groups())
    cpus = re.search(r"#SBATCH --cpus-per-task=(\d+)", grade_sh).group(1)
    count = last - first + 1
    slurm = {"SLURM_SUBMIT_DIR": str(tmp_path), "SLURM_ARRAY_TASK_COUNT": str(count), "SLURM_CPUS_PER_TASK": cpus}
    calls = [c for i in range(first, last + 1)
             for c in recorded(grade_sh, tmp_path, {**slurm, "SLURM_ARRAY_TASK_ID": str(i)})]
    assert first == 1 and calls == [shard_call(i, count, "--jobs", cpus) for i in range(1, count + 1)]
    assert recorded(merge_sh, tmp_path, slurm) == [["grade-all", "merge", "shards/*/grades.csv", "--out", "grades.csv",
                                                    "--roster", "roster.csv", "--lms", "canvas"]]

    job = next(yaml.safe_load(b) for b in code_blocks("yaml") if "kind: Job" in b)
    pod = job["spec"]["template"]["spec"]["containers"][0]
    assert job["spec"]["completionMode"] == "Indexed" and pod["command"] == ["sh", "-c"]
    count = job["spec"]["completions"]
    calls = [c for k in range(count) for c in recorded(pod["args"][0], tmp_path, {"JOB_COMPLETION_INDEX": str(k)}, "sh")]
    assert calls == [shard_call(i, count) for i in range(1, count + 1)]

    workflow = next(yaml.safe_load(b) for b in code_blocks("yaml") if "matrix:" in b)
    grade, merge = workflow["jobs"]["grade"], workflow["jobs"]["merge"]
    shards = grade["strategy"]["matrix"]["shard"]
    step = next(s["run"] for s in grade["steps"] if "grade-all" in s.get("run", ""))
    calls = [c for i in shards for c in recorded(step.replace("${{ matrix.shard }}", str(i)), tmp_path, {})]
    assert calls == [shard_call(i, len(shards)) for i in range(1, len(shards) + 1)]
    assert any("secret.key" in s.get("run", "") for s in grade["steps"]), "every job gets the course's secret"
    step = next(s["run"] for s in merge["steps"] if "grade-all" in s.get("run", ""))
    assert recorded(step, tmp_path, {}) == [["grade-all", "merge", "shards/*/grades.csv", "--out", "grades.csv"]]
