"""Student-style submissions built from the released notebook (what a student would hand in)."""
import copy
import json

import nbformat


def solution_sources(source_nb):
    """{grade_id: source} of every solution cell of the instructor notebook, markers removed."""
    out = {}
    for cell in source_nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            out[meta["grade_id"]] = "\n".join(line for line in cell.source.splitlines()
                                             if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)
    return out


def filled(released, source_nb, edits=None):
    """The release with each solution cell replaced by the instructor's (matched by grade_id).

    ``edits``: {grade_id: function(source) -> source} applied after filling, to plant mistakes.
    """
    nb = copy.deepcopy(released)
    answers = solution_sources(source_nb)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers and cell.metadata["nbgrader"].get("solution"):
            cell.source = answers[grade_id]
        if edits and grade_id in edits:
            cell.source = edits[grade_id](cell.source)
    return nb


def replace_once(old, new):
    def edit(source):
        assert source.count(old) == 1, f"expected exactly one {old!r} in the cell"
        return source.replace(old, new)
    return edit


def without_cell(nb, grade_id):
    nb = copy.deepcopy(nb)
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != grade_id]
    return nb


def submissions(released, source_nb):
    """{name: notebook text} of the submissions the flow tests grade."""
    solution = filled(released, source_nb)
    return {
        "solution": nbformat.writes(solution),
        "blank": nbformat.writes(released),
        # Mistake 1: the diagonal is blocked too (each query cannot read itself).
        "mask_diag": nbformat.writes(filled(released, source_nb, {"masks_solution": replace_once(
            "torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)",
            "torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=0)")})),
        # Mistake 2: inputs and targets swapped.
        "swapped": nbformat.writes(filled(released, source_nb, {"targets_solution": replace_once(
            "return tokens[:, :-1], tokens[:, 1:]", "return tokens[:, 1:], tokens[:, :-1]")})),
        # The graded cell of part masks deleted.
        "deleted_cell": nbformat.writes(without_cell(solution, "masks_tests")),
        # A correct answer that warns every time it runs.
        "warns": nbformat.writes(filled(released, source_nb, {"positions_solution": _warn_in})),
    }


def _warn_in(source):
    """Make sinusoidal_positions warn on every call: a Python warning and a logged one.

    grade_part silences Python warnings, but a logging handler the student set up holds
    the kernel's stderr, so the logged warning reaches the graded cell as stderr, which
    nbgrader counts as a failed test cell unless IgnorePattern drops it.
    """
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def sinusoidal_positions"))
    i = start + 1  # the docstring's last line
    if lines[i].count('"""') == 1:
        i += 1
        while '"""' not in lines[i]:
            i += 1
    lines[i + 1:i + 1] = ['    warnings.warn("sinusoidal_positions: a student warning", UserWarning)',
                          '    LOG.warning("sinusoidal_positions: a logged warning")']
    return ("import logging\nimport warnings\n\nlogging.basicConfig(format=\"%(levelname)s: %(message)s\")\n"
            "LOG = logging.getLogger(\"positions\")\n\n\n" + "\n".join(lines))


def invalid_json():
    return '{"cells": [ {"cell_type": "code", "source": "x = 1"'


def dump(text, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if isinstance(text, str) else json.dumps(text))
    return path


def honest_submissions(released, source_nb):
    """{name: notebook text} of the honest-idiom corpus (tests/corpus/honest.py, honest_fresh.py): notebook k
    holds idiom k (cycling) of prefix_change, assert_no_future_leakage, shift_for_next_token and next_token_loss.
    Each must get full marks in every flow."""
    from tests.corpus.honest import corpus
    idioms = corpus()
    count = max(len(found) for found in idioms.values())
    out = {}
    for k in range(count):
        pick = {function: found[k % len(found)] for function, found in idioms.items()}
        leakage = pick["prefix_change"].source + "\n\n" + pick["assert_no_future_leakage"].source
        targets = pick["shift_for_next_token"].source + "\n\n" + pick["next_token_loss"].source
        nb = filled(released, source_nb, {"leakage_solution": lambda _, text=leakage: text,
                                          "targets_solution": lambda _, text=targets: text})
        out[f"honest_{k:02d}"] = nbformat.writes(nb)
    return out


def honest_names(k):
    """The idioms notebook ``honest_k`` holds, for failure messages."""
    from tests.corpus.honest import corpus
    return {function: found[k % len(found)].name for function, found in corpus().items()}
