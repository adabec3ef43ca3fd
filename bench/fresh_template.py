"""Issue 30: a cold grade whose worker template is a fresh interpreter, against one forked from the grader.

    .venv/bin/python bench/fresh_template.py [--rounds 5]

Each round runs, in a shuffled order, the seed's own smoke run (bench.seed_smoke_command), a cold
`python -m autograder grade` of the reference notebook as shipped (the template forked from the grader right
after `import torch`), and the same grade with the template started as a fresh interpreter (the path
engine/template.py takes when a fork is unsafe; forced here by patching ``may_fork_template``). Wall and CPU
seconds (user + system of the command and its children), medians; the table goes to stdout. The issue's rule:
adopt the fresh interpreter (and delete the in-place scrubbing of the template's memory) if its cold grade stays
within 1.0x the seed's smoke run.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.assignment import INSTRUCTOR_NOTEBOOK, ROOT
from bench import seed_smoke_command  # bench/bench.py, beside this file (the script's folder is on sys.path)

FRESH = ("import sys, runpy; import autograder.engine.template as t; t.may_fork_template = lambda: False; "
         "sys.argv = ['autograder', *sys.argv[1:]]; runpy.run_module('autograder', run_name='__main__')")


def timed(command: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONHASHSEED="0"))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        raise SystemExit(f"{command[:4]} exited {run.returncode}:\n{run.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fresh-template-"))
    seed, seed_name = seed_smoke_command(work)
    out = str(work / "results.json")
    commands = {
        "seed": seed,
        "fork": [sys.executable, "-m", "autograder", "grade", str(INSTRUCTOR_NOTEBOOK), "--out", out],
        "fresh": [sys.executable, "-c", FRESH, "grade", str(INSTRUCTOR_NOTEBOOK), "--out", out],
    }
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
    load = os.getloadavg()
    for _ in range(args.rounds):
        order = list(commands)
        random.shuffle(order)
        for name in order:
            times[name].append(timed(commands[name]))
    wall = {k: statistics.median(w for w, _ in v) for k, v in times.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in times.items()}
    print(f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, {args.rounds} rounds, shuffled; load average "
          f"{' / '.join(f'{x:.1f}' for x in load)} at start, {' / '.join(f'{x:.1f}' for x in os.getloadavg())} at end")
    print()
    print("| run | wall s (median) | CPU s (median) | wall / seed smoke |")
    print("|---|---:|---:|---:|")
    names = {"seed": seed_name, "fork": "cold grade, template forked from the grader (shipped)",
             "fresh": "cold grade, template a fresh interpreter"}
    for k in commands:
        print(f"| {names[k]} | {wall[k]:.2f} | {cpu[k]:.2f} | {wall[k] / wall['seed']:.2f} |")
    print()
    print("raw wall:", {k: [round(w, 2) for w, _ in v] for k, v in times.items()})
    verdict = wall["fresh"] <= wall["seed"]
    print(f"fresh-interpreter cold grade {'within' if verdict else 'OVER'} 1.0x the seed's smoke run "
          f"({wall['fresh'] / wall['seed']:.2f}x); it costs {wall['fresh'] - wall['fork']:+.2f} s wall and "
          f"{cpu['fresh'] - cpu['fork']:+.2f} s CPU against the fork")


if __name__ == "__main__":
    main()
