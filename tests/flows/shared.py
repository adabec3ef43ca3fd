"""Helpers shared by the flow tests: one course build and one CLI grade per notebook per session."""
import hashlib
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

from autograder.assignment import NAME as ASSIGNMENT, ROOT, course_notebook  # noqa: F401 - ASSIGNMENT: re-exported (test_nbgrader_flow)
_course = {}
_cli = {}


def course(base):
    """(course dir, released notebook, instructor notebook): the real `make release` build, once."""
    if not _course:
        from solutions.release.__main__ import build_course
        path = Path(base) / "course"
        _, released = build_course(path)
        source = nbformat.read(course_notebook(path), as_version=4)
        _course.update(path=path, released=released, source=source)
    return _course["path"], _course["released"], _course["source"]


def _grade_cli(notebook, out):
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(notebook), "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"CLI grade of {notebook} failed:\n{run.stdout}\n{run.stderr}"
    return json.loads(Path(out).read_text())


def cli_results(notebooks, workdir):
    """{path: results.json dict} from `python -m autograder grade`, each distinct notebook graded once."""
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    keys = {p: hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in notebooks}
    todo = {k: p for p, k in keys.items() if k not in _cli}
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = pool.map(lambda item: (item[0], _grade_cli(item[1], workdir / f"{item[0][:16]}.json")),
                        todo.items())
        _cli.update(done)
    return {p: _cli[k] for p, k in keys.items()}


def by_part(results):
    """{part: score} from results.json tags."""
    parts = {}
    for test in results["tests"]:
        for tag in test.get("tags", []):
            parts[tag] = parts.get(tag, 0.0) + test["score"]
    return parts
