"""Grading speed, measured side by side in one run on the same notebooks (`make bench`).

`bench/bench.py [--n 40] [--nbgrader-n 5]` builds N distinct submissions (the released notebook with
the solutions filled in; every tenth, from s003, with a broken causal mask) in a copy of the course:

  floor      `python -c "import torch"` (a fresh interpreter that can do anything at all)
  compute    the checks' own compute: in one warm grading process (one Template, the
             reference run done, the first grade discarded), the bodies of the hidden tests
             and their fixtures (worker calls, the wait for the worker's notebook run and the
             smoke training included); pytest's own bookkeeping, process start-up and imports
             are not in it
  warm       the whole second-and-later grade in that process (what batch grading pays)
  cold       `python -m autograder grade NB` (a single submission, everything from scratch)
  batch      `python -m autograder grade-all` with --jobs 1 and --jobs $(nproc): wall / N
  nbgrader   plain `nbgrader autograde` of our course (each submission graded in the sandbox by the
             course's grading service) beside stock nbgrader: test cells running the hidden suites in
             the student's kernel (bench/stock_cell.py; GRADING=1, like ours) and nbgrader's floor,
             the notebook alone executed in a python3 kernel; once for the whole group (how a class
             is autograded) and once per student (`--student`; bench/nbgrader_bench.py)
  seed smoke the seed's own script, `python dl-week-7.py --smoke` (extracted from the lesson in
             ../shared/seed when it is there, else `python -m solutions.lab --smoke`, our rewrite):
             a cold grade should cost no more than running the lab once

Medians per submission; the machine may be shared, so the load average is logged. Not a
test: nothing asserts; the table says which targets are met.
"""
import argparse
import csv
import datetime
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from autograder.assignment import COURSE, NAME as ASSIGNMENT, ROOT, course_notebook  # the venv imports the checkout
from autograder.engine.catalog import part_points

EVERY_PART_WRONG = "every_part_wrong.ipynb"  # in --corpus DIR, as tests/corpus/measured.py writes it
BROKEN_MASK = ("return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)",
               "return torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=2)")  # lets i read i+1


def env(**extra):
    """nbgrader shells out to `alembic`: this interpreter's bin goes first on PATH."""
    bin_dir = os.path.dirname(sys.executable)
    return dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""), PYTHONHASHSEED="0", **extra)


CPU = {}  # command kind -> CPU seconds (user + system, children included) of each run


def cpu_now():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd, cwd=ROOT, environ=None, kind=None):
    start, cpu = time.perf_counter(), cpu_now()
    run = subprocess.run(cmd, cwd=cwd, env=environ or env(), capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if kind:
        CPU.setdefault(kind, []).append(cpu_now() - cpu)
    if run.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed ({run.returncode}):\n{run.stdout[-3000:]}\n"
                         f"{run.stderr[-3000:]}")
    return seconds, run.stdout


# ---- the submissions -------------------------------------------------------------------

def filled_notebook(index, broken):
    """The released notebook with every solution cell answered, tagged so no two are identical."""
    source = json.loads(course_notebook(COURSE).read_text())
    released = json.loads(course_notebook(COURSE, "release").read_text())
    answers = {c["metadata"]["nbgrader"]["grade_id"]: c for c in source["cells"]
               if c["metadata"].get("nbgrader", {}).get("solution")}
    for cell in released["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution") and cell["cell_type"] == "code":
            text = "".join(answers[meta["grade_id"]]["source"])
            text = "\n".join(line for line in text.split("\n") if "### BEGIN SOLUTION" not in line
                             and "### END SOLUTION" not in line)
            if broken and BROKEN_MASK[0] in text:
                text = text.replace(*BROKEN_MASK)
            cell["source"] = f"# submission {index:03d}\n{text}"
        elif meta.get("solution"):
            cell["source"] = f"Answer of student {index:03d}."
    return released


def build(workdir, n, broken_every):
    """A copy of the nbgrader course with submitted/<sNNN>/week7_attention/week7_attention.ipynb."""
    if workdir.exists():
        shutil.rmtree(workdir)
    course = workdir / "course"
    shutil.copytree(COURSE, course, ignore=shutil.ignore_patterns("submitted", "autograded", "feedback", "isolated"))
    shutil.copy(ROOT / "solutions" / "release" / "nbgrader_config.py", course / "nbgrader_config.py")
    notebooks, broken = [], set()
    for i in range(n):
        student = f"s{i:03d}"
        is_broken = broken_every and i % broken_every == 3 % broken_every  # s003, s013, ...: nbgrader gets one
        path = course_notebook(course, "submitted", student)
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(filled_notebook(i, is_broken), indent=1))
        notebooks.append(path)
        if is_broken:
            broken.add(student)
    return course, notebooks, broken


# ---- inside one warm grading process ---------------------------------------------------

def inner_warm(paths):
    """Grade paths[0] to warm up, then each path; print per-grade wall and own-compute as JSON."""
    from autograder.engine.grader import Grader

    grader = Grader().start()  # first, as in the CLI: forked from this process before any hidden code is loaded
    assert grader.template.forked, "the bench must measure the template as the CLI starts it"
    import pytest

    from solutions.week7_attention.served import reference_runs
    from autograder.engine.grade import read_code_cells
    from autograder.engine.supervisor import WorkerSession
    spent = {"cells": 0.0, "fixtures": 0.0, "tests": 0.0}

    def stopwatch(key):
        def hook(self):
            t = time.perf_counter()
            yield
            spent[key] += time.perf_counter() - t
        return pytest.hookimpl(hookwrapper=True)(hook)

    Stopwatch = type("Stopwatch", (), {"pytest_fixture_setup": stopwatch("fixtures"),
                                       "pytest_pyfunc_call": stopwatch("tests")})
    from autograder.engine import suite_session
    suite_session.shared().config.pluginmanager.register(Stopwatch())  # the session every grade runs in

    def notebook_run(path):
        """The notebook's own run, timed alone: a fresh worker forked, every cell run, ready.

        Shown on its own; in a grade the first check waits for it, so it is inside "tests" too.
        """
        session = WorkerSession(grader.template, read_code_cells(path, grader.limits.notebook_mib))
        t = time.perf_counter()
        try:
            session._ready()
            return time.perf_counter() - t
        finally:
            session.close()

    rows = []
    wrong = Path(os.environ.get("BENCH_EVERY_PART_WRONG", os.devnull + "/none"))
    try:
        if wrong.exists():  # every part wrong: the diagnosis's cost, side by side, alternating
            grader.grade(wrong)  # warm
            for i in range(6):
                off = i % 2 == 0
                os.environ.pop("AUTOGRADER_NO_DIAGNOSIS", None)
                if off:
                    os.environ["AUTOGRADER_NO_DIAGNOSIS"] = "1"
                t = time.perf_counter()
                report = grader.grade(wrong)
                rows.append({"wrong": "off" if off else "on", "wall": time.perf_counter() - t,
                             "causes": sum(bool(getattr(r, "cause", "")) for r in report.results)})
            os.environ.pop("AUTOGRADER_NO_DIAGNOSIS", None)
        for i, path in enumerate(paths):
            spent.update(cells=notebook_run(path), fixtures=0.0, tests=0.0)
            t = time.perf_counter()
            report = grader.grade(path)
            rows.append({"wall": time.perf_counter() - t, "compute": spent["fixtures"] + spent["tests"], **spent,
                         "score": report.score, "first": i == 0})
            if i == 0:  # the reference run is paid once per machine (build/cache); time it on its own
                reference_runs.smoke_run.cache_clear()
                cache, reference_runs.CACHE = reference_runs.CACHE, Path(os.devnull) / "none.json"
                t = time.perf_counter()
                try:
                    reference_runs.smoke_run()  # neither read nor written: /dev/null is no folder
                finally:
                    rows[-1]["smoke_run"] = time.perf_counter() - t
                    reference_runs.CACHE = cache
                    reference_runs.smoke_run.cache_clear()
    finally:
        grader.close()
    print(json.dumps(rows))


SEED = ROOT.parent / "shared" / "seed" / "lesson-7-attention-and-transformers.txt"


def seed_smoke_command(workdir):
    """The seed's own smoke run: its script cut out of the lesson text, or our rewrite of it."""
    if SEED.exists():
        text = SEED.read_text()
        start, end = text.find('"""Week 7: causal transformer'), text.find("if __name__ == '__main__':")
        if start >= 0 and end > start:
            script = workdir / "dl-week-7.py"
            script.write_text(text[start:end] + "if __name__ == '__main__':\n    main()\n")
            return [sys.executable, str(script), "--smoke"], "the seed's dl-week-7.py --smoke"
    return [sys.executable, "-m", "solutions.lab", "--smoke"], "python -m solutions.lab --smoke (seed not found)"


def _met(ok):
    return "met" if ok else "NOT met"


def median(values):
    return statistics.median(values) if values else float("nan")


def load():
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def grade_all(course, jobs, out_dir, confinement="auto", environ=None, tag=""):
    out = out_dir / f"grades-j{jobs}-{confinement}{tag}.csv"
    seconds, _ = timed([sys.executable, "-m", "autograder", "grade-all", str(course), "--out", str(out),
                        "--jobs", str(jobs), "--regrade", "--confinement", confinement], environ=environ,
                       kind=f"j{jobs}" if confinement == "auto" else f"j{jobs}-{confinement}{tag}")
    return seconds, list(csv.DictReader(out.open()))


# Each confinement this machine can build, forced (sandbox/confinement.py): what a grade costs in each mode.
MODES = ("namespaces", "user-namespace", "landlock")


WATCHDOG = "+watchdog"  # the same mode with control groups turned off: the watchdog bounds memory and processes


def modes_here():
    """{key: (mode, environment, its one line)} for every mode this process can build (root builds all three), each
    also with control groups off (AUTOGRADER_NO_CGROUPS): where instructors run without a writable cgroupfs (a
    laptop, a container, a pod) the watchdog samples the whole tree ten times a second, and that is what it costs."""
    from autograder.sandbox.confinement import ConfinementUnavailable, probe
    found = {}
    for mode in MODES:
        try:
            line = probe(mode).line()
        except ConfinementUnavailable:
            continue
        found[mode] = (mode, None, line)
        if "cgroup" in line:
            found[mode + WATCHDOG] = (mode, env(AUTOGRADER_NO_CGROUPS="1"),
                                      line.split(" + cgroup")[0] + " + watchdog (cgroups off)")
    return found


def nbgrader_scores(course, students):
    from nbgrader.api import Gradebook, MissingEntry
    def score(gradebook, student):
        try:
            return gradebook.find_submission(ASSIGNMENT, student).score
        except MissingEntry:
            return None
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        return {student: score(gradebook, student) for student in students}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=40, help="submissions for batch grading")
    parser.add_argument("--broken-every", type=int, default=10, help="every k-th submission has a broken mask")
    parser.add_argument("--cold", type=int, default=3, help="cold single grades (each paired with a bare import)")
    parser.add_argument("--warm", type=int, default=6, help="grades in the one warm process (after a warm-up)")
    parser.add_argument("--nbgrader-n", type=int, default=5, help="submissions through nbgrader autograde")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="jobs of the parallel batch")
    parser.add_argument("--workdir", type=Path, default=ROOT / "build" / "bench")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results.md")
    parser.add_argument("--no-diagnosis-figures", dest="diagnosis", action="store_false",
                        help="skip the diagnosis's precision/recall (about 3 minutes)")
    parser.add_argument("--corpus", type=Path,
                        help="the corpora `python -m tests.corpus.measured DIR` wrote (make bench does)")
    parser.add_argument("--inner-warm", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inner_warm:
        return inner_warm(args.inner_warm)
    if args.corpus is None or not (args.corpus / EVERY_PART_WRONG).exists():
        parser.error("--corpus DIR: the folder `python -m tests.corpus.measured DIR` writes (make bench does)")
    if not (COURSE / "gradebook.db").exists():
        raise SystemExit("no nbgrader course in build/course: run `make release` first")
    print(f"load average at start {load()}; building {args.n} submissions ...", flush=True)
    course, notebooks, broken = build(args.workdir, args.n, args.broken_every)
    log = {"load_start": load()}

    # (a) cold single grades, each beside a bare `import torch`, on different notebooks
    cold, floor_import = [], []
    for i in range(args.cold):
        nb = notebooks[(i * 7) % len(notebooks)]
        pair = [("import", [sys.executable, "-c", "import torch"]),
                ("cold", [sys.executable, "-m", "autograder", "grade", str(nb), "--out", os.devnull])]
        for kind, cmd in (pair if i % 2 == 0 else pair[::-1]):
            seconds, _ = timed(cmd, kind=kind)
            (cold if kind == "cold" else floor_import).append(seconds)
            print(f"  {kind:<7}{seconds:7.2f} s  {nb.parent.parent.name}", flush=True)

    # each confinement mode, forced: cold grades and a --jobs batch
    modes = modes_here()
    by_mode = {}
    for key, (mode, environ, _) in modes.items():
        tag = key.removeprefix(mode)
        runs = [timed([sys.executable, "-m", "autograder", "grade", str(notebooks[(i * 5) % len(notebooks)]), "--out",
                       os.devnull, "--confinement", mode], environ=environ, kind=f"cold-{key}")[0]
                for i in range(args.cold)]
        by_mode[key] = {"cold": runs, "batch": grade_all(course, args.jobs, args.workdir, mode, environ, tag)}
        print(f"  {key}: cold {[round(x, 2) for x in runs]}, grade-all --jobs {args.jobs} "
              f"{by_mode[key]['batch'][0]:.1f} s", flush=True)

    # the seed's own smoke run, beside the cold grades
    seed_cmd, seed_what = seed_smoke_command(args.workdir)
    seed_runs = [timed(seed_cmd, kind="seed")[0] for _ in range(args.cold)]
    print(f"  seed smoke {[round(x, 2) for x in seed_runs]} ({seed_what})", flush=True)

    # a notebook with one mistake in every part (the mutant corpus, written by the tests), for the diagnosis's cost
    os.environ["BENCH_EVERY_PART_WRONG"] = str((args.corpus / EVERY_PART_WRONG).resolve())

    # the checks' own compute, in one warm process
    warm_paths = [str(notebooks[0])] + [str(p) for p in notebooks[1:1 + args.warm]]
    _, out = timed([sys.executable, __file__, "--inner-warm", *warm_paths])
    measured = json.loads(out.strip().splitlines()[-1])
    wrong_rows = [r for r in measured if "wrong" in r]
    first, *warm = [r for r in measured if "wrong" not in r]
    diag_off = median([r["wall"] for r in wrong_rows if r["wrong"] == "off"])
    diag_on = median([r["wall"] for r in wrong_rows if r["wrong"] == "on"])
    causes = max([r["causes"] for r in wrong_rows] or [0])
    print(f"  every part wrong: {diag_off:.2f} s without diagnosis, {diag_on:.2f} s with ({causes} causes)")
    compute = median([r["compute"] for r in warm])
    print(f"  warm grades {[round(r['wall'], 2) for r in warm]}, own compute {[round(r['compute'], 2) for r in warm]}")

    # (b) batch throughput
    batch = {}
    for jobs in sorted({1, args.jobs}):
        batch[jobs] = grade_all(course, jobs, args.workdir)
        print(f"  grade-all --jobs {jobs}: {batch[jobs][0]:.1f} s for {len(batch[jobs][1])}", flush=True)

    # (c) nbgrader autograde: ours (plain nbgrader, the sandboxed grade) beside stock nbgrader and its floor,
    # for the group in one call and one call per student (bench/nbgrader_bench.py).
    from nbgrader_bench import measure
    nb_students = [p.parent.parent.name for p in notebooks[:args.nbgrader_n]]
    nb_env = env(GRADING="1", MPLBACKEND="Agg", OMP_NUM_THREADS="1",
                 JUPYTER_PATH=os.path.join(sys.prefix, "share", "jupyter"),
                 PYTHONPATH=str(ROOT / "bench"))  # stock_cell, for the stock course's kernels
    our_env = {k: v for k, v in env().items() if k != "PYTHONHASHSEED"}  # an instructor's shell, venv on PATH
    nbg_run = measure(course, args.workdir, nb_students, nb_env, our_env)
    stock, ours_nb = nbg_run["courses"]["stock"], nbg_run["courses"]["ours"]
    nb_class, nb_times = nbg_run["stock"]["group"], nbg_run["stock"]["each"]
    nb_scores, stock_scores = nbgrader_scores(ours_nb, nb_students), nbgrader_scores(stock, nb_students)
    log["load_end"] = load()

    floor = median(floor_import) + compute
    full = sum(part_points().values())
    (j1_wall, j1_rows), (jn_wall, jn_rows) = batch[1], batch[args.jobs]
    per_j1, per_jn = j1_wall / len(j1_rows), jn_wall / len(jn_rows)
    nbg, ours = median(nb_times), {r["student"]: float(r["total"]) for r in j1_rows}
    same = {r["student"]: r["total"] for r in jn_rows} == {r["student"]: r["total"] for r in j1_rows}
    agree = all(nb_scores[s] is not None and abs(nb_scores[s] - ours[s]) < 1e-6 for s in nb_students)
    diagnosis_lines = []
    if args.diagnosis:
        from solutions.week7_attention.diagnosis import measure
        diagnosis_lines = ["", "Diagnosis of known mistakes, precision and recall over the mutant corpora "
                           "(`solutions/week7_attention/diagnosis/measure.py`; the fresh mutants were not used to build "
                           "the library):", "", "```", measure.table(measure.figures(measure.load(args.corpus))), "```"]
    lines = [
        "# Grading speed: our grader vs nbgrader autograde",
        "",
        f"{datetime.date.today().isoformat()}, {os.cpu_count()} cores, N = {len(notebooks)} submissions "
        f"({len(broken)} with a broken causal mask), nbgrader on the first {len(nb_students)}; "
        f"load average (1/5/15 min) {log['load_start']} at start, {log['load_end']} at the end "
        f"(a shared machine). Produced by `make bench` (bench/bench.py); medians per submission.",
        "",
        "| what | seconds per submission | ratio | target |",
        "|---|---:|---:|---|",
        f"| floor: `python -c \"import torch\"` | {median(floor_import):.2f} | | |",
        f"| checks' own compute (warm; cells in the worker + test and fixture bodies) | {compute:.2f} | | |",
        f"| floor + own compute | {floor:.2f} | 1.00 | |",
        f"| cold single grade `python -m autograder grade` (n={len(cold)}) | {median(cold):.2f} | "
        f"{median(cold) / floor:.2f} x floor | <= 1.5 x: {'met' if median(cold) <= 1.5 * floor else 'NOT met'} |",
        f"| {seed_what} (n={len(seed_runs)}) | {median(seed_runs):.2f} | "
        f"cold grade = {median(cold) / median(seed_runs):.2f} x | cold grade <= seed smoke: "
        f"{'met' if median(cold) <= median(seed_runs) else 'NOT met'} |",
        f"| every part wrong, warm: without / with the diagnosis ({causes} causes named) | "
        f"{diag_off:.2f} / {diag_on:.2f} | {diag_on / diag_off:.2f} x | <= 1.5 x: "
        f"{'met' if diag_on <= 1.5 * diag_off else 'NOT met'} |",
        f"| warm grade in one process (n={len(warm)}) | {median([r['wall'] for r in warm]):.2f} | "
        f"{median([r['wall'] for r in warm]) / compute:.2f} x compute | |",
        f"| `grade-all --jobs 1` (wall / N) | {per_j1:.2f} | {per_j1 / compute:.2f} x compute | "
        f"<= 2 x: {'met' if per_j1 <= 2 * compute else 'NOT met'} |",
        f"| `grade-all --jobs 1` (median of per-submission seconds) | "
        f"{median([float(r['seconds']) for r in j1_rows]):.2f} | | |",
        f"| `grade-all --jobs {args.jobs}` (wall / N) | {per_jn:.2f} | "
        f"{per_j1 / per_jn:.2f} x faster than --jobs 1 | |",
        f"| plain `nbgrader autograde` of our course, one call for the group (sandboxed grades, the service "
        f"started by the call, n={len(nb_students)}, wall / n) | {nbg_run['ours']['group']:.2f} | "
        f"{nbg_run['ours']['group'] / nbg_run['floor']['group']:.2f} x floor, "
        f"{nbg_run['ours']['group'] / nb_class:.2f} x stock | <= floor: "
        f"{_met(nbg_run['ours']['group'] <= nbg_run['floor']['group'])} |",
        f"| plain `nbgrader autograde --student`, one call per student (service warm, n={len(nb_students)}) | "
        f"{median(nbg_run['ours']['each']):.2f} | "
        f"{median(nbg_run['ours']['each']) / median(nbg_run['floor']['each']):.2f} x floor, "
        f"{median(nbg_run['ours']['each']) / median(nb_times):.2f} x stock | <= floor: "
        f"{_met(median(nbg_run['ours']['each']) <= median(nbg_run['floor']['each']))} |",
        f"| plain `nbgrader autograde --student`, one student, service cold (n=1) | {nbg_run['ours']['cold']:.2f} | "
        f"{nbg_run['ours']['cold'] / median(nbg_run['floor']['each']):.2f} x floor, "
        f"{nbg_run['ours']['cold'] / median(nb_times):.2f} x stock | <= floor: "
        f"{_met(nbg_run['ours']['cold'] <= median(nbg_run['floor']['each']))} |",
        f"| stock nbgrader's floor: the notebook alone in a python3 kernel, one call for the group "
        f"(n={len(nb_students)}, wall / n) | {nbg_run['floor']['group']:.2f} | 1.00 | |",
        f"| stock nbgrader's floor, one call per student (n={len(nb_students)}) | "
        f"{median(nbg_run['floor']['each']):.2f} | 1.00 | |",
        f"| stock `nbgrader autograde`, one call for the group (python3 kernel, n={len(nb_students)}, wall / n) | "
        f"{nb_class:.2f} | {nb_class / per_j1:.1f} x `--jobs 1`, {nb_class / per_jn:.1f} x `--jobs {args.jobs}` | "
        f">= 25 x slower than `make grade-all` (--jobs {args.jobs}): {_met(nb_class >= 25 * per_jn)}; "
        f"than --jobs 1: {_met(nb_class >= 25 * per_j1)} |",
        f"| stock `nbgrader autograde --student`, one call per student (n={len(nb_times)}) | {nbg:.2f} | "
        f"{nbg / per_j1:.1f} x `--jobs 1`, {nbg / per_jn:.1f} x `--jobs {args.jobs}` | "
        f">= 25 x: --jobs {args.jobs} {_met(nbg >= 25 * per_jn)}, --jobs 1 {_met(nbg >= 25 * per_j1)} |",
        "",
        f"Not in the rows above: the reference smoke run, {first.get('smoke_run', 0):.2f} s once per machine (then "
        f"read from build/cache); the first grade of a fresh grading process, {first['wall']:.2f} s (template "
        f"warm-up, suite imports).",
        f"Own compute of a warm grade, median: a fresh worker running the notebook's cells "
        f"{median([r['cells'] for r in warm]):.2f} s, fixtures {median([r['fixtures'] for r in warm]):.2f} s, "
        f"test bodies {median([r['tests'] for r in warm]):.2f} s.",
        f"Scores: grade-all --jobs 1 gave {sum(float(r['total']) == full for r in j1_rows)} x {full:g} and "
        f"{sorted(float(r['total']) for r in j1_rows if r['student'] in broken)} for the broken ones; "
        f"--jobs {args.jobs} {'agrees' if same else 'DIFFERS'}; "
        f"plain nbgrader autograde's gradebook totals {nb_scores} "
        f"({'same totals as ours' if agree else 'totals differ from ours'}); stock nbgrader's (all or nothing "
        f"per test cell) {stock_scores}.",
        f"CPU seconds (user + system, all processes; less sensitive to the load than wall time): "
        f"import torch {median(CPU['import']):.1f}, cold grade {median(CPU['cold']):.1f}, "
        f"grade-all --jobs 1 {CPU['j1'][0] / len(j1_rows):.1f} and --jobs {args.jobs} "
        f"{CPU[f'j{args.jobs}'][0] / len(jn_rows):.1f} per submission, nbgrader "
        f"{nbg_run['stock']['cpu_group']:.1f} per submission in one call for the group "
        f"({nbg_run['stock']['cpu_group'] / (CPU['j1'][0] / len(j1_rows)):.1f} x grade-all --jobs 1), "
        f"{median(nbg_run['stock']['cpu_each']):.1f} per student called one by one; its floor "
        f"{nbg_run['floor']['cpu_group']:.1f} and {median(nbg_run['floor']['cpu_each']):.1f}; plain nbgrader of our "
        f"course {nbg_run['ours']['cpu_group']:.1f} and {median(nbg_run['ours']['cpu_each']):.1f} (nbgrader and the "
        f"isolated kernel; the grading service is not the bench's child, its CPU is not counted).",
        "",
        f"Raw seconds: cold {[round(x, 2) for x in cold]}, import torch {[round(x, 2) for x in floor_import]}, "
        f"nbgrader {[round(x, 1) for x in nb_times]}, grade-all wall --jobs 1 {j1_wall:.1f}, "
        f"--jobs {args.jobs} {jn_wall:.1f}.",
        "",
        "Each confinement this machine can build, forced with `--confinement` (the rows above use the strongest, "
        "taken by default); the same notebooks, medians:",
        "",
        f"| confinement | cold single grade | ratio to the default's | `grade-all --jobs {args.jobs}` (wall / N) | ratio |",
        "|---|---:|---:|---:|---:|",
        *[f"| {line.removeprefix('confinement: ')} | {median(by_mode[m]['cold']):.2f} | "
          f"{median(by_mode[m]['cold']) / median(cold):.2f} | {by_mode[m]['batch'][0] / len(by_mode[m]['batch'][1]):.2f} | "
          f"{(by_mode[m]['batch'][0] / len(by_mode[m]['batch'][1])) / per_jn:.2f} |" for m, (_, _, line) in modes.items()],
    ]
    text = "\n".join(lines + diagnosis_lines) + "\n"
    print("\n" + text)
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
