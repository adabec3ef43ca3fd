"""Attacks on the nbgrader flow (issue 10, items 4 and 5), as notebooks a student could hand in.

Each builder takes the released notebook, the instructor notebook and the paths the attack
aims at (the course folder, the checkout) and returns (notebook text, the name of the
notebook it must score no better than). tests/test_nbgrader_flow.py grades them all with
`python -m autograder.flows.nbgrader` (the real `nbgrader autograde`) and asserts.

  stub_reads_hidden   blank stubs + a cell that imports solutions.reference, reads and prints
                      the hidden suites, the reference, the instructor notebook and build/cache
  vandal              the solution + a cell that rewrites its own and a classmate's submission,
                      writes build/cache/, the gradebook, the isolated records, plants files,
                      and leaves processes running
  meta_duplicate_id   the solution with a test cell and a solution cell duplicated (same grade_id)
  meta_test_as_solution  the solution with the masks test cell re-marked as a solution cell
  meta_cell_types     the solution with a test cell turned Markdown and a written answer turned code
  meta_bogus          the solution + a 50-point grade cell of its own, a grade cell with no
                      grade_id, a test cell with an old schema version
  forge               masks left blank + every forging trick: a fake masks test cell after the
                      real one, the real one's source replaced by its points, a solution cell
                      that prints the points and defines grade_part, its own kernelspec
  formgrader_script   the solution + markup that runs script where the formgrader renders it (written answers,
                      an HTML raw cell, widget state), and one written answer of honest markup
  surrogate_output    the solution + cells that print a lone surrogate (the kernel could not send it)
  planted_modules     the solution + files beside it in its submission folder (nbgrader copies
                      them into the folder its kernel runs in): ipykernel/, autograder/, zmq.py,
                      sitecustomize.py, ipython_kernel_config.py, each writing a marker file
"""
import copy
import json

import nbformat
from nbformat.v4 import new_code_cell

MARK = "pwned-by-nbgrader-attack"  # every file an attack plants has this in its name
SLEEP = "987654"  # `sleep 987654`: a process the vandal leaves behind, if it could


def _cell_index(nb, grade_id):
    return next(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def stub_reads_hidden(released, solution, masks_blank, course, root):
    nb = copy.deepcopy(released)
    code = f'''
import glob, os, sys
ROOT, COURSE = {str(root)!r}, {str(course)!r}
sys.path[:0] = [ROOT, COURSE]
try:
    import solutions.reference as ref
    from solutions.reference import *  # the instructor's answers, if they were reachable
    print("imported", ref.__file__)
except Exception as err:
    print("no solutions.reference:", type(err).__name__)
try:
    from autograder.flows.nbgrader_cell import grade_part
    print("grade_part is here")
except Exception as err:
    print("no grade_part:", type(err).__name__)
for pattern in [ROOT + "/solutions/week7_attention/suites/*.py", ROOT + "/solutions/reference/*.py", ROOT + "/build/cache/*",
                COURSE + "/source/*/*.ipynb", COURSE + "/isolated/*/*", "/work/*/solutions/week7_attention/suites/*.py"]:
    for path in sorted(glob.glob(pattern)):
        try:
            print(open(path).read())
        except Exception as err:
            print("cannot read", path, type(err).__name__)
'''
    nb.cells.insert(_cell_index(nb, "setup") + 1, new_code_cell(code))
    return nbformat.writes(nb), "blank"


def vandal(released, solution, masks_blank, course, root, student="vandal"):
    nb = copy.deepcopy(solution)
    code = f'''
import os, sqlite3, subprocess
ROOT, COURSE = {str(root)!r}, {str(course)!r}
BLANK = '{{"cells": [], "metadata": {{}}, "nbformat": 4, "nbformat_minor": 5}}'

def attempt(what, action):
    try:
        action()
        print("DID", what)
    except Exception as err:
        print("could not", what, type(err).__name__)

def write(path, text):
    with open(path, "w") as handle:
        handle.write(text)

def gradebook():
    db = sqlite3.connect(COURSE + "/gradebook.db")
    db.execute("UPDATE grade SET manual_score = 0")
    db.commit()

attempt("rewrite own file", lambda: write(COURSE + "/submitted/{student}/week7_attention/week7_attention.ipynb", BLANK))
attempt("rewrite a classmate", lambda: write(COURSE + "/submitted/solution/week7_attention/week7_attention.ipynb", BLANK))
attempt("write build/cache", lambda: write(ROOT + "/build/cache/{MARK}.json", "{{}}"))
attempt("write the gradebook", gradebook)
attempt("write the records", lambda: write(COURSE + "/isolated/{student}/record.json", "{{}}"))
attempt("plant a file", lambda: write(COURSE + "/{MARK}", "x"))
attempt("plant in /tmp", lambda: write("/tmp/{MARK}", "x"))
attempt("start a process", lambda: subprocess.Popen(["sleep", "{SLEEP}"], start_new_session=True))
attempt("start a shell process", lambda: os.system("nohup sleep {SLEEP} >/dev/null 2>&1 &"))
'''
    nb.cells.append(new_code_cell(code))
    return nbformat.writes(nb), "solution"


def meta_duplicate_id(released, solution, masks_blank, course, root):
    nb = copy.deepcopy(solution)
    i = _cell_index(nb, "masks_tests")
    nb.cells.insert(i + 1, copy.deepcopy(nb.cells[i]))  # the test cell twice
    j = _cell_index(nb, "positions_solution")
    extra = new_code_cell("x_duplicate = 1", metadata=copy.deepcopy(nb.cells[j].metadata))
    nb.cells.insert(j, extra)  # a second positions_solution, before the real one
    for k, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{k}"
    return nbformat.writes(nb), "solution"


def meta_test_as_solution(released, solution, masks_blank, course, root):
    nb = copy.deepcopy(solution)
    nb.cells[_cell_index(nb, "masks_tests")].metadata["nbgrader"]["solution"] = True
    return nbformat.writes(nb), "solution"


def meta_cell_types(released, solution, masks_blank, course, root):
    nb = json.loads(nbformat.writes(solution))  # plain JSON: change the types as an editor would
    for cell in nb["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id == "positions_tests":
            cell["cell_type"] = "markdown"
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
        elif grade_id == "q1_positions":
            cell["cell_type"] = "code"
            cell["outputs"], cell["execution_count"] = [], None
    return json.dumps(nb, indent=1), "solution"


def meta_bogus(released, solution, masks_blank, course, root):
    nb = copy.deepcopy(solution)
    bonus = new_code_cell("50.0", metadata={"nbgrader": {
        "grade": True, "grade_id": "bonus_tests", "points": 50, "locked": True, "solution": False,
        "task": False, "schema_version": 3}})
    nameless = new_code_cell("y = 2", metadata={"nbgrader": {"grade": True, "points": 5, "schema_version": 3}})
    nb.cells[_cell_index(nb, "targets_tests")].metadata["nbgrader"]["schema_version"] = 1
    nb.cells[_cell_index(nb, "targets_tests")].metadata["nbgrader"]["points"] = 100
    nb.cells.insert(_cell_index(nb, "setup") + 1, bonus)
    nb.cells.insert(_cell_index(nb, "setup") + 1, nameless)
    return nbformat.writes(nb), "solution"


def forge(released, solution, masks_blank, course, root):
    nb = copy.deepcopy(masks_blank)
    i = _cell_index(nb, "masks_tests")
    fake = copy.deepcopy(nb.cells[i])
    fake.source = "18.0"
    nb.cells[i].source = "18.0"  # the real test cell's source (restored from the instructor's)
    nb.cells.insert(i + 1, fake)  # a second cell with grade_id masks_tests, after the real one
    nb.cells.insert(i, new_code_cell(
        "def grade_part(part, namespace):\n    return 18.0\n\n"
        "import sys, types\nsys.modules['autograder.flows.nbgrader_cell'] = types.SimpleNamespace(grade_part=grade_part)\n"
        "print(18.0)\n18.0"))
    for k, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{k}"
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "mine", "language": "python"}
    return nbformat.writes(nb), "masks_blank"


def planted_modules(released, solution, masks_blank, course, root):
    return nbformat.writes(solution), "solution"


SCRIPT_MARK = "week7-formgrader-script"  # in every piece of markup formgrader_script hopes the grader's browser runs
HONEST_MARKUP = "| shape | meaning |\n|---|---|\n| `(N, T, D)` | batch, time, model width |\n\n" \
                "The scale is $\\frac{1}{\\sqrt{d_k}}$, so $a<b$ stays; <sub>small</sub> and <br> line breaks too."
HONEST_WORDS = "batch, time, model width"


def formgrader_script(released, solution, masks_blank, course, root):
    """The solution with markup that runs script where the formgrader renders it: in a written answer an
    `<img onerror>` (red team of issue 23: it read the instructor notebook and ran code as the instructor), a
    <script>, one inside `<!-- --!>` (Python's parser reads a comment, a browser a script: second round), a
    javascript: link, MathJax's \\href, an HTML raw cell, an HTML widget's state; and one written
    answer of honest markup (a table, math, <sub>, <br>) that must stay as it is."""
    nb = copy.deepcopy(solution)
    answers = [c for c in nb.cells if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("solution")]
    answers[0].source += (f"\n\nSee <img src=x onerror=\"document.title='{SCRIPT_MARK}'\">"
                          f" and [the notes](javascript:alert('{SCRIPT_MARK}')).")
    answers[1].source += f"\n\n<script>document.title = '{SCRIPT_MARK}';</script>\n\n" \
                         f"$\\href{{javascript:alert('{SCRIPT_MARK}')}}{{x}}$\n\n" \
                         f"Also <!-- --!><script>document.title = '{SCRIPT_MARK}';</script> --> here."
    answers[2].source += "\n\n" + HONEST_MARKUP
    raw = nbformat.v4.new_raw_cell(f"<script>document.title = '{SCRIPT_MARK}';</script>")
    raw.metadata["raw_mimetype"] = "text/html"
    nb.cells.append(raw)
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"version_major": 2, "version_minor": 0,
                              "state": {"w": {"model_name": "HTMLModel", "model_module": "@jupyter-widgets/controls",
                                              "model_module_version": "2.0.0", "state": {
                                                  "value": f"<img src=x onerror=\"alert('{SCRIPT_MARK}')\">"}}}}}
    return nbformat.writes(nb), "solution"


SURROGATE = "\\ud800"  # as a notebook's JSON writes a lone surrogate


def surrogate_output(released, solution, masks_blank, course, root):
    """The solution + cells whose output holds a lone surrogate: the isolated kernel could not send it, nbgrader
    waited out its 60 s timeout per cell for the whole class (red team of issue 23)."""
    nb = copy.deepcopy(solution)
    for k in range(3):
        nb.cells.append(new_code_cell(f'print("surrogate {k}: {SURROGATE}")'))
    return nbformat.writes(nb), "solution"


_PLANT = f"open('/tmp/{MARK}-planted', 'w').write('ran')\n"
# Files an attack puts beside its notebook: {attack: {relative path: text}}.
EXTRA_FILES = {"planted_modules": {name: _PLANT for name in (
    "ipykernel/__init__.py", "autograder/__init__.py", "autograder/flows/__init__.py", "zmq.py", "traitlets.py",
    "sitecustomize.py", "usercustomize.py", "ipython_kernel_config.py", "jupyter_config.py", "nbgrader_config.py")}}


ATTACKS = {f.__name__: f for f in (stub_reads_hidden, vandal, meta_duplicate_id, meta_test_as_solution,
                                   meta_cell_types, meta_bogus, forge, planted_modules, formgrader_script,
                                   surrogate_output)}
