"""`grade-all --shard I/N` and `grade-all merge`: a class spread over a job array comes back as one plain run.

The class is tests/batch/small_class.py (eight submissions: folders, Canvas names, a hostile name, a
file that is not a notebook), graded once plainly by the `small_class` fixture with a roster and both
LMS exports. Here the same folder is graded as three shards run side by side, as a job array runs
them, each into its own --out, and merged with the same roster and exports. Every file the plain run
wrote must come out of the merge byte for byte, except what measures time: the `seconds` column and
fields, `execution_time`, "graded in … s", the record's `finished` stamp, the report's "generated" date.
"""
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.assignment import NOTEBOOK_FILE, ROOT
from autograder.flows import batch_shard

SHARDS = 3
# What measures time, per file name: (pattern, replacement) applied to both sides before comparing.
TIMING = {
    "grades.csv": None,  # the seconds column: compared apart (csv_without_seconds)
    "results.json": [(r'"execution_time": [0-9.e-]+', '"execution_time": T')],
    "record.json": [(r'"seconds": [0-9.e-]+', '"seconds": T'), (r'"finished": "[^"]*"', '"finished": T')],
    "feedback.txt": [(r"graded in [0-9.]+ s", "graded in T s")],
    "grades_summary.json": [(r'"seconds": [0-9.e-]+', '"seconds": T')],
    "report.html": [(r"generated [0-9: -]+", "generated T")],
}
NOT_COMPARED = {"grades.log"}  # a log of when things happened; the merged one holds each shard's (checked below)


def grade_all(*args, timeout=900):
    return subprocess.Popen([sys.executable, "-m", "autograder", "grade-all", *map(str, args)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finished(proc, timeout=900):
    stdout, stderr = proc.communicate(timeout=timeout)
    return proc.returncode, stdout, stderr


@pytest.fixture(scope="module")
def sharded(small_class, tmp_path_factory):
    """The small class as three shards run side by side (--jobs 1 each), then merged: (plain out, merged out, base)."""
    folder, roster, plain, _ = small_class
    base = tmp_path_factory.mktemp("shards")
    jobs = [grade_all(folder, "--out", base / f"shard-{i}" / "grades.csv", "--shard", f"{i}/{SHARDS}", "--jobs", "1")
            for i in range(1, SHARDS + 1)]
    for i, job in enumerate(jobs, 1):
        code, stdout, stderr = finished(job)
        assert code == 0, f"shard {i}: {stdout[-2000:]}{stderr[-3000:]}"
        assert f"shard {i}/{SHARDS} of the class" in stdout
    merged = base / "class" / "grades.csv"
    code, stdout, stderr = finished(grade_all("merge", *[base / f"shard-{i}" / "grades.csv" for i in (3, 1, 2)],
                                              "--out", merged, "--roster", roster, "--lms", "canvas", "--lms", "moodle"))
    assert code == 0, stdout[-2000:] + stderr[-3000:]
    return plain, merged, base


def files_under(folder):
    return {p.relative_to(folder).as_posix(): p for p in folder.rglob("*") if p.is_file()}


def normalised(path):
    text = path.read_bytes().decode("utf-8")
    for pattern, replacement in TIMING.get(path.name) or []:
        text = re.sub(pattern, replacement, text)
    return text


def csv_without_seconds(path):
    lines = path.read_text().splitlines()
    at = lines[0].split(",").index("seconds")
    # The seconds cell is a plain number (never quoted), so cutting at commas before it is safe; the cells
    # after it (notebook, sha256, detail) may hold commas, so they are kept whole.
    return [re.sub(rf"^((?:[^,]*,){{{at}}})[0-9.]*,", r"\1T,", line) if i else line for i, line in enumerate(lines)]


@pytest.mark.slow
def test_shards_and_merge_write_what_one_plain_run_writes(sharded):
    plain, merged, _ = sharded
    ours, theirs = files_under(plain.parent), files_under(merged.parent)
    assert sorted(ours) == sorted(theirs), "the merge wrote other files than a plain run"
    exact = []
    for name, path in sorted(ours.items()):
        if path.name in NOT_COMPARED:
            continue
        if path.name == "grades.csv":
            assert csv_without_seconds(theirs[name]) == csv_without_seconds(path)
        elif path.name in TIMING:
            assert normalised(theirs[name]) == normalised(path), name
        else:
            assert theirs[name].read_bytes() == path.read_bytes(), f"{name} differs"
            exact.append(name)
    # Byte for byte: every check file, the written answers, the plots, the summary text, the LMS files.
    assert {"grades_written.json", "grades_summary.txt", "grades_canvas.csv", "grades_moodle.csv",
            "grades_roster_check.csv"} <= set(exact)
    assert len([n for n in exact if n.startswith("grades_checks/")]) == 8  # every student
    assert [n for n in exact if n.startswith("grades_plots/")]


@pytest.mark.slow
def test_every_student_is_graded_by_exactly_one_shard(sharded):
    plain, _, base = sharded
    everyone = [line.split(",")[0] for line in plain.read_text().splitlines()[1:]]
    graded = []
    for i in range(1, SHARDS + 1):
        manifest = json.loads((base / f"shard-{i}" / "grades_shard.json").read_text())
        assert manifest["shard"] == [i, SHARDS] and len(manifest["class"]) == len(everyone)
        rows = (base / f"shard-{i}" / "grades.csv").read_text().splitlines()[1:]
        graded += [row.split(",")[0] for row in rows]
    assert sorted(graded) == sorted(everyone)
    log = (base / "class" / "grades.log").read_text()
    assert all(f"---- shard {i}/{SHARDS}" in log for i in range(1, SHARDS + 1))


@pytest.mark.slow
def test_merge_refuses_shards_that_do_not_fit(sharded, tmp_path):
    _, merged, base = sharded
    shard = [base / f"shard-{i}" / "grades.csv" for i in range(1, SHARDS + 1)]
    code, _, stderr = finished(grade_all("merge", shard[0], shard[2], "--out", tmp_path / "g.csv"))
    assert code == 2 and f"shard 2/{SHARDS} missing" in stderr
    code, _, stderr = finished(grade_all("merge", *shard, shard[1], "--out", tmp_path / "g.csv"))
    assert code == 2 and "given twice" in stderr
    code, _, stderr = finished(grade_all("merge", *shard, "--out", shard[0]))
    assert code == 2 and "is one of the shards" in stderr
    assert not (tmp_path / "g.csv").exists()
    code, stdout, _ = finished(grade_all("merge", *shard, "--out", merged))  # again into the class: the merge rule
    assert code == 0 and "grades.csv: 8 updated, 0 added, 0 kept" in stdout


@pytest.mark.slow
def test_merge_refuses_shards_graded_with_different_secrets(sharded, tmp_path):
    """Jobs that do not share the working directory each make a secret, hence other probes: refused."""
    _, _, base = sharded
    fingerprints = {json.loads((base / f"shard-{i}" / "grades_shard.json").read_text())["secret"]
                    for i in range(1, SHARDS + 1)}
    assert fingerprints == {batch_shard.secret_fingerprint()}, "each shard records the secret it graded with"
    other = tmp_path / "shard-2"
    shutil.copytree(base / "shard-2", other)
    manifest = json.loads((other / "grades_shard.json").read_text())
    manifest["secret"] = "0" * 16
    (other / "grades_shard.json").write_text(json.dumps(manifest))
    code, _, stderr = finished(grade_all("merge", base / "shard-1" / "grades.csv", other / "grades.csv",
                                         base / "shard-3" / "grades.csv", "--out", tmp_path / "g.csv"))
    assert code == 2 and "different secrets" in stderr and not (tmp_path / "g.csv").exists()


def test_shard_option_and_shares():
    students = [f"student{n:03d}" for n in range(300)] + ["<img src=x onerror=alert(1)>", "=cmd|' /C calc'!A0"]
    shares = {i: [s for s in students if batch_shard.Shard(i, 4).holds(s)] for i in range(1, 5)}
    assert sorted(sum(shares.values(), [])) == sorted(students), "each student in exactly one shard"
    assert all(50 < len(share) < 100 for share in shares.values()), {i: len(s) for i, s in shares.items()}
    later = students + ["a_late_submission"]
    assert {i: [s for s in later if batch_shard.Shard(i, 4).holds(s) and s in students] for i in shares} == shares, \
        "a late submission moves nobody"
    assert batch_shard.parse("2/5") == batch_shard.Shard(2, 5) and str(batch_shard.parse(" 3 / 3 ")) == "3/3"
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", ""):
        with pytest.raises(ValueError):
            batch_shard.parse(bad)


def test_the_secrets_fingerprint_is_what_it_was():
    # FINGERPRINT_SALT is a legacy name (b"week7 shard manifest\0", of the time the engine served week 7 alone), kept
    # byte for byte: a manifest or an nbgrader record written then names its secret by this very fingerprint.
    assert batch_shard.FINGERPRINT_SALT == b"week7 shard manifest\0"
    assert batch_shard.fingerprint(b"the secret of a course set up in 2026") == "47452f3f857696cf"


def test_grade_all_refuses_a_bad_shard_and_lms_in_a_shard(tmp_path):
    (tmp_path / "subs").mkdir()
    code, _, stderr = finished(grade_all(tmp_path / "subs", "--shard", "0/3", "--out", tmp_path / "g.csv"))
    assert code == 2 and "I must be between 1 and N" in stderr
    code, _, stderr = finished(grade_all(tmp_path / "subs", "--shard", "1/3", "--out", tmp_path / "g.csv",
                                         "--roster", tmp_path / "r.csv", "--lms", "canvas"))
    assert code == 2 and "grade-all merge" in stderr
    assert not Path(tmp_path / "g.csv").exists()


@pytest.mark.slow
def test_merged_rows_keep_a_plain_runs_order(tmp_path):
    """A plain run writes its rows in discovery order (file names), which is not the students' order here:
    `a.b.ipynb` is student a.b, the Canvas download `a_1_2_….ipynb` student a. The merge must follow it."""
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("a.b.ipynb", f"a_1_2_{NOTEBOOK_FILE}", "c.ipynb", "b.ipynb"):
        (subs / name).write_text("not a notebook\n")  # no grading process needed: each row is not-a-notebook
    code, _, stderr = finished(grade_all(subs, "--out", tmp_path / "plain" / "g.csv"))
    assert code == 0, stderr[-2000:]
    shards = [tmp_path / f"s{i}" / "g.csv" for i in (1, 2)]
    for i, out in enumerate(shards, 1):
        code, _, stderr = finished(grade_all(subs, "--out", out, "--shard", f"{i}/2"))
        assert code == 0, stderr[-2000:]
    code, _, stderr = finished(grade_all("merge", *shards, "--out", tmp_path / "merged" / "g.csv"))
    assert code == 0, stderr[-2000:]
    plain = csv_without_seconds(tmp_path / "plain" / "g.csv")
    assert [row.split(",")[0] for row in plain[1:]] == ["a.b", "a", "b", "c"]
    assert csv_without_seconds(tmp_path / "merged" / "g.csv") == plain
