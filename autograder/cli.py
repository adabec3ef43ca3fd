"""autograder grade NOTEBOOK --out results.json   (or python -m autograder ...; see --help of each command)

The one command of the package: the grading commands are subcommands here (grade, and the flows'
grade-all, written, class-report, crosscheck; authoring's new-assignment and check-assignment); release,
nbgrader, nbgrader-hand and gradescope pass their arguments on to the module that `make` runs for them. `--workdir DIR`, before the subcommand,
says where the working data goes (build/: the course, the secret key, caches, the Gradescope zip);
without it, an installed package uses $AUTOGRADER_WORKDIR or the current directory, a checkout itself.
"""
from __future__ import annotations

import argparse
import importlib
import os
import stat
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from .assignment import ASSIGNMENT, WORKDIR_VARIABLE, workdir
from .command_line import EXIT_BAD_SETTINGS, dispatch
from .flows.terminal import exit_now, prog, safe_streams
from .settings import CONFINEMENTS, Settings, add_options, describe, markdown


@dataclass(frozen=True)
class GradeOptions:
    """`grade`'s own options (what it grades with is the Settings)."""
    notebook: str
    out: str
    junit_xml: str | None
    hide: list[str]
    debug: bool


def _grade(settings: Settings, options: GradeOptions) -> int:
    from .sandbox.confinement import ConfinementUnavailable, probe
    try:  # first, and before PyTorch loads: where no worker can be confined (or not on Linux), nothing is graded
        probe(settings.confinement, settings.unsafe_no_sandbox)
    except ConfinementUnavailable as why:
        print(f"grade: {why}", file=sys.stderr)
        return EXIT_NO_SANDBOX
    from .engine import report as rep
    from .engine.grader import Grader
    from .engine.safe_text import text
    from .engine.secret import SecretError, check as check_secret
    try:  # a key that may not be used is said before anything runs (it is read only after the template forks)
        check_secret()
    except SecretError as why:
        print(f"grade: {why}", file=sys.stderr)
        return EXIT_BAD_SETTINGS

    from .engine.output_file import EXIT_OUTPUT, said, write_atomic

    # A grader fault is never a student's grade: whatever goes wrong on our side, no score is written (a
    # results.json left by an earlier run is removed, so nobody takes it for this one) and the exit code says so.
    # Until then the earlier file stays: a grade that cannot be written (a full disk) leaves it whole.
    try:
        with Grader(settings) as grader:
            print(grader.confinement.line(), file=sys.stderr)
            result = grader.grade(options.notebook, hide=options.hide)
        faults = result.grader_faults()
        if faults:
            _remove(options.out)
            for r in faults:
                print(text(f"grader fault in {r.nodeid}:\n{r.internal or r.message}", multiline=True), file=sys.stderr)
            print(f"grade: the grader failed on {len(faults)} check(s) of {options.notebook}; no score was written. "
                  "It is not the student's doing: fix the cause above and grade again.", file=sys.stderr)
            return EXIT_GRADER_FAULT
        # Everything written is rendered first: a report that cannot be rendered writes nothing.
        level = grader.feedback
        outputs = {"table": rep.table(result, level=level),
                   "json": rep.gradescope(result, settings.visibility, level=level, confinement=grader.confinement),
                   "junit": rep.junit(result, level=level) if options.junit_xml else None}
    except ConfinementUnavailable as why:
        _remove(options.out)
        print(f"grade: {why}", file=sys.stderr)
        return EXIT_NO_SANDBOX
    except SecretError as why:
        _remove(options.out)
        print(f"grade: {why}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    except Exception:  # noqa: BLE001 - a grader fault: said, and no score
        _remove(options.out)
        print(text(traceback.format_exc(), multiline=True), file=sys.stderr)
        print("grade: the grader hit an internal error; no score was written.", file=sys.stderr)
        return EXIT_GRADER_FAULT
    print(outputs["table"])
    try:
        rep.write_json(outputs["json"], options.out)
        if options.junit_xml:
            write_atomic(options.junit_xml, outputs["junit"])
    except OSError as err:  # a full disk, a read-only folder: one line, the earlier file left as it was
        print(said("grade", err), file=sys.stderr)
        return EXIT_OUTPUT
    for r in result.results:
        if r.internal and options.debug:
            print(text(f"--- {r.nodeid}\n{r.internal}", multiline=True), file=sys.stderr)
    return 0


EXIT_NO_SANDBOX = 2  # nothing can confine a worker here (or not as asked): nothing was graded
# EXIT_BAD_SETTINGS = 2 (command_line.py): a setting (file or option) that cannot be: said, nothing graded
EXIT_GRADER_FAULT = 3  # the grader failed (a worker could not be started, a check broke): no score written
# EXIT_OUTPUT = 4 (engine/output_file.py): an output could not be written (full disk, I/O error); earlier files kept


def _remove(path):
    """An earlier run's results file, so nobody takes it for this run's: a regular file only. `--out /dev/null`
    (as `make bench` writes) once unlinked the machine's /dev/null when run as root."""
    if path and path != "-":
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)
        except FileNotFoundError:
            pass


@dataclass(frozen=True)
class ShowOptions:
    markdown: bool


def settings_command(settings: Settings, options: ShowOptions) -> int:
    """`settings`: every setting with its value in force (defaults, the settings file, the options) and help."""
    if options.markdown:
        print(markdown(), end="")
        return 0
    print(describe(settings))
    return 0


@dataclass(frozen=True)
class PlanOptions:
    mode: str | None
    markdown: bool
    into: str | None


def plan_command(options: PlanOptions) -> int:
    """`plan`: each confinement mode's steps in order, and what enforces each guarantee (sandbox/plan_report.py)."""
    from .sandbox import plan_report  # the sandbox's steps: Linux only, loaded for this command alone
    from .sandbox.confinement import NAMES
    modes = (NAMES[options.mode],) if options.mode else tuple(NAMES.values())
    if options.into:
        if options.mode:
            print("plan: --into quotes every mode; give no --mode", file=sys.stderr)
            return EXIT_BAD_SETTINGS
        path = Path(options.into)
        try:
            page = plan_report.quote(path.read_text(), plan_report.markdown())
        except ValueError:
            print(f"plan: {path} has no {plan_report.MARK_BEGIN} ... {plan_report.MARK_END} to write between",
                  file=sys.stderr)
            return EXIT_BAD_SETTINGS
        path.write_text(page)
        return 0
    print(plan_report.markdown(modes) if options.markdown else plan_report.text(modes), end="")
    return 0


# Modules under autograder.flows that add a subcommand with register(subparsers).
FLOW_COMMANDS = ("batch", "crosscheck", "written", "class_report", "nbgrader.install")
# Modules under autograder.authoring that add a subcommand the same way: a new assignment, and its check.
AUTHORING_COMMANDS = ("scaffold", "check")
# Subcommands that hand the rest of the command line to a module's own main(argv): the ones `make` runs
# as python -m MODULE (release, make nbgrader-autograde, make gradescope). name: (module, help); module "": the
# current assignment's own (release: Assignment.release, which builds that assignment's course and notebook).
PASSED_ON = {
    "release": ("", "build the nbgrader course (build/course) and check the student notebook of the current "
                    "assignment (make release)"),
    "nbgrader": ("autograder.flows.nbgrader.course", "nbgrader flow: sandboxed grades into an nbgrader course, "
                                                     "then nbgrader autograde, feedback, export"),
    "nbgrader-hand": ("autograder.flows.nbgrader.hand", "hand scores of the written answers into gradebook.db"),
    "gradescope": ("autograder.flows.gradescope.build", "build the Gradescope autograder zip (make gradescope)"),
}


def passed_on_module(command: str) -> str:
    """The module a PASSED_ON subcommand runs: its own, or the current assignment's (release: Assignment.release,
    so that `release` builds the assignment the discovery rule names, never week 7's by name)."""
    module = PASSED_ON[command][0]
    return module or getattr(ASSIGNMENT, command, "")


def take_workdir(argv: list[str]) -> list[str]:
    """``argv`` without a leading ``--workdir DIR`` / ``--workdir=DIR``, which goes to $AUTOGRADER_WORKDIR.

    Set in the environment (not passed around) so that every module reading the working data's paths,
    and every process this one starts (grading processes, nbgrader's), uses the same directory.
    """
    chosen = None
    if argv and argv[0] == "--workdir" and len(argv) > 1:
        chosen, argv = argv[1], argv[2:]
    elif argv and argv[0].startswith("--workdir="):
        chosen, argv = argv[0].split("=", 1)[1], argv[1:]
    if chosen is not None:
        os.environ[WORKDIR_VARIABLE] = str(Path(chosen).resolve())
    os.environ[WORKDIR_VARIABLE] = str(workdir())  # fixed now, whatever the current directory becomes
    return argv


def parser() -> argparse.ArgumentParser:
    """The whole command line but the subcommands passed on (PASSED_ON, `grade-all merge`)."""
    parser = argparse.ArgumentParser(prog=prog(), description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workdir", metavar="DIR",
                        help=f"where the working data goes (build/); default ${WORKDIR_VARIABLE}, else the current "
                             "directory (a checkout: the checkout). Give it before the subcommand.")
    commands = parser.add_subparsers(dest="command", required=True)
    grade = commands.add_parser("grade", help="grade one notebook")
    grade.set_defaults(handler=_grade, options=GradeOptions)
    grade.add_argument("notebook")
    grade.add_argument("--out", default="results.json", help="results.json path ('-' for stdout)")
    grade.add_argument("--junit-xml", help="also write JUnit XML here, for any CI")
    grade.add_argument("--hide", action="append", default=[], help="extra directory the worker must not see")
    grade.add_argument("--debug", action="store_true", help="print internal tracebacks (instructors only)")
    add_options(grade)
    shown = commands.add_parser("settings", help="print every setting in force, with its help (the file's and "
                                                 "the options' values included)")
    shown.set_defaults(handler=settings_command, options=ShowOptions)
    shown.add_argument("--markdown", action="store_true", help="the reference of every setting (docs/settings.md)")
    add_options(shown)
    planned = commands.add_parser("plan", help="each confinement mode's steps in order, and which of them (or what "
                                               "outside them) enforces each guarantee of docs/security.md")
    planned.set_defaults(handler=plan_command, options=PlanOptions)
    planned.add_argument("--mode", choices=CONFINEMENTS,
                         help="this mode only (default: every mode)")
    planned.add_argument("--markdown", action="store_true", help="as Markdown tables (what docs/security.md quotes)")
    planned.add_argument("--into", metavar="FILE", help="write the Markdown tables of every mode between the plan "
                                                        "markers of FILE (docs/security.md)")
    for name in FLOW_COMMANDS:
        importlib.import_module(f"autograder.flows.{name}").register(commands)
    for name in AUTHORING_COMMANDS:
        importlib.import_module(f"autograder.authoring.{name}").register(commands)
    for name, (_, help_text) in PASSED_ON.items():  # listed in --help; never parsed here (see above)
        commands.add_parser(name, help=help_text + f"; `{name} --help` for its options", add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    safe_streams()
    argv = take_workdir(list(sys.argv[1:] if argv is None else argv))
    if argv[:2] == ["grade-all", "merge"]:  # joins the shards of `grade-all --shard I/N`
        from .flows import batch_merge
        return batch_merge.main(argv[2:])
    if argv and argv[0] in PASSED_ON:
        name = passed_on_module(argv[0])
        if not name:
            print(f"{argv[0]}: the assignment {ASSIGNMENT.package} has no {argv[0]} module (plugin_api.Assignment)",
                  file=sys.stderr)
            return EXIT_BAD_SETTINGS
        return importlib.import_module(name).main(argv[1:])
    args = parser().parse_args(argv)
    try:
        return dispatch(args, args.command)  # the Settings and the command's options record, made once
    except OSError as err:  # a full disk, an I/O error: one line naming the path and the cause, no traceback
        from .engine.output_file import EXIT_OUTPUT, said
        print(said(args.command, err), file=sys.stderr)
        return EXIT_OUTPUT


def console() -> None:
    """The console script autograder (pyproject.toml [project.scripts]); python -m autograder is __main__.py.

    Workers are forked from the grading process and inherit its string-hash seed: fix it at 0 before
    anything else runs (__main__.py says why), by starting this script again once with it set.
    """
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
    exit_now(main())
