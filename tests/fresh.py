"""A fresh clone of this checkout and the environment of a shell that activated nothing.

For tests that run the package the way someone else would get it (test_readme.py: every command of README.md and docs/;
test_wheel.py: the wheel and sdist built from it): a clone holds what is committed plus the uncommitted
changes to tracked files, never the checkout's untracked files or build artefacts.
"""
import os
import subprocess
from pathlib import Path

from autograder.assignment import ROOT


def shell_env():
    """The environment of a shell that activated nothing: no venv's bin/ on PATH, no make or Python overrides."""
    dropped = {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONHASHSEED", "MAKEFLAGS", "MFLAGS", "MAKELEVEL",
               "MAKEOVERRIDES", "PYTEST_CURRENT_TEST", "PYTEST_ADDOPTS", "WEEK7_WORKDIR", "AUTOGRADER_WORKDIR"}
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and not (Path(p).parent / "pyvenv.cfg").exists())
    return env


def fresh_clone(target):
    """A clone of this checkout at HEAD plus its uncommitted changes to tracked files."""
    git = ["git", "-C", str(ROOT)]
    rev = subprocess.run([*git, "stash", "create"], capture_output=True, text=True, check=True).stdout.strip()
    rev = rev or subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(target)], check=True)
    subprocess.run(["git", "-C", str(target), "checkout", "--quiet", "--detach", rev], check=True)
    return target
