"""`make gradescope`: build build/gradescope/autograder.zip, the upload for a Gradescope programming assignment.

Gradescope unzips it into /autograder/source, runs setup.sh once when it builds the
image, then copies run_autograder to /autograder/run_autograder and runs it per
submission (https://gradescope-autograders.readthedocs.io/en/latest/specs/). The zip
holds: setup.sh, run_autograder, requirements.txt (the slim lock requirements-grader.txt:
every package the grader needs, pinned, and nothing of Jupyter's server stack), the grader
(autograder/: engine, sandbox, hidden suites), the reference answers and the lab
(solutions/reference, solutions/lab) that the suites compare with, and the course's
secret files (SECRET_FILES, in the working directory's build/) when they exist: they end up
under /autograder/source, which the sandboxed worker never sees. The same zip comes out of a
checkout and of an installed package (the members are named by their checkout paths).

What it grades with travels as data: autograder.toml at the zip's root, the course's
settings (autograder/settings.py: the working directory's autograder.toml, then these
options, e.g. --feedback or FEEDBACK=... given to make, --visibility or VISIBILITY=...),
which run_autograder hands to the grader; no script is rewritten.
"""
from __future__ import annotations

import argparse
import os
import re
import stat
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ...assignment import ASSIGNMENT, GRADER, GRADER_LOCK, NOTEBOOK_FILE, named_files, workdir
from ...settings import CONFIG_FILE, Settings, add_options, config_path

HERE = Path(__file__).resolve().parent
OUT = workdir() / "build" / "gradescope" / "autograder.zip"
# What the grader imports at grading time (assignment.GRADER); nothing of the release tooling or the notebook source.
# Per-course secrets (e.g. the key probes are drawn from), relative to the working directory: copied when
# present, at the same path (on Gradescope the source folder is the working directory).
SECRET_FILES = ("build/secret.key",)
SETTINGS_FILE = CONFIG_FILE  # at the zip's root: /autograder/source/autograder.toml
# At the zip's root too: the package of the assignment the zip grades (one line), which run_autograder exports as
# $AUTOGRADER_ASSIGNMENT (plugin_api.py's discovery rule) before the grader starts: the zip grades the assignment
# it was built for, whichever one that is.
ASSIGNMENT_FILE = "assignment.txt"
SKIP = re.compile(r"(^|/)(__pycache__|\.pytest_cache)(/|$)|\.pyc$"
                  r"|^autograder/flows/gradescope/(setup\.sh|run_autograder)$")  # templates: written at the root


def torch_pin(requirements: str) -> str:
    """The exact torch version pinned in the lock; anything looser is refused."""
    pins = [line.split("#")[0].strip() for line in requirements.splitlines()
            if re.match(r"\s*torch\b", line) and not re.match(r"\s*torch[\w-]", line)]
    if len(pins) != 1 or not re.fullmatch(r"torch==\d+(\.\d+)+", pins[0]):
        raise SystemExit(f"{GRADER_LOCK.name} must pin torch exactly once as torch==X.Y.Z, found {pins}")
    return pins[0].split("==")[1]


def loose_pins(requirements: str) -> list[str]:
    return [line for line in (raw.split("#")[0].strip() for raw in requirements.splitlines())
            if line and not re.fullmatch(r"[A-Za-z0-9_.\-\[\]]+==[A-Za-z0-9_.+\-]+", line)]


def setup_script(requirements: str) -> str:
    minor = f"{sys.version_info.major}.{sys.version_info.minor}"
    return ((HERE / "setup.sh").read_text().replace("@TORCH_VERSION@", torch_pin(requirements))
            .replace("@PY_MINOR@", minor))


def _add(archive: zipfile.ZipFile, name: str, data: str | bytes, executable: bool = False,
         mode: int | None = None) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # fixed time: the same sources, the same zip
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = ((mode or (0o755 if executable else 0o644)) | stat.S_IFREG) << 16
    archive.writestr(info, data)


def build(out: str | os.PathLike[str] = OUT, settings: Settings | None = None) -> Path:
    """The zip at ``out``, grading with ``settings`` (default: the working directory's settings file, if any)."""
    if settings is None:
        path = config_path(workdir())
        settings = Settings.from_file(path) if path.is_file() else Settings()
    requirements = GRADER_LOCK.read_text()
    loose = loose_pins(requirements)
    if loose:
        raise SystemExit(f"{GRADER_LOCK.name} has unpinned lines: {loose}")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    files = [(name, path) for name, path in named_files(GRADER, suffix="") if not SKIP.search(name)]
    files += [(f, workdir() / f) for f in SECRET_FILES if (workdir() / f).is_file()]
    with zipfile.ZipFile(out, "w") as archive:
        _add(archive, "setup.sh", setup_script(requirements), executable=True)
        _add(archive, "run_autograder", (HERE / "run_autograder").read_text(), executable=True)
        _add(archive, SETTINGS_FILE, settings.to_toml())
        _add(archive, ASSIGNMENT_FILE, ASSIGNMENT.package + "\n")
        _add(archive, "requirements.txt", requirements)
        for name, path in files:
            # The key keeps its owner-only mode: the grader refuses a key others can read (engine/secret.py).
            _add(archive, name, path.read_bytes(), mode=0o600 if name in SECRET_FILES else None)
    return out


def archive_text(path: str | os.PathLike[str], name: str) -> str:
    with zipfile.ZipFile(path) as archive:
        return archive.read(name).decode()


@dataclass(frozen=True)
class BuildOptions:
    """`make gradescope`'s own options (what the zip grades with is the Settings)."""
    out: str


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m autograder.flows.gradescope.build", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(handler=run, options=BuildOptions)
    p.add_argument("--out", default=str(OUT), help="the zip to write (default: build/gradescope/autograder.zip "
                   "in the working directory)")
    add_options(p)
    # make gradescope FEEDBACK=... VISIBILITY=...: as if given as options (the options themselves still win).
    p.set_defaults(**{name: os.environ[variable] for name, variable in (("feedback", "FEEDBACK"),
                                                                       ("visibility", "VISIBILITY"))
                      if os.environ.get(variable)})
    return p


def run(settings: Settings, options: BuildOptions) -> int:
    out = build(options.out, settings)
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
    suites = sum(n.startswith(f"{ASSIGNMENT.suites}/test_") for n in names)
    shown = out.resolve()
    print(f"{shown.relative_to(Path.cwd()) if shown.is_relative_to(Path.cwd()) else shown}: {len(names)} files, "
          f"{suites} hidden suites, {out.stat().st_size / 1024:.0f} KiB")
    print("  upload it as the autograder of a Gradescope programming assignment (Ubuntu base image);")
    print(f"  students upload one notebook, {NOTEBOOK_FILE}")
    print(f"  assignment: {ASSIGNMENT.name} (package {ASSIGNMENT.package}, in its {ASSIGNMENT_FILE})")
    print(f"  feedback level: {settings.feedback}; test visibility: {settings.visibility} (its {SETTINGS_FILE})"
          + "".join(f"; includes {f}" for f in SECRET_FILES if f in names))
    return 0


def main(argv: list[str] | None = None) -> int:
    from ...command_line import run as run_command

    return run_command(parser(), argv, "gradescope")


if __name__ == "__main__":
    sys.exit(main())
