"""Write a GradeReport for people (a table), for Gradescope (results.json) and for CI (JUnit XML).

Every writer takes the feedback ``level`` (plugin.FEEDBACK_LEVELS) and shows what it allows:

    score   each part's points and the total; results.json has one test per part
    checks  + one row per check: its title and whether it passed
    values  + why a failed check failed (the value found, the value expected, where)
    hints   + the hint that points at a likely cause (the default)

Text the submission controls (messages, type and function names, file names) reaches no
output raw: ``safe_text.student`` redacts the grader's secrets and escapes what could
redraw a terminal or break an encoder.
"""
from __future__ import annotations

import dataclasses
import json
import os
import textwrap
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree as ET

from ..assignment import NAME, PART_IDS as PARTS
from .catalog import part_points
from .output_file import write_atomic
from .plugin import DEFAULT_FEEDBACK, FEEDBACK_LEVELS, GRADER_FAILED, Status, TestResult
from .safe_text import student as safe, text as plain, xml_text

if TYPE_CHECKING:
    from .grade import GradeReport


def _level(level: str) -> str:
    if level not in FEEDBACK_LEVELS:
        raise ValueError(f"feedback level {level!r} is not one of {', '.join(FEEDBACK_LEVELS)}")
    return level


def check_text(result: TestResult, level: str = DEFAULT_FEEDBACK) -> str:
    """What a student sees for one check at ``level``: "" when passed or when the level shows no reason."""
    if result.status is Status.GRADER_ERROR:
        return GRADER_FAILED if level != "score" else ""
    return safe(result.feedback(level), multiline=True)


def cell_lines(report: GradeReport, level: str = DEFAULT_FEEDBACK) -> list[str]:
    """The notebook's own cell errors: none at "score", the exception's type at "checks", its message above."""
    if _level(level) == "score":
        return []
    lines = []
    for cell in report.cells:
        if cell.fatal:
            lines.append(f"cell {cell.index + 1}: {safe(cell.fatal)}")
        elif cell.error:
            e = cell.error
            inside = f" in `{safe(e['function'])}`" if e.get("function") else ""
            detail = f": {safe(e['message'])}" if e.get("message") and level in ("values", "hints") else ""
            lines.append(f"cell {cell.index + 1} raised {safe(e.get('type') or 'Error')}{inside}{detail}")
    return lines


def table(report: GradeReport, width: int = 100, level: str = DEFAULT_FEEDBACK) -> str:
    _level(level)
    out = [plain(report.submission), ""]
    if report.problem:
        out += [f"  ! {safe(report.problem)}", ""]
    for part, (got, top) in report.by_part().items():
        out.append(f"  {part:<14}{got:>6g} / {top:<4g}")
        if level == "score":
            continue
        failed = [r for r in report.results if r.part == part and r.status is not Status.PASSED]
        # A diagnosed cause is said once per part, however many checks it explains.
        causes = list(dict.fromkeys(r.cause for r in failed if getattr(r, "cause", "") and level == "hints"))
        by_message: dict[object, list[TestResult]] = {}
        for r in failed:  # one line per distinct reason: a missing function fails many checks alike
            key = check_text(dataclasses.replace(r, cause="") if causes else r, level) if level != "checks" else id(r)
            by_message.setdefault(key, []).append(r)
        for message, same in by_message.items():
            if level == "checks":
                flag = " (autograder failed on this check)" if same[0].status is Status.GRADER_ERROR else ""
                line = f"x {same[0].title}{flag}"
            else:
                head = same[0].title if len(same) == 1 else f"{len(same)} checks"
                line = f"x {head}: {message}"
            out += textwrap.wrap(line, width, initial_indent="      ", subsequent_indent="        ")
        for cause in causes:
            out += textwrap.wrap(f"Likely cause: {safe(cause)}", width, initial_indent="      ",
                                 subsequent_indent="        ")
    out += ["  " + "-" * 26, f"  {'total':<14}{report.score:>6g} / {report.max_score:g}"]
    notes = cell_lines(report, level)
    if notes:
        out += ["", "  Notebook execution (errors are recorded and execution goes on):"] + [f"    {n}" for n in notes]
    out.append(f"  graded in {report.seconds:.1f} s")
    return "\n".join(out)


def in_part_order(results: Iterable[TestResult]) -> list[TestResult]:
    """Tests in notebook order of their parts (stable within a part)."""
    return sorted(results, key=lambda r: PARTS.index(r.part) if r.part in PARTS else len(PARTS))


def _part_rows(report: GradeReport) -> list[tuple[str, float, float, bool]]:
    """(part, got, top, any grader error) per part, in part order."""
    return [(part, got, top, any(r.status is Status.GRADER_ERROR for r in report.results if r.part == part))
            for part, (got, top) in report.by_part().items()]


def gradescope(report: GradeReport, visibility: str = "visible", previous: float | None = None,
               level: str = DEFAULT_FEEDBACK, confinement: Any = None) -> dict[str, Any]:
    """Gradescope's results.json schema: score, execution_time, output, tests[]; extra_data says how the
    worker was confined (sandbox/confinement.py), for the instructor."""
    tests = []
    if _level(level) == "score":  # Gradescope needs tests[]: one per part, with no word about single checks
        for part, got, top, fault in _part_rows(report):
            tests.append({"name": f"Autograder failed: {part}" if fault else part, "score": got, "max_score": top,
                          "output": GRADER_FAILED if fault else "", "visibility": visibility, "tags": [part],
                          "status": Status.PASSED.value if got >= top else Status.FAILED.value})
    else:
        for r in in_part_order(report.results):
            tests.append({
                "name": r.title if r.status is not Status.GRADER_ERROR else f"Autograder failed: {r.title}",
                "score": r.score, "max_score": r.points, "output": check_text(r, level),
                # Gradescope knows passed and failed only: a grader error is a failed test named as ours.
                "visibility": visibility, "tags": [r.part],
                "status": Status.PASSED.value if r.status is Status.PASSED else Status.FAILED.value,
            })
    summary = [f"Score {report.score:g} / {report.max_score:g}"]
    summary += [f"{part}: {got:g} / {top:g}" for part, (got, top) in report.by_part().items()]
    if report.problem:
        summary.insert(0, safe(report.problem))
    notes = cell_lines(report, level)
    if notes:
        summary += ["", "Notebook execution:"] + notes
    if previous is not None:
        summary.append(f"(Your previous submission scored {previous:g}.)")
    data = {"score": report.score, "execution_time": round(report.seconds, 2), "output": "\n".join(summary),
            "visibility": visibility, "stdout_visibility": "hidden", "tests": tests}
    if confinement is not None:
        data["extra_data"] = {"confinement": confinement.line().removeprefix("confinement: ")}
    return data


def crash_results(message: str, seconds: float = 0.0) -> dict[str, Any]:
    """results.json for a grader that could not finish: valid, score 0, and it says so.

    The one test is worth what the whole assignment is worth (the suites' points), so the
    student sees 0 out of the real total; when even the suites cannot be collected (the
    crash may be theirs) it has no max_score, which Gradescope's schema allows.
    """
    test = {"name": "Autograder failed", "score": 0.0, "max_score": _total_points(), "output": GRADER_FAILED,
            "visibility": "visible", "tags": ["autograder"]}
    if test["max_score"] is None:
        del test["max_score"]
    return {"score": 0.0, "execution_time": round(seconds, 2), "output": f"Autograder failed: {safe(message)}",
            "tests": [test]}


def _total_points() -> float | None:
    """The assignment's total from the suites' @points (catalog.part_points), or None if they cannot be read."""
    try:
        return float(sum(part_points().values()))
    except Exception:  # noqa: BLE001 - the last-chance report is written whatever failed
        return None


def junit(report: GradeReport, level: str = DEFAULT_FEEDBACK) -> str:
    if _level(level) == "score":
        rows = [(part, part, got, top, got < top, "Autograder failed on a check" if fault else f"{got:g} / {top:g}")
                for part, got, top, fault in _part_rows(report)]
    else:
        rows = [(r.part, r.title, r.score, r.points, r.status is not Status.PASSED, check_text(r, level) or "failed")
                for r in in_part_order(report.results)]
    suite = ET.Element("testsuite", name=NAME, tests=str(len(rows)),
                       failures=str(sum(row[4] for row in rows)), time=f"{report.seconds:.2f}")
    for part, name, got, top, failed, message in rows:
        case = ET.SubElement(suite, "testcase", classname=part, name=xml_text(name, False))
        case.set("points", f"{got:g}/{top:g}")
        if failed:
            ET.SubElement(case, "failure", message=xml_text(message[:500], False)).text = xml_text(message)
    return ET.tostring(suite, encoding="unicode")


def write_json(data: Any, path: str | os.PathLike[str]) -> None:
    text = json.dumps(data, indent=2)  # ASCII: whatever survived escaping cannot break an encoder
    if str(path) in ("-", "/dev/stdout"):
        print(text)
    elif str(path) != "/dev/null":
        write_atomic(path, text + "\n")  # a failed write (a full disk) leaves the earlier file whole
