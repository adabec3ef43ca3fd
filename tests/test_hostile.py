"""Hostile and broken submissions: the grader holds, loses nothing, and leaks nothing.

Every case in tests/corpus/hostile/ is graded through the real CLI (``python -m autograder
grade`` in a subprocess). Cases that attack different parts share a notebook (GROUPS);
the notebooks are graded two at a time. For each grade: it finishes within its budget,
results.json is valid Gradescope output, attacked parts score 0, untouched parts keep
full points, no forged score survives. Around the whole run: no file of the checkout or
of a world-writable canary directory in /tmp changes, no hidden test or reference line
appears in any output, no listener on the host is reached, and no process outlives it.

Needs root (the worker's namespaces): several cases delete files, which without the
sandbox would hit the developer's own /tmp.
"""
import concurrent.futures
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "corpus"))
import hostile
from hostile._harness import (PYTHON, ROOT, SOLUTION, STARTUP_SLACK, UNCHANGED, Campaign,
                              Listeners, attack_traces, diff, grade, processes, secret_lines, snapshot)

from autograder import PARTS
from autograder.sandbox import identity
from autograder.sandbox.confinement import Mode, probe
from autograder.settings import VISIBILITIES
from tests.points import points, total


# name: (--budget in seconds, cases). Cases in one group attack different parts.
# Budgets are below the default 300 s but cover the worst case: a function that hangs also
# hangs the notebook's own check cells (30 s each) before its calls (10 s each) are cut off.
GROUPS = {
    "time": (240, ["infinite_loop", "ignore_signals", "endless_thread"]),
    "resources": (200, ["memory_bomb", "huge_return", "print_flood", "disk_fill", "spawn_processes", "memory_tree",
                        "memory_unmapped", "userns_tmpfs", "socket_buffers", "unnamed_files", "too_deep"]),
    # Files the watchdog could not see (red teams 6 and 7): a notebook of their own, so that the worker deaths they
    # cause where the watchdog ends the tree do not add up, with the resources group's, to the grade's limit of deaths.
    "disk": (150, ["hidden_fd_table", "preallocated", "mapped_page_of_deleted"]),
    "exits": (150, ["exit_in_function", "os_exit_in_function", "segfault_in_function", "interrupt_in_function",
                    "exit_at_top_level", "os_exit_at_top_level", "kill_everything", "sleep_top_level"]),
    "lies": (150, ["patch_asserts", "tensor_subclass", "pickle_return", "patch_failures"]),
    "budget": (40, ["sleep_everywhere"]),
    "kernel": (200, ["hide_from_watchdog", "hide_unnamed_files", "page_tables", "slow_watchdog", "zombie_leader",
                     "zombie_files", "shared_anonymous", "pid_hopping", "parent_hop", "pipe_folios",
                     "slow_hop", "shared_window", "freeze_probe", "probe_memory"]),
    "escape": (150, ["forged_results", "socket_garbage", "syntax_error", "delete_everything", "network",
                     "exfiltrate", "read_own_heap", "magics", "grader_secrets", "keyring_note",
                     "keyring_poison", "posix_locks", "inotify_instances", "epoll_watches", "tmpfs_inodes",
                     "pid_max_wrap"]),
    "reach": (150, ["reference_by_path", "write_everywhere", "reach_grader", "note_for_next", "leave_the_group",
                    "deep_scratch", "locked_scratch", "renice_everyone", "capabilities", "inode_flags"]),
}

# Time limits of their own, shorter than the defaults (30 s a cell, 10 s a call), for the groups whose cases run into
# them: the same limits enforced the same way, about half the waiting (the time group set the campaign's length).
LIMITS = {"time": ("--cell-seconds", "12", "--call-seconds", "5")}

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(probe().mode is not Mode.NAMESPACES, reason="hostile submissions need the root sandbox (namespaces, unprivileged uid)")]


@pytest.fixture(scope="module")
def campaign(tmp_path_factory, solution_notebook):
    assert Path(solution_notebook) == SOLUTION
    marker = uuid.uuid4().hex[:12]
    workdir = tmp_path_factory.mktemp("hostile")
    canary = Path(tempfile.mkdtemp(prefix="hostile-canary-", dir="/tmp"))
    canary.chmod(0o1777)  # world-writable: a worker that could see it could write here
    (canary / "keep.txt").write_text("the canary\n")
    (canary / "sub").mkdir(mode=0o777)
    (canary / "sub" / "also.txt").write_text("also\n")
    listeners = Listeners(marker)
    params = {"__REPO__": ROOT, "__HOME__": os.path.expanduser("~"), "__CANARY__": canary, "__LISTEN_PORT__": listeners.port,
              "__ABSTRACT__": listeners.abstract_name, "__MARKER__": marker}
    # Hidden with the checkout; the attacks aim at both. Under build/ (git-ignored), so that a
    # commit made while this runs cannot pick it up.
    inside = ROOT / "build" / f".hostile-canary-{marker}"
    inside.mkdir(mode=0o777, parents=True)
    inside.chmod(0o1777)
    (inside / "keep.txt").write_text("the canary\n")
    outside = [Path(p) for p in ("/autograder/results/results.json", "/results.json", "/tmp/results.json",
                                 str(ROOT.parent / "results.json"), os.path.expanduser("~/results.json"))]
    existed = {p for p in outside if p.exists()}
    try:
        before = {"checkout": snapshot(ROOT), "canary": snapshot(canary), "repo canary": snapshot(inside),
                  "venv": snapshot(ROOT / ".venv")}
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:  # longest group first
            futures = {name: pool.submit(grade, name, budget, [hostile.load(c) for c in cases], workdir, params,
                                         marker, LIMITS.get(name, ())) for name, (budget, cases) in GROUPS.items()}
            grades = {name: future.result() for name, future in futures.items()}
        # Workers run as uids from identity.UID_BASE up (one per worker tree) with an environment of
        # their own; anything still running as such a uid once both grades are done was left behind.
        leftovers = []
        for _ in range(50):  # a killed PID namespace may take a moment to be reaped
            leftovers = [(pid, uid, cmd.replace(b"\0", b" ").decode(errors="replace"))
                         for pid, (uid, cmd, env) in processes().items()
                         if marker.encode() in env or uid >= identity.UID_BASE]
            if not leftovers:
                break
            time.sleep(0.2)
        files = {"checkout": diff(before["checkout"], snapshot(ROOT)),
                 "canary": diff(before["canary"], snapshot(canary)),
                 "repo canary": diff(before["repo canary"], snapshot(inside)),
                 "venv": diff(before["venv"], snapshot(ROOT / ".venv"))}
        listeners.close()
        yield Campaign(grades, files, [str(p) for p in outside if p.exists() and p not in existed], leftovers,
                       listeners.contacts, canary)
    finally:
        listeners.close()
        import shutil
        shutil.rmtree(canary, ignore_errors=True)
        shutil.rmtree(inside, ignore_errors=True)


@pytest.fixture(scope="module")
def catalog_titles():
    from autograder.engine.catalog import catalog
    return {t.title: (t.part, t.points) for t in catalog()}


# ---- the corpus itself -----------------------------------------------------------------------------
def test_every_case_is_described_and_grouped():
    grouped = [c for _, cases in GROUPS.values() for c in cases]
    assert sorted(grouped) == hostile.case_names(), "every corpus case is graded exactly once"
    for name in hostile.case_names():
        case = hostile.load(name)
        doc = (case.__doc__ or "").strip()
        assert doc and "\n" not in doc, f"{name}: needs a one-line docstring (what, which part, which parts keep)"
        assert set(case.ATTACKS) <= set(PARTS) and set(case.KEEPS) <= set(PARTS)
        assert not set(case.ATTACKS) & set(case.KEEPS), name
        assert getattr(case, "REPLACE", None) or getattr(case, "ADD", None), f"{name} changes nothing"


def expectations(cases):
    """(parts that must score 0, parts that must keep full points) for cases graded together."""
    zero = {p for c in cases for p in c.ATTACKS}
    full = {p for c in cases for p in c.KEEPS} - hostile.blocked_by(zero)
    return zero, full


# ---- each grade ------------------------------------------------------------------------------------
@pytest.mark.parametrize("group", list(GROUPS))
def test_grade_holds(campaign, catalog_titles, group):
    g = campaign.grades[group]
    cases = g.cases
    assert g.returncode == 0, f"{group}: the CLI exited {g.returncode}\n{g.stderr[-3000:]}"
    assert g.seconds <= g.budget + STARTUP_SLACK, f"{group}: took {g.seconds:.0f} s for a {g.budget} s budget"

    # Valid Gradescope results, written where asked and nowhere else in that directory.
    assert sorted(p.name for p in g.out.parent.iterdir()) == ["results.json"]
    data = g.results
    assert isinstance(data.get("score"), (int, float)) and isinstance(data.get("execution_time"), (int, float))
    assert isinstance(data.get("output"), str) and isinstance(data.get("tests"), list)
    # After the budget runs out the remaining checks fail at once, but their reference-side
    # work in the grading process still runs: allow for it.
    assert data["execution_time"] <= g.budget + 60, f"{group}: grading took {data['execution_time']} s"
    for test in data["tests"]:
        assert isinstance(test["name"], str) and isinstance(test["output"], str)
        assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], (int, float))
        assert test["visibility"] in VISIBILITIES
        assert isinstance(test["tags"], list) and all(isinstance(t, str) for t in test["tags"])

    # No forged score: exactly the hidden tests, each within its points, and the total is their sum.
    names = [t["name"].removeprefix("Autograder failed: ") for t in data["tests"]]
    assert sorted(names) == sorted(catalog_titles), f"{group}: unexpected tests {set(names) ^ set(catalog_titles)}"
    for test in data["tests"]:
        part, top = catalog_titles[test["name"].removeprefix("Autograder failed: ")]
        assert test["tags"] == [part] and test["max_score"] == top
        assert 0 <= test["score"] <= top
    assert abs(data["score"] - sum(t["score"] for t in data["tests"])) < 1e-6 and data["score"] <= total()

    # The attacked parts score 0; the untouched ones keep every point.
    zero, full = expectations(cases)
    scores = {}
    for test in data["tests"]:
        got, top = scores.get(test["tags"][0], (0.0, 0.0))
        scores[test["tags"][0]] = (got + test["score"], top + test["max_score"])
    report = f"{group}: parts {scores}\n{data['output']}"
    for part in zero:
        assert scores[part][0] == 0, f"attacked part {part} scored {scores[part][0]}\n{report}"
    lost = {p: scores[p] for p in full if scores[p][0] != scores[p][1]}
    failed = [f"{t['name']}: {t['output']}" for t in data["tests"] if t["tags"][0] in lost and t["score"] < t["max_score"]]
    assert not lost, f"untouched parts lost points: {lost}\n" + "\n".join(failed) + f"\n{report}"

    # Bounded output; markers that only an escaped attack could produce never appear.
    assert len(g.results_text) < 256 << 10 and len(g.stdout) < 1 << 20 and len(g.stderr) < 1 << 20
    everything = g.every_output()
    for case in cases:
        for never in getattr(case, "NEVER", []):
            assert never not in everything, f"{group}: {case.__name__} left {never!r} in the output"
        for expected in getattr(case, "EXPECT", []):
            assert expected in data["output"], f"{group}: {case.__name__} should report {expected!r}\n{report}"
        if hasattr(case, "check"):
            case.check(data["output"])


# ---- around the whole run ------------------------------------------------------------------------
def test_no_file_outside_the_worker_changes(campaign):
    """The canaries (in /tmp and in the checkout) and the venv are untouched; nothing an attack writes appears."""
    for name in ("canary", "repo canary", "venv"):
        assert campaign.files[name] == UNCHANGED, (name, campaign.files[name])
    assert not campaign.outside, f"files appeared outside the sandbox: {campaign.outside}"
    written = attack_traces(campaign.files["checkout"], ROOT)
    assert not written, f"attack files appeared in the checkout: {written}"


VOLATILE = ("build", ".git", ".git/objects", ".git/logs", ".git/refs", ".git/index", ".git/COMMIT_EDITMSG",
            ".git/ORIG_HEAD")


def test_checkout_unchanged(campaign):
    """Strict: not one file of the checkout changed, what builds and commits write aside.

    build/ is where `make release` and the benchmarks write, and a commit rewrites .git's
    objects, logs, refs and index; the attacks aim at the checkout's root, its sources,
    .git's hooks and config, and the venv (the build/ canary covers build/). This still
    fails if someone edits the working tree during the run: then rerun on a quiet checkout.
    """
    changes = {kind: [p for p in paths if not any(p == v or p.startswith(v + "/") for v in VOLATILE)]
               for kind, paths in campaign.files["checkout"].items()}
    assert changes == UNCHANGED, f"the checkout changed during the run: {changes}"


def test_no_hidden_test_or_reference_line_in_any_output(campaign):
    secrets = secret_lines()
    assert len(secrets) > 100  # the check must have something to look for
    for name, g in campaign.grades.items():
        everything = g.every_output()
        leaked = [line for line in secrets if line in everything]
        assert not leaked, f"{name}: hidden source in the output: {leaked[:5]}"


def test_no_listener_on_the_host_was_reached(campaign):
    assert not campaign.contacts, campaign.contacts


def test_no_process_outlives_the_grade(campaign):
    assert not campaign.leftovers, f"left running after grading: {campaign.leftovers}"


# ---- batch safety ----------------------------------------------------------------------------------
BATCH_PARTS = ["softmax_read", "multihead", "positions"]  # enough to score; training would only add time
MALLORY = ["forged_results", "delete_everything", "spawn_processes"]
EVE = ["os_exit_at_top_level", "kill_everything", "tensor_subclass"]


def test_batch_safety(tmp_path, solution_notebook):
    """grade-all with --jobs 2: every submission gets a row and none can alter another's files."""
    import csv
    import nbformat
    folder, out_dir = tmp_path / "submissions", tmp_path / "grades"
    folder.mkdir()
    out_dir.mkdir()
    canary = Path(tempfile.mkdtemp(prefix="hostile-canary-", dir="/tmp"))
    canary.chmod(0o1777)
    (canary / "keep.txt").write_text("the canary\n")
    params = {"__REPO__": ROOT, "__CANARY__": canary, "__OUT_DIR__": out_dir, "__LISTEN_PORT__": 9,
              "__ABSTRACT__": "unused", "__MARKER__": "batch"}
    solution = nbformat.read(str(solution_notebook), as_version=4)
    nbformat.write(solution, str(folder / "alice.ipynb"))
    solution.cells.append(nbformat.v4.new_code_cell("# bob's own notebook"))
    nbformat.write(solution, str(folder / "bob.ipynb"))
    for name, cases in (("mallory", MALLORY), ("eve", EVE)):
        nb = hostile.build(SOLUTION, [hostile.load(c) for c in cases], {**params, "__OUT_DIR__": out_dir / "x"})
        nbformat.write(nb, str(folder / f"{name}.ipynb"))
    before = {"submissions": snapshot(folder), "checkout": snapshot(ROOT), "canary": snapshot(canary)}
    parts = [arg for p in BATCH_PARTS for arg in ("--part", p)]
    try:
        proc = subprocess.run([PYTHON, "-m", "autograder", "grade-all", str(folder), "--out",
                               str(out_dir / "grades.csv"), "--jobs", "2", "--budget", "150", *parts],
                              cwd=ROOT, capture_output=True, text=True, timeout=900,
                              env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
        after = {"submissions": snapshot(folder), "checkout": snapshot(ROOT), "canary": snapshot(canary)}
    finally:
        import shutil
        shutil.rmtree(canary, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in ("submissions", "canary"):
        assert diff(before[name], after[name]) == UNCHANGED, name
    assert not attack_traces(diff(before["checkout"], after["checkout"]), ROOT)
    with open(out_dir / "grades.csv", newline="") as handle:
        rows = {r["student"]: r for r in csv.DictReader(handle)}
    assert sorted(rows) == ["alice", "bob", "eve", "mallory"]
    for student in ("alice", "bob"):
        assert all(float(rows[student][p]) == points(p) for p in ("softmax_read", "multihead", "positions")), \
            rows[student]
    assert float(rows["mallory"]["positions"]) == 0 and float(rows["mallory"]["multihead"]) == points("multihead"), \
        rows["mallory"]
    assert float(rows["eve"]["multihead"]) == 0 and float(rows["eve"]["positions"]) == points("positions"), rows["eve"]
    texts = [p.read_text(errors="replace") for p in out_dir.rglob("*") if p.is_file() and p.suffix != ".png"]
    assert not any("FORGED_BY_SUBMISSION" in t for t in texts)
    assert not (out_dir / "x").exists()
