"""python -m autograder grade-all SUBMISSIONS_DIR --out grades.csv [--jobs N]

Grades every submission of a folder and writes one CSV row per student, per-student
feedback (results.json in Gradescope's schema and a readable feedback.txt), a summary
and one histogram per part. Layouts, mixed freely:

    DIR/<student>.ipynb
    DIR/<student>/*.ipynb
    DIR/<student>/<assignment>/*.ipynb      nbgrader's submitted/ folder
    DIR/submitted/<student>/<assignment>/*.ipynb   (DIR = an nbgrader course)

Resumable: each finished result is written atomically and keyed by the sha256 of the
notebook's bytes (and of the grader); a rerun reuses every finished result whose
notebook is unchanged and grades only the rest.

Into an existing --out, a run merges: the rows of the students found now are added or
replaced, every other row (and its feedback) is kept, and one line says what changed
(``--replace`` writes only the students found now). A Canvas bulk download's file names
(``lastfirst_12345_678901_<name>.ipynb``, also with ``late_``) give the student ``lastfirst``.
Every run also writes ``report.html`` beside the CSV (flows/class_report.py) and, with
``--roster`` and ``--lms canvas|moodle``, the LMS import files (flows/lms.py).

For a class larger than one machine: ``--shard I/N`` grades the I-th of N deterministic shares
(flows/batch_shard.py), each job of an array into its own --out, and ``grade-all merge
SHARD_CSV... --out grades.csv`` joins them into what one plain run writes (flows/batch_merge.py).

A run is four stages handing on one ``Batch``: ``_discover`` (every refusal, exit 2, before anything is graded;
which finished results are reused) → ``_grade`` (the pool, each result written as it finishes) → ``_write`` (the
CSV, a shard's manifest, the summary) → ``_exports`` (LMS files, written answers, report.html).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Sequence
from typing import Any

from .. import assignment
from ..assignment import NAME, PART_IDS as PARTS
from ..engine import submission_file
from ..engine.output_file import OutputError
from ..engine.submission_file import SubmissionStatus as Row
from ..settings import Settings, add_options
from ..engine.safe_text import redact, text as safe_line
from . import batch_shard, batch_summary as out
from .batch_pool import SUBMISSION_TOKEN, Pool
from .discover import Submission, discover
from .records import BatchRecord, ClassRow



def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("grade-all", help="grade a folder of submissions into a CSV (resumable); "
                                                "`grade-all merge --help`: join the shards of --shard I/N runs",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(handler=run, options=GradeAll)
    p.add_argument("submissions", help="folder of submissions (or an nbgrader course with submitted/)")
    p.add_argument("--out", default="grades.csv", help="CSV to write; feedback goes to <stem>_feedback/")
    p.add_argument("--jobs", type=int, default=1, help="grading processes, each with its own sandbox slot")
    p.add_argument("--assignment", default=NAME,
                   help="nbgrader assignment folder to prefer inside a student's folder")
    p.add_argument("--regrade", action="store_true", help="ignore finished results and grade everything again")
    p.add_argument("--replace", action="store_true",
                   help="rewrite --out with only the students found now (default: merge into an existing --out, "
                        "keeping the rows of students not in SUBMISSIONS_DIR)")
    p.add_argument("--roster", help="CSV with the columns student,name,email,lms_id (for --lms)")
    p.add_argument("--lms", choices=["canvas", "moodle"], action="append",
                   help="also write <stem>_canvas.csv / <stem>_moodle.csv for the LMS gradebook import "
                        "(needs --roster; repeatable)")
    p.add_argument("--lms-assignment", default=NAME,
                   help="the LMS grade column: Canvas 'Name (assignment id)' updates an existing assignment, "
                        "a bare name creates one")
    p.add_argument("--lms-missing", choices=["empty", "zero"], default="empty",
                   help="score of a roster student with no submission: empty (Canvas keeps the current grade; "
                        "Moodle rows are left out) or zero")
    p.add_argument("--debug", action="store_true", help="log internal tracebacks of failed checks too")
    p.add_argument("--hand", help="hand scores of the written answers (student,q1,q2,q3,comment; see `written`): "
                                  "columns q1.. beside the parts, and in the total")
    p.add_argument("--shard", type=_shard_option, metavar="I/N",
                   help="grade only the I-th of N deterministic shares of the class (1 <= I <= N), into this run's "
                        "own --out; `grade-all merge SHARD_CSV... --out grades.csv` joins the shards")
    add_options(p)


@dataclass(frozen=True)
class Exports:
    """The options for what is written besides the CSV: the LMS import files, the hand scores (grade-all's and
    `grade-all merge`'s)."""
    roster: str | None
    lms: list[str] | None
    lms_assignment: str
    lms_missing: str
    hand: str | None


@dataclass(frozen=True)
class GradeAll(Exports):
    """`grade-all`'s own options (what it grades with is the Settings)."""
    submissions: str
    out: str
    jobs: int
    assignment: str
    regrade: bool
    replace: bool
    debug: bool
    shard: batch_shard.Shard | None


def _shard_option(text: str) -> batch_shard.Shard:
    try:
        return batch_shard.parse(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def grader_key(settings: Settings) -> str:
    """What a finished result depends on besides the notebook: the grader's code and settings."""
    digest = hashlib.sha256()
    for name, path in assignment.named_files(assignment.GRADE_INPUTS):
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    # Everything that changes a grade: not how the worker was confined (every mode grades alike).
    options = {k: v for k, v in settings.to_dict().items() if k not in ("confinement", "unsafe_no_sandbox")}
    options["parts"] = sorted(options["parts"]) or None
    digest.update(json.dumps(options, sort_keys=True).encode())
    return digest.hexdigest()[:20]


# ---- the run: discover → grade → write → export ----------------------------------------

class Refused(Exception):
    """The one line grade-all (or merge) says when it will not run (exit code 2), before anything is graded."""


@dataclass
class Batch:
    """One grade-all run as its stages hand it on. ``_discover`` fills in what is known before grading; ``_grade``
    adds a row per student; ``_write`` and ``_export`` read it."""
    settings: Settings
    options: GradeAll
    source: Path  # the submissions folder
    csv_path: Path
    log: Log
    subs: list[Submission]  # the students this run grades (a shard: its share), in discovery order
    everyone: list[str]  # the whole class, in discovery order
    hand: dict[str, Any] | None  # --hand's scores and their points (load_hand)
    previous: list[ClassRow] | None  # the existing --out's rows to merge into (None: --replace)
    key: str  # grader_key: what a finished result depends on besides the notebook
    rows: dict[str, ClassRow] = field(default_factory=dict)  # student -> row: reused, then graded
    work: list[dict[str, Any]] = field(default_factory=list)  # distinct notebooks to grade: id, path, students
    tops: dict[str, float] = field(default_factory=dict)  # part -> its points, as the grading processes report them
    started: float = 0.0  # when grading began (monotonic)

    @property
    def stem(self) -> Path:
        return self.csv_path.with_suffix("")

    @property
    def feedback(self) -> Path:
        return Path(f"{self.stem}_feedback")

    @property
    def checks(self) -> Path:  # every check's reason, for the class report (instructors only)
        return Path(f"{self.stem}_checks")


def run(settings: Settings, options: GradeAll) -> int:
    """grade-all: discover → grade → write → export. Whatever would refuse the run is said first (exit 2)."""
    try:
        batch = _discover(settings, options)
    except Refused as why:
        print(why, file=sys.stderr)
        return 2
    _grade(batch)
    ordered, part_max, summary = _write(batch)
    failed = _exports(settings, options, ordered, batch.csv_path, batch.log, sum(part_max.values()),
                      [s.student for s in batch.subs])
    batch.log.write(f"done: {len(ordered)} rows in {summary['seconds']:g} s")
    return 1 if summary["statuses"].get(Row.GRADER_ERROR) or failed else 0


def _discover(settings: Settings, options: GradeAll) -> Batch:
    """The confinement, the secret, the class and every option checked; then which finished results are reused
    and which distinct notebooks are left to grade. Raises Refused before anything is graded."""
    # How workers will be confined, said before anything is read or graded; where none can be built, nothing is.
    from ..sandbox.confinement import ConfinementUnavailable, probe
    try:
        confinement = probe(settings.confinement, settings.unsafe_no_sandbox)
    except ConfinementUnavailable as why:
        raise Refused(f"grade-all: {why}") from None
    from ..engine.secret import SecretError, check as check_secret
    try:  # said before anything is graded; read by the grading processes only after their template forks
        check_secret()
    except SecretError as why:
        raise Refused(f"grade-all: {why}") from None
    print(confinement.line(), file=sys.stderr)
    source = Path(options.submissions).resolve()
    if not source.is_dir():
        raise Refused(f"grade-all: {options.submissions} is not a folder")
    csv_path = Path(options.out).resolve()
    stem = csv_path.with_suffix("")
    feedback, checks = Path(f"{stem}_feedback"), Path(f"{stem}_checks")
    feedback.mkdir(parents=True, exist_ok=True)
    log = Log(Path(f"{stem}.log"))
    checks.mkdir(parents=True, exist_ok=True)
    subs = discover(source, options.assignment, settings.limits.notebook_mib,
                    skip=[feedback, checks, csv_path, f"{stem}_plots", f"{stem}.log", f"{stem}_summary.txt",
                          f"{stem}_summary.json", batch_shard.manifest_path(csv_path)])
    everyone = [s.student for s in subs]  # the class, in discovery order (a shard keeps its share below)
    shard = options.shard
    if shard:
        if options.lms:
            raise Refused("grade-all: --lms writes the whole class's import file: give --roster and --lms to "
                          "`grade-all merge`, not to a shard")
        subs = [s for s in subs if shard.holds(s.student)]
    hand = load_hand(options.hand, subs, everyone)
    previous = None if options.replace else previous_rows(csv_path)
    others = [p for p in PARTS if settings.parts and p not in settings.parts
              and any(r.value(p) is not None for r in previous or ())]  # --replace: nothing to keep
    if others:  # a row of this run holds only --part's points: merged, it would drop the others' points
        raise Refused(
            f"grade-all: {csv_path} holds points of {', '.join(others)}, which a --part run does not grade: "
            f"merging would leave the students graded now without them. Write this run to its own --out "
            f"(e.g. --out {csv_path.with_name(stem.name + '_' + '_'.join(settings.parts) + '.csv')}), or grade every "
            "part, or pass --replace to overwrite it")
    if options.lms:  # a roster that cannot be used is said before the grading, not after it
        from . import lms
        try:
            lms.read_roster(options.roster)
        except lms.RosterError as err:
            raise Refused(f"grade-all: {err}") from None
    log.write(confinement.line())
    batch = Batch(settings, options, source, csv_path, log, subs, everyone, hand, previous, grader_key(settings))
    _sort_out(batch)
    return batch


def _sort_out(batch: Batch) -> None:
    """Each submission's notebook hashed: a finished result of the same bytes and grader is reused (its row),
    the rest become ``batch.work``, identical notebooks of the same file name graded once."""
    tasks: dict[tuple[str, str], dict[str, Any]] = {}
    limit, log = batch.settings.limits.notebook_mib, batch.log
    for sub in batch.subs:
        if sub.notebook is None:
            continue
        try:
            sub.sha256 = hashlib.sha256(submission_file.read_notebook(sub.notebook, limit)).hexdigest()
        except submission_file.SubmissionFileError as err:  # changed since it was found
            sub.notebook, sub.status, sub.detail = None, err.kind, str(err)
            continue
        record = None if batch.options.regrade else BatchRecord.load(batch.feedback / sub.student / "record.json")
        if record and record.reusable(sub.sha256, batch.key):
            batch.rows[sub.student] = record.row
            log.write(f"reused {sub.student} sha256={sub.sha256[:12]} total={record.row.total or 0:g}")
            continue
        # Identical notebooks with the same file name give identical results: grade once.
        task = tasks.setdefault((sub.sha256, sub.notebook.name), {
            "id": len(tasks), "path": str(sub.notebook), "students": []})
        task["students"].append(sub)
    batch.work = sorted(tasks.values(), key=lambda t: t["id"])


def _grade(batch: Batch) -> None:
    """A row for every student of ``batch.subs``: a zero that says why for those without a gradable notebook,
    and each distinct notebook graded once by the pool, its files written as it finishes (a resumable run)."""
    from . import progress

    settings, log, feedback, checks = batch.settings, batch.log, batch.feedback, batch.checks
    batch.started = time.monotonic()
    bar = progress.bar(len(batch.subs), "grading")
    bar.update(len(batch.rows))
    problems = [s for s in batch.subs if s.notebook is None]
    if problems:
        _write_problems(problems, batch.rows, feedback, settings, log, checks)
        bar.update(len(problems))
    hide = [str(batch.source), str(feedback), str(checks)] + \
        ([str(batch.csv_path.parent)] if _hideable(batch.csv_path.parent) else [])
    task_options = {"hide": hide, "debug": batch.options.debug, "settings": settings.to_dict()}
    if batch.work:
        log.write(f"grading {sum(len(t['students']) for t in batch.work)} submissions ({len(batch.work)} distinct) "
                  f"with {batch.options.jobs} grading process(es); {len(batch.rows)} finished results reused")

        def finished(task: dict[str, Any], result: dict[str, Any]) -> None:
            """Never raises: whatever one result does to the writers, every other student still gets a row."""
            try:
                batch.tops.update({part: top for part, (_, top) in (result.get("by_part") or {}).items()})
            except (AttributeError, TypeError, ValueError):
                pass
            for sub in task["students"]:
                mine = _graded_version(sub, task, result, log)
                batch.rows[sub.student] = _write_result_or_error(sub, mine, feedback, batch.source, batch.key, log)
                _write_checks(sub, mine, checks, log)
                bar.update(1)
            status = result.get("status") if isinstance(result, dict) else None
            progress.now(bar, f"last {task['students'][0].student}: {status}")

        pool = Pool(max(1, min(batch.options.jobs, len(batch.work))), task_options)
        try:
            pool.run(batch.work, finished)
        except BaseException:
            pool.close(force=True)
            raise
        pool.close()
    bar.close()


def _write(batch: Batch) -> tuple[list[ClassRow], dict[str, float], dict[str, Any]]:
    """The CSV (merged into an existing --out, with --hand's scores), a shard's manifest and the summary;
    returns the rows, each part's points and the summary."""
    subs, csv_path, stem, shard = batch.subs, batch.csv_path, batch.stem, batch.options.shard
    ordered = [batch.rows.get(s.student) or _row(s, {"status": Row.GRADER_ERROR, "problem": "not graded"}, batch.source)
               for s in subs]
    ordered, change = merge_rows(batch.previous, ordered, csv_path.name)
    if batch.hand:  # after the merge: the hand scores reach kept students too
        ordered = with_hand(ordered, batch.hand)
    out.write_csv(ordered, csv_path)
    if shard:
        batch_shard.write_manifest(csv_path, shard, batch.everyone)
    # From the results when they cover every part: collecting the suites here would cost ~2 s.
    parts = batch.settings.parts
    part_max = batch.tops if set(batch.tops) == set(parts or PARTS) else part_points(parts)
    part_max = {p: part_max[p] for p in PARTS if p in part_max}
    if batch.hand:
        part_max.update(batch.hand["points"])  # q1.. in the summary and plots; the total's maximum includes them
    summary = out.summarize(ordered, part_max)
    summary["seconds"] = round(time.monotonic() - batch.started, 1)
    text = out.summary_text(summary)
    out.write_summary(summary, stem)
    print(text)
    print(f"\nwrote {csv_path}, {stem}_summary.txt, feedback in {batch.feedback}/ "
          f"({summary['seconds']:g} s)" + (f"; shard {shard} of the class ({len(subs)} of {len(batch.everyone)})"
                                          if shard else ""))
    if change:
        print(change)
        batch.log.write(change)
    return ordered, part_max, summary


# ---- into an existing --out, and what is written from the whole class ----------------------

def previous_rows(csv_path: Path) -> list[ClassRow]:
    """The rows of an existing --out to merge into ([] when there is none); Refused when it is not a grades CSV."""
    if not csv_path.exists():
        return []
    try:
        return out.read_csv(csv_path)
    except (OSError, ValueError) as err:
        raise Refused(f"grade-all: {csv_path} exists and is not a grade-all CSV ({err}); pass --replace to "
                      f"overwrite it, or choose another --out") from None


def merge_rows(previous: list[ClassRow] | None, rows: list[ClassRow], name: str) -> tuple[list[ClassRow], str]:
    """Rows of this run merged into ``previous`` (batch_summary.merge) and the line saying what changed."""
    if not previous:
        return rows, ""
    merged, counts = out.merge(previous, rows)
    line = f"{name}: {counts['updated']} updated, {counts['added']} added, {counts['kept']} kept"
    if counts["changed"] != counts["updated"]:
        line += f" ({counts['changed']} of the updated rows changed)"
    return merged, line


def _exports(settings: Settings, options: GradeAll, rows: list[ClassRow], csv_path: Path, log: Log, points: float,
             students: list[str]) -> bool:
    """The LMS files (--lms, --roster), the written answers of ``students`` and report.html; True if one failed."""
    failed = lms_exports(options, rows, csv_path, log, points)
    try:  # the written answers, per student, for the TAs (`python -m autograder written` renders them)
        from .written.command import collect, summary
        from .written.extract import has_questions
        if not has_questions():  # an assignment without written answers: nothing to extract, nothing failed
            return report(csv_path, log) or failed
        mine = [csv_path.parent / n for n in os.listdir(csv_path.parent) if n.startswith(csv_path.stem)]
        _, written = collect(options.submissions, settings.limits.notebook_mib, options.assignment, skip=mine, students=students)
        write_written(csv_path, summary(written))
    except Exception:  # noqa: BLE001 - the grades are written; `written` can extract the answers again
        log.write(f"could not extract the written answers:\n{traceback.format_exc()}")
        failed = True
    return report(csv_path, log) or failed


def lms_exports(options: Exports, rows: list[ClassRow], csv_path: Path, log: Log, points: float) -> bool:
    """The LMS import files when --lms is given; True if they could not be written (said why)."""
    if not options.lms:
        return False
    from . import lms
    try:
        for message in lms.export(rows, options.roster, options.lms, csv_path, options.lms_assignment, options.lms_missing,
                                  points):
            print(message)
            log.write(message)
    except lms.RosterError as err:
        print(f"grade-all: {err}", file=sys.stderr)
        return True
    return False


def write_written(csv_path: Path, entries: list[dict[str, Any]]) -> None:
    """``<stem>_written.json``: the written answers' extraction, one entry per student (written.command.summary)."""
    path = csv_path.with_name(f"{csv_path.stem}_written.json")
    out.write_atomic(path, json.dumps(entries, indent=1))
    print(f"wrote {path} (the written answers; the `written` command makes the TAs' pages and PDFs)")


def report(csv_path: Path, log: "Log") -> bool:
    """report.html beside the CSV; True if it could not be written (logged, and how to make it again)."""
    try:
        from . import class_report
        print(f"wrote {class_report.write(csv_path)}")
    except Exception:  # noqa: BLE001 - the grades are written; the report can be made again with class-report
        log.write(f"could not write the class report:\n{traceback.format_exc()}")
        print(f"grade-all: the class report could not be written (see {log.path}); "
              f"python -m autograder class-report {csv_path} makes it again", file=sys.stderr)
        return True
    return False


def _write_checks(sub: Submission, result: dict[str, Any], folder: Path, log: Log) -> None:
    """``<stem>_checks/<student>.json``: every check with its full message, for the class report (instructors only).

    Kept apart from ``<stem>_feedback/`` (which students may be given): it holds the check
    titles and reasons whatever ``--feedback`` level the students are shown.
    """
    try:
        data = {"version": 1, "student": sub.student, "status": result.get("status"),
                "checks": result.get("checks") or []}
        out.write_atomic(folder / f"{sub.student}.json", json.dumps(data, indent=2) + "\n")
    except Exception:  # noqa: BLE001 - the report falls back on results.json
        log.write(f"could not write the checks of {sub.student}:\n{traceback.format_exc()}")


def load_hand(hand_csv: str | None, subs: Sequence[Submission] | None,
              students: Sequence[str] | None = None) -> dict[str, Any] | None:
    """{"scores": load_hand(...), "points": {q1: ..}} for --hand, None without it; Refused if unusable.

    ``students``: the ids hand.csv may name (default: those of ``subs``; a shard: the whole class).
    """
    if not hand_csv:
        return None
    from .written.hand import HandScoreError, load_hand, question_points

    points = question_points()
    try:
        known = students if students is not None else [s.student for s in subs]  # type: ignore[union-attr]  # one of the two
        return {"scores": load_hand(hand_csv, known, points), "points": points}
    except HandScoreError as err:
        raise Refused(f"grade-all --hand: {err}") from None


def with_hand(rows: list[ClassRow], hand: dict[str, Any]) -> list[ClassRow]:
    from .written.hand import merge_hand

    return merge_hand(rows, hand["scores"], hand["points"])


def _hideable(folder: Path) -> bool:
    """The CSV's folder holds everyone's grades; hide it unless the worker needs what is under it, or it is a
    temporary directory itself (a worker's /tmp is a private tmpfs, or its scratch folder is made in it, where
    nothing else is granted): hiding /tmp made every worker fail to start, and every row a grader error."""
    folder = folder.resolve()
    needed = [Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(sys.executable).resolve()]
    temporary = {Path(p).resolve() for p in (tempfile.gettempdir(), "/tmp", "/var/tmp", "/dev/shm")}
    return folder != Path("/") and folder not in temporary \
        and not any(folder == n or folder in n.parents for n in needed)


def part_points(parts: Sequence[str] | None) -> dict[str, float]:
    """Each part's points from the suites (``parts`` only, when given): where no result says them (~2 s)."""
    from ..engine import catalog

    return {p: top for p, top in catalog.part_points().items() if not parts or p in parts}


def _row(sub: Submission, result: dict[str, Any], source: Path | None) -> ClassRow:
    by_part = result.get("by_part") or {}
    detail = (result.get("problem") or sub.detail or "").strip()
    # A grader fault is never a student's grade: its row holds no score at all (empty cells, not 0).
    fault = result["status"] == Row.GRADER_ERROR
    return ClassRow(student=sub.student, status=result["status"],
                    total=None if fault else float(result.get("score") or 0.0),
                    seconds=result.get("seconds", 0.0), sha256=sub.sha256,
                    notebook=str(sub.notebook.relative_to(source)) if sub.notebook else "",  # type: ignore[arg-type]
                    detail=redact(detail.splitlines()[0][:300]) if detail else "",
                    parts={part: float(by_part[part][0]) if part in by_part and not fault else None for part in PARTS})


def _feedback_text(sub: Submission, result: dict[str, Any], source: Path | None) -> str:
    name = f"{sub.student}: {sub.notebook.relative_to(source)}" if sub.notebook else sub.student  # type: ignore[arg-type]
    table: str = result["table"]
    return table.replace(SUBMISSION_TOKEN, safe_line(name), 1) + "\n"


def _graded_version(sub: Submission, task: dict[str, Any], result: dict[str, Any], log: Log) -> dict[str, Any]:
    """``result`` for ``sub``, its row and record keyed by the sha256 of the bytes that were graded.

    The hash taken when the batch began only chose what to grade: a file replaced since then was graded as
    the grading process read it, and its row, its record and the next run's reuse go by that version's hash
    (the next run regrades it unless the file is still that version). A student whose identical notebook was
    graded through another's file gets that result only if the bytes graded are still what they submitted.
    """
    graded = result.get("sha256") if isinstance(result, dict) else None
    if not graded or graded == sub.sha256:
        return result
    if str(sub.notebook) == task["path"]:
        log.write(f"{sub.student}: the notebook changed after the run began (sha256={sub.sha256[:12]}); graded as "
                  f"read, sha256={graded[:12]}")
        sub.sha256 = graded
        return result
    from .batch_pool import grader_error
    message = "the notebook this one was graded with changed while it was graded; the next run grades it"
    return grader_error(message, message, result.get("seconds") or 0.0)


def _write_result_or_error(sub: Submission, result: dict[str, Any], feedback: Path, source: Path, key: str,
                           log: Log) -> ClassRow:
    """``_write_result``; if that fails, a grader-error row (retried on the next run) and the reason in the log."""
    try:
        return _write_result(sub, result, feedback, source, key, log)
    except Exception:  # noqa: BLE001 - one student's files must not stop the class
        log.write(f"could not write the result of {sub.student}:\n{traceback.format_exc()}")
        try:
            (feedback / sub.student / "record.json").unlink(missing_ok=True)
        except OSError:
            pass
        return _row(sub, {"status": Row.GRADER_ERROR, "problem": "the grader could not write this result"}, source)


def _write_result(sub: Submission, result: dict[str, Any], feedback: Path, source: Path, key: str,
                  log: Log) -> ClassRow:
    """results.json and feedback.txt, then record.json last: a record means a finished result."""
    folder = feedback / sub.student
    row = _row(sub, result, source)
    out.write_atomic(folder / "results.json", json.dumps(result["gradescope"], indent=2) + "\n")
    out.write_atomic(folder / "feedback.txt", _feedback_text(sub, result, source))
    record = BatchRecord(student=sub.student, sha256=sub.sha256, key=key, row=row,
                         finished=time.strftime("%Y-%m-%dT%H:%M:%S"))
    out.write_atomic(folder / "record.json", record.to_json())
    total = "none" if row.total is None else f"{row.total:g}"  # a grader error has no total
    log.write(f"graded {sub.student} sha256={sub.sha256[:12]} status={row.status} total={total} "
              f"seconds={row.seconds or 0:g}")
    for internal in result.get("internal") or []:
        log.write(f"internal error while grading {sub.student}:\n{redact(internal)}")
    return row


def _write_problems(problems: Sequence[Submission], rows: dict[str, ClassRow], feedback: Path, settings: Settings,
                    log: Log, checks: Path | None = None) -> None:
    """Students without a gradable notebook: zero points, and feedback that says why."""
    from ..engine import report as rep
    from ..engine.grade import failed_everywhere

    for sub in problems:
        try:
            report = failed_everywhere(SUBMISSION_TOKEN, f"Your submission could not be graded: {sub.detail}",
                                       settings.parts or None)
            result: dict[str, Any] = {"status": sub.status, "score": 0.0, "by_part": report.by_part(), "problem": sub.detail,
                      "seconds": 0.0, "gradescope": rep.gradescope(report, settings.visibility, level=settings.feedback),
                      "table": rep.table(report, level=settings.feedback)}
            result["by_part"] = {p: list(v) for p, v in result["by_part"].items()}
            folder = feedback / sub.student
            out.write_atomic(folder / "results.json", json.dumps(result["gradescope"], indent=2) + "\n")
            out.write_atomic(folder / "feedback.txt", _feedback_text(sub, result, None))
            (folder / "record.json").unlink(missing_ok=True)
            if checks is not None:  # a stale one from an earlier notebook of this student
                (checks / f"{sub.student}.json").unlink(missing_ok=True)
            rows[sub.student] = _row(sub, result, None)
            log.write(f"{sub.status} {sub.student}: {redact(sub.detail)}")
        except Exception:  # noqa: BLE001 - one student's files must not stop the class
            log.write(f"could not write the result of {sub.student}:\n{traceback.format_exc()}")
            rows[sub.student] = _row(sub, {"status": sub.status or Row.GRADER_ERROR, "problem": sub.detail}, None)


class Log:
    """Append-only run log next to the CSV: what was graded, what was reused, grader tracebacks."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, line: str) -> None:
        """One entry; student-controlled text in it is escaped (callers redact the messages they add)."""
        try:
            with open(self.path, "a", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {safe_line(line, multiline=True)}\n")
                handle.flush()
        except OSError as err:  # a full disk: the command's one line names the log
            raise OutputError(self.path, err) from err
