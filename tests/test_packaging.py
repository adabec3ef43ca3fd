"""The package's dependencies and the editable install `make install` makes (pyproject.toml, the two locks).

What pip is told, and what it installed: pyproject.toml declares the direct dependencies as ranges,
requirements.txt pins the tested set (the closure of those declarations), requirements-grader.txt
the grader's own share of it; every pin must install on the oldest Python the package claims. The
built wheel and sdist, installed outside the checkout, are tests/test_wheel.py.

Tests that copy the repository and run it there (cwd=<copy> or PYTHONPATH=<copy>) must import the
copy, not the checkout the venv was installed from: setuptools' editable finder sits behind sys.path.
"""
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from autograder.assignment import GRADER_LOCK, PART_IDS, ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
DIST = PROJECT["name"]
WHERE = "import autograder.assignment as a, solutions; print(a.ROOT, solutions.__file__)"
# Never in the slim lock: the instructor's and the students' tools (issue 24 names the first three).
NOT_FOR_GRADING = {"jupyterlab", "alembic", "sqlalchemy", "nbgrader", "notebook", "jupyter-server", "nbconvert"}


def pins(path):
    """{canonical name: version} of a lock file (name==version lines; comments dropped)."""
    found = {}
    for line in Path(path).read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"{path.name}: {line!r} is not pinned"
            found[canonicalize_name(name)] = version
    return found


LOCK = pins(ROOT / "requirements.txt")
DEV = pins(ROOT / "requirements-dev.txt")


def installed_version(name):
    return Version(importlib.metadata.version(name)).public  # torch 2.13.0+cpu is the pinned 2.13.0


def requirements_of(name, extras=()):
    """The requirements of an installed distribution that apply here, with ``extras`` asked for."""
    found = []
    for text in importlib.metadata.requires(name) or []:
        requirement = Requirement(text)
        if requirement.marker is None or any(requirement.marker.evaluate({"extra": e}) for e in ("", *extras)):
            found.append(requirement)
    return found


def closure(requirements):
    """Every distribution the installed metadata says ``requirements`` need, extras followed."""
    seen, todo = {}, list(requirements)
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        extras = set(requirement.extras)
        if name in seen and extras <= seen[name]:
            continue
        seen[name] = seen.get(name, set()) | extras
        todo += requirements_of(name, seen[name])
    return set(seen)


def oldest_python():
    """The lowest version requires-python admits (it must be written as >=X.Y.Z)."""
    spec = PROJECT["requires-python"]
    assert spec.startswith(">=") and "," not in spec, spec
    return spec[2:]


# ---- what pyproject.toml declares -------------------------------------------------------------------------------

def test_direct_dependencies_are_ranges_the_lock_satisfies():
    declared = [Requirement(r) for r in PROJECT["dependencies"]]
    for extra in PROJECT["optional-dependencies"].values():
        declared += [Requirement(r) for r in extra]
    for requirement in declared:
        name = canonicalize_name(requirement.name)
        pinned = LOCK.get(name) or DEV.get(name)
        assert pinned, f"{requirement} is declared but neither lock pins it"
        assert not any(s.operator in ("==", "===") for s in requirement.specifier), f"{requirement}: a range, not a pin"
        assert requirement.specifier and requirement.specifier.contains(pinned), f"{requirement} excludes the lock's {pinned}"
    assert "dependencies" not in PROJECT.get("dynamic", []), "dependencies are declared, not read from the lock"


def test_the_lock_is_the_closure_of_the_declared_dependencies():
    """requirements.txt + requirements-dev.txt pin exactly what pyproject.toml's declarations need, no more."""
    declared = [Requirement(r) for r in PROJECT["dependencies"]]
    declared += [Requirement(r) for extra in PROJECT["optional-dependencies"].values() for r in extra]
    needed = closure(declared)
    pinned = set(LOCK) | set(DEV)
    assert not needed - pinned, f"needed but not pinned: {sorted(needed - pinned)}"
    assert not pinned - needed, f"pinned but needed by nothing declared: {sorted(pinned - needed)}"


def test_make_install_installed_the_lock():
    """The venv holds exactly the locked versions, and the package's own metadata is pyproject.toml's."""
    wrong = {name: (version, installed_version(name)) for name, version in {**LOCK, **DEV}.items()
             if installed_version(name) != version}
    assert not wrong, f"locked vs installed (rerun `make install`): {wrong}"
    assert sorted(importlib.metadata.requires(DIST) or []) == sorted(
        [*PROJECT["dependencies"], *[f'{r}; extra == "{e}"' for e, rs in PROJECT["optional-dependencies"].items()
                                     for r in rs]]), "pyproject.toml changed since `make install`: rerun it"


def test_every_pin_installs_on_the_oldest_python_claimed():
    """Each locked distribution's own Requires-Python admits the oldest Python pyproject.toml claims
    (soupsieve 4.x, which needs 3.11.5, broke `make install` on Debian 12's 3.11.2)."""
    oldest = oldest_python()
    refused = {}
    for name in {**LOCK, **DEV}:
        needs = importlib.metadata.metadata(name).get("Requires-Python")
        if needs and not SpecifierSet(needs).contains(oldest):
            refused[name] = needs
    assert not refused, f"these pins refuse Python {oldest}: {refused}"


def test_the_oldest_python_claimed_is_the_one_the_system_tier_runs():
    """requires-python's floor is not a guess: it is the Python `make test-system-python` runs the fast tier on."""
    makefile = (ROOT / "Makefile").read_text()
    assert "SYSTEM_PYTHON ?= /usr/bin/python3" in makefile
    system = Path("/usr/bin/python3")
    if not system.exists():
        pytest.skip("no /usr/bin/python3 on this machine")
    version = subprocess.run([str(system), "-c", "import platform; print(platform.python_version())"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert version == oldest_python(), f"/usr/bin/python3 is {version}; requires-python says {PROJECT['requires-python']}"


def test_the_slim_lock_is_a_closed_part_of_the_lock():
    """requirements-grader.txt: the same versions as requirements.txt, everything they need, no Jupyter server."""
    slim = pins(GRADER_LOCK)
    differ = {n: (v, LOCK.get(n)) for n, v in slim.items() if LOCK.get(n) != v}
    assert not differ, f"slim lock vs lock: {differ}"
    missing = closure([Requirement(f"{n}=={v}") for n, v in slim.items()]) - set(slim)
    assert not missing, f"the slim lock's packages need these too: {sorted(missing)}"
    assert not NOT_FOR_GRADING & set(slim), sorted(NOT_FOR_GRADING & set(slim))
    assert {"torch", "numpy", "pytest", "nbformat", "ipython"} <= set(slim)
    assert len(slim) < len(LOCK) / 2


def test_the_gradescope_zip_installs_the_slim_lock(tmp_path):
    """`make gradescope`'s requirements.txt is requirements-grader.txt, byte for byte (its setup.sh installs it)."""
    from autograder.flows.gradescope import build

    with zipfile.ZipFile(build.build(tmp_path / "autograder.zip")) as archive:
        assert archive.read("requirements.txt") == GRADER_LOCK.read_bytes()
        assert "autograder/_shipped" not in " ".join(archive.namelist())


# ---- the console script and the working directory ----------------------------------------------------------------

def test_the_console_script_is_declared_and_installed():
    # autograder, and week7-grader, its name while the engine served week 7 alone (a course's scripts keep working)
    assert PROJECT["scripts"] == {"autograder": "autograder.cli:console", "week7-grader": "autograder.cli:console"}
    for name in PROJECT["scripts"]:
        run = subprocess.run([str(Path(sys.prefix) / "bin" / name), "--help"], capture_output=True, text=True,
                             timeout=60)
        assert run.returncode == 0, run.stderr
        for command in ("grade", "grade-all", "written", "class-report", "release", "nbgrader", "gradescope"):
            assert command in run.stdout


def test_release_is_the_current_assignments_own():
    """`release` runs the current assignment's release module (plugin_api.Assignment.release), not week 7's by name:
    with another assignment current it builds that one's notebook (tests/test_second_assignment.py runs it)."""
    from autograder import cli
    from autograder.assignment import ASSIGNMENT
    assert cli.passed_on_module("release") == ASSIGNMENT.release
    assert all(cli.passed_on_module(command) == module for command, (module, _) in cli.PASSED_ON.items() if module)


def test_workdir_says_where_the_working_data_is(tmp_path):
    """`--workdir DIR` (or $AUTOGRADER_WORKDIR, or the old $WEEK7_WORKDIR): build/ there, not in the checkout; the zip takes DIR's secret."""
    work = tmp_path / "course-work"
    (work / "build").mkdir(parents=True)
    (work / "build" / "secret.key").write_bytes(b"the secret of this course")
    out = tmp_path / "z.zip"
    env = {k: v for k, v in os.environ.items() if k not in ("WEEK7_WORKDIR", "AUTOGRADER_WORKDIR")}
    for argv, extra in ((["--workdir", str(work)], {}), ([], {"AUTOGRADER_WORKDIR": str(work)}),
                        ([], {"WEEK7_WORKDIR": str(work)})):
        run = subprocess.run([sys.executable, "-m", "autograder", *argv, "gradescope", "--out", str(out)],
                             cwd=tmp_path, env={**env, **extra}, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        with zipfile.ZipFile(out) as archive:
            assert archive.read("build/secret.key") == b"the secret of this course"
    where = subprocess.run([sys.executable, "-c", "import autograder.assignment as a; print(a.SECRET_KEY, a.COURSE)"],
                           cwd=tmp_path, env={**env, "AUTOGRADER_WORKDIR": str(work)}, capture_output=True, text=True)
    assert where.stdout.split() == [str(work / "build" / "secret.key"), str(work / "build" / "course")]
    checkout = subprocess.run([sys.executable, "-c", "import autograder.assignment as a; print(a.SECRET_KEY)"],
                              cwd=tmp_path, env=env, capture_output=True, text=True)
    assert checkout.stdout.strip() == str(ROOT / "build" / "secret.key"), "a checkout keeps its own build/"


# ---- the editable install ---------------------------------------------------------------------------------------

def test_installed_editable_without_a_path_line():
    direct = json.loads(importlib.metadata.distribution(DIST).read_text("direct_url.json"))
    assert direct["dir_info"].get("editable") is True, direct
    purelib = Path(sysconfig.get_paths()["purelib"])
    assert not (purelib / "week7-package.pth").exists(), "the former .pth line is still installed"
    for pth in purelib.glob("*.pth"):  # no line puts a checkout on sys.path
        for line in pth.read_text().splitlines():
            assert not (line.strip() and Path(line.strip()).is_dir() and (Path(line.strip()) / "autograder").is_dir()), pth


def _where(cwd, pythonpath=None):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = str(pythonpath)
    run = subprocess.run([sys.executable, "-c", WHERE], cwd=cwd, env=env, capture_output=True, text=True,
                         check=True)
    root, solutions = run.stdout.split()
    assert Path(solutions).parent.parent == Path(root), run.stdout  # both packages from the same tree
    return Path(root)


def test_a_copy_of_the_package_wins_over_the_editable_install(tmp_path):
    copy = tmp_path / "copy"
    for package in ("autograder", "solutions"):
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert _where(copy) == copy  # cwd=<copy>
    assert _where(elsewhere, pythonpath=copy) == copy  # PYTHONPATH=<copy>
    installed = _where(elsewhere)  # neither: the checkout `make install` ran in
    assert installed != copy and (installed / "autograder" / "assignment.py").is_file()


def test_markers_are_declared_once(pytestconfig):
    """Static markers in pyproject.toml; one per part from the assignment's facts (tests/conftest.py)."""
    static = PYPROJECT["tool"]["pytest"]["ini_options"]["markers"]
    assert not [m for m in static if m.split(":")[0].strip() in PART_IDS], "part markers are derived, not listed"
    names = [m.split(":")[0].split("(")[0].strip() for m in pytestconfig.getini("markers")]
    for marker in ("slow", *PART_IDS):
        assert names.count(marker) == 1, (marker, names)
