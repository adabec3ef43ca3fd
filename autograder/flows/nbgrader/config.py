"""The line a course's nbgrader_config.py holds for this assignment (`python -m autograder install-nbgrader` writes it):

    from autograder.flows.nbgrader.config import grade_in_sandbox; grade_in_sandbox(c)

and one more line per other assignment the course grades in the sandbox, naming its package (install-nbgrader
run with $AUTOGRADER_ASSIGNMENT set writes it): `grade_in_sandbox(c, "solutions.week6_bigram")`. The bare line is
the assignment of the discovery rule (autograder/plugin_api.py: week 7 unless $AUTOGRADER_ASSIGNMENT says
otherwise). The nbgrader assignment a package grades is its Assignment.name (the folder under source/); which
package grades a notebook is never read from the notebook: nbgrader names its assignment, this file the package.

It adds this package's preprocessors (preprocessors.py, feedback.py) to nbgrader's own lists,
whatever the course set before the line. Each acts on this assignment's notebooks only, so
every other assignment of the course is generated, autograded and given feedback exactly
as nbgrader alone would. For this assignment, plain nbgrader commands then grade in the
sandbox: `nbgrader autograde`, `--student`, `--force`, the formgrader's Autograde button.

Settings, in nbgrader_config.py before the line (or on nbgrader's command line, --SandboxGrading.feedback=values):
"""
import os
import sys
from typing import Any

from nbgrader.converters import Autograde, GenerateAssignment, GenerateFeedback
from nbgrader.preprocessors import Execute, GetGrades, IgnorePattern, OverwriteCells, SaveCells

from traitlets.config import Config
from traitlets.utils.importstring import import_item

from . import REGISTERED, Graded, register
from . import feedback as fb
from . import preprocessors as pp
from .sandbox_grading import SandboxGrading


__doc__ += "".join(f"\n    c.SandboxGrading.{name}: {trait.help}"
                   for name, trait in SandboxGrading.class_traits(config=True).items())


def _cls(item: object) -> Any:  # a preprocessor class: nbgrader's are not annotated
    return import_item(item) if isinstance(item, str) else item


def _current(config: Config, section: str, name: str) -> list[Any]:
    """The list the course set before our line, else nbgrader's default."""
    cls = {"Autograde": Autograde, "GenerateAssignment": GenerateAssignment, "GenerateFeedback": GenerateFeedback}
    given = config[section][name] if name in config[section] else cls[section].class_traits()[name].default()
    return [_cls(item) for item in given]


def _replace(items: list[Any], old: object, new: object) -> list[Any]:
    return [new if item is old else item for item in items]


def _insert(items: list[Any], index: int, new: object) -> list[Any]:
    return items if new in items else items[:index] + [new] + items[index:]


def grade_in_sandbox(c: Config, package: str | None = None) -> None:
    """Configure the course ``c`` (nbgrader_config.py's config) to grade ``package``'s assignment in the sandbox
    (None: the current assignment's, by the discovery rule); idempotent, and once per package."""
    register(package)
    sanitize = _replace(_current(c, "Autograde", "sanitize_preprocessors"), OverwriteCells, pp.RestoreDeletedCells)
    sanitize = _insert(_insert(sanitize, 0, pp.RestoreCellMetadata), 1, pp.SandboxGrade)
    c.Autograde.sanitize_preprocessors = sanitize

    autograde = _current(c, "Autograde", "autograde_preprocessors")
    autograde = _replace(_replace(autograde, Execute, pp.IsolatedExecute), IgnorePattern, pp.IsolatedIgnorePattern)
    if pp.IsolatedExecute not in autograde:  # a notebook nbgrader does not execute scores full marks: never that
        autograde = [pp.IsolatedExecute, *autograde]
    autograde = _insert(autograde, len(autograde), pp.SafeMarkdown)
    c.Autograde.autograde_preprocessors = _insert(autograde, len(autograde), pp.ModelAnswers)

    generate = _current(c, "GenerateAssignment", "preprocessors")
    if pp.IsolatedKernelspec not in generate and SaveCells in generate:
        at = generate.index(SaveCells)
        generate = generate[:at] + [pp.IsolatedKernelspec, SaveCells, pp.StudentKernelspec] + generate[at + 1:]
    c.GenerateAssignment.preprocessors = generate

    feedback = _current(c, "GenerateFeedback", "preprocessors")
    after = feedback.index(GetGrades) + 1 if GetGrades in feedback else 0
    feedback = _insert(_insert(feedback, after, fb.HideHiddenTests), after + 1, fb.FeedbackTitles)
    c.GenerateFeedback.preprocessors = _insert(feedback, len(feedback), fb.FeedbackStyle)
    if "exporter_class" not in c.GenerateFeedback:  # a course's own exporter stays (it gets our preprocessors)
        c.GenerateFeedback.exporter_class = fb.FeedbackExporter
    warm_up(c)


def warm_up(c: Config, argv: list[str] | None = None) -> None:
    """`nbgrader autograde week7_attention ...` (or any assignment the course grades in the sandbox): start its
    grading service now, so that its warm-up (PyTorch, the worker template) overlaps nbgrader's own start-up; any
    other command starts nothing (the first grade request would start it all the same)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] != ["autograde"]:
        return
    named = {value for a in argv[1:] for value in (a, a.partition("=")[2])}
    for assignment in [a for name, a in REGISTERED.items() if name in named and name not in _WARMED]:
        _WARMED.add(assignment.name)
        _warm_up(c, assignment)


def _warm_up(c: Config, assignment: Graded) -> None:
    from . import client
    root = c.CourseDirectory.root if "root" in c.CourseDirectory else os.getcwd()
    try:
        for line in reopen_interrupted(root, assignment):
            print(line, file=sys.stderr, flush=True)
    except Exception as err:  # noqa: BLE001 - said; nbgrader's run goes on, crosscheck lists what is unfinished
        print(f"{assignment.name}: could not look for autogrades left unfinished ({type(err).__name__}: {err}); "
              "after this run, `make crosscheck` lists any student without gradebook scores", file=sys.stderr)
    try:
        sandbox = SandboxGrading(config=c)
        client.start_early(root, sandbox.service_idle, sandbox.settings().to_dict(), assignment)
    except Exception:  # noqa: BLE001 - a head start only: the first grade request starts it (and says why not)
        pass


_WARMED: set[str] = set()  # nbgrader reads its config more than once; one head start per assignment is enough


def reopen_interrupted(course: str | os.PathLike[str], assignment: Graded | None = None) -> list[str]:
    """Make nbgrader autograde again every student it left unfinished; one line per student, to be shown.

    nbgrader writes autograded/<student>/<assignment>/ (the sanitized notebook) before it executes it, and
    puts the scores into the gradebook only at the end (SaveAutoGrades). Killed in between, the folder stays
    and the gradebook holds empty grades: the plain rerun said "Skipping existing assignment" and export
    showed 0. A student whose folder is there while the gradebook has no score for one of the assignment's
    autograder test cells is that case (a run that failed removes its folder; a finished one scored every
    cell): the folder is removed, so that this run autogrades them again.
    """
    import shutil
    from pathlib import Path

    from . import CURRENT
    from .course import gradebook_points

    assignment = assignment or CURRENT
    name, folder = assignment.name, Path(course) / "autograded"
    found = sorted(p.parent.name for p in folder.glob(f"*/{name}") if p.is_dir() and not p.is_symlink())
    if not found or not (Path(course) / "gradebook.db").exists():
        return []
    lines = []
    for student, parts in gradebook_points(course, found, auto=True, assignment=assignment).items():
        if parts and all(score is not None for score, _ in parts.values()):
            continue
        shutil.rmtree(folder / student / name)
        lines.append(f"{name}: {student}'s last autograde was interrupted (autograded/{student}/{name} "
                     "without scores in the gradebook); autograding them again in this run")
    return lines
