"""python -m autograder grade NOTEBOOK --out results.json   (see --help of each command)"""
import argparse
import os
import sys
import time
import traceback

from . import PARTS


def _grade(args):
    from .engine import report as rep
    from .engine.grade import grade_notebook
    from .engine.supervisor import Limits
    from .engine.template import Zygote

    started = time.monotonic()
    zygote = None
    try:
        zygote = Zygote()
        result = grade_notebook(args.notebook, zygote, args.part or None,
                                Limits(submission_seconds=args.budget), hide=args.hide)
    except Exception:  # noqa: BLE001 - a grader fault still produces a valid results.json
        detail = traceback.format_exc()
        print(detail, file=sys.stderr)
        rep.write_json(rep.crash_results("the grader hit an internal error", time.monotonic() - started), args.out)
        return 2
    finally:
        if zygote is not None:
            zygote.close()
    print(rep.table(result))
    rep.write_json(rep.gradescope(result, args.visibility), args.out)
    if args.junit_xml:
        with open(args.junit_xml, "w") as handle:
            handle.write(rep.junit(result))
    for r in result.results:
        if r.internal and args.debug:
            print(f"--- {r.nodeid}\n{r.internal}", file=sys.stderr)
    return 0


def exit_now(code):
    """Leave as soon as every result is written: skip tearing PyTorch down (~0.3 s of a cold grade).

    Only for entry points: all files are closed and every child process is gone by the
    time a command returns, so nothing is lost by skipping the interpreter's clean-up.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code if isinstance(code, int) else 1)


# Modules under autograder.flows that add a subcommand with register(subparsers).
FLOW_COMMANDS = ("batch", "crosscheck")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    grade = commands.add_parser("grade", help="grade one notebook")
    grade.set_defaults(handler=_grade)
    grade.add_argument("notebook")
    grade.add_argument("--out", default="results.json", help="results.json path ('-' for stdout)")
    grade.add_argument("--part", action="append", choices=PARTS, help="grade only this part (repeatable)")
    grade.add_argument("--junit-xml", help="also write JUnit XML here, for any CI")
    grade.add_argument("--visibility", default="visible",
                       choices=["visible", "hidden", "after_due_date", "after_published"],
                       help="Gradescope visibility of each test")
    grade.add_argument("--budget", type=float, default=300.0, help="seconds for the whole submission")
    grade.add_argument("--hide", action="append", default=[], help="extra directory the worker must not see")
    grade.add_argument("--debug", action="store_true", help="print internal tracebacks (instructors only)")
    import importlib
    for name in FLOW_COMMANDS:
        importlib.import_module(f"autograder.flows.{name}").register(commands)
    args = parser.parse_args(argv)
    return args.handler(args)
