"""An instructor's machine in an emulated environment: a checkout and a venv the emulated user owns.

As on a laptop or a JupyterHub, the grading user owns its checkout (the hidden suites, the reference,
build/ with the secret) and its venv (site-packages, where a .pth file would run in every later Python).
The copy holds this working tree's files as they are now; the venv is a fresh one whose site-packages
adds this checkout's (torch and the rest, bound read-only at SITE_PACKAGES by launch.py, so that it is
reachable wherever the checkout is) and the copy, by two .pth lines.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from autograder.assignment import ROOT
from tests.environments import BASE, ENVIRONMENTS, SITE_PACKAGES
LAUNCH = Path(__file__).with_name("launch.py")


@dataclass
class Machine:
    env: str
    home: Path
    checkout: Path

    @property
    def python(self) -> Path:
        return self.checkout / ".venv" / "bin" / "python"

    def command(self, *args: str) -> list[str]:
        """``args`` as the emulated user runs them, through the launcher."""
        return [sys.executable, str(LAUNCH), self.env, "--", *args]

    def run(self, *args: str, cwd: Path | None = None, timeout: float = 900, env: dict | None = None,
            **kwargs) -> subprocess.CompletedProcess:
        environ = {"HOME": str(self.home), "USER": "instructor", "LOGNAME": "instructor", "LANG": "C.UTF-8",
                   "PATH": f"{self.python.parent}:/usr/local/bin:/usr/bin:/bin", "PYTHONHASHSEED": "0",
                   "PYTHONDONTWRITEBYTECODE": "1",  # so that a .pyc appearing in the checkout is the worker's doing
                   "WEEK7_CHECKOUT": str(ROOT)}  # where the launcher imports its table from
        environ.update(env or {})
        return subprocess.run(self.command(*args), cwd=cwd or self.checkout, env=environ, capture_output=True,
                              text=True, timeout=timeout, **kwargs)

    def grade(self, notebook: Path, out: Path, *extra: str, **kwargs) -> subprocess.CompletedProcess:
        return self.run(str(self.python), "-m", "autograder", "grade", str(notebook), "--out", str(out), *extra,
                        **kwargs)


def _files(top: Path) -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=top, capture_output=True,
                            check=True).stdout.decode().split("\0")
    return [f for f in listed if f and (top / f).is_file()]


def prepare(name: str, folder: str | None = None) -> Machine:
    """The machine of environment ``name``: made afresh (once per test session), in BASE / (``folder`` or name)."""
    env = ENVIRONMENTS[name]
    base = BASE / (folder or name)
    shutil.rmtree(base, ignore_errors=True)
    home, checkout = base / "home", base / "checkout"
    home.mkdir(parents=True)
    for relative in _files(ROOT):
        target = checkout / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / relative, target)
    for generated in ("build/course/source",):  # the instructor notebook the tests grade
        if (ROOT / generated).is_dir():
            shutil.copytree(ROOT / generated, checkout / generated)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(checkout / ".venv")], check=True)
    purelib = sysconfig.get_paths()["purelib"]
    own = checkout / ".venv" / Path(purelib).relative_to(sys.prefix)
    (own / "week7-environment.pth").write_text(f"{checkout}\n{SITE_PACKAGES}\n")  # launch.py binds purelib there
    SITE_PACKAGES.mkdir(exist_ok=True)
    (home / ".bashrc").write_text("# the instructor's shell start-up file\n")
    for path in [base, *base.rglob("*")]:
        os.lchown(path, env.uid, env.uid)
    BASE.chmod(0o755)
    base.chmod(0o755)
    return Machine(name, home, checkout)
