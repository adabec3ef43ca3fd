"""The Gradescope autograder.zip, unzipped and run the way Gradescope runs it, in a temporary root.

For each case: ROOT/source is the unzipped autograder, ROOT/run_autograder its copy,
ROOT/submission what the student uploaded, ROOT/results empty. setup.sh is not run
(this venv already holds every pinned package); GRADESCOPE_PYTHON points at it.
"""
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor
import uuid
from pathlib import Path

import jsonschema
import pytest

from autograder.flows.gradescope import build as gs_build
from autograder.flows.gradescope.run import find_notebook, previous_score
from flows.shared import by_part, cli_results, course
from flows.submissions import dump, filled, invalid_json

import nbformat

pytestmark = pytest.mark.slow
from autograder.assignment import INSTRUCTOR_NOTEBOOK, NAME, NOTEBOOK_FILE, ROOT as CHECKOUT  # noqa: E402
from tests.points import points, total  # noqa: E402
sys.path.insert(0, str(CHECKOUT / "tests" / "corpus"))
MARKER = f"lms-{uuid.uuid4().hex}"  # the grader's LMS_TOKEN in the hostile case: must appear nowhere
SOLUTION = INSTRUCTOR_NOTEBOOK
SCHEMA = json.loads((Path(__file__).parent / "flows" / "gradescope_schema.json").read_text())
NB = NOTEBOOK_FILE


@pytest.fixture(scope="session")
def autograder_zip(tmp_path_factory):
    return gs_build.build(tmp_path_factory.mktemp("gradescope") / "autograder.zip")


@pytest.fixture(scope="session")
def score_only_zip(tmp_path_factory):
    from autograder.settings import Settings
    return gs_build.build(tmp_path_factory.mktemp("gradescope-score") / "autograder.zip", Settings(feedback="score"))


def _symlink_to_own_source(submission):
    """An upload that is a link to a file of the autograder itself (under ROOT/source, as on Gradescope)."""
    (submission / NB).symlink_to(submission.parent / "source" / "autograder" / "engine" / "grade.py")


def _fifo(submission):
    os.mkfifo(submission / NB)


def _too_large(submission):
    from autograder.settings import Limits
    with open(submission / NB, "wb") as handle:
        handle.truncate((Limits().notebook_mib << 20) + (1 << 20))


def _hostile(submission):
    from hostile import _outputs, build
    nbformat.write(build(SOLUTION, _outputs.notebook_cases(), {"__MARKER__": MARKER}), str(submission / NB))


def _large(submission):
    from tests.test_outputs import large_notebook
    large_notebook(submission / NB)


def run_case(zip_path, root, files, metadata=None, prepare=None, env=None, relative=False):
    """``prepare(submission_dir)`` makes uploads that are not plain files; ``relative``: run as docs/gradescope.md
    says, from the checkout with GRADESCOPE_ROOT and GRADESCOPE_PYTHON relative to it."""
    root.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
        for info in archive.infolist():  # zipfile drops the mode bits; Gradescope keeps them
            mode = info.external_attr >> 16
            if mode & 0o777 and not info.is_dir():
                os.chmod(root / "source" / info.filename, mode & 0o777)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    (root / "results").mkdir(exist_ok=True)
    for name, text in files.items():
        dump(text, root / "submission" / name)
    if prepare is not None:
        prepare(root / "submission")
    if metadata is not None:
        (root / "submission_metadata.json").write_text(json.dumps(metadata))
    env = {**os.environ, "GRADESCOPE_ROOT": str(root), "GRADESCOPE_PYTHON": sys.executable, **(env or {})}
    cwd = root
    if relative:
        cwd = CHECKOUT
        env.update(GRADESCOPE_ROOT=os.path.relpath(root, CHECKOUT),
                   GRADESCOPE_PYTHON=os.path.relpath(CHECKOUT / ".venv" / "bin" / "python", CHECKOUT))
        assert not env["GRADESCOPE_PYTHON"].startswith("/")
    run = subprocess.run([str(root / "run_autograder")], env=env, capture_output=True, text=True, timeout=900,
                         cwd=cwd)
    path = root / "results" / "results.json"
    results = json.loads(path.read_text()) if path.exists() else None  # None: a grader fault, no score
    return {"run": run, "results": results, "root": root}


@pytest.fixture(scope="session")
def cases(autograder_zip, score_only_zip, tmp_path_factory, solution_notebook):
    base = tmp_path_factory.mktemp("roots")
    _, released, source = course(tmp_path_factory.mktemp("course"))
    solution = nbformat.writes(filled(released, source))
    blank = nbformat.writes(released)
    metadata = {"id": 1, "previous_submissions": [
        {"submission_time": "2026-01-01T10:00:00.000000-08:00", "score": 42.0,
         "results": {"score": 42.0, "tests": []}}]}
    specs = {
        "correct": ({NB: solution}, metadata),
        "blank": ({NB: blank}, None),
        "broken": ({NB: invalid_json()}, None),
        "missing": ({}, None),
        "two": ({NB: solution, f"copy of {NAME}.ipynb": solution}, None),
        "not_notebook": ({f"{NAME}.py": "def causal_mask_blocked(T):\n    pass\n"}, None),
    }
    extra = {  # name: (zip, run_case keyword arguments)
        "symlink": (autograder_zip, {"prepare": _symlink_to_own_source}),
        "fifo": (autograder_zip, {"prepare": _fifo}),
        "too_large": (autograder_zip, {"prepare": _too_large}),
        "hostile": (autograder_zip, {"prepare": _hostile, "env": {"LMS_TOKEN": MARKER}}),
        "large": (autograder_zip, {"prepare": _large}),
        "readme_relative": (autograder_zip, {"prepare": lambda sub: (sub / NB).write_text(solution),
                                             "relative": True}),
        "score_level": (score_only_zip, {"prepare": lambda sub: (sub / NB).write_text(blank)}),
    }
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(run_case, autograder_zip, base / name, files, meta)
                   for name, (files, meta) in specs.items()}
        futures.update({name: pool.submit(run_case, zip_path, base / name, {}, **kwargs)
                        for name, (zip_path, kwargs) in extra.items()})
        out = {name: f.result() for name, f in futures.items()}
    cli = cli_results([out[n]["root"] / "submission" / NB for n in ("correct", "blank", "broken")],
                      tmp_path_factory.mktemp("cli"))
    for name in ("correct", "blank", "broken"):
        out[name]["cli"] = cli[out[name]["root"] / "submission" / NB]
    return out


def test_zip_layout(autograder_zip):
    with zipfile.ZipFile(autograder_zip) as archive:
        names = set(archive.namelist())
        modes = {i.filename: i.external_attr >> 16 for i in archive.infolist()}
        setup = archive.read("setup.sh").decode()
        requirements = archive.read("requirements.txt").decode()
    assert {"setup.sh", "run_autograder", "requirements.txt"} <= names
    assert modes["run_autograder"] & stat.S_IXUSR and modes["setup.sh"] & stat.S_IXUSR
    assert {f"solutions/week7_attention/suites/test_{p}.py" for p in ("masks", "targets", "training")} <= names  # hidden suites
    assert "solutions/reference/masks.py" in names and "solutions/lab/lab.py" in names  # the reference
    assert "autograder/engine/grade.py" in names and "autograder/sandbox/worker/serve.py" in names  # the engine
    assert not any(n.startswith(("tests/", "solutions/release/", "solutions/notebook/")) for n in names)
    assert not any("__pycache__" in n for n in names)
    assert "torch==2.13.0" in requirements.splitlines()
    assert 'TORCH="torch==2.13.0"' in setup and "download.pytorch.org/whl/cpu" in setup
    assert "-r \"$HERE/requirements.txt\"" in setup and "@" not in setup.replace("$@", "")


def test_the_zip_names_the_assignment_it_grades(tmp_path):
    """assignment.txt at the zip's root names the package the zip was built for, and run_autograder exports it as
    $AUTOGRADER_ASSIGNMENT (the discovery rule) before the grader starts: a zip of another assignment grades that one
    (tests/test_second_assignment.py runs one)."""
    from autograder.assignment import ASSIGNMENT
    from autograder.plugin_api import ASSIGNMENT_VARIABLE
    with zipfile.ZipFile(gs_build.build(tmp_path / "autograder.zip")) as archive:
        assert archive.read(gs_build.ASSIGNMENT_FILE).decode() == f"{ASSIGNMENT.package}\n"
        script = archive.read("run_autograder").decode()
    exported = script.index(f"export {ASSIGNMENT_VARIABLE}")
    assert gs_build.ASSIGNMENT_FILE in script and exported < script.index("-m autograder.flows.gradescope.run")


def test_torch_pin_must_be_exact():
    assert gs_build.torch_pin("numpy==2.4.6\ntorch==2.13.0\n") == "2.13.0"
    for loose in ("torch>=2.13\n", "torch\n", "torch==2.*\n", "numpy==1\n"):
        with pytest.raises(SystemExit):
            gs_build.torch_pin(loose)
    assert gs_build.loose_pins("torch>=2\nnumpy==2.4.6\n# comment\n") == ["torch>=2"]


def test_run_autograder_hides_the_root():
    text = (Path(gs_build.HERE) / "run_autograder").read_text()
    assert '--hide "$ROOT"' in text and 'GRADESCOPE_ROOT:-/autograder' in text


ALL_CASES = ["correct", "blank", "broken", "missing", "two", "not_notebook", "symlink", "fifo", "too_large",
             "hostile", "large", "readme_relative", "score_level"]


@pytest.mark.parametrize("name", ALL_CASES)
def test_results_json_is_valid(cases, name):
    case = cases[name]
    assert case["run"].returncode == 0, case["run"].stderr[-3000:]
    jsonschema.validate(case["results"], SCHEMA)
    results = case["results"]
    assert results["score"] == pytest.approx(sum(t["score"] for t in results["tests"]))
    assert sum(t["max_score"] for t in results["tests"]) == pytest.approx(total())


@pytest.mark.parametrize("name", ["correct", "blank", "broken"])
def test_scores_equal_the_cli(cases, name):
    results, cli = cases[name]["results"], cases[name]["cli"]
    assert results["score"] == pytest.approx(cli["score"])
    assert by_part(results) == pytest.approx(by_part(cli))


def test_expected_scores_and_messages(cases):
    assert cases["correct"]["results"]["score"] == pytest.approx(total())
    assert "previous submission scored 42" in cases["correct"]["results"]["output"]
    assert cases["blank"]["results"]["score"] == 0
    expected = {"broken": "not a valid Jupyter notebook", "missing": "submission is empty",
                "two": "has 2 notebooks", "not_notebook": "no Jupyter notebook"}
    for name, message in expected.items():
        results = cases[name]["results"]
        assert results["score"] == 0, name
        assert message in results["output"], (name, results["output"])
        assert all(t["score"] == 0 for t in results["tests"])


def test_written_answers_reach_the_graders_only(cases):
    """The three written answers ride along as a 0-point test hidden from students (issue 13)."""
    for name, blank in (("correct", False), ("blank", True)):
        tests = cases[name]["results"]["tests"]
        written = [t for t in tests if t["name"].startswith("Written answers")]
        assert len(written) == 1 and written[0]["visibility"] == "hidden" and written[0]["max_score"] == 0, written
        answers = written[0]["output"]
        assert answers.count("Q1 (") == answers.count("Q2 (") == answers.count("Q3 (") == 1, answers[:500]
        assert ("(blank)" in answers) == blank, answers[:500]


def test_find_notebook_and_metadata(tmp_path):
    (tmp_path / "sub" / ".ipynb_checkpoints").mkdir(parents=True)
    dump("{}", tmp_path / "sub" / ".ipynb_checkpoints" / f"{NAME}-checkpoint.ipynb")
    dump("{}", tmp_path / "sub" / "nested" / NB)
    assert find_notebook(tmp_path / "sub")[0] == tmp_path / "sub" / "nested" / NB  # one notebook in a folder
    assert previous_score(tmp_path) is None  # no metadata: fine
    (tmp_path / "submission_metadata.json").write_text('{"previous_submissions": []}')
    assert previous_score(tmp_path) is None
    (tmp_path / "submission_metadata.json").write_text('{"previous_submissions": [{"score": 3, "results": {}}]}')
    assert previous_score(tmp_path) == 3.0
    (tmp_path / "submission_metadata.json").write_text("not json")
    assert previous_score(tmp_path) is None


# ---- uploads that are not a regular notebook, hostile text, size, feedback level, docs/gradescope.md's command
def test_symlinked_upload_is_refused_and_reads_nothing(cases):
    """A link to the autograder's own source: refused with the message of every flow; not one line of it leaks."""
    case = cases["symlink"]
    results = case["results"]
    assert results["score"] == 0
    assert f"{NAME}.ipynb is a symbolic link, not a regular file; upload the notebook file itself" \
        in results["output"]
    source = (case["root"] / "source" / "autograder" / "engine" / "grade.py").read_text()
    everything = json.dumps(results) + case["run"].stdout
    leaked = [line for line in source.splitlines() if len(line.strip()) >= 12 and line.strip() in everything]
    assert not leaked and source[:40] not in everything, leaked


def test_fifo_upload_is_refused_at_once(cases):
    results = cases["fifo"]["results"]
    assert results["score"] == 0 and "is a named pipe (FIFO), not a regular file" in results["output"]
    assert results["execution_time"] < 30


def test_upload_over_the_size_limit_is_the_students(cases):
    results = cases["too_large"]["results"]
    assert results["score"] == 0 and f"your notebook {NAME}.ipynb is 33.0 MiB; the limit is 32 MiB" \
        in results["output"]
    assert not any(t["name"].startswith("Autograder failed") for t in results["tests"])


def test_hostile_text_and_the_graders_secrets(cases):
    case = cases["hostile"]
    results, stdout = case["results"], case["run"].stdout
    text = json.dumps(results, ensure_ascii=False) + stdout + case["run"].stderr
    assert MARKER not in text
    assert "\x1b" not in text and "\\u001b" not in text
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in json.dumps(results, ensure_ascii=False))
    assert "LOOT token=None" in json.dumps(results)  # the worker's environment is clean
    scores = by_part(results)
    assert scores["masks"] == scores["positions"] == scores["leakage"] == 0 and scores["softmax_read"] == points("softmax_read")


def test_large_honest_notebook_grades(cases):
    """5 MiB, with a 4 MiB literal in one cell: full points (needs the worker's start-up message to carry it)."""
    results = cases["large"]["results"]
    assert results["score"] == total(), results["output"][:2000]


def test_readme_local_run_with_relative_paths(cases):
    """`GRADESCOPE_ROOT=ROOT GRADESCOPE_PYTHON=.venv/bin/python ROOT/run_autograder`, from the checkout."""
    case = cases["readme_relative"]
    assert case["run"].returncode == 0 and case["results"]["score"] == total(), case["run"].stderr[-2000:]


def test_the_settings_travel_in_the_zip_as_data(cases, score_only_zip, autograder_zip):
    """The feedback level (and every other setting) is autograder.toml in the zip, which run_autograder hands on;
    the script itself is the same in every zip."""
    from autograder.settings import Settings
    with zipfile.ZipFile(score_only_zip) as archive, zipfile.ZipFile(autograder_zip) as default:
        script = archive.read("run_autograder").decode()
        assert script == default.read("run_autograder").decode() and '--config "$SOURCE/autograder.toml"' in script
        carried = archive.read("autograder.toml").decode()
    assert Settings.from_dict(__import__("tomllib").loads(carried)) == Settings(feedback="score")
    results = cases["score_level"]["results"]
    shown = [t for t in results["tests"] if t.get("visibility") != "hidden"]  # hidden: the graders' written answers
    assert [t["name"] for t in shown] == list(by_part(cases["blank"]["results"]))
    assert all(t["output"] == "" for t in shown) and results["score"] == 0


def test_secret_files_are_copied_when_present(tmp_path, monkeypatch):
    secret = CHECKOUT / "build" / f".test-secret-{uuid.uuid4().hex}.key"
    monkeypatch.setattr(gs_build, "SECRET_FILES", (str(secret.relative_to(CHECKOUT)), "build/absent.key"))
    secret.parent.mkdir(exist_ok=True)
    secret.write_bytes(b"course secret")
    try:
        zip_path = gs_build.build(tmp_path / "autograder.zip")
    finally:
        secret.unlink()
    with zipfile.ZipFile(zip_path) as archive:
        assert archive.read(str(secret.relative_to(CHECKOUT))) == b"course secret"
        assert "build/absent.key" not in archive.namelist()


def test_a_grader_that_cannot_start_records_no_score(autograder_zip, tmp_path):
    """A grader fault is never a student's grade: when the interpreter fails at once, run_autograder writes no
    results.json and exits non-zero, so Gradescope shows the run as failed (and the instructor regrades)
    instead of recording 0."""
    root = tmp_path / "root"
    (root / "results").mkdir(parents=True)
    (root / "results" / "results.json").write_text('{"score": 42.0}')  # a stale one must not stand either
    out = run_case(autograder_zip, root, {NB: "{}"}, env={"GRADESCOPE_PYTHON": "/bin/false"})
    assert out["run"].returncode != 0 and out["results"] is None
    assert "no score was recorded" in out["run"].stderr
