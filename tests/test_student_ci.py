"""The student repositories' GitHub Actions workflow: it parses, has the expected steps, never needs the
grader in the student's repository, and its job summary is a Markdown table for every notebook of a class."""
import copy
import os
import re
import runpy
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from xml.etree import ElementTree as ET

import nbformat
import pytest
import yaml

import solutions.reference as reference
from autograder import PARTS, assignment
from autograder.engine.catalog import part_points
from solutions.release.build import SOURCE_MD, build_source_notebook
from solutions.release.student_ci import CI_PARTS, parts_text
from tests.batch.submissions import filled

from autograder.assignment import NAME, ROOT
TEMPLATE = ROOT / "templates" / "student-ci"
WORKFLOW = TEMPLATE / ".github" / "workflows" / "grade.yml"
SCRIPT = TEMPLATE / ".github" / "scripts" / "public_checks.py"
COLUMNS = ["part", "public checks", "points at stake", "first problem"]
NASTY = "shape | mismatch\nsecond line: `x[0]` is <b>bold</b> | \\| and *stars* [link](http://x)\r\nthird"


@pytest.fixture(scope="module")
def workflow():
    doc = yaml.safe_load(WORKFLOW.read_text())
    (job,) = doc["jobs"].values()
    return doc, job


@pytest.fixture(scope="module")
def script():
    return runpy.run_path(str(SCRIPT))


def step(job, words):
    found = [s for s in job["steps"] if words in s.get("name", "").lower()]
    assert len(found) == 1, [s.get("name") for s in job["steps"]]
    return found[0]


def test_workflow_parses_and_has_the_expected_steps(workflow):
    doc, job = workflow
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as True
    assert {"push", "pull_request"} <= set(triggers)
    assert job["runs-on"].startswith("ubuntu")
    uses = [s.get("uses", "") for s in job["steps"]]
    assert any(u.startswith("actions/checkout@") for u in uses)
    python = step(job, "set up python")
    assert python["with"]["python-version"] == f"{sys.version_info.major}.{sys.version_info.minor}"
    install = step(job, "install")["run"]
    assert "torch==2.13.0" in install and "download.pytorch.org/whl/cpu" in install
    assert "-r requirements.txt" in install
    assert "torch==2.13.0" in (ROOT / "requirements.txt").read_text().splitlines()
    assert "public_checks.py" in step(job, "public checks")["run"]
    assert "GRADING" not in WORKFLOW.read_text().replace("GRADING unset", "")


def test_workflow_never_uses_a_vendored_grader(workflow):
    """The grader needs solutions/ and the hidden suites: they must never be in a student's repository."""
    _, job = workflow
    for s in job["steps"]:
        text = f"{s.get('run', '')} {s.get('if', '')} {s.get('with', '')}"
        assert "autograder" not in text and "solutions" not in text, s
    assert "vendor" not in WORKFLOW.read_text().lower()
    shipped = {p.relative_to(TEMPLATE).as_posix() for p in TEMPLATE.rglob("*") if p.is_file()}
    assert shipped == {".github/workflows/grade.yml", ".github/scripts/public_checks.py", ".github/scripts/parts.json"}
    assert "import autograder" not in SCRIPT.read_text() and "from autograder" not in SCRIPT.read_text()


def test_makefile_runs_the_workflows_command(workflow):
    _, job = workflow
    command = step(job, "public checks")["run"].strip().replace("$NOTEBOOK", "$$NOTEBOOK")
    assert command.replace("python ", "", 1) in (ROOT / "Makefile").read_text()


def test_parts_file_is_what_the_release_generates():
    """parts.json is written by `make release UPDATE=1` only: a stale one fails here (and `make release`)."""
    assert CI_PARTS.parent == SCRIPT.parent
    assert CI_PARTS.read_text() == parts_text(part_points(), build_source_notebook(part_points())), \
        f"{CI_PARTS.relative_to(ROOT)} is stale: run `make release UPDATE=1` and commit"


def test_script_knows_the_grader_s_parts_functions_and_points(script):
    """The script stands alone in the student's repository: its tables must follow the package."""
    table = script["PARTS"]
    assert list(table) == sorted(PARTS, key=list(table).index) and set(table) == set(PARTS)
    points = part_points()
    for part, (names, value) in table.items():
        assert value == points[part], part
        if assignment.PARTS[part]:
            assert tuple(names) == assignment.PARTS[part], part
        for name in names:
            assert callable(getattr(reference, name)), name


def test_script_runs_the_notebook_s_own_public_checks(script):
    cells = dict(re.findall(r"^```python check (\w+)\n(.*?)^```\s*$", SOURCE_MD.read_text(), re.S | re.M))
    checks = script["CHECKS"]
    assert set(cells) | {"training"} == set(checks) == set(PARTS)
    for part, code in cells.items():
        assert checks[part] == code, f"public_checks.py's CHECKS[{part!r}] differs from the notebook's check cell"


# ---- a strict reader of the summary's table ------------------------------------------------------
def split_row(line):
    """Cells of one GFM table row; a row must start and end with an unescaped pipe."""
    assert line.startswith("|") and line.endswith("|") and not line.endswith("\\|"), line
    cells, current, i = [], "", 1
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line):
            current += line[i:i + 2]
            i += 2
            continue
        if ch == "|":
            cells.append(current.strip())
            current = ""
        else:
            current += ch
        i += 1
    assert current == "", line
    return cells


def check_inline(cell):
    """No raw HTML but <br>, no code span (unescaped backtick), no unescaped emphasis or link."""
    bare = re.sub(r"\\.", "", cell.replace("<br>", ""))
    for char in "<>`|*[]\\":
        assert char not in bare, (char, cell)


def parse_table(text):
    """[{column: cell}] of the one table in ``text``, after checking it is a well-formed table."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("| part |")]
    assert len(starts) == 1, text
    start = starts[0]
    assert start > 0 and lines[start - 1] == "", "a table needs a blank line before it"
    assert split_row(lines[start]) == COLUMNS
    assert re.fullmatch(r"\|(-{3,}\|){4}", lines[start + 1]), lines[start + 1]
    rows = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        cells = split_row(line)
        assert len(cells) == len(COLUMNS), (line, cells)
        for cell in cells:
            check_inline(cell)
        rows.append(dict(zip(COLUMNS, cells)))
    return rows


def unescape(cell):
    return re.sub(r"\\(.)", r"\1", cell).replace("<br>", "\n").replace("&lt;", "<").replace("&gt;", ">") \
        .replace("&amp;", "&")


def test_markdown_cells_keep_the_table_whatever_the_error_says(script):
    rows = [{"part": "masks", "points": 18.0, "passed": False, "message": NASTY},
            {"part": "positions", "points": 8.0, "passed": False, "message": "a\\|b ` ``` | <script>x</script>"},
            {"part": "targets", "points": 10.0, "passed": True, "message": ""}]
    text = script["markdown"](rows, "odd | `name`.ipynb", 1.0, [(3, NASTY)])
    parsed = parse_table(text)
    assert [r["part"] for r in parsed] == ["masks", "positions", "targets"]
    assert unescape(parsed[0]["first problem"]) == "\n".join(
        line.strip() for line in NASTY.replace("\r\n", "\n").split("\n"))
    assert unescape(parsed[1]["first problem"]) == "a\\|b ` ``` | <script>x</script>"
    assert "<script>" not in text and "\r" not in text
    assert "odd \\| \\`name\\`.ipynb" in text.splitlines()[0]


# ---- the workflow's command on a small class --------------------------------------------------
def strip_metadata(nb):
    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        cell.metadata = {}
    return nb


def without_checks(nb):
    nb = copy.deepcopy(nb)
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id", "").endswith(("_solution",))
                or not c.metadata.get("nbgrader", {}).get("grade_id", "").endswith(("_check", "_tests"))]
    return nb


def append_to(nb, grade_id, code):
    nb = copy.deepcopy(nb)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    cell.source += "\n\n\n" + code
    return nb


WRONG_SDPA = "def sdpa_mask(lengths, T):\n    return torch.ones(len(lengths), 1, T, T, dtype=torch.bool)\n"
RAISING_SDPA = f"def sdpa_mask(lengths, T):\n    raise ValueError({NASTY!r})\n"


def class_notebooks(released, source):
    solution = filled(released, source)
    return {  # name: (notebook, parts expected to fail)
        "solution": (solution, set()),
        "blank": (released, set(PARTS)),
        "stripped_metadata": (strip_metadata(append_to(solution, "masks_solution", WRONG_SDPA)), {"masks"}),
        "stripped_blank": (strip_metadata(released), set(PARTS)),
        "deleted_checks": (without_checks(append_to(solution, "masks_solution", WRONG_SDPA)), {"masks"}),
        "deleted_checks_solution": (without_checks(solution), set()),
        "nasty_error": (append_to(solution, "masks_solution", RAISING_SDPA), {"masks"}),
    }


def run_step(job, name, repo, summary):
    env = {k: v for k, v in os.environ.items() if k != "GRADING"}
    env.update(job.get("env", {}), GITHUB_STEP_SUMMARY=str(summary),
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}")
    return subprocess.run(["bash", "-e", "-c", step(job, name)["run"]], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=900)


@pytest.fixture(scope="module")
def class_runs(workflow, tmp_path_factory, student_notebook, solution_notebook):
    _, job = workflow
    released = nbformat.read(student_notebook, as_version=4)
    source = nbformat.read(solution_notebook, as_version=4)

    def one(item):
        name, (nb, expected) = item
        repo = tmp_path_factory.mktemp(name) / "repo"
        shutil.copytree(TEMPLATE, repo)
        shutil.copy(ROOT / "requirements.txt", repo)
        (repo / f"{NAME}.ipynb").write_text(nbformat.writes(nb))
        summary = repo.parent / "summary.md"
        proc = run_step(job, "public checks", repo, summary)
        return name, {"proc": proc, "repo": repo, "expected": expected,
                      "summary": summary.read_text() if summary.exists() else ""}

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(one, class_notebooks(released, source).items()))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["solution", "blank", "stripped_metadata", "stripped_blank", "deleted_checks",
                                  "deleted_checks_solution", "nasty_error"])
def test_job_summary_is_a_table_with_the_right_verdict_per_part(class_runs, name):
    run = class_runs[name]
    proc, expected = run["proc"], run["expected"]
    assert proc.returncode == (1 if expected else 0), proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = parse_table(run["summary"])
    assert [r["part"] for r in rows] == list(PARTS)
    verdicts = {r["part"]: r["public checks"] for r in rows}
    assert verdicts == {p: "❌ fail" if p in expected else "✅ pass" for p in PARTS}, run["summary"]
    points = part_points()
    assert {r["part"]: float(r["points at stake"]) for r in rows} == points
    for r in rows:
        assert (r["first problem"] == "") == (r["part"] not in expected), r
    assert f"{len(PARTS) - len(expected)} / {len(PARTS)} parts pass" in run["summary"]
    at_stake = sum(v for p, v in points.items() if p not in expected)
    assert f"worth {at_stake:g} / {sum(points.values()):g} points" in run["summary"]
    suite = ET.parse(run["repo"] / "public-checks.xml").getroot()
    assert suite.get("tests") == str(len(PARTS)) and suite.get("failures") == str(len(expected))
    assert (run["repo"] / "executed.ipynb").exists()
    if name == "blank":
        assert all("NotImplementedError" in r["first problem"] for r in rows)
    if name == "nasty_error":
        masks = next(r for r in rows if r["part"] == "masks")
        assert unescape(masks["first problem"]).startswith("ValueError: shape | mismatch\nsecond line: `x[0]`")
