"""What run_autograder runs inside Gradescope's container: pick the notebook, grade it, write results.json.

    python -m autograder.flows.gradescope.run --root /autograder --hide /autograder

Whatever was uploaded, a valid results.json comes out: no notebook, several notebooks,
a file that is not a notebook, or a notebook that is not valid JSON each score 0 with a
message that says what to fix. submission_metadata.json (Gradescope's, optional) is only
used to remind the student of their previous score.
"""
import argparse
import json
import sys
import time
import traceback
from pathlib import Path

from ...engine import report as rep


def find_notebook(submission):
    """(path, "") for the single notebook uploaded, else (None, message for the student)."""
    submission = Path(submission)
    files = sorted(p for p in submission.rglob("*") if p.is_file()
                   and not any(part.startswith(".") or part == "__MACOSX" for part in p.relative_to(submission).parts))
    notebooks = [p for p in files if p.suffix.lower() == ".ipynb"]
    top = [p for p in notebooks if p.parent == submission]
    if len(top) == 1:
        return top[0], ""
    if len(top) > 1 or len(notebooks) > 1:
        names = ", ".join(str(p.relative_to(submission)) for p in (top or notebooks))
        return None, (f"Your submission has {len(top or notebooks)} notebooks ({names}); upload exactly one "
                      "notebook, week7_attention.ipynb, and nothing else.")
    if len(notebooks) == 1:
        return notebooks[0], ""
    if files:
        names = ", ".join(str(p.relative_to(submission)) for p in files[:10])
        return None, (f"Your submission has no Jupyter notebook (.ipynb); it contains: {names}. "
                      "Upload your notebook, week7_attention.ipynb.")
    return None, "Your submission is empty: upload your notebook, week7_attention.ipynb."


def previous_score(root):
    """The score of the latest previous submission, from Gradescope's submission_metadata.json, or None."""
    try:
        meta = json.loads((Path(root) / "submission_metadata.json").read_text())
        last = meta["previous_submissions"][-1]
        score = (last.get("results") or {}).get("score", last.get("score"))
        return float(score) if score is not None else None
    except (OSError, ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None


def grade(root, hide=(), visibility="visible", budget=300.0):
    """The results.json dict for the submission under ``root``."""
    from ...engine.grade import failed_everywhere, grade_notebook
    from ...engine.supervisor import Limits
    from ...engine.template import Zygote

    started = time.monotonic()
    notebook, problem = find_notebook(Path(root) / "submission")
    if notebook is None:
        result = failed_everywhere("submission", problem, started=started)
    else:
        zygote = Zygote()
        try:
            result = grade_notebook(notebook, zygote, limits=Limits(submission_seconds=budget), hide=hide)
        finally:
            zygote.close()
    print(rep.table(result))
    return rep.gradescope(result, visibility, previous=previous_score(root))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograder.flows.gradescope.run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default="/autograder")
    parser.add_argument("--hide", action="append", default=[], help="directory the worker must not see")
    parser.add_argument("--visibility", default="visible",
                        choices=["visible", "hidden", "after_due_date", "after_published"])
    parser.add_argument("--budget", type=float, default=300.0, help="seconds for the whole submission")
    args = parser.parse_args(argv)
    out = Path(args.root) / "results" / "results.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        data = grade(args.root, args.hide, args.visibility, args.budget)
    except Exception:  # noqa: BLE001 - a grader fault still produces a valid results.json
        print(traceback.format_exc(), file=sys.stderr)
        data = rep.crash_results("the grader hit an internal error", time.monotonic() - started)
        rep.write_json(data, out)
        return 2
    rep.write_json(data, out)
    return 0


if __name__ == "__main__":
    from ...cli import exit_now
    exit_now(main())
