"""A grading day that goes wrong (issue 28): a full disk, a bad secret key, a file replaced while graded.

Each fault is injected through the real commands (`python -m autograder grade`, `grade-all`):
the earlier outputs stay whole, the message is one line that says what and where, the exit
code is the documented one, and no score is drawn from a key that may not be used.
"""
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from autograder.assignment import ROOT, STUDENT_NOTEBOOK
from autograder.engine.output_file import EXIT_OUTPUT, OutputError, write_atomic


def _grader(*argv, env=None, timeout=600):
    return subprocess.run([sys.executable, "-m", "autograder", *map(str, argv)], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "PYTHONHASHSEED": "0", **(env or {})})


@contextlib.contextmanager
def full_disk(earlier):
    """A tmpfs of 8 KiB holding ``earlier`` ({name: text}), then filled to the last byte."""
    folder = Path(tempfile.mkdtemp(prefix="full-disk-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k", "tmpfs", str(folder)], capture_output=True)
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.decode().strip()}")
    try:
        for name, text in earlier.items():
            (folder / name).write_text(text)
        with contextlib.suppress(OSError), open(folder / "filler", "wb") as handle:
            while True:
                handle.write(b"\0" * 1024)
                handle.flush()
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)
        folder.rmdir()


def _one_line_about(proc, command, path):
    assert proc.returncode == EXIT_OUTPUT, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"{command}: cannot write {path}") and last.endswith("No space left on device"), last


def test_grade_on_a_full_disk_keeps_the_earlier_results():
    """The grade is done, its results.json cannot be written: the earlier one stays whole, one line says why."""
    earlier = '{"score": 42.0}\n'
    with full_disk({"results.json": earlier}) as folder:
        proc = _grader("grade", STUDENT_NOTEBOOK, "--out", folder / "results.json")
        _one_line_about(proc, "grade", folder / "results.json")
        assert (folder / "results.json").read_text() == earlier
        assert sorted(p.name for p in folder.iterdir()) == ["filler", "results.json"], "no temporary file left"


def test_grade_all_on_a_full_disk_keeps_the_earlier_csv(tmp_path):
    earlier = "student,total\nzed,5\n"
    (tmp_path / "ann.ipynb").write_bytes(Path(STUDENT_NOTEBOOK).read_bytes())
    with full_disk({"grades.csv": earlier}) as folder:
        proc = _grader("grade-all", tmp_path, "--out", folder / "grades.csv", "--replace")
        _one_line_about(proc, "grade-all", folder / "grades.log")
        assert (folder / "grades.csv").read_text() == earlier
        assert not [p for p in folder.rglob(".*.tmp")]


def test_a_failed_write_leaves_the_earlier_file_and_no_temporary(tmp_path):
    target = tmp_path / "grades.csv"
    target.write_text("earlier\n")

    class Unwritable(str):
        def encode(self, *args):
            raise OSError(5, "Input/output error")

    with pytest.raises(OutputError) as caught:
        write_atomic(target, Unwritable("new"))
    assert str(caught.value) == f"cannot write {target}: Input/output error"
    assert target.read_text() == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grades.csv"]


# ---- the secret key -------------------------------------------------------------------------

def _bad_keys(tmp_path):
    """name: (how to make the key at path, a word the refusal must hold)."""
    def short(n):
        return lambda p: (p.write_bytes(os.urandom(n)), p.chmod(0o600))
    return {
        "empty": (short(0), "0 bytes"),
        "five bytes": (short(5), "5 bytes"),
        "world-readable": (lambda p: (p.write_bytes(os.urandom(32)), p.chmod(0o644)), "chmod 600"),
        "group-readable": (lambda p: (p.write_bytes(os.urandom(32)), p.chmod(0o640)), "chmod 600"),
        "a folder": (lambda p: p.mkdir(mode=0o700), "not a regular file"),
        "a FIFO": (lambda p: os.mkfifo(p, 0o600), "not a regular file"),
    }


@pytest.mark.parametrize("case", list(_bad_keys(Path("."))))
def test_a_key_that_may_not_be_used_is_refused(case, tmp_path):
    """`grade` with a short, empty, readable-by-others or non-file key: refused with how to fix it, exit 2, no score."""
    make, word = _bad_keys(tmp_path)[case]
    key = tmp_path / "secret.key"
    make(key)
    before = key.read_bytes() if key.is_file() else None
    out = tmp_path / "results.json"
    proc = _grader("grade", STUDENT_NOTEBOOK, "--out", out, env={"AUTOGRADER_SECRET_FILE": str(key)}, timeout=120)
    assert proc.returncode == 2, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"grade: the secret key {key} ") and word in last, last
    assert "chmod 600" in last or "Delete it" in last, last
    assert not out.exists(), "nothing graded with it"
    assert (key.read_bytes() if key.is_file() else None) == before, "the key is left as it was"


def test_a_key_refused_by_grade_all_and_an_unreadable_key_refused_when_loaded(tmp_path):
    """grade-all refuses before it grades; load() itself never returns a key it may not use (what the grading
    processes, the nbgrader service and Gradescope call)."""
    key = tmp_path / "secret.key"
    key.write_bytes(b"short")
    key.chmod(0o600)
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "ann.ipynb").write_bytes(Path(STUDENT_NOTEBOOK).read_bytes())
    proc = _grader("grade-all", tmp_path / "subs", "--out", tmp_path / "out" / "grades.csv",
                   env={"AUTOGRADER_SECRET_FILE": str(key)}, timeout=120)
    assert proc.returncode == 2 and "5 bytes" in proc.stderr.strip().splitlines()[-1], proc.stderr[-2000:]
    assert not (tmp_path / "out" / "grades.csv").exists()
    code = ("import os, sys; from autograder.engine import secret\n"
            "try:\n    secret.load(); print('used')\nexcept secret.SecretError as e: print('refused', e)\n")
    if os.geteuid() == 0:  # unreadable to its owner (root reads anything: the owner here is nobody)
        for mode in (0o000, 0o200):
            locked = Path(tempfile.mkdtemp(prefix="locked-key-"))
            try:
                locked.chmod(0o755)
                k = locked / "secret.key"
                k.write_bytes(os.urandom(32))
                os.chown(k, 65534, 65534)
                k.chmod(mode)
                run = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
                                      "-c", code], capture_output=True, text=True, cwd="/",
                                     env={**os.environ, "AUTOGRADER_SECRET_FILE": str(k), "PYTHONPATH": str(ROOT)})
                assert run.stdout.startswith("refused") and "cannot be read" in run.stdout, run.stdout + run.stderr
            finally:
                k.unlink()
                locked.rmdir()
    missing = tmp_path / "new" / "secret.key"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "AUTOGRADER_SECRET_FILE": str(missing)})
    assert run.stdout.strip() == "used" and oct(missing.stat().st_mode & 0o777) == "0o600"
    assert len(missing.read_bytes()) == 32


def test_results_json_is_written_whole(tmp_path):
    """Sanity of the writer: the JSON read back is what was written, with the mode asked."""
    write_atomic(tmp_path / "r.json", json.dumps({"a": 1}), mode=0o600)
    assert json.loads((tmp_path / "r.json").read_text()) == {"a": 1}
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o600


# ---- a submission replaced while the batch runs ---------------------------------------------

def test_a_notebook_replaced_mid_batch_is_graded_as_one_version(tmp_path, monkeypatch, solution_notebook):
    """ben's blank notebook is hashed when grade-all begins and replaced by an honest one before his grading
    process reads it (deterministically: the swap is done as the pool starts). His row, record and the next
    run's reuse all go by the version graded; when he puts the blank back, the rerun regrades it."""
    import hashlib

    from autograder import cli
    from autograder.flows import batch, batch_pool

    blank, honest = Path(STUDENT_NOTEBOOK).read_bytes(), Path(solution_notebook).read_bytes()
    subs = tmp_path / "subs"
    subs.mkdir()
    ben = subs / "ben.ipynb"
    ben.write_bytes(blank)
    out = tmp_path / "out" / "grades.csv"

    class SwapAtStart(batch_pool.Pool):
        def run(self, tasks, on_result):
            ben.write_bytes(honest)  # after the batch hashed it, before any grading process read it
            return super().run(tasks, on_result)

    def row():
        rows = list(__import__("csv").DictReader(out.open()))
        assert len(rows) == 1
        return rows[0]

    monkeypatch.setenv("PYTHONHASHSEED", "0")
    monkeypatch.setattr(batch, "Pool", SwapAtStart)
    assert cli.main(["grade-all", str(subs), "--out", str(out)]) == 0
    first = row()
    record = json.loads((tmp_path / "out" / "grades_feedback" / "ben" / "record.json").read_text())
    assert float(first["total"]) == 100.0, first
    assert first["sha256"] == record["sha256"] == hashlib.sha256(honest).hexdigest(), "the hash of the bytes graded"

    monkeypatch.setattr(batch, "Pool", batch_pool.Pool)
    ben.write_bytes(blank)  # the blank put back: never the honest version's 100
    assert cli.main(["grade-all", str(subs), "--out", str(out)]) == 0
    again = row()
    assert float(again["total"]) == 0.0 and again["sha256"] == hashlib.sha256(blank).hexdigest(), again
    second = (tmp_path / "out" / "grades.log").read_text().split(" done: ")[1]  # the rerun's lines
    assert "graded ben" in second and "reused ben" not in second
