"""The grader where instructors grade: each environment emulated here (tests/environments/), graded through the CLI.

In every environment: the probe takes the strongest confinement it allows and says so (the CLI's line,
results.json's extra_data); the solution scores full marks and the blank 0; the hostile corpus's attacks
on the grader hold (the `reach` group twice, so that a note left for the next submission would be
found; `escape`, `exits`, and `resources` where no control group bounds the tree); a grade-all batch
grades every notebook, the oracle-only ones (tests/corpus/oracle_only/) to nothing; week 6, the second
assignment, is graded as week 7 is (its solution, its blank, the attacks on it); and nothing of the emulated instructor's machine changes: not the checkout (the
hidden suites, the reference, build/ with the secret), not the venv (a .pth there would run in the next
grading process), not the home. Where nothing can confine a worker, nothing is graded unless the
instructor opts in. The Gradescope autograder runs in the Docker-like container.

vm-root is the setting of the rest of the suite (test_hostile.py, test_forgery.py, test_containment.py
run there in full); here it gets the same checks as the others, for the table in docs/security.md.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "corpus"))
import hostile
import oracle_only
import week6_hostile
from hostile._harness import UNCHANGED, diff, snapshot

from autograder.assignment import INSTRUCTOR_NOTEBOOK, NAME, NOTEBOOK_FILE, ROOT, STUDENT_NOTEBOOK
from autograder.engine.catalog import part_points
from autograder.sandbox import identity, steps
from autograder.sandbox.confinement import Mode
from tests.environments import ENVIRONMENTS, SITE_PACKAGES, machine
from tests.points import total

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.geteuid() != 0, reason="the launcher emulates as root")]
NAMES = [name for name, env in ENVIRONMENTS.items() if env.expected is not Mode.NONE]
SOLUTION = INSTRUCTOR_NOTEBOOK.relative_to(ROOT)  # in each machine's checkout
BLANK = STUDENT_NOTEBOOK.relative_to(ROOT)
WEEK6 = "solutions.week6_bigram"  # the second assignment, through AUTOGRADER_ASSIGNMENT (plugin_api.load)
WEEK6_SOLUTION = Path("build/course/source/week6_bigram/week6_bigram.ipynb")  # make release builds both
WEEK6_BLANK = Path("assignments/week6_bigram/week6_bigram.ipynb")
WEEK6_CASES = [hostile.load(c) for c in week6_hostile.GENERIC] + [week6_hostile.load("reach_through_the_model")]
GROUPS = {"reach": ["reference_by_path", "write_everywhere", "reach_grader", "note_for_next", "leave_the_group",
                    "deep_scratch", "locked_scratch", "renice_everyone", "capabilities", "inode_flags"],
          "escape": ["forged_results", "socket_garbage", "syntax_error", "delete_everything", "network", "exfiltrate",
                     "read_own_heap", "magics", "grader_secrets", "keyring_note", "keyring_poison",
                     "posix_locks", "inotify_instances", "epoll_watches", "tmpfs_inodes", "pid_max_wrap"],
          "exits": ["exit_in_function", "os_exit_in_function", "segfault_in_function", "interrupt_in_function",
                    "exit_at_top_level", "os_exit_at_top_level", "kill_everything", "sleep_top_level"],
          "resources": ["memory_bomb", "huge_return", "print_flood", "disk_fill", "spawn_processes", "memory_tree",
                        "memory_unmapped", "userns_tmpfs", "socket_buffers", "unnamed_files", "too_deep"],
          "disk": ["hidden_fd_table", "preallocated", "mapped_page_of_deleted"],
          "kernel": ["hide_from_watchdog", "hide_unnamed_files", "page_tables", "slow_watchdog", "zombie_leader",
                     "zombie_files", "shared_anonymous", "pid_hopping", "parent_hop", "pipe_folios",
                     "slow_hop", "shared_window", "freeze_probe", "probe_memory"]}
CAMPAIGNS_AT_ONCE = 2
BUDGET = {"reach": 120, "escape": 150, "exits": 150, "resources": 200, "kernel": 200, "disk": 150}


def groups_for(name):
    """Every group; resources and kernel where the watchdog bounds the tree (the control group's is
    test_containment's and test_hostile's)."""
    return [g for g in GROUPS if g not in ("resources", "kernel", "disk") or name in ("user", "docker-root", "k8s-pod")]


class Run:
    """One environment's campaign: what each grade gave, and what changed on its machine."""

    def __init__(self, name):
        self.name, self.env = name, ENVIRONMENTS[name]
        self.machine = machine.prepare(name)
        self.work = self.machine.home.parent / "work"  # notebooks and results: not the home under watch
        self.work.mkdir()
        os.chown(self.work, self.env.uid, self.env.uid)
        self.grades, self.before, self.after = {}, {}, {}

    def watched(self):
        m = self.machine
        return {"checkout": m.checkout, "venv": m.checkout / ".venv", "home": m.home}

    def write(self, name, nb):
        path = self.work / f"{name}.ipynb"
        nbformat.write(nb, str(path))
        os.chown(path, self.env.uid, self.env.uid)
        return path

    def grade(self, key, notebook, *extra, budget=150, env=None):
        out = self.work / f"{key}.json"
        started = time.monotonic()
        run = self.machine.grade(notebook, out, "--budget", str(budget), *extra, timeout=budget + 300,
                                 **({"env": env} if env else {}))
        results = json.loads(out.read_text()) if out.exists() else None
        self.grades[key] = {"run": run, "results": results, "seconds": time.monotonic() - started,
                            "scratch": self.scratch_left()}
        return self.grades[key]

    def scratch_left(self):
        """Work directories in /tmp of this environment's workers, looked at the moment a grade has returned: its
        uid's, or a worker uid's as root (no other campaign makes those, and this one grades one at a time)."""
        uid = self.env.uid
        return [p.name for p in Path("/tmp").glob(f"{steps.SCRATCH_PREFIX}*")
                if (p.stat().st_uid == uid if uid else p.stat().st_uid >= identity.UID_BASE)]


def _campaign(name):
    r = Run(name)
    m = r.machine
    solution = m.checkout / SOLUTION
    r.grade("solution", solution)  # first: it makes build/secret.key, which the snapshots then hold still
    r.before = {k: snapshot(v) for k, v in r.watched().items()}
    blank = r.write("blank", nbformat.read(str(m.checkout / BLANK), as_version=4))
    r.grade("blank", blank)
    params = {"__REPO__": m.checkout, "__HOME__": m.home, "__CANARY__": r.work, "__OUT_DIR__": r.work,
              "__LISTEN_PORT__": 9, "__ABSTRACT__": f"hostile-{name}", "__MARKER__": name}
    notebooks = {g: r.write(g, hostile.build(solution, [hostile.load(c) for c in GROUPS[g]], params))
                 for g in groups_for(name)}
    for group, notebook in notebooks.items():
        # sleep_top_level sleeps until the cell limit stops it: 12 s instead of 30 (the whole solution notebook
        # grades in ~5 s here), 18 s less waiting in each environment.
        r.grade(group, notebook, *(("--cell-seconds", "12") if group == "exits" else ()), budget=BUDGET[group])
    r.grade("reach_again", notebooks["reach"], budget=BUDGET["reach"])  # a note from the first would be found
    # Week 6, the second assignment (issue 29), graded as week 7 is: its solution, its blank, and the attacks on it
    # (the generic reach cases and its own, a function handed the grader's model) built into its solution.
    week6 = {"AUTOGRADER_ASSIGNMENT": WEEK6}
    r.grade("week6_solution", m.checkout / WEEK6_SOLUTION, env=week6)
    r.grade("week6_blank", r.write("week6_blank", nbformat.read(str(m.checkout / WEEK6_BLANK), as_version=4)),
            env=week6)
    r.grade("week6_hostile", r.write("week6_hostile", hostile.build(m.checkout / WEEK6_SOLUTION, WEEK6_CASES, params)),
            budget=BUDGET["reach"], env=week6)
    # The oracle-only notebooks (tests/corpus/oracle_only/): built from the blank, graded only in the batch.
    oracles = [r.write(f"oracle_{c}", hostile.build(m.checkout / BLANK, [oracle_only.load(c)], {}))
               for c in oracle_only.case_names()]
    batch = r.work / "batch"
    batch.mkdir()
    for path in (solution, blank, notebooks["reach"], *oracles):
        (batch / path.name).write_bytes(path.read_bytes())
    os.chown(batch, r.env.uid, r.env.uid)
    for path in batch.iterdir():
        os.chown(path, r.env.uid, r.env.uid)
    r.batch = m.run(str(m.python), "-m", "autograder", "grade-all", str(batch), "--out", str(r.work / "grades.csv"),
                    "--jobs", "2", timeout=900)
    r.after = {k: snapshot(v) for k, v in r.watched().items()}
    return r


def leftovers():
    """What workers left once every campaign is over: processes of a worker uid (from identity.UID_BASE) or of an
    emulated user's (a machine here runs nothing else as those uids), or running the machines' pythons; work
    directories in /tmp (mode landlock makes them there)."""
    uids = {env.uid for env in ENVIRONMENTS.values() if env.uid}
    found = []
    for _ in range(50):
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    status = Path(f"/proc/{entry}/status").read_text()
                    cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                except OSError:
                    continue
                uid = int(status.split("\nUid:\t", 1)[1].split()[0])
                if "\nState:\tZ" not in status and (uid >= identity.UID_BASE or uid in uids
                                                      or str(machine.BASE) in cmdline):
                    found.append((entry, uid, cmdline[:200]))
        found += [str(p) for p in Path("/tmp").glob(f"{steps.SCRATCH_PREFIX}*")
                  if p.stat().st_uid in uids or p.stat().st_uid >= identity.UID_BASE]
        if not found:
            break
        time.sleep(0.2)
    return found


@pytest.fixture(scope="module")
def campaigns():
    # Two at a time: at three, the resources groups (the watchdog's reading of /proc, several GiB touched)
    # took twice as long each and the whole was slower.
    with ThreadPoolExecutor(max_workers=CAMPAIGNS_AT_ONCE) as pool:
        runs = dict(zip(NAMES, pool.map(_campaign, NAMES)))
    for name, r in runs.items():  # where the time goes (pytest -s shows it)
        print(f"{name}: " + ", ".join(f"{key} {g['seconds']:.0f} s" for key, g in r.grades.items()))
    return runs


def _parts(results):
    parts = {}
    for test in results["tests"]:
        got, top = parts.get(test["tags"][0], (0.0, 0.0))
        parts[test["tags"][0]] = (got + test["score"], top + test["max_score"])
    return parts


# ---- what each environment chose --------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_the_strongest_confinement_is_taken_and_said(campaigns, name):
    r = campaigns[name]
    g = r.grades["solution"]
    assert g["run"].returncode == 0, g["run"].stderr[-3000:]
    line = g["run"].stderr.splitlines()[0]
    expected = r.env.expected
    assert line.startswith("confinement: ") and str(expected) in line.replace("landlock (ABI", "landlock"), line
    if expected is Mode.LANDLOCK:
        assert ("own uid" if r.env.own_uid else "grader's uid") in line, line
    assert g["results"]["extra_data"]["confinement"] == line.removeprefix("confinement: ")


# ---- honest work, and attacks, in each ------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_the_solution_scores_full_marks_and_the_blank_zero(campaigns, name):
    grades = campaigns[name].grades
    assert grades["solution"]["results"]["score"] == total()
    assert grades["blank"]["run"].returncode == 0 and grades["blank"]["results"]["score"] == 0


@pytest.mark.parametrize("name", NAMES)
def test_the_attacks_hold(campaigns, name):
    r = campaigns[name]
    points = part_points()
    for group in [*groups_for(name), "reach_again"]:
        g = r.grades[group]
        cases = [hostile.load(c) for c in GROUPS[group.removesuffix("_again")]]
        assert g["run"].returncode == 0, f"{name} {group}: exit {g['run'].returncode}\n{g['run'].stderr[-3000:]}"
        data, parts = g["results"], _parts(g["results"])
        zero = {p for c in cases for p in c.ATTACKS}
        full = {p for c in cases for p in c.KEEPS} - hostile.blocked_by(zero)
        assert all(parts[p][0] == 0 for p in zero), (name, group, parts)
        lost = {p: parts[p] for p in full if parts[p][0] != points[p]}
        assert not lost, f"{name} {group}: untouched parts lost points {lost}\n{data['output']}\n{g['run'].stderr[-2000:]}"
        everything = g["run"].stdout + g["run"].stderr + json.dumps(data)
        for case in cases:
            for never in getattr(case, "NEVER", []):
                assert never not in everything, f"{name} {group}: {case.__name__} left {never!r}"
            if case is hostile.load("memory_tree") and name != "vm-root":
                # The watchdog kills the whole tree (its cell is skipped) where a control group would kill a child.
                assert "worker tree killed at its budget: memory" in g["run"].stderr, (name, g["run"].stderr[-2000:])
                continue
            if getattr(case, "WATCHDOG", None) and r.env.expected is Mode.LANDLOCK:
                # Its work directory is on the host: the watchdog, which watches it, kills the tree
                # (locked_scratch, too_deep).
                assert case.WATCHDOG in g["run"].stderr, (name, g["run"].stderr[-2000:])
                continue
            for expected in getattr(case, "EXPECT", []):
                assert expected in data["output"], (f"{name} {group}: {case.__name__} should report {expected!r}; "
                                                    f"the grader said: {g['run'].stderr[-2000:]}")


@pytest.mark.parametrize("name", NAMES)
def test_week6_is_graded_as_week7_is(campaigns, name):
    """The second assignment in the same environment, the same confinement: its solution 100, its blank 0, and the
    attacks on it (tests/corpus/week6_hostile/) gain nothing and find nothing."""
    r = campaigns[name]
    confinement = r.grades["solution"]["results"]["extra_data"]["confinement"]
    for key, score in (("week6_solution", 100), ("week6_blank", 0), ("week6_hostile", 100)):
        g = r.grades[key]
        assert g["run"].returncode == 0, f"{name} {key}: exit {g['run'].returncode}\n{g['run'].stderr[-3000:]}"
        assert g["results"]["extra_data"]["confinement"] == confinement, (name, key)
        assert g["results"]["score"] == score, f"{name} {key}: {_parts(g['results'])}\n{g['results']['output']}"
        assert {t["tags"][0] for t in g["results"]["tests"]} == {"tokens", "bigram", "model"}, (name, key)
    g = r.grades["week6_hostile"]
    everything = g["run"].stdout + g["run"].stderr + json.dumps(g["results"])
    for case in WEEK6_CASES:
        for never in getattr(case, "NEVER", []):
            assert never not in everything, f"{name}: {case.__name__} left {never!r}"
        for expected in getattr(case, "EXPECT", []):
            assert expected in g["results"]["output"], f"{name}: {case.__name__} should report {expected!r}"


@pytest.mark.parametrize("name", NAMES)
def test_nothing_of_the_machine_changes(campaigns, name):
    """The checkout (suites, reference, build/ and its secret), the venv and the home are as they were."""
    r = campaigns[name]
    for what in r.watched():
        changes = diff(r.before[what], r.after[what])
        if what == "checkout":  # what the grader itself writes: the signed reference run, byte-code of the venv
            changes = {k: [p for p in v if not p.startswith(("build/cache", ".venv"))] for k, v in changes.items()}
        assert changes == UNCHANGED, f"{name}: the {what} changed: {changes}"


def test_nothing_outlives_the_grades(campaigns):
    """Once every environment's grades are done, no process a worker started runs on, and no work directory is
    left in /tmp (a helper that left its process group, 1,500 nested folders: red team of issue 22)."""
    assert not leftovers(), leftovers()


@pytest.mark.parametrize("name", NAMES)
def test_a_grade_has_cleaned_up_when_it_returns(campaigns, name):
    """The moment `grade` returns, its worker's work directory is gone, whatever the notebook left in it (1,500
    nested folders, folders made unwritable): the template waits for its keepers' clean-up, which a SIGTERM no
    longer cuts short (CI run of stop 25: a deep scratch directory in /tmp after the campaigns)."""
    left = {key: g["scratch"] for key, g in campaigns[name].grades.items() if g["scratch"]}
    assert not left, left


@pytest.mark.parametrize("name", NAMES)
def test_a_batch_grades_every_notebook(campaigns, name):
    r = campaigns[name]
    assert r.batch.returncode == 0, r.batch.stderr[-3000:]
    import csv
    with open(r.work / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert float(rows[NAME]["total"]) == total() and float(rows["blank"]["total"]) == 0
    assert float(rows["reach"]["total"]) == total() - part_points()["positions"]
    assert "confinement: " + ENVIRONMENTS[name].expected.value in (r.work / "grades.log").read_text()


@pytest.mark.parametrize("name", NAMES)
def test_a_function_that_calls_its_oracle_scores_nothing(campaigns, name):
    """Each oracle-only notebook of the batch (the multihead module called, the lab model's mask read) scores its
    case's POINTS (0), in this environment as under vm-root (tests/test_oracle_only.py): issue 27 item 4."""
    import csv
    with open(campaigns[name].work / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    scores = {c: float(rows[f"oracle_{c}"]["total"]) for c in oracle_only.case_names()}
    assert scores == {c: float(oracle_only.load(c).POINTS) for c in oracle_only.case_names()}, (name, scores)


# ---- where nothing confines, and where a mode is asked for that cannot be built ------------------------
def test_where_nothing_confines_nothing_is_graded_unless_opted_in(tmp_path):
    """uid 1500 with user namespaces refused and Landlock refused (a kernel without it): the probe refuses, the
    CLI says why and what to do, exits 2 and writes nothing; with --unsafe-no-sandbox it grades, and says so."""
    m = machine.prepare("locked-down")
    notebook, out = m.checkout / SOLUTION, m.home / "r.json"
    run = m.grade(notebook, out)
    assert run.returncode == 2 and not out.exists(), (run.returncode, run.stderr[-2000:])
    for words in ("landlock", "user namespace", "What to do", "--unsafe-no-sandbox"):
        assert words in run.stderr, run.stderr
    run = m.grade(notebook, out, "--unsafe-no-sandbox")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "confinement: NONE" in run.stderr and json.loads(out.read_text())["score"] == total()


def test_a_machine_needs_nothing_of_a_checkout_others_cannot_enter(tmp_path):
    """Root's clone in a folder other users cannot enter (under /root, a `mktemp -d`): a machine's venv still has
    torch and the rest, bound read-only from the host venv (the emulated uid could not reach the clone's own)."""
    closed = tmp_path / "closed"
    (closed / "clone").mkdir(parents=True)
    closed.chmod(0o700)
    probe = ("import psutil, torch, autograder.flows.batch; import sys; print(psutil.__file__); "
             "print(sys.modules['autograder'].__file__)")
    # In a mount namespace of its own, this checkout seen inside the closed folder, and run from there.
    script = f"""set -e
mount --bind {ROOT} {closed}/clone
cd {closed}/clone
PYTHONPATH=. .venv/bin/python - <<'PY'
from autograder.assignment import ROOT
from tests.environments import machine
assert str(ROOT).startswith("{closed}"), ROOT
m = machine.prepare("k8s-pod", folder="closed-checkout")
run = m.run(str(m.python), "-c", {probe!r})
print(run.returncode)
print(run.stdout + run.stderr[-2000:])
PY
"""
    run = subprocess.run(["unshare", "--mount", "--propagation", "private", "bash", "-c", script],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    status, psutil_at, autograder_at = run.stdout.splitlines()[:3]
    assert status == "0", run.stdout
    assert psutil_at.startswith(f"{SITE_PACKAGES}/"), run.stdout
    assert autograder_at.startswith(f"{machine.BASE}/closed-checkout/checkout/"), run.stdout


def test_a_mode_the_machine_cannot_build_is_refused(campaigns):
    m = campaigns["docker-root"].machine
    out = m.home.parent / "work" / "forced.json"
    run = m.grade(m.checkout / SOLUTION, out, "--confinement", "namespaces")
    assert run.returncode == 2 and not out.exists() and "CAP_SYS_ADMIN" in run.stderr, run.stderr[-2000:]


# ---- Gradescope's run_autograder in the Docker-like container ---------------------------------------------
def test_gradescope_in_a_docker_like_container(campaigns, tmp_path):
    """The zip's run_autograder, as Gradescope's container runs it (root without CAP_SYS_ADMIN): the solution
    scores full marks, the reach attacks hold, and results.json says how the worker was confined."""
    import shutil
    import zipfile

    from autograder.flows.gradescope import build as gs_build
    r = campaigns["docker-root"]
    m = r.machine
    zip_path = gs_build.build(tmp_path / "autograder.zip")
    outcomes = {}
    for name, notebook in (("solution", m.checkout / SOLUTION), ("reach", r.work / "reach.ipynb")):
        root = m.home.parent / f"gradescope-{name}"
        shutil.rmtree(root, ignore_errors=True)
        with zipfile.ZipFile(zip_path) as archive:
            archive.extractall(root / "source")
            for info in archive.infolist():
                if info.external_attr >> 16 & 0o111:
                    os.chmod(root / "source" / info.filename, info.external_attr >> 16 & 0o777)
        (root / "submission").mkdir()
        (root / "results").mkdir()
        shutil.copy(notebook, root / "submission" / NOTEBOOK_FILE)
        run = m.run(str(root / "source" / "run_autograder"), cwd=root,
                    env={"GRADESCOPE_ROOT": str(root), "GRADESCOPE_PYTHON": str(m.python)})
        results = root / "results" / "results.json"
        outcomes[name] = (run, json.loads(results.read_text()) if results.exists() else None)
    run, results = outcomes["solution"]
    assert run.returncode == 0 and results["score"] == total(), run.stderr[-3000:]
    assert results["extra_data"]["confinement"].startswith("landlock"), results["extra_data"]
    run, results = outcomes["reach"]
    assert run.returncode == 0 and results["score"] == total() - part_points()["positions"], run.stderr[-3000:]


def test_one_command_runs_as_the_emulated_user():
    """`python -m tests.environments ENV -- COMMAND` (security.md, "Trying a mode yourself"): the command runs as the
    environment's user in a checkout that user owns, with the variables given, and its exit status comes back."""
    def run(*args):
        return subprocess.run([sys.executable, "-m", "tests.environments", *args], cwd=ROOT, capture_output=True,
                              text=True, timeout=300)

    said = run("k8s-pod", "--env", "WHO=pod", "--", "/bin/sh", "-c", 'echo "$(id -u) $WHO $(pwd)"; exit 3')
    shutil.rmtree(machine.BASE / "try-k8s-pod", ignore_errors=True)
    assert said.returncode == 3, said.stderr
    uid, who, where = said.stdout.split()
    assert (int(uid), who) == (ENVIRONMENTS["k8s-pod"].uid, "pod") and where.endswith("try-k8s-pod/checkout")
    assert run("k8s-pod").returncode == 2  # no command: said, not run
