"""`grade-all --out /tmp/grades.csv`: the CSV's folder is hidden from the workers, but not a temporary directory
itself (hiding /tmp made every worker fail to start: every row a grader error, and the log line that should have
said why raised on the missing total)."""
import csv
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

from autograder.assignment import INSTRUCTOR_NOTEBOOK
from autograder.sandbox.confinement import Mode, probe

pytestmark = [pytest.mark.slow, pytest.mark.skipif(probe().mode is Mode.NONE, reason="needs a sandbox")]


def test_a_class_csv_directly_in_the_temporary_directory(tmp_path):
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "ada.ipynb").write_bytes(INSTRUCTOR_NOTEBOOK.read_bytes())
    out = Path(tempfile.gettempdir()) / f"grades-{uuid.uuid4().hex}.csv"
    try:
        run = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(tmp_path / "class"), "--out",
                              str(out)], capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stderr[-3000:]
        with open(out, newline="") as handle:
            rows = list(csv.DictReader(handle))
        assert [(r["student"], r["status"], float(r["total"])) for r in rows] == [("ada", "graded", 100.0)]
    finally:
        stem = out.with_suffix("")
        for path in Path(tempfile.gettempdir()).glob(f"{stem.name}*"):
            subprocess.run(["rm", "-rf", str(path)])
        subprocess.run(["rm", "-f", str(out.parent / "report.html")])
