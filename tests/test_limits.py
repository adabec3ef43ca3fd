"""Limits that were constants in the code, changed the ways an instructor changes any setting (an option of the
command, the settings file), take effect in a real grade; and the same notebook grades as before without them.

    notebook_mib       `grade --notebook-mib 1`; grade-all with `[limits] notebook_mib = 1` in the settings file
    model_passes       `grade --model-passes 1`
    call_model_tokens  `grade --config FILE` with `[limits] call_model_tokens = 39`
"""
import csv
import json
import subprocess
import sys

import nbformat
import pytest

from autograder.assignment import NOTEBOOK_FILE, ROOT
from tests.corpus import write_notebook

pytestmark = pytest.mark.slow


def padded(solution_notebook, path, mib=1.2):
    """The solution notebook with a Markdown cell that makes it ``mib`` MiB: the same code cells, graded alike."""
    nb = nbformat.read(solution_notebook, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("notes " * int(mib * (1 << 20) / 6)))
    write_notebook(nb, path)
    assert path.stat().st_size > 1 << 20
    return path


def padded_mib(path):
    """The size the refusal names: MiB rounded up to a tenth (engine/submission_file.py)."""
    import math
    return math.ceil(path.stat().st_size / (1 << 20) * 10) / 10


def grade(notebook, out, *options):
    """The results.json of a real `grade`, and the run."""
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(notebook), "--out", str(out), *options],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    return json.loads(out.read_text())


def test_the_notebook_limit_is_an_option_of_grade(tmp_path, solution_notebook):
    notebook = padded(solution_notebook, tmp_path / NOTEBOOK_FILE)
    refused = grade(notebook, tmp_path / "refused.json", "--part", "masks", "--notebook-mib", "1")
    size = f"{padded_mib(notebook):.1f}"
    said = f"your notebook {NOTEBOOK_FILE} is {size} MiB; the limit is 1 MiB"
    assert refused["score"] == 0 and said in refused["output"], refused["output"]
    assert all(said in test["output"] for test in refused["tests"]), refused["tests"]
    graded = grade(notebook, tmp_path / "graded.json", "--part", "masks")  # the default, 32 MiB
    assert graded["score"] == sum(test["max_score"] for test in graded["tests"]) > 0, graded["output"]


def test_the_lab_model_limits_are_settings_of_grade(tmp_path, solution_notebook):
    passes = grade(solution_notebook, tmp_path / "passes.json", "--part", "leakage", "--model-passes", "1")
    assert passes["score"] == 0, passes["output"]
    assert any("`prefix_change` asked the model more than 1 times in one call" in test["output"]
               for test in passes["tests"]), passes["tests"]
    settings = tmp_path / "course.toml"
    settings.write_text("[limits]\ncall_model_tokens = 39\n")  # an honest prefix_change runs 2 passes of 20 tokens
    tokens = grade(solution_notebook, tmp_path / "tokens.json", "--part", "leakage", "--config", str(settings))
    assert tokens["score"] < sum(test["max_score"] for test in tokens["tests"]), tokens["output"]
    assert any("at most 39 tokens in all" in test["output"] for test in tokens["tests"]), tokens["tests"]
    honest = grade(solution_notebook, tmp_path / "honest.json", "--part", "leakage")
    assert honest["score"] == sum(test["max_score"] for test in honest["tests"]) > 0, honest["output"]


def test_grade_all_reads_the_notebook_limit_from_the_settings_file(tmp_path, solution_notebook):
    folder = tmp_path / "submissions"
    folder.mkdir()
    padded(solution_notebook, folder / "alice.ipynb")
    (folder / "bob.ipynb").write_bytes(solution_notebook.read_bytes())
    settings = tmp_path / "week7-grader.toml"
    settings.write_text('parts = ["masks"]\n[limits]\nnotebook_mib = 1\n')
    out = tmp_path / "out" / "grades.csv"
    run = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(folder), "--out", str(out),
                          "--config", str(settings)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    with open(out, newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert rows["alice"]["status"] == "too-large", rows["alice"]
    assert f"is {padded_mib(folder / 'alice.ipynb'):.1f} MiB; the limit is 1 MiB" in rows["alice"]["detail"], rows["alice"]
    assert rows["bob"]["status"] == "graded" and float(rows["bob"]["total"]) > 0, rows["bob"]


def test_the_watchdogs_start_rate_is_an_option_of_grade(tmp_path, solution_notebook):
    """starts_per_second, where a watchdog bounds the tree (control groups off): a cell that starts 30 short
    processes at once ends its worker under `--starts-per-second 10`, not under the default."""
    import os
    nb = nbformat.read(solution_notebook, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(
        "import os as _os, time as _time\n"
        "for _ in range(30):\n"
        "    if _os.fork() == 0:\n"
        "        _os._exit(0)\n"
        "    if _os.fork() == 0:  # an orphan, as a process that changes pid leaves\n"
        "        if _os.fork() == 0:\n"
        "            _time.sleep(0.2)\n"
        "            _os._exit(0)\n"
        "        _os._exit(0)\n"
        "_time.sleep(1)\n"
        "print('STARTED: all')\n"))
    notebook = tmp_path / NOTEBOOK_FILE
    write_notebook(nb, notebook)
    environ = {**os.environ, "AUTOGRADER_NO_CGROUPS": "1"}
    runs = {}
    for name, options in (("default", ()), ("strict", ("--starts-per-second", "10"))):
        run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(notebook), "--out",
                              str(tmp_path / f"{name}.json"), "--part", "masks", *options], cwd=ROOT, env=environ,
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-2000:]
        runs[name] = run.stderr
    assert "processes or threads in a second" not in runs["default"], runs["default"]
    assert "processes or threads in a second, over 10" in runs["strict"], runs["strict"]
