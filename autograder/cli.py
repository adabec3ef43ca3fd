"""python -m autograder grade NOTEBOOK --out results.json   (see --help of each command)"""
import argparse
import os
import sys
import time
import traceback

from .assignment import PART_IDS as PARTS
from .settings import DEFAULT_FEEDBACK, DEFAULT_VISIBILITY, FEEDBACK_LEVELS, VISIBILITIES, feedback_help, visibility_help


def _grade(args):
    from .engine import report as rep
    from .engine.grader import Grader
    from .engine.safe_text import text
    from .engine.supervisor import Limits

    started = time.monotonic()
    try:
        with Grader(Limits(submission_seconds=args.budget), args.feedback) as grader:
            result = grader.grade(args.notebook, args.part or None, hide=args.hide)
        # Everything written is rendered first: a report that cannot be rendered is a grader fault,
        # and still leaves a valid results.json.
        level = grader.feedback
        outputs = {"table": rep.table(result, level=level),
                   "json": rep.gradescope(result, args.visibility, level=level),
                   "junit": rep.junit(result, level=level) if args.junit_xml else None}
    except Exception:  # noqa: BLE001 - a grader fault still produces a valid results.json
        print(text(traceback.format_exc(), multiline=True), file=sys.stderr)
        rep.write_json(rep.crash_results("the grader hit an internal error", time.monotonic() - started), args.out)
        return 2
    print(outputs["table"])
    rep.write_json(outputs["json"], args.out)
    if args.junit_xml:
        with open(args.junit_xml, "w", encoding="utf-8") as handle:
            handle.write(outputs["junit"])
    for r in result.results:
        if r.internal and args.debug:
            print(text(f"--- {r.nodeid}\n{r.internal}", multiline=True), file=sys.stderr)
    return 0




def feedback_option(parser):
    """--feedback: what students are shown (autograder/settings.py)."""
    parser.add_argument("--feedback", default=DEFAULT_FEEDBACK, choices=FEEDBACK_LEVELS, help=feedback_help())


def visibility_option(parser):
    """--visibility: when students see each test on Gradescope (autograder/settings.py)."""
    parser.add_argument("--visibility", default=DEFAULT_VISIBILITY, choices=VISIBILITIES, help=visibility_help())


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
    import importlib
    for name in FLOW_COMMANDS:
        importlib.import_module(f"autograder.flows.{name}").register(commands)
    args = parser.parse_args(argv)
    return args.handler(args)
