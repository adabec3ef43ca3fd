"""The installs tests/test_wheel.py grades with, started in the background as soon as the session begins.

Two venvs with PyTorch (~1.5 min of pip, mostly unpacking onto the disk), built side by side and niced,
while the other tests grade; tests/test_wheel.py waits for them (tests/conftest.py starts them when its
tests are selected):

* docs/install.md's four lines (tests/test_readme.py WHEEL_COMMANDS), run as written from the root of a
  fresh clone whose .venv is the one `make install` made here: `python -m build` makes the wheel and
  the sdist, then ../grader-venv beside the clone gets the wheel (`pip install -c requirements.txt`);
* the Gradescope image: the zip `make gradescope` builds, unzipped as Gradescope does, its own setup.sh
  run for real with TORCH_INDEX pointed at PyPI (the one index reachable here).

pip byte-compiles nothing it installs (PIP_NO_COMPILE: PyTorch's thousands of modules took a minute of
CPU per venv); the interpreter compiles what it imports instead. Everything else is pip's default.
"""
import os
import subprocess
import sys
import zipfile
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from autograder.assignment import ROOT
from tests.fresh import fresh_clone, shell_env

PYPI = "https://pypi.org/simple"  # what setup.sh gets instead of PyTorch's index
PIP_ENV = {"PIP_NO_COMPILE": "1"}
NICE = ["nice", "-n", "10"]  # the installs wait on the disk; the tests grading meanwhile keep the cores


def run(argv, cwd, env=None, timeout=900, check=True) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in argv], cwd=cwd, env=env or shell_env(), capture_output=True, text=True,
                          timeout=timeout)
    if check:
        assert proc.returncode == 0, f"{argv} exited {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def readme_lines() -> tuple[str, str, str, str]:
    """docs/install.md's build, venv, install and grade lines, in its order."""
    from tests.test_readme import WHEEL_COMMANDS

    assert len(WHEEL_COMMANDS) == 4, WHEEL_COMMANDS
    build, venv, install, grade = WHEEL_COMMANDS
    assert build.startswith(".venv/bin/python -m build") and " -m venv ../grader-venv" in venv
    assert "pip install -c requirements.txt dist/" in install and "autograder grade submissions/ada.ipynb" in grade
    return build, venv, install, grade


def readme(line, clone, nice=False, **env) -> subprocess.CompletedProcess:
    """One line of docs/install.md as a person types it, from the clone's root, in a shell that activated nothing."""
    return run([*(NICE if nice else []), "bash", "-c", line], cwd=clone, env={**shell_env(), **env})


@dataclass
class Installed:
    clone: Path  # the fresh clone; the venv, the course folder and the image lie beside it
    wheel: Path
    sdist: Path
    bin: Path  # the wheel's venv (../grader-venv)/bin
    gradescope: Path  # the image's root: source/ (the unzipped zip, with its .venv), run_autograder beside it
    checkout_zip: Path  # the zip the checkout built
    setup: subprocess.CompletedProcess  # setup.sh's run


def _wheel(base: Path) -> tuple[Path, Path, Path, Path]:
    build, venv, install, _ = readme_lines()
    clone = fresh_clone(base / "clone")
    (clone / ".venv").symlink_to(ROOT / ".venv")  # as docs/install.md assumes: `make install` made it
    readme(build, clone, nice=True)
    wheel, = (clone / "dist").glob("*.whl")
    sdist, = (clone / "dist").glob("*.tar.gz")
    readme(venv, clone, nice=True)
    readme(install, clone, nice=True, **PIP_ENV)
    return clone, wheel, sdist, clone.parent / "grader-venv" / "bin"


def _gradescope(base: Path) -> tuple[Path, Path, subprocess.CompletedProcess]:
    work = base / "checkout-work"  # the zip's secret would come from here (there is none), not the checkout's
    zip_path = work / "autograder.zip"
    run([*NICE, sys.executable, "-m", "autograder", "--workdir", work, "gradescope", "--out", zip_path], cwd=ROOT)
    root = base / "gradescope"
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(root / "source")
        for info in archive.infolist():  # zipfile drops the mode bits; Gradescope keeps them
            if (info.external_attr >> 16) & 0o111:
                os.chmod(root / "source" / info.filename, 0o755)
    setup = run([*NICE, "bash", root / "source" / "setup.sh"], cwd=root / "source",
                env={**shell_env(), **PIP_ENV, "TORCH_INDEX": PYPI})
    return root, zip_path, setup


class Background:
    """Both installs, started at once in two threads; ``result()`` waits for them; ``close()`` removes them."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.pool = ThreadPoolExecutor(2)
        self.wheel: Future = self.pool.submit(_wheel, base)
        self.image: Future = self.pool.submit(_gradescope, base)

    def result(self) -> Installed:
        clone, wheel, sdist, bin_dir = self.wheel.result()
        root, zip_path, setup = self.image.result()
        return Installed(clone, wheel, sdist, bin_dir, root, zip_path, setup)

    def close(self) -> None:
        """Remove the ~3 GB (two venvs with PyTorch, ~40,000 files): a minute of disk work on a busy machine,
        left to an `rm` of its own so that the session need not wait for it."""
        self.pool.shutdown(wait=True)
        subprocess.Popen(["rm", "-rf", str(self.base)], start_new_session=True, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
