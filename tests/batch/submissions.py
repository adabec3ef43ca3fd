"""A folder of 20 mixed submissions for the grade-all tests, built from the release and the solution."""
import copy

import nbformat

from tests.flows.submissions import solution_sources

from autograder.assignment import NAME as ASSIGNMENT


_answers = solution_sources  # {grade_id: source} of the solution cells, markers removed


def _edit(old, new):
    def apply(source):
        assert source.count(old) == 1, f"expected exactly one {old!r}"
        return source.replace(old, new)
    return apply


def filled(release, solution, edits=None):
    """What a student hands in: the release with the solution cells answered (optionally with mistakes)."""
    nb = copy.deepcopy(release)
    answers = _answers(solution)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
        for edit in (edits or {}).get(grade_id, []):
            cell.source = edit(cell.source)
    return nb


MASK_DIAGONAL = {"masks_solution": [_edit("torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)",
                                          "torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=0)")]}
NO_SQRT = {"softmax_read_solution": [_edit("/ math.sqrt(q.size(-1)) ", "")]}
SWAPPED = {"targets_solution": [_edit("return tokens[:, :-1], tokens[:, 1:]", "return tokens[:, 1:], tokens[:, :-1]")]}


def build(folder, release_path, solution_path):
    """Write the 20 submissions under ``folder``; return {student: expected status}.

    Six distinct notebooks are really graded (solution, blank, the instructor's own notebook,
    three mistakes); the others are byte-identical copies under the same file name, graded
    once by grade-all, or cannot be graded at all.
    """
    release = nbformat.read(release_path, as_version=4)
    solution = nbformat.read(solution_path, as_version=4)
    good = nbformat.writes(filled(release, solution))
    blank = nbformat.writes(release)
    mask = nbformat.writes(filled(release, solution, MASK_DIAGONAL))
    no_sqrt = nbformat.writes(filled(release, solution, NO_SQRT))
    name = f"{ASSIGNMENT}.ipynb"
    files = {
        f"alice/{name}": good,
        "bob.ipynb": solution_path.read_text(),  # the instructor's notebook itself, hidden-test cells and all
        f"carol/{name}": blank,
        f"dave/{name}": blank,
        f"erin/{ASSIGNMENT}/{name}": good,  # nbgrader layout
        f"frank/{name}": good,
        f"gina/{ASSIGNMENT}/{name}": blank,  # nbgrader layout
        f"hank/{name}": mask,
        f"ivy/{name}": no_sqrt,
        f"jack/{ASSIGNMENT}/{name}": nbformat.writes(filled(release, solution, SWAPPED)),  # nbgrader layout
        "kate.ipynb": '{"cells": [ {"cell_type": "code", "source": "x = 1"',  # invalid JSON
        "leo.ipynb": "These are my answers, I could not get Jupyter to work.\n",  # not a notebook
        f"mia/{ASSIGNMENT}/{name}": mask,  # nbgrader layout
        "oscar/first_try.ipynb": good,  # two notebooks
        "oscar/final.ipynb": good,
        f"paul/{name}": good,
        f"quinn/{ASSIGNMENT}/{name}": blank,  # nbgrader layout
        f"rose/{name}": good,
        "rose/README.txt": "see notebook\n",
        f"sam/{name}": mask,
        f"sam/.ipynb_checkpoints/{ASSIGNMENT}-checkpoint.ipynb": blank,
        f"tom/{name}": no_sqrt,
    }
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (folder / "nora").mkdir()  # an empty submission folder
    return {
        "alice": "graded", "bob": "graded", "carol": "graded", "dave": "graded", "erin": "graded",
        "frank": "graded", "gina": "graded", "hank": "graded", "ivy": "graded", "jack": "graded",
        "kate": "not-a-notebook", "leo": "not-a-notebook", "mia": "graded", "nora": "no-notebook",
        "oscar": "several-notebooks", "paul": "graded", "quinn": "graded", "rose": "graded", "sam": "graded",
        "tom": "graded",
    }
