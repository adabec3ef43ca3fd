"""The package as installed by `make install` (pyproject.toml): editable, its dependencies the lock, a copy wins.

Tests that copy the repository and run it there (cwd=<copy> or PYTHONPATH=<copy>) must import the
copy, not the checkout the venv was installed from: setuptools' editable finder sits behind sys.path.
"""
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

from autograder.assignment import PART_IDS, ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
DIST = PYPROJECT["project"]["name"]
WHERE = "import autograder.assignment as a, solutions; print(a.ROOT, solutions.__file__)"


def _pins(path):
    return sorted(line.split("#")[0].strip().lower() for line in path.read_text().splitlines()
                  if line.split("#")[0].strip())


def test_dependencies_are_the_lock():
    """requirements.txt stays the pinned lock; the package's metadata reads it (and requirements-dev.txt)."""
    dynamic = PYPROJECT["tool"]["setuptools"]["dynamic"]
    assert dynamic["dependencies"] == {"file": ["requirements.txt"]}
    assert dynamic["optional-dependencies"]["dev"] == {"file": ["requirements-dev.txt"]}
    installed = importlib.metadata.requires(DIST) or []
    runtime = sorted(r.lower() for r in installed if "extra ==" not in r)
    assert runtime == _pins(ROOT / "requirements.txt"), "requirements.txt changed since `make install`: rerun it"
    assert all(re.fullmatch(r"[a-z0-9_.\-]+==[a-z0-9_.+\-]+", pin) for pin in _pins(ROOT / "requirements-dev.txt"))


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
    """Static markers in pyproject.toml; one per part from autograder/assignment.py (tests/conftest.py)."""
    static = PYPROJECT["tool"]["pytest"]["ini_options"]["markers"]
    assert not [m for m in static if m.split(":")[0].strip() in PART_IDS], "part markers are derived, not listed"
    names = [m.split(":")[0].split("(")[0].strip() for m in pytestconfig.getini("markers")]
    for marker in ("slow", *PART_IDS):
        assert names.count(marker) == 1, (marker, names)
