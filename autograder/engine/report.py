"""Write a GradeReport for people (a table), for Gradescope (results.json) and for CI (JUnit XML)."""
import json
import textwrap
from xml.etree import ElementTree as ET

from .. import PARTS
from .plugin import GRADER_FAILED


def cell_lines(report):
    lines = []
    for cell in report.cells:
        if cell.fatal:
            lines.append(f"cell {cell.index + 1}: {cell.fatal}")
        elif cell.error:
            e = cell.error
            inside = f" in `{e['function']}`" if e.get("function") else ""
            detail = f": {e['message']}" if e.get("message") else ""
            lines.append(f"cell {cell.index + 1} raised {e['type']}{inside}{detail}")
    return lines


def table(report, width=100):
    out = [f"{report.submission}", ""]
    if report.problem:
        out += [f"  ! {report.problem}", ""]
    for part, (got, top) in report.by_part().items():
        out.append(f"  {part:<14}{got:>6g} / {top:<4g}")
        failed = [r for r in report.results if r.part == part and r.status != "passed"]
        by_message = {}
        for r in failed:  # one line per distinct reason: a missing function fails many checks alike
            by_message.setdefault(r.message, []).append(r)
        for message, same in by_message.items():
            head = same[0].title if len(same) == 1 else f"{len(same)} checks"
            out += textwrap.wrap(f"x {head}: {message}", width, initial_indent="      ",
                                 subsequent_indent="        ")
    out += ["  " + "-" * 26, f"  {'total':<14}{report.score:>6g} / {report.max_score:g}"]
    notes = cell_lines(report)
    if notes:
        out += ["", "  Notebook execution (errors are recorded and execution goes on):"] + [f"    {n}" for n in notes]
    out.append(f"  graded in {report.seconds:.1f} s")
    return "\n".join(out)


def in_part_order(results):
    """Tests in notebook order of their parts (stable within a part)."""
    return sorted(results, key=lambda r: PARTS.index(r.part) if r.part in PARTS else len(PARTS))


def gradescope(report, visibility="visible", previous=None):
    """Gradescope's results.json schema: score, execution_time, output, tests[]."""
    tests = []
    for r in in_part_order(report.results):
        tests.append({
            "name": r.title if r.status != "grader-error" else f"Autograder failed: {r.title}",
            "score": r.score, "max_score": r.points,
            "output": r.message if r.status != "passed" else "",
            "visibility": visibility, "tags": [r.part], "status": "passed" if r.status == "passed" else "failed",
        })
    summary = [f"Score {report.score:g} / {report.max_score:g}"]
    summary += [f"{part}: {got:g} / {top:g}" for part, (got, top) in report.by_part().items()]
    if report.problem:
        summary.insert(0, report.problem)
    notes = cell_lines(report)
    if notes:
        summary += ["", "Notebook execution:"] + notes
    if previous is not None:
        summary.append(f"(Your previous submission scored {previous:g}.)")
    return {"score": report.score, "execution_time": round(report.seconds, 2), "output": "\n".join(summary),
            "visibility": visibility, "stdout_visibility": "hidden", "tests": tests}


def crash_results(message, seconds=0.0):
    """results.json for a grader that could not finish: valid, score 0, and it says so."""
    return {"score": 0.0, "execution_time": round(seconds, 2), "output": f"Autograder failed: {message}",
            "tests": [{"name": "Autograder failed", "score": 0.0, "max_score": 100.0, "output": GRADER_FAILED,
                       "visibility": "visible", "tags": ["autograder"]}]}


def junit(report):
    suite = ET.Element("testsuite", name="week7_attention", tests=str(len(report.results)),
                      failures=str(sum(r.status != "passed" for r in report.results)),
                      time=f"{report.seconds:.2f}")
    for r in in_part_order(report.results):
        case = ET.SubElement(suite, "testcase", classname=r.part, name=r.title)
        case.set("points", f"{r.score:g}/{r.points:g}")
        if r.status != "passed":
            ET.SubElement(case, "failure", message=r.message[:500]).text = r.message
    return ET.tostring(ET.ElementTree(suite).getroot(), encoding="unicode")


def write_json(data, path):
    text = json.dumps(data, indent=2)
    if str(path) in ("-", "/dev/stdout"):
        print(text)
    elif str(path) != "/dev/null":
        with open(path, "w") as handle:
            handle.write(text + "\n")
