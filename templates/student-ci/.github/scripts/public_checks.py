"""Run the assignment notebook top to bottom, as a student would, and report its public checks.

    python .github/scripts/public_checks.py week7_attention.ipynb [--junit-xml public-checks.xml]

GRADING is unset, so the notebook runs exactly as in Jupyter (the lab's training run
included). A part passes when none of its answer cells and public-check cells raised.
The points shown are what the hidden tests of each part are worth at grading time;
passing the public checks is necessary, not sufficient. The table goes to stdout and,
on GitHub Actions, to the job summary ($GITHUB_STEP_SUMMARY). Exit status 1 when a
part fails, so the commit shows a red cross until every public check passes.
"""
import argparse
import os
import sys
import time
from pathlib import Path
from xml.etree import ElementTree as ET

import nbformat
from nbclient import NotebookClient


def parts_of(nb):
    """[(part, points, [cell indexes])] in notebook order, from the nbgrader metadata."""
    parts, pending = [], []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        meta = cell.metadata.get("nbgrader", {})
        grade_id = meta.get("grade_id", "")
        if meta.get("grade") and grade_id.endswith("_tests"):
            part = grade_id.removesuffix("_tests")
            own = [i for i in pending if _grade_id(nb.cells[i]) in (f"{part}_solution", f"{part}_check")]
            # A part without its own check cell (the training run) is checked by the plain cells before it.
            checks = own if any(_grade_id(nb.cells[i]) == f"{part}_check" for i in own) else \
                own + [i for i in pending if not _grade_id(nb.cells[i])]
            parts.append((part, float(meta.get("points", 0)), checks))
            pending = []
        else:
            pending.append(index)
    return parts


def _grade_id(cell):
    return cell.metadata.get("nbgrader", {}).get("grade_id", "")


def first_error(cell):
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return f"{output.get('ename', 'Error')}: {output.get('evalue', '')}".strip().rstrip(":")
    return ""


def execute(path, timeout):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:  # graded cells hold the hidden tests' placeholder: nothing to run here
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            cell.source = ""
    os.environ.pop("GRADING", None)  # run as a student runs it
    NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(Path(path).resolve().parent)}}).execute()
    return nb


def report(nb):
    rows = []
    for part, points, cells in parts_of(nb):
        errors = [(i + 1, first_error(nb.cells[i])) for i in cells if first_error(nb.cells[i])]
        rows.append({"part": part, "points": points, "passed": not errors,
                     "message": "; ".join(f"cell {i} raised {e}" for i, e in errors)})
    return rows


def markdown(rows, notebook, seconds):
    passed = sum(r["passed"] for r in rows)
    lines = [f"### Public checks of `{notebook}`: {passed} / {len(rows)} parts pass", "",
             "| part | public checks | points at stake | first problem |", "|---|---|---|---|"]
    for r in rows:
        mark = "✅ pass" if r["passed"] else "❌ fail"
        lines.append(f"| {r['part']} | {mark} | {r['points']:g} | {r['message'].replace('|', '/')[:200]} |")
    at_stake = sum(r["points"] for r in rows if r["passed"])
    lines += ["", f"Parts whose public checks pass are worth {at_stake:g} / {sum(r['points'] for r in rows):g} "
              f"points; the hidden tests decide the score at grading time. Ran in {seconds:.0f} s."]
    return "\n".join(lines)


def junit(rows, seconds):
    suite = ET.Element("testsuite", name="public-checks", tests=str(len(rows)),
                       failures=str(sum(not r["passed"] for r in rows)), time=f"{seconds:.2f}")
    for r in rows:
        case = ET.SubElement(suite, "testcase", classname=r["part"], name=f"{r['part']} public checks")
        case.set("points", f"{r['points']:g}")
        if not r["passed"]:
            ET.SubElement(case, "failure", message=r["message"][:500]).text = r["message"]
    return ET.tostring(suite, encoding="unicode")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebook")
    parser.add_argument("--junit-xml", help="also write JUnit XML here")
    parser.add_argument("--executed", help="save the executed notebook here")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args(argv)
    started = time.monotonic()
    nb = execute(args.notebook, args.timeout)
    seconds = time.monotonic() - started
    rows = report(nb)
    text = markdown(rows, Path(args.notebook).name, seconds)
    print(text)
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        with open(os.environ["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as handle:
            handle.write(text + "\n")
    if args.junit_xml:
        Path(args.junit_xml).write_text(junit(rows, seconds))
    if args.executed:
        nbformat.write(nb, args.executed)
    return 0 if rows and all(r["passed"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
