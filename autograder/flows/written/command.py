"""python -m autograder written SUBMISSIONS_DIR --out written/ [--jobs 2] [--no-pdf]

The written answers (Q1..Q3, graded by hand) of every submission, for TAs and for a
Gradescope "PDF" assignment. SUBMISSIONS_DIR takes the layouts grade-all takes. Writes:

    OUT/index.html               every student, what they answered, links
    OUT/q1.html, q2.html, ...    one page per question: every student's answer side by side
    OUT/students/<student>.pdf   per student: questions, answers (Markdown and math rendered),
                                 experiment cells with their saved outputs and plots
    OUT/students/<student>.html  the page the PDF is printed from
    OUT/hand.csv                 student,q1,q2,q3,comment with empty scores (never overwritten)
    OUT/written.json             what was extracted, per student (no images)

No student code runs: the outputs shown are those saved in the notebook. PDFs need
Chromium and MathJax from the OS packages (`make install-pdf`).
"""
from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...assignment import NAME
from ...settings import Settings, add_options

if TYPE_CHECKING:
    from .extract import Question, Written


@dataclass(frozen=True)
class WrittenOptions:
    """`written`'s own options (the settings give the largest notebook it reads)."""
    submissions: str
    out: str
    assignment: str
    jobs: int
    no_pdf: bool


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("written", help="written answers: a PDF per student, a page per question, hand.csv",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(handler=run, options=WrittenOptions)
    p.add_argument("submissions", help="folder of submissions (grade-all's layouts, or an nbgrader course)")
    p.add_argument("--out", default="written", help="output folder (default: written/)")
    p.add_argument("--assignment", default=NAME,
                   help="nbgrader assignment folder to prefer inside a student's folder")
    p.add_argument("--jobs", type=int, default=2, help="Chromium processes printing PDFs side by side")
    p.add_argument("--no-pdf", action="store_true", help="HTML pages only (no Chromium needed)")
    add_options(p)


def collect(folder: str | os.PathLike[str], notebook_mib: int, assignment: str = NAME,
            skip: Iterable[str | os.PathLike[str]] = (),
            students: Iterable[str] | None = None) -> tuple[list[Question], list[Written]]:
    """[Written] of every submission under ``folder`` (grade-all's discovery), sorted by student;
    only those of ``students`` when given (a grade-all shard's share). ``notebook_mib``: Limits.notebook_mib."""
    from pathlib import Path

    from ..discover import discover
    from .extract import Answer, Written, extract, questions, released_code

    qs, given, out = questions(), released_code(), list[Written]()
    folder = Path(folder).resolve()
    base = folder / "submitted" if (folder / "submitted").is_dir() else folder
    wanted = None if students is None else set(students)
    for sub in discover(folder, assignment, notebook_mib, skip=skip):
        if wanted is not None and sub.student not in wanted:
            continue
        if sub.notebook is None:
            out.append(Written(sub.student, "", sub.status, sub.detail, {q.key: Answer(q) for q in qs}))
            continue
        out.append(extract(sub.notebook, sub.student, notebook_mib, qs, given,
                           str(Path(sub.notebook).relative_to(base))))
    return qs, out


def summary(written: Iterable[Written]) -> list[dict[str, Any]]:
    """The extracted data as JSON-ready dicts (answers' text and where found; images only counted)."""
    return [{"student": w.student, "notebook": w.notebook, "status": w.status, "problem": w.problem,
             "answers": {k: {"grade_id": a.question.grade_id, "found": a.found, "cell": a.cell, "blank": a.blank,
                             "words": a.words, "text": a.text,
                             "experiments": [{"cell": c.index, "source": c.source, "images": len(c.images)}
                                             for c in a.experiments]}
                         for k, a in w.answers.items()},
             "other_experiments": [{"cell": c.index, "source": c.source, "images": len(c.images)} for c in w.other]}
            for w in written]


def run(settings: Settings, options: WrittenOptions) -> int:
    import json
    import sys
    from concurrent.futures import ThreadPoolExecutor
    from pathlib import Path

    from .. import progress
    from ..batch_summary import write_atomic
    from . import render
    from .hand import template

    source = Path(options.submissions)
    if not source.is_dir():
        print(f"written: {options.submissions} is not a folder", file=sys.stderr)
        return 2
    out = Path(options.out).resolve()
    browser = None
    if not options.no_pdf:
        browser = render.chromium()
        if not browser:
            print(f"written: no Chromium for the PDFs; {render.INSTALL_HINT}, or pass --no-pdf", file=sys.stderr)
            return 2
        if not (render.MATHJAX_DIR / "MathJax.js").is_file():
            print(f"written: MathJax not found in {render.MATHJAX_DIR}: math is printed as TeX source; "
                  f"{render.INSTALL_HINT}", file=sys.stderr)
    qs, written = collect(source, settings.limits.notebook_mib, options.assignment, skip=[out])
    pages = render.Pages(qs, options.assignment)
    students_dir = out / "students"
    students_dir.mkdir(parents=True, exist_ok=True)
    stems, jobs = {}, []
    for w in written:
        stem = render.file_stem(w.student)
        stems[w.student] = stem
        html = students_dir / f"{stem}.html"
        write_atomic(html, pages.student(w))
        jobs.append((w, html, students_dir / f"{stem}.pdf"))
    failed = {}
    if browser:  # the long part (a Chromium per PDF): grade-all's progress bar, students done / total
        bar = progress.bar(len(jobs), "written")

        def one(job: tuple[Written, Path, Path]) -> None:
            w, html, pdf = job
            try:
                render.print_pdf(html, pdf, browser)
            except render.PdfError as err:
                failed[w.student] = str(err)
            bar.update(1)
            progress.now(bar, w.student)

        with ThreadPoolExecutor(max(1, options.jobs)) as pool:
            list(pool.map(one, jobs))
        bar.close()
    link = {w.student: f"students/{stems[w.student]}.{'pdf' if browser and w.student not in failed else 'html'}"
            for w in written}
    entries = [(w, link[w.student]) for w in written]
    for q in qs:
        write_atomic(out / f"{q.key}.html", pages.question(q, entries))
    write_atomic(out / "index.html", pages.index(entries))
    write_atomic(out / "written.json", json.dumps(summary(written), indent=1) + "\n")
    hand = out / "hand.csv"
    points = {q.key: q.points for q in qs}
    if hand.exists():
        note = f"{hand} kept as it is (it may hold scores)"
    else:
        write_atomic(hand, template([w.student for w in written], points))
        note = f"{hand} (empty scores for {len(written)} students)"
    read = [w for w in written if w.status == "read"]
    print(f"{len(written)} submissions, {len(read)} read: "
          + ", ".join(f"Q{q.number} {sum(not w.answers[q.key].blank for w in read)} answered" for q in qs))
    for w in written:
        if w.status != "read":
            print(f"  {w.student}: {w.status}: {w.problem}")
    for student, why in failed.items():
        print(f"  {student}: no PDF: {why}", file=sys.stderr)
    print(f"wrote {out}/index.html, {', '.join(f'{q.key}.html' for q in qs)}, "
          f"{'PDFs' if browser else 'HTML pages'} in {students_dir}/, {note}")
    return 1 if failed else 0
