"""What run_autograder runs inside Gradescope's container: pick the notebook, grade it, write results.json.

    python -m autograder.flows.gradescope.run --root /autograder --hide /autograder

Whatever was uploaded, a valid results.json comes out: no notebook, several notebooks,
a file that is not a notebook, or a notebook that is not valid JSON each score 0 with a
message that says what to fix. Only a fault of the grader's own (no sandbox on this machine,
a check that broke) writes none and exits non-zero: Gradescope then marks the run failed. submission_metadata.json (Gradescope's, optional) is only
used to remind the student of their previous score.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...assignment import NOTEBOOK_FILE
from ...engine.submission_file import is_notebook_name
from ...settings import Settings


def _hidden(name: str) -> bool:
    return name.startswith(".") or name == "__MACOSX"


def find_notebook(submission: str | os.PathLike[str]) -> tuple[Path | None, str]:
    """(path, "") for the single notebook uploaded, else (None, message for the student).

    Nothing is followed: folders are walked without entering symbolic links, and every
    entry named like a notebook counts, whatever it is (a link, a FIFO, a folder): the one
    chosen is then read like every upload (engine/submission_file.py), which refuses what is
    not a regular file with the same message as every other flow.
    """
    submission = Path(submission)
    files, notebooks = list[Path](), list[Path]()
    names: list[str] | str  # a folder's file names, then the message's list of them
    for folder, dirs, names in os.walk(submission, followlinks=False):
        here = Path(folder)
        entries: list[Path] = []
        for d in list(dirs):
            if _hidden(d) or is_notebook_name(d) or (here / d).is_symlink():
                dirs.remove(d)  # a folder named like a notebook, or a link: never entered
                if not _hidden(d):
                    entries.append(here / d)
        entries += [here / n for n in names if not _hidden(n)]
        for path in sorted(entries):
            files.append(path)
            if is_notebook_name(path.name):
                notebooks.append(path)
        dirs.sort()
    files.sort()
    notebooks.sort()
    top = [p for p in notebooks if p.parent == submission]
    if len(top) == 1:
        return top[0], ""
    if len(top) > 1 or len(notebooks) > 1:
        names = ", ".join(str(p.relative_to(submission)) for p in (top or notebooks))
        return None, (f"Your submission has {len(top or notebooks)} notebooks ({names}); upload exactly one "
                      f"notebook, {NOTEBOOK_FILE}, and nothing else.")
    if len(notebooks) == 1:
        return notebooks[0], ""
    if files:
        names = ", ".join(str(p.relative_to(submission)) for p in files[:10])
        return None, (f"Your submission has no Jupyter notebook (.ipynb); it contains: {names}. "
                      f"Upload your notebook, {NOTEBOOK_FILE}.")
    return None, f"Your submission is empty: upload your notebook, {NOTEBOOK_FILE}."


def previous_score(root: str | os.PathLike[str]) -> float | None:
    """The score of the latest previous submission, from Gradescope's submission_metadata.json, or None."""
    try:
        meta = json.loads((Path(root) / "submission_metadata.json").read_text())
        last = meta["previous_submissions"][-1]
        score = (last.get("results") or {}).get("score", last.get("score"))
        return float(score) if score is not None else None
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None


def grade(root: str | os.PathLike[str], hide: Iterable[str | os.PathLike[str]] = (),
          settings: Settings | None = None) -> dict[str, Any]:
    """The results.json dict for the submission under ``root``, graded with ``settings`` (autograder/settings.py)."""
    from ...engine import report as rep
    from ...engine.grade import failed_everywhere
    from ...engine.grader import Grader

    settings = settings or Settings()
    visibility, feedback = settings.visibility, settings.feedback

    started = time.monotonic()
    # Only names are read here (nothing of the notebook), so the template may start after; with no
    # notebook there is nothing to run and no template is started at all.
    notebook, problem = find_notebook(Path(root) / "submission")
    confinement = None
    if notebook is None:
        result = failed_everywhere("submission", problem, started=started)
    else:
        with Grader(settings, hide=hide) as grader:
            confinement = grader.confinement
            assert confinement is not None  # probed as the block was entered
            print(confinement.line())
            result = grader.grade(notebook)
        faults = result.grader_faults()
        if faults:
            raise GraderFaults("; ".join(f"{r.nodeid}: {(r.internal or r.message).strip().splitlines()[-1]}"
                                         for r in faults[:5]))
    data = rep.gradescope(result, visibility, previous=previous_score(root), level=feedback, confinement=confinement)
    if notebook is not None:
        data["tests"].append(written_answers(notebook, settings.limits.notebook_mib))
    print(rep.table(result, level=feedback))
    return data


class GraderFaults(Exception):
    """The grader failed on some checks: no score may be written."""


def written_answers(notebook: Path, notebook_mib: int) -> dict[str, Any]:
    """A 0-point test, hidden from students, holding the three written answers for the graders.

    Gradescope shows hidden tests to instructors and TAs on the submission page, so the
    answers can be read (and graded in a manual question) without opening the notebook.
    """
    from ...engine.safe_text import student as safe
    from ..written.extract import extract
    try:
        written = extract(notebook, "submission", notebook_mib)
        text = "\n\n".join(f"Q{a.question.number} ({a.question.title}, {a.question.points:g} points): "
                            f"{'(blank)' if a.blank else a.text.strip()}" for a in written.answers.values())
    except Exception as err:  # noqa: BLE001 - the score is written whatever the extraction does
        text = f"the written answers could not be extracted ({type(err).__name__})"
    return {"name": "Written answers (for the graders; graded by hand)", "score": 0.0, "max_score": 0.0,
            "output": safe(text, multiline=True), "visibility": "hidden", "status": "passed"}


@dataclass(frozen=True)
class RunOptions:
    """run_autograder's own options (what it grades with is the Settings: the zip's autograder.toml)."""
    root: str
    hide: list[str]


def parser() -> argparse.ArgumentParser:
    from ...settings import add_options

    p = argparse.ArgumentParser(prog="python -m autograder.flows.gradescope.run", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(handler=run, options=RunOptions)
    p.add_argument("--root", default="/autograder")
    p.add_argument("--hide", action="append", default=[], help="directory the worker must not see")
    add_options(p)
    return p


def run(settings: Settings, options: RunOptions) -> int:
    from ...engine import report as rep
    from ...engine.safe_text import text
    from ...engine.output_file import EXIT_OUTPUT, said
    from ...engine.secret import SecretError
    from ...sandbox.confinement import ConfinementUnavailable

    out = Path(options.root) / "results" / "results.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    # A grader fault is never a student's grade: no results.json and a non-zero exit, so Gradescope marks the
    # run failed (the student is told the autograder failed; the instructor regrades) instead of recording 0.
    try:
        data = grade(options.root, options.hide, settings)
    except (ConfinementUnavailable, SecretError) as why:
        print(f"run_autograder: {why}", file=sys.stderr)
        return 2
    except Exception:  # noqa: BLE001 - said, and nothing is scored
        print(text(traceback.format_exc(), multiline=True), file=sys.stderr)
        print("run_autograder: the grader failed; no score was written. Regrade once the cause is fixed.",
              file=sys.stderr)
        return 3
    try:
        rep.write_json(data, out)
    except OSError as err:
        print(said("run_autograder", err), file=sys.stderr)
        return EXIT_OUTPUT
    return 0


def main(argv: list[str] | None = None) -> int:
    from ...command_line import run as run_command
    from ..terminal import safe_streams

    safe_streams()
    return run_command(parser(), argv, "run_autograder")


if __name__ == "__main__":
    from ..terminal import exit_now
    exit_now(main())
