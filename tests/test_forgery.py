"""The forgery corpus (tests/corpus/forgery/, issue 10): lying from inside the worker gains nothing.

Every case is graded with its BASELINE (the same notebook without the forging cell) through the
real commands: all of them in one `grade-all --jobs 2` batch (with honest neighbours), a few
representative ones through `grade` and the unzipped Gradescope autograder. For each: the
attack's score is <= its baseline's (or its honest EQUIVALENT's), per part and in total; the
checks it forges (LOSES) fail; nothing is "Autograder failed" / grader-error. Item 3 (replaying
feedback) is played in two rounds through `grade`; determinism and fresh probes per notebook
are checked on the same files. A failure here is a finding: see the case's docstring.
"""
import csv
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "corpus"))
import forgery
from forgery import hardcode_feedback

from autograder import PARTS
from autograder.sandbox.confinement import Mode, probe

from autograder.assignment import ROOT, SECRET_KEY
from tests.points import total
CASES = forgery.case_names()
CLI_CASES = ["forged_claims", "absurd_loss[int_10_400]", "huge_targets", "train_mode_lie", "arena_truncate"]
GRADESCOPE_CASES = ["forged_claims", "absurd_loss[int_10_400]", "huge_targets", "arena_truncate"]
FAILED = "Autograder failed"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(probe().mode is not Mode.NAMESPACES, reason="forging cells need the root sandbox")]


def slug(name):
    return name.replace("[", "__").replace("]", "")


def parts_of(results):
    """{part: score} and the total from a results.json dict."""
    parts = {p: 0.0 for p in PARTS}
    for test in results["tests"]:
        for tag in test.get("tags", []):
            parts[tag] = parts.get(tag, 0.0) + test["score"]
    return parts, float(results["score"])


def assert_not_above(attack, bound, what):
    (a_parts, a_total), (b_parts, b_total) = parts_of(attack), parts_of(bound)
    gained = {p: (a_parts[p], b_parts[p]) for p in PARTS if a_parts[p] > b_parts[p] + 1e-9}
    assert not gained and a_total <= b_total + 1e-9, (
        f"{what}: the forgery scored {a_total:g} against {b_total:g}; parts gained (attack, bound): {gained}")


def assert_no_grader_failure(results, what):
    failed = [t["name"] for t in results["tests"] if t["name"].startswith(FAILED)]
    assert not failed and not results.get("output", "").startswith(FAILED), f"{what}: {failed or results['output']}"


def assert_loses(results, titles, what):
    by_title = {}
    for t in results["tests"]:
        by_title.setdefault(t["name"], []).append(t)
    for title in titles:
        assert title in by_title, f"{what}: no check named {title!r}"
        assert all(t["score"] == 0 for t in by_title[title]), f"{what}: {title!r} passed; the forged property held"


def grade_cli(notebook, out):
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", str(notebook), "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(Path(out).read_text())


def grade_many(notebooks, workdir):
    """{name: results.json} from `grade`, two at a time; ``notebooks`` {name: nbformat node}."""
    workdir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, nb in notebooks.items():
        paths[name] = workdir / f"{slug(name)}.ipynb"
        nbformat.write(nb, str(paths[name]))
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = pool.map(lambda n: (n, grade_cli(paths[n], workdir / f"{slug(n)}.json")), paths)
        return dict(done)


# ---- grade-all: every case, its baseline, its equivalent, honest neighbours -------------------------
@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    subs = tmp_path_factory.mktemp("forgery-batch")
    folder = subs / "submissions"
    folder.mkdir()
    for name, (attack, baseline) in forgery.build_cases().items():
        nbformat.write(attack, str(folder / f"{slug(name)}.ipynb"))
        nbformat.write(baseline, str(folder / f"{slug(name)}~baseline.ipynb"))
    for name, honest in forgery.equivalents().items():
        nbformat.write(honest, str(folder / f"{slug(name)}~equivalent.ipynb"))
    nbformat.write(forgery.base_notebook(), str(folder / "honest_solution.ipynb"))
    nbformat.write(hardcode_feedback.one_byte_changed(forgery.base_notebook()), str(folder / "honest_solution_2.ipynb"))
    nbformat.write(forgery.base_notebook("blank"), str(folder / "honest_blank.ipynb"))
    nbformat.write(wrong_multihead(), str(folder / "zz_wrong_multihead.ipynb"))
    out = subs / "out" / "grades.csv"
    run = subprocess.run([sys.executable, "-m", "autograder", "grade-all", str(folder), "--out", str(out),
                          "--jobs", "2"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    rows = {row["student"]: row for row in csv.DictReader(out.open())}
    feedback = out.parent / "grades_feedback"

    def results(student):
        return json.loads((feedback / student / "results.json").read_text())

    return {"run": run, "rows": rows, "results": results, "folder": folder}


def wrong_multihead():
    """The solution with in_proj_bias forgotten: its feedback prints values of the probe layer."""
    nb = forgery.base_notebook()
    cell = nb.cells[forgery._position(nb, "multihead_solution")]
    old = '+ params["in_proj_bias"]  # (N, T, 3D)'
    assert cell.source.count(old) == 1, "the reference's in_proj line moved"
    cell.source = cell.source.replace(old, "# in_proj_bias forgotten")
    return nb


@pytest.mark.parametrize("name", CASES)
def test_batch_forgery_gains_nothing(batch, name):
    rows, results = batch["rows"], batch["results"]
    attack, baseline = slug(name), f"{slug(name)}~baseline"
    for student in (attack, baseline):
        assert rows[student]["status"] != "grader-error", f"{student}: {rows[student]['detail']}"
        assert_no_grader_failure(results(student), student)
    bound = f"{slug(name)}~equivalent" if f"{slug(name)}~equivalent" in rows else baseline
    assert_not_above(results(attack), results(bound), f"grade-all {name} vs {bound}")
    assert_loses(results(attack), forgery.loses(name), f"grade-all {name}")


def test_batch_honest_neighbours(batch):
    rows = batch["rows"]
    assert float(rows["honest_solution"]["total"]) == total()
    assert float(rows["honest_solution_2"]["total"]) == total()
    assert float(rows["honest_blank"]["total"]) == 0.0
    assert not [s for s, r in rows.items() if r["status"] == "grader-error"], batch["run"].stdout[-2000:]


# ---- grade: representative cases through the real CLI ------------------------------------------------
@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    notebooks = {}
    for name, (attack, bound) in forgery.build_bounded(CLI_CASES).items():
        notebooks[name], notebooks[f"{name}~baseline"] = attack, bound  # the EQUIVALENT where there is one
    return grade_many(notebooks, tmp_path_factory.mktemp("forgery-cli"))


@pytest.mark.parametrize("name", CLI_CASES)
def test_cli_forgery_gains_nothing(cli, name):
    attack, baseline = cli[name], cli[f"{name}~baseline"]
    assert_no_grader_failure(attack, name)
    assert_no_grader_failure(baseline, f"{name}~baseline")
    assert_not_above(attack, baseline, f"grade {name}")
    assert_loses(attack, forgery.loses(name), f"grade {name}")


# ---- the unzipped Gradescope autograder --------------------------------------------------------------
@pytest.fixture(scope="module")
def gradescope(tmp_path_factory):
    from test_gradescope import NB, run_case

    from autograder.flows.gradescope import build as gs_build
    zip_path = gs_build.build(tmp_path_factory.mktemp("forgery-zip") / "autograder.zip")
    base = tmp_path_factory.mktemp("forgery-gradescope")
    specs = {}
    for name, (attack, bound) in forgery.build_bounded(GRADESCOPE_CASES).items():
        specs[name], specs[f"{name}~baseline"] = nbformat.writes(attack), nbformat.writes(bound)
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(run_case, zip_path, base / slug(name), {NB: text})
                   for name, text in specs.items()}
        return {name: f.result()["results"] for name, f in futures.items()}


@pytest.mark.parametrize("name", GRADESCOPE_CASES)
def test_gradescope_forgery_gains_nothing(gradescope, name):
    attack, baseline = gradescope[name], gradescope[f"{name}~baseline"]
    assert_no_grader_failure(attack, name)
    assert_not_above(attack, baseline, f"gradescope {name}")
    assert_loses(attack, forgery.loses(name), f"gradescope {name}")


# ---- item 3: replaying feedback, determinism, fresh probes per notebook -----------------------------
@pytest.fixture(scope="module")
def rounds(tmp_path_factory):
    work = tmp_path_factory.mktemp("forgery-rounds")
    first = hardcode_feedback.round_one()
    graded = grade_many({"round1": first, "round1_again": first,
                         "round1_one_byte": hardcode_feedback.one_byte_changed(first)}, work)
    graded.update(grade_many({"round2": hardcode_feedback.round_two(graded["round1"]),
                              "stub": hardcode_feedback.baseline()}, work))
    return graded


def test_round_two_built_from_feedback_gains_nothing(rounds):
    table = hardcode_feedback.table(rounds["round1"])
    assert len(table) >= 4, f"round 1's feedback printed too few fingerprint/expected pairs: {table}"
    (r2, _), (stub, _) = parts_of(rounds["round2"]), parts_of(rounds["stub"])
    for part in hardcode_feedback.ATTACKED:
        assert r2[part] <= stub[part], f"replayed feedback gained in {part}: {r2[part]} > stub {stub[part]}"
    assert_not_above(rounds["round2"], rounds["stub"], "round 2 vs the honest stub")


def test_same_notebook_same_grade(rounds):
    again = {t["name"]: (t["score"], t["output"]) for t in rounds["round1_again"]["tests"]}
    assert {t["name"]: (t["score"], t["output"]) for t in rounds["round1"]["tests"]} == again


def test_one_byte_draws_new_probes(rounds):
    def expected_numbers(results):
        return sorted(hardcode_feedback.table(results).values())
    assert expected_numbers(rounds["round1"]) and expected_numbers(rounds["round1_one_byte"])
    assert set(expected_numbers(rounds["round1"])).isdisjoint(expected_numbers(rounds["round1_one_byte"]))


def test_same_probes_in_every_flow(batch, tmp_path):
    """A notebook's probes are its own in every flow: `grade` and a `grade-all` batch (where other
    submissions were graded first by the same process) print the same expected values."""
    cli_results = grade_cli(batch["folder"] / "zz_wrong_multihead.ipynb", tmp_path / "r.json")
    batch_results = batch["results"]("zz_wrong_multihead")
    differ = [(a["name"], a["output"][:120], b["output"][:120]) for a, b in zip(cli_results["tests"], batch_results["tests"])
              if (a["score"], a["output"]) != (b["score"], b["output"])]
    assert not differ, f"the same notebook drew other probes in grade-all than in grade: {differ[:2]}"


def test_secret_never_printed(batch):
    secret = SECRET_KEY.read_bytes().hex()
    text = json.dumps(batch["results"]("read_secret")) + batch["run"].stdout + batch["run"].stderr
    assert secret[:32] not in text
    assert re.search(r"STOLEN \[\]", text) or "STOLEN" not in text or secret[:32] not in text
