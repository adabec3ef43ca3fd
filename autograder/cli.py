"""python -m autograder grade NOTEBOOK --out results.json   (see --help of each command)"""
import argparse
import os
import sys
import traceback

from .assignment import PART_IDS as PARTS
from .settings import CONFINEMENTS, DEFAULT_FEEDBACK, DEFAULT_VISIBILITY, FEEDBACK_LEVELS, VISIBILITIES, feedback_help, visibility_help


def _grade(args):
    from .sandbox.confinement import ConfinementUnavailable, probe
    try:  # first, and before PyTorch loads: where no worker can be confined (or not on Linux), nothing is graded
        probe(args.confinement, args.unsafe_no_sandbox)
    except ConfinementUnavailable as why:
        print(f"grade: {why}", file=sys.stderr)
        return EXIT_NO_SANDBOX
    from .engine import report as rep
    from .engine.grader import Grader
    from .engine.safe_text import text
    from .engine.supervisor import Limits

    # A grader fault is never a student's grade: whatever goes wrong on our side, no score is written (a
    # results.json left by an earlier run is removed, so nobody takes it for this one) and the exit code says so.
    _remove(args.out)
    try:
        with Grader(Limits(submission_seconds=args.budget), args.feedback, confinement=args.confinement,
                    unsafe=args.unsafe_no_sandbox) as grader:
            print(grader.confinement.line(), file=sys.stderr)
            result = grader.grade(args.notebook, args.part or None, hide=args.hide)
        faults = result.grader_faults()
        if faults:
            for r in faults:
                print(text(f"grader fault in {r.nodeid}:\n{r.internal or r.message}", multiline=True), file=sys.stderr)
            print(f"grade: the grader failed on {len(faults)} check(s) of {args.notebook}; no score was written. "
                  "It is not the student's doing: fix the cause above and grade again.", file=sys.stderr)
            return EXIT_GRADER_FAULT
        # Everything written is rendered first: a report that cannot be rendered writes nothing.
        level = grader.feedback
        outputs = {"table": rep.table(result, level=level),
                   "json": rep.gradescope(result, args.visibility, level=level, confinement=grader.confinement),
                   "junit": rep.junit(result, level=level) if args.junit_xml else None}
    except ConfinementUnavailable as why:
        print(f"grade: {why}", file=sys.stderr)
        return EXIT_NO_SANDBOX
    except Exception:  # noqa: BLE001 - a grader fault: said, and no score
        print(text(traceback.format_exc(), multiline=True), file=sys.stderr)
        print("grade: the grader hit an internal error; no score was written.", file=sys.stderr)
        return EXIT_GRADER_FAULT
    print(outputs["table"])
    rep.write_json(outputs["json"], args.out)
    if args.junit_xml:
        with open(args.junit_xml, "w", encoding="utf-8") as handle:
            handle.write(outputs["junit"])
    for r in result.results:
        if r.internal and args.debug:
            print(text(f"--- {r.nodeid}\n{r.internal}", multiline=True), file=sys.stderr)
    return 0


EXIT_NO_SANDBOX = 2  # nothing can confine a worker here (or not as asked): nothing was graded
EXIT_GRADER_FAULT = 3  # the grader failed (a worker could not be started, a check broke): no score written


def _remove(path):
    if path and path != "-":
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def feedback_option(parser):
    """--feedback: what students are shown (autograder/settings.py)."""
    parser.add_argument("--feedback", default=DEFAULT_FEEDBACK, choices=FEEDBACK_LEVELS, help=feedback_help())


def visibility_option(parser):
    """--visibility: when students see each test on Gradescope (autograder/settings.py)."""
    parser.add_argument("--visibility", default=DEFAULT_VISIBILITY, choices=VISIBILITIES, help=visibility_help())


def confinement_options(parser):
    """--confinement and the opt-in to grade unconfined (autograder/sandbox/confinement.py)."""
    parser.add_argument("--confinement", default="auto", choices=("auto", *CONFINEMENTS),
                        help="how workers are confined: auto (default) takes the strongest this machine allows; "
                             "name one to insist on it (grading stops if it cannot be built)")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="where no confinement can be built, run student code UNCONFINED: only for notebooks "
                             "you trust (your own), never for students'")


def safe_streams():
    """Whatever reaches the terminal can be encoded: a character the terminal cannot show is escaped."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass


def exit_now(code):
    """Leave as soon as every result is written: skip tearing PyTorch down (~0.3 s of a cold grade).

    Only for entry points: all files are closed and every child process is gone by the
    time a command returns, so nothing is lost by skipping the interpreter's clean-up.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code if isinstance(code, int) else 1)


# Modules under autograder.flows that add a subcommand with register(subparsers).
FLOW_COMMANDS = ("batch", "crosscheck", "written", "class_report", "nbgrader.install")


def main(argv=None):
    safe_streams()
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    grade = commands.add_parser("grade", help="grade one notebook")
    grade.set_defaults(handler=_grade)
    grade.add_argument("notebook")
    grade.add_argument("--out", default="results.json", help="results.json path ('-' for stdout)")
    grade.add_argument("--part", action="append", choices=PARTS, help="grade only this part (repeatable)")
    grade.add_argument("--junit-xml", help="also write JUnit XML here, for any CI")
    visibility_option(grade)
    grade.add_argument("--budget", type=float, default=300.0, help="seconds for the whole submission")
    grade.add_argument("--hide", action="append", default=[], help="extra directory the worker must not see")
    grade.add_argument("--debug", action="store_true", help="print internal tracebacks (instructors only)")
    feedback_option(grade)
    confinement_options(grade)
    import importlib
    for name in FLOW_COMMANDS:
        importlib.import_module(f"autograder.flows.{name}").register(commands)
    args = parser.parse_args(argv)
    return args.handler(args)
