"""python -m autograder: the grading CLI (cli.py).

Workers are forked from the grading process, so they inherit its string-hash seed. Fix it
at 0 before anything else runs, or a student's set of strings could iterate in another
order on a regrade (and the supervisor would fall back to a slower, separately started
worker template). Re-executing costs one interpreter start-up (~30 ms), before any import.
"""
import os
import sys

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])

from .cli import exit_now, main

exit_now(main())
