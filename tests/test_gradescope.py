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
from pathlib import Path

import jsonschema
import pytest

from autograder.flows.gradescope import build as gs_build
from autograder.flows.gradescope.run import find_notebook, previous_score
from flows.shared import by_part, cli_results, course
from flows.submissions import dump, filled, invalid_json

import nbformat

pytestmark = pytest.mark.slow
SCHEMA = json.loads((Path(__file__).parent / "flows" / "gradescope_schema.json").read_text())
NB = "week7_attention.ipynb"


@pytest.fixture(scope="session")
def autograder_zip(tmp_path_factory):
    return gs_build.build(tmp_path_factory.mktemp("gradescope") / "autograder.zip")


def run_case(zip_path, root, files, metadata=None):
    root.mkdir(parents=True)
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
        for info in archive.infolist():  # zipfile drops the mode bits; Gradescope keeps them
            mode = info.external_attr >> 16
            if mode & 0o111:
                os.chmod(root / "source" / info.filename, mode & 0o777)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    (root / "results").mkdir()
    for name, text in files.items():
        dump(text, root / "submission" / name)
    if metadata is not None:
        (root / "submission_metadata.json").write_text(json.dumps(metadata))
    env = dict(os.environ, GRADESCOPE_ROOT=str(root), GRADESCOPE_PYTHON=sys.executable)
    run = subprocess.run([str(root / "run_autograder")], env=env, capture_output=True, text=True, timeout=900,
                         cwd=root)
    results = json.loads((root / "results" / "results.json").read_text())
    return {"run": run, "results": results, "root": root}


@pytest.fixture(scope="session")
def cases(autograder_zip, tmp_path_factory):
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
        "two": ({NB: solution, "copy of week7_attention.ipynb": solution}, None),
        "not_notebook": ({"week7_attention.py": "def causal_mask_blocked(T):\n    pass\n"}, None),
    }
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(run_case, autograder_zip, base / name, files, meta)
                   for name, (files, meta) in specs.items()}
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
    assert {f"autograder/suites/test_{p}.py" for p in ("masks", "targets", "training")} <= names  # hidden suites
    assert "solutions/reference/masks.py" in names and "solutions/lab/lab.py" in names  # the reference
    assert "autograder/engine/grade.py" in names and "autograder/sandbox/worker.py" in names  # the engine
    assert not any(n.startswith(("tests/", "solutions/release/", "solutions/notebook/")) for n in names)
    assert not any("__pycache__" in n for n in names)
    assert "torch==2.13.0" in requirements.splitlines()
    assert 'TORCH="torch==2.13.0"' in setup and "download.pytorch.org/whl/cpu" in setup
    assert "-r \"$HERE/requirements.txt\"" in setup and "@" not in setup.replace("$@", "")


def test_torch_pin_must_be_exact():
    assert gs_build.torch_pin("numpy==2.4.6\ntorch==2.13.0\n") == "2.13.0"
    for loose in ("torch>=2.13\n", "torch\n", "torch==2.*\n", "numpy==1\n"):
        with pytest.raises(SystemExit):
            gs_build.torch_pin(loose)
    assert gs_build.loose_pins("torch>=2\nnumpy==2.4.6\n# comment\n") == ["torch>=2"]


def test_run_autograder_hides_the_root():
    text = (Path(gs_build.HERE) / "run_autograder").read_text()
    assert '--hide "$ROOT"' in text and 'GRADESCOPE_ROOT:-/autograder' in text


@pytest.mark.parametrize("name", ["correct", "blank", "broken", "missing", "two", "not_notebook"])
def test_results_json_is_valid(cases, name):
    case = cases[name]
    assert case["run"].returncode == 0, case["run"].stderr[-3000:]
    jsonschema.validate(case["results"], SCHEMA)
    results = case["results"]
    assert results["score"] == pytest.approx(sum(t["score"] for t in results["tests"]))
    assert sum(t["max_score"] for t in results["tests"]) == pytest.approx(100.0)


@pytest.mark.parametrize("name", ["correct", "blank", "broken"])
def test_scores_equal_the_cli(cases, name):
    results, cli = cases[name]["results"], cases[name]["cli"]
    assert results["score"] == pytest.approx(cli["score"])
    assert by_part(results) == pytest.approx(by_part(cli))


def test_expected_scores_and_messages(cases):
    assert cases["correct"]["results"]["score"] == pytest.approx(100.0)
    assert "previous submission scored 42" in cases["correct"]["results"]["output"]
    assert cases["blank"]["results"]["score"] == 0
    expected = {"broken": "not a valid Jupyter notebook", "missing": "submission is empty",
                "two": "has 2 notebooks", "not_notebook": "no Jupyter notebook"}
    for name, message in expected.items():
        results = cases[name]["results"]
        assert results["score"] == 0, name
        assert message in results["output"], (name, results["output"])
        assert all(t["score"] == 0 for t in results["tests"])


def test_find_notebook_and_metadata(tmp_path):
    (tmp_path / "sub" / ".ipynb_checkpoints").mkdir(parents=True)
    dump("{}", tmp_path / "sub" / ".ipynb_checkpoints" / "week7_attention-checkpoint.ipynb")
    dump("{}", tmp_path / "sub" / "nested" / NB)
    assert find_notebook(tmp_path / "sub")[0] == tmp_path / "sub" / "nested" / NB  # one notebook in a folder
    assert previous_score(tmp_path) is None  # no metadata: fine
    (tmp_path / "submission_metadata.json").write_text('{"previous_submissions": []}')
    assert previous_score(tmp_path) is None
    (tmp_path / "submission_metadata.json").write_text('{"previous_submissions": [{"score": 3, "results": {}}]}')
    assert previous_score(tmp_path) == 3.0
    (tmp_path / "submission_metadata.json").write_text("not json")
    assert previous_score(tmp_path) is None
