"""Red-team findings (tests/corpus/redteam/): each test FAILS while its bug exists.

Graded through the real `python -m autograder grade` as root (the sandbox's own setting).
"""
import json
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "corpus"))
import hostile
import redteam

from autograder.assignment import INSTRUCTOR_NOTEBOOK as SOLUTION, PARTS, ROOT
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not SOLUTION.exists(), reason="run `make release` first")]


def _position(nb, grade_id):
    for i, cell in enumerate(nb.cells):
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            return i
    raise KeyError(grade_id)


def grade_watching_memory(notebook, out):
    """Grade through the CLI; (results, peak resident MiB of the grading process itself)."""
    proc = subprocess.Popen([sys.executable, "-m", "autograder", "grade", str(notebook), "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        try:
            for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                if line.startswith(("VmHWM:", "VmRSS:")):
                    peak = max(peak, int(line.split()[1]) // 1024)
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    proc.communicate()
    return json.loads(Path(out).read_text()), peak


def test_forged_cell_reports_do_not_grow_the_grader(tmp_path):
    case = redteam.load("cell_report_flood")
    nb = nbformat.read(str(SOLUTION), as_version=4)
    index = _position(nb, "setup") + 1
    attack = hostile.build(SOLUTION, [case], {"__FRAMES__": case.FRAMES, "__INDEX__": index})
    nbformat.write(attack, str(tmp_path / "attack.ipynb"))
    _, base_peak = grade_watching_memory(SOLUTION, tmp_path / "base.json")
    results, peak = grade_watching_memory(tmp_path / "attack.ipynb", tmp_path / "attack.json")
    # The submission's whole budget is 4 GiB for what it starts; the grader itself should not
    # grow by anything like the size of what the worker chose to send.
    assert peak - base_peak < 512, (f"the grading process peaked at {peak} MiB against {base_peak} MiB for the "
                                    f"solution: forged CellEnd frames for made-up cells are all kept")


def test_large_replies_are_not_kept_for_the_diagnosis(tmp_path):
    case = redteam.load("big_replies_kept")
    graded = [fn for fns in PARTS.values() for fn in fns]
    attack = hostile.build(SOLUTION, [case], {"__MIB__": case.MIB, "__GRADED__": repr(graded)})
    nbformat.write(attack, str(tmp_path / "attack.ipynb"))
    _, base_peak = grade_watching_memory(SOLUTION, tmp_path / "base.json")
    results, peak = grade_watching_memory(tmp_path / "attack.ipynb", tmp_path / "attack.json")
    assert not any(t["name"].startswith("Autograder failed") for t in results["tests"])
    # Functions that return a constant earn nothing, not even the side properties (inputs left
    # unchanged, mode restored, silent on a causal model): those count only for a call that did
    # its job. Before, this notebook scored 5.
    assert results["score"] == 0, [(t["name"], t["score"]) for t in results["tests"] if t["score"]]
    # A few replies in flight at a time (each under the 64 MiB cap), not every reply of the grade.
    assert peak - base_peak < 512, (f"the grading process peaked at {peak} MiB against {base_peak} MiB for the "
                                    f"solution: every {case.MIB} MiB reply was kept")


def _grade(notebook, out):
    subprocess.run([sys.executable, "-m", "autograder", "grade", str(notebook), "--out", str(out)], cwd=ROOT,
                   check=True, capture_output=True, timeout=600)
    results = json.loads(Path(out).read_text())
    parts = {}
    for t in results["tests"]:
        got, top = parts.get(t["tags"][0], (0.0, 0.0))
        parts[t["tags"][0]] = (got + t["score"], top + t["max_score"])
    return parts


@pytest.mark.parametrize("name", ["constant_verdicts", "timing_verdict", "order_verdict"])
def test_verdicts_that_measure_nothing_earn_nothing(tmp_path, name):
    """Round 3 (constants), round 4 (timing the forward passes) and round 5 (a call schedule): leakage
    functions that never compare logits score what the released stubs score, part by part."""
    from autograder.assignment import STUDENT_NOTEBOOK
    case = redteam.load(name)
    stub = next(c.source for c in nbformat.read(str(STUDENT_NOTEBOOK), as_version=4).cells
                if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "leakage_solution")
    baseline = hostile.build(SOLUTION, [type("Stub", (), {"REPLACE": {"leakage_solution": stub}})], {})
    attack = hostile.build(SOLUTION, [case], {})
    nbformat.write(attack, str(tmp_path / "attack.ipynb"))
    if hasattr(case, "SCHEDULE"):  # the drawn orders are per notebook: grade one whose order the schedule misses
        _missing_the_schedule(attack, case.SCHEDULE, tmp_path / "attack.ipynb")
    nbformat.write(baseline, str(tmp_path / "base.ipynb"))
    attack, base = _grade(tmp_path / "attack.ipynb", tmp_path / "a.json"), _grade(tmp_path / "base.ipynb", tmp_path / "b.json")
    assert attack["leakage"][0] == 0, attack
    assert all(attack[p][0] <= base[p][0] for p in base), (attack, base)


def _drawn_orders(notebook_bytes):
    """{pool: the kinds' order the grader will draw for these notebook bytes} (the suites' own rule)."""
    import hashlib

    import torch

    from autograder.engine import secret
    from solutions.week7_attention.served import probes
    from solutions.week7_attention.suites.verdicts import KINDS, ORDER_PROBES
    probes.use_submission(probes.submission_base(secret.load(), hashlib.sha256(notebook_bytes).hexdigest()))
    try:
        return {pool: [KINDS[i] for i in torch.randperm(len(KINDS),
                                                        generator=probes.generator(ORDER_PROBES + seed)).tolist()]
                for pool, seed in (("leakage", 40), ("training", 41))}
    finally:
        probes.use_submission(0)


def _missing_the_schedule(nb, schedule, path):
    """Write ``nb`` to ``path``, with trailing spaces in a Markdown cell until no pool's order drawn for the
    file's bytes fits ``schedule`` (a one-in-70 chance each; the test must not pass or fail by it)."""
    markdown = next(c for c in nb.cells if c.cell_type == "markdown")
    for _ in range(50):
        nbformat.write(nb, str(path))
        orders = _drawn_orders(path.read_bytes())
        if all([kind != "causal" for kind in orders[pool]][:len(plan)] != plan for pool, plan in schedule.items()):
            return
        markdown.source += " "
    raise AssertionError("every variant's drawn order fits the schedule: the order is not drawn per notebook")


def test_verdict_orders_are_drawn_per_notebook():
    """Round 5: the order of a verdict pool depends on the notebook's bytes (through the secret), and only on them."""
    orders = [tuple(_drawn_orders(f"notebook {i}".encode())["leakage"]) for i in range(30)]
    assert len(set(orders)) >= 15, orders  # 70 orders in all
    assert _drawn_orders(b"notebook 3") == _drawn_orders(b"notebook 3")


def test_the_position_table_a_model_carries_is_no_answer(tmp_path):
    """Issue 21's red team: the replicas carried the reference's sinusoidal table, and sinusoidal_positions
    could return columns of it (7 of 8 points). It scores no more than a stub returning zeros."""
    case = redteam.load("positions_from_model")
    attack = hostile.build(SOLUTION, [case], {})
    equivalent = hostile.build(SOLUTION, [type("Equivalent", (), {"REPLACE": case.EQUIVALENT})], {})
    nbformat.write(attack, str(tmp_path / "attack.ipynb"))
    nbformat.write(equivalent, str(tmp_path / "equivalent.ipynb"))
    attack = _grade(tmp_path / "attack.ipynb", tmp_path / "a.json")
    bound = _grade(tmp_path / "equivalent.ipynb", tmp_path / "b.json")
    assert attack["leakage"] == bound["leakage"] and attack["leakage"][0] == attack["leakage"][1], (attack, bound)
    assert attack["positions"][0] <= bound["positions"][0], (attack, bound)


def test_forward_passes_cannot_burn_the_graders_time(tmp_path):
    """Issue 21's red team: forward passes with denormal float64 weights cost the grading process 114 s of CPU
    for one notebook (it serves them outside the worker's budget). Its own CPU time now stays within the
    per-submission model budget, plus what grading the solution costs, and the honest work still scores."""
    from autograder.engine.supervisor import Limits
    case = redteam.load("denormal_forward_burn")
    nbformat.write(hostile.build(SOLUTION, [case], {}), str(tmp_path / "attack.ipynb"))
    proc = subprocess.Popen([sys.executable, "-m", "autograder", "grade", str(tmp_path / "attack.ipynb"), "--out",
                             str(tmp_path / "a.json")], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ticks, hz = 0, __import__("os").sysconf("SC_CLK_TCK")
    while proc.poll() is None:
        try:
            fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks = int(fields[11]) + int(fields[12])  # utime + stime of the grading process itself
        except (OSError, ValueError, IndexError):
            pass
        time.sleep(0.05)
    proc.communicate()
    assert proc.returncode == 0
    seconds = ticks / hz
    assert seconds < Limits().model_seconds + 15, f"the grading process used {seconds:.0f} s of CPU"
