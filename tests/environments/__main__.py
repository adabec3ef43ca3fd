"""Run one command as the emulated user of an environment, in a checkout of this working tree that user owns.

    .venv/bin/python -m tests.environments docker-root -- .venv/bin/python -m autograder grade NOTEBOOK

Run as root from the checkout's root. The checkout (this working tree's files, build/course/source included) and
its venv are made afresh in /tmp/week7-environments/try-ENV/ (machine.prepare); COMMAND runs from that checkout's
root through launch.py, so relative paths name its files. ``--env NAME=VALUE`` passes a variable on
(``--env AUTOGRADER_ASSIGNMENT=solutions.week6_bigram``). Prints the command's output; exits with its status.
"""
from __future__ import annotations

import argparse
import sys

from tests.environments import ENVIRONMENTS
from tests.environments.machine import prepare


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.environments", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("environment", choices=list(ENVIRONMENTS))
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="a variable for the command (repeatable)")
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        parser.error("no command: give it after --")
    split = argv.index("--")
    args, command = parser.parse_args(argv[:split]), argv[split + 1:]
    env = dict(item.split("=", 1) for item in args.env if "=" in item)
    machine = prepare(args.environment, folder=f"try-{args.environment}")
    print(f"{args.environment}: {ENVIRONMENTS[args.environment].what}; checkout {machine.checkout}", file=sys.stderr)
    run = machine.run(*command, env=env, timeout=3600)
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
