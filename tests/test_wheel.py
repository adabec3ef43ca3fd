"""The package as someone outside this checkout gets it: a wheel and an sdist, installed by pip into fresh venvs.

The installs are tests/wheel_env.py (started in the background when the session begins): docs/install.md's
four lines run as written in a fresh clone (build, a venv beside it, `pip install -c requirements.txt`
of the wheel) and the Gradescope image built by the zip's own setup.sh from the slim lock. Here the
installed `autograder` grades the reference and the blank notebook from a course folder of its own
(docs/install.md's last line) and runs every other flow there; the image's run_autograder grades with the
slim lock; last, the sdist is installed into the first venv (pip builds it) and must give the same package.
"""
import csv
import hashlib
import json
import re
import shutil
import sys
import tomllib
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.assignment import GRADER_LOCK, NAME, NOTEBOOK_FILE, ROOT, STUDENT_NOTEBOOK, course_notebook
from tests.fresh import shell_env
from tests.points import total
from tests.wheel_env import PIP_ENV, readme, readme_lines, run

pytestmark = pytest.mark.slow
SCRIPT = "autograder"
# The distribution (pyproject.toml): its wheel and its .dist-info are named <DIST with _>-<version>.
DIST = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"]


def loot_notebook(solution, path, secret):
    """The reference notebook plus a cell that looks for the installed package's hidden files and the secret
    (through the path of the `autograder` module the worker itself runs) and raises what it read."""
    nb = nbformat.read(solution, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(f'''
import os, sys
mod = sys.modules.get("autograder")
bases = [p for p in sys.path if p.endswith("site-packages")]
if mod is not None and getattr(mod, "__file__", None):
    bases.append(os.path.dirname(os.path.dirname(mod.__file__)))
targets = [os.path.join(b, r) for b in bases for r in ("solutions/week7_attention/suites/test_masks.py", "solutions/reference/masks.py",
                                                      "solutions/week7_attention/suites/conftest.py")] + [{str(secret)!r}]
loot = []
for target in targets:
    try:
        loot.append(target + ": " + open(target).read(80))
    except OSError:
        pass
raise RuntimeError("LOOT " + (" || ".join(loot) if loot else f"nothing of {{len(targets)}} paths"))
'''))
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def installed(wheel_installs):
    """tests/wheel_env.Installed, once both installs are done."""
    return wheel_installs.result()


@pytest.fixture(scope="module")
def dists(installed):
    return installed.wheel, installed.sdist


@pytest.fixture(scope="module")
def environments(installed):
    """{"bin": the wheel's venv bin/, "work": the course folder (docs/install.md's ../my-course), "clone",
    "gradescope": (the image's root, the checkout's zip, setup.sh's run)}."""
    work = installed.clone.parent / "my-course"
    work.mkdir(exist_ok=True)
    yield {"bin": installed.bin, "work": work, "clone": installed.clone,
           "gradescope": (installed.gradescope, installed.checkout_zip, installed.setup)}
    from autograder.flows.nbgrader import client
    client.stop(work / "build" / "course")  # the nbgrader flow's grading service, which would wait its idle time


@pytest.fixture(scope="module")
def class_folder(environments, solution_notebook):
    """submissions/: ada (the reference, every solution), bob (the blank student notebook), in the course folder."""
    folder = environments["work"] / "submissions"
    folder.mkdir()
    shutil.copy(solution_notebook, folder / "ada.ipynb")
    shutil.copy(STUDENT_NOTEBOOK, folder / "bob.ipynb")
    return folder


def grader(environments, *args, check=True):
    return run([environments["bin"] / SCRIPT, *args], cwd=environments["work"], check=check)


# ---- what the dists carry -------------------------------------------------------------------------------------

def test_the_wheel_carries_what_the_grader_reads(dists):
    assert Path(dists[0]).name.startswith(f"{DIST.replace('-', '_')}-"), dists[0]  # docs/install.md names the file
    with zipfile.ZipFile(dists[0]) as archive:
        names = set(archive.namelist())
        entry_points = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt"))
    for part in ("masks", "training", "leakage"):
        assert f"solutions/week7_attention/suites/test_{part}.py" in names, "the hidden suites"
    assert {"solutions/week7_attention/suites/conftest.py", "solutions/week7_attention/suites/expect.py", "solutions/reference/masks.py",
            "solutions/lab/lab.py", f"solutions/notebook/{NAME}.md"} <= names
    assert {"autograder/flows/gradescope/setup.sh", "autograder/flows/gradescope/run_autograder",
            "autograder/flows/written/mathjax_config.js", "autograder/flows/written/templates/student.html.j2",
            "autograder/flows/written/templates/style.css",
            "autograder/flows/nbgrader/templates/autograder_feedback/index.html.j2",
            # new-assignment's template package (autograder/authoring/scaffold.py)
            "autograder/authoring/template/suites/test_scale.py.tmpl",
            "autograder/authoring/template/notebook/__NAME__.md.tmpl"} <= names
    assert {f"autograder/_shipped/assignments/{NAME}/{NOTEBOOK_FILE}", "autograder/_shipped/requirements-grader.txt"} <= names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "templates/", "build/")) or "__pycache__" in n]
    assert f"{SCRIPT} = autograder.cli:console" in entry_points


def test_a_wheel_built_from_the_sdist_is_the_same(dists, tmp_path):
    """pip's own way from an sdist to an install: the wheel it builds holds the same files, byte for byte."""
    wheel, sdist = dists
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", tmp_path, sdist],
        cwd=tmp_path)
    again, = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as first, zipfile.ZipFile(again) as second:
        assert sorted(first.namelist()) == sorted(second.namelist())
        differ = [n for n in first.namelist() if first.read(n) != second.read(n)]
    assert not differ, differ


# ---- the console script of the installed wheel ------------------------------------------------------------

def test_the_console_script_grades_the_reference_and_the_blank_notebook(environments, class_folder):
    work = environments["work"]
    ada = readme(readme_lines()[3], environments["clone"])  # docs/install.md's line: cd ../my-course && ... grade ada
    bob = grader(environments, "grade", "submissions/bob.ipynb", "--out", "bob.json")
    assert json.loads((work / "results.json").read_text())["score"] == total()
    assert json.loads((work / "bob.json").read_text())["score"] == 0
    assert "total            100 / 100" in ada.stdout.replace(f"{total():g} / {total():g}", "100 / 100")
    assert "total              0 / " in bob.stdout
    assert (work / "build" / "secret.key").is_file(), "the working data goes to the working directory"
    where = run([environments["bin"] / "python", "-c", "import autograder.assignment as a; print(a.ROOT, a.INSTALLED)"],
                cwd=work)
    site, installed = where.stdout.split()
    assert installed == "True" and Path(site).name == "site-packages" and not Path(site).is_relative_to(ROOT)


def test_a_worker_sees_none_of_the_installed_package(environments, class_folder, solution_notebook):
    """Site-packages stays visible to the worker (PyTorch is there), our two packages in it do not, nor the
    working directory's secret: the reference notebook with a cell that looks for them still scores in full."""
    work = environments["work"]
    loot_notebook(solution_notebook, work / "loot.ipynb", work / "build" / "secret.key")
    proc = grader(environments, "grade", "loot.ipynb", "--out", "loot.json")
    assert "LOOT nothing of" in proc.stdout, proc.stdout[-3000:]
    assert json.loads((work / "loot.json").read_text())["score"] == total()


def test_the_console_script_runs_every_flow(environments, class_folder):
    """grade-all, written, class-report, release, the nbgrader flow, nbgrader-hand and the Gradescope build."""
    work = environments["work"]
    grader(environments, "grade-all", "submissions", "--out", "grades.csv", "--jobs", "2")
    rows = {r["student"]: r for r in csv.DictReader((work / "grades.csv").open())}
    assert float(rows["ada"]["total"]) == total() and float(rows["bob"]["total"]) == 0
    assert (work / "report.html").is_file() and (work / "grades_written.json").is_file()
    pdf = [] if shutil.which("chromium") else ["--no-pdf"]
    grader(environments, "written", "submissions", "--out", "written", *pdf)
    assert (work / "written" / "q1.html").is_file() and (work / "written" / "hand.csv").is_file()
    if not pdf:
        assert (work / "written" / "students" / "ada.pdf").read_bytes()[:4] == b"%PDF"
    (work / "report.html").unlink()
    grader(environments, "class-report", "grades.csv")
    assert (work / "report.html").is_file()
    release = grader(environments, "release")
    assert "Release ready." in release.stdout
    course = work / "build" / "course"
    assert (course / "gradebook.db").is_file()
    for student in ("ada", "bob"):
        target = course_notebook(course, "submitted", student)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(class_folder / f"{student}.ipynb", target)
    nb = grader(environments, "nbgrader", "build/course")
    assert re.search(rf"ada\s+{total():g} / {total():g}", nb.stdout) and re.search(r"bob\s+0 / ", nb.stdout)
    exported = {r["student_id"]: r for r in csv.DictReader((course / "grades.csv").open())}
    assert float(exported["ada"]["score"]) == total() and float(exported["bob"]["score"]) == 0
    # The grading service drew its probes from the working directory's secret, as grade and grade-all do (it ran
    # in a folder of its own, drew from a secret there, and nbgrader's grades differed: red team of issue 23).
    drawn = hashlib.sha256(b"week7 shard manifest\0" + (work / "build" / "secret.key").read_bytes()).hexdigest()[:16]
    for student in ("ada", "bob"):
        record = json.loads((course / "isolated" / student / "record.json").read_text())
        assert record["key"].endswith("/" + drawn), (student, record["key"])
    (work / "hand.csv").write_text("student,q1,q2,q3,comment\nada,5,,,clear\n")
    hand = grader(environments, "nbgrader-hand", "build/course", "hand.csv", "--dry-run")
    assert "would change ada q1_positions: empty -> 5" in hand.stdout
    built = grader(environments, "gradescope")
    assert "7 hidden suites" in built.stdout


def test_the_installed_package_builds_the_checkouts_gradescope_zip(environments, class_folder):
    """Same members, same bytes (but for the course's own secret): the zip does not depend on where the package is."""
    ours = environments["work"] / "build" / "gradescope" / "autograder.zip"
    if not ours.exists():
        grader(environments, "gradescope")
    _, checkout_zip, _ = environments["gradescope"]
    secret = "build/secret.key"  # the installed one's course has graded, so it has a secret; the other has none yet
    with zipfile.ZipFile(ours) as first, zipfile.ZipFile(checkout_zip) as second:
        assert secret in first.namelist() and secret not in second.namelist()
        assert sorted(set(first.namelist()) - {secret}) == sorted(second.namelist())
        differ = [n for n in second.namelist() if first.read(n) != second.read(n)]
    assert not differ, differ


# ---- the Gradescope image: the slim lock -----------------------------------------------------------------------

def test_the_gradescope_image_holds_the_slim_lock_only(environments):
    root, _, setup = environments["gradescope"]
    assert "(CPU build)" in setup.stdout, setup.stdout[-2000:]
    python = root / "source" / ".venv" / "bin" / "python"
    freeze = run([python, "-m", "pip", "freeze", "--all", "--exclude", "pip"], cwd=root).stdout
    have = {line.split("==")[0].lower().replace("_", "-"): line.split("==")[1].split("+")[0]
            for line in freeze.splitlines() if "==" in line}
    locked = {line.split("==")[0].lower().replace("_", "-"): line.split("==")[1]
              for line in GRADER_LOCK.read_text().splitlines() if line and not line.startswith("#")}
    assert have == locked, {k: (have.get(k), locked.get(k)) for k in set(have) | set(locked) if have.get(k) != locked.get(k)}
    imports = run([python, "-c", "import autograder.engine.grader, autograder.flows.gradescope.run, "
                                 "solutions.week7_attention.suites.expect; import torch; print(torch.__version__)"], cwd=root / "source")
    assert imports.stdout.startswith("2.13.0")


def test_run_autograder_grades_with_the_slim_lock(environments, solution_notebook):
    root, _, _ = environments["gradescope"]
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    for name in ("submission", "results"):
        (root / name).mkdir(exist_ok=True)
    shutil.copy(solution_notebook, root / "submission" / NOTEBOOK_FILE)
    env = {**shell_env(), "GRADESCOPE_ROOT": str(root)}
    env.pop("GRADESCOPE_PYTHON", None)  # run_autograder takes source/.venv/bin/python, the image's own
    run([root / "run_autograder"], cwd=root, env=env)
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == total(), results.get("output")


# ---- last: the sdist, installed by pip over the wheel ------------------------------------------------------------

def test_pip_installs_the_sdist_and_it_grades(environments, dists, class_folder):
    """`pip install <sdist>`: pip builds it (in its isolated build environment) and installs the same files."""
    bin_dir, work = environments["bin"], environments["work"]
    site = Path(run([bin_dir / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                    cwd=work).stdout.strip())

    def record():
        info, = site.glob(f"{DIST.replace('-', '_')}-*.dist-info")
        return sorted(line.split(",")[:2] for line in (info / "RECORD").read_text().splitlines()
                      if ".dist-info/" not in line and "__pycache__" not in line)

    from_wheel = record()
    run([bin_dir / "pip", "install", "--quiet", "--no-deps", "--force-reinstall", dists[1]], cwd=work,
        env={**shell_env(), **PIP_ENV})
    assert record() == from_wheel, "the sdist installed other files than the wheel"
    grader(environments, "grade", "submissions/ada.ipynb", "--out", "ada-sdist.json")
    assert json.loads((work / "ada-sdist.json").read_text())["score"] == total()
