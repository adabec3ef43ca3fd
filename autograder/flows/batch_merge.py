"""grade-all merge SHARD_CSV... --out grades.csv: join the shards of a `grade-all --shard I/N` job array.

Each shard wrote its share of the class to its own --out (``shards/1/grades.csv`` ...) with
``<stem>_shard.json`` beside it (flows/batch_shard.py). The merge checks that the shards fit
together (every shard 1..N once, each run over the same class, every student of a share in its
shard's CSV), then writes what one plain `grade-all` of the whole folder writes: the CSV with the
rows in a plain run's order, ``<stem>_feedback/<student>/`` and ``<stem>_checks/<student>.json``
copied from the student's shard, ``<stem>_written.json``, the summary, report.html with its plots,
and, with --roster and --lms, the LMS import files; the shards' logs are appended to ``<stem>.log``.

Into an existing --out it merges by grade-all's own rule (batch_summary.merge): the class's rows
are added or replaced, every other row and feedback folder is kept, and one line says what changed;
``--replace`` writes only the class. --hand adds the hand scores after that, as grade-all does.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..assignment import NAME, PART_IDS as PARTS
from ..engine.submission_file import SubmissionStatus as Row
from . import batch, batch_shard, batch_summary as out
from .class_report import student_files, out_load


def parser() -> argparse.ArgumentParser:
    from .terminal import prog

    p = argparse.ArgumentParser(prog=f"{prog()} grade-all merge", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(handler=run, options=MergeOptions)
    p.add_argument("shards", nargs="+", help="the CSV each shard wrote (its --out)")
    p.add_argument("--out", default="grades.csv", help="the class's CSV; feedback goes to <stem>_feedback/")
    p.add_argument("--replace", action="store_true",
                   help="rewrite --out with only this class (default: merge into an existing --out)")
    p.add_argument("--roster", help="CSV with the columns student,name,email,lms_id (for --lms)")
    p.add_argument("--lms", choices=["canvas", "moodle"], action="append",
                   help="also write <stem>_canvas.csv / <stem>_moodle.csv (needs --roster; repeatable)")
    p.add_argument("--lms-assignment", default=NAME, help="the LMS grade column (as grade-all)")
    p.add_argument("--lms-missing", choices=["empty", "zero"], default="empty",
                   help="score of a roster student with no submission (as grade-all)")
    p.add_argument("--hand", help="hand scores of the written answers (as grade-all --hand)")
    return p


@dataclass(frozen=True)
class MergeOptions(batch.Exports):
    """`grade-all merge`'s options (it grades nothing: no settings)."""
    shards: list[str]
    out: str
    replace: bool


class MergeError(Exception):
    """The shards do not fit together; the message says which and what to do."""


class ShardOutput:
    """What one shard wrote: its CSV's rows, manifest, written answers, summary and per-student files."""

    def __init__(self, csv_path: str | Path) -> None:
        self.csv = Path(csv_path).resolve()
        self.stem = self.csv.with_suffix("")
        manifest = batch_shard.read_manifest(self.csv)
        self.shard, self.students, self.secret = manifest.shard, manifest.students, manifest.secret
        try:
            self.rows = {out.student_key(r.student): r for r in out.read_csv(self.csv)}
        except (OSError, ValueError) as err:
            raise MergeError(f"{self.csv}: not a grade-all CSV ({err})") from None
        written = out_load(f"{self.stem}_written.json")
        self.written = {out.student_key(w["student"]): w for w in written if isinstance(w, dict)} \
            if isinstance(written, list) else {}
        self.summary = out_load(f"{self.stem}_summary.json") or {}

    def feedback(self, student: str) -> Path:
        return Path(f"{self.stem}_feedback") / student

    def checks(self, student: str) -> Path:
        return Path(f"{self.stem}_checks") / f"{student}.json"


def load(paths: Sequence[str | Path]) -> list[ShardOutput]:
    """The shards, in shard order, checked to fit together; MergeError otherwise."""
    try:
        shards = [ShardOutput(p) for p in paths]
    except ValueError as err:
        raise MergeError(str(err)) from None
    counts = {s.shard.count for s in shards}
    if len(counts) != 1:
        raise MergeError("the shards were cut differently: " + ", ".join(f"{s.csv} is {s.shard}" for s in shards))
    count = counts.pop()
    indexes = sorted(s.shard.index for s in shards)
    missing = sorted(set(range(1, count + 1)) - set(indexes))
    doubled = sorted({i for i in indexes if indexes.count(i) > 1})
    if missing or doubled:
        raise MergeError("; ".join([*([f"shard {', '.join(f'{i}/{count}' for i in missing)} missing: run it, "
                                       "then merge again"] if missing else []),
                                    *([f"shard {', '.join(f'{i}/{count}' for i in doubled)} given twice"]
                                      if doubled else [])]))
    shards.sort(key=lambda s: s.shard.index)
    first = shards[0].students
    for s in shards[1:]:
        if s.students != first:
            added = sorted(set(s.students) - set(first))[:5]
            gone = sorted(set(first) - set(s.students))[:5]
            raise MergeError(f"shards {shards[0].shard} and {s.shard} saw different classes (the submissions changed "
                             f"between them: {added or ''} {gone or ''}); rerun every shard on the same folder")
    secrets = {s.secret for s in shards if s.secret}
    if len(secrets) > 1:
        raise MergeError("the shards drew their probes from different secrets (each job made its own "
                         "build/secret.key): give every job the course's secret file, then grade the shards again")
    for s in shards:
        share = [n for n in first if s.shard.holds(n)]
        absent = [n for n in share if out.student_key(n) not in s.rows]
        if absent:
            raise MergeError(f"{s.csv} (shard {s.shard}) has no row for {', '.join(map(repr, absent[:5]))}: "
                             "that shard did not finish; rerun it (it grades only what is missing)")
    return shards


def part_max(shards: Sequence[ShardOutput]) -> dict[str, float]:
    """{part: points} from the shards' summaries (grade-all wrote them), or from the suites when they lack one."""
    found = {}
    for s in shards:
        for part, stats in (s.summary.get("parts") or {}).items():
            if isinstance(stats, dict) and isinstance(stats.get("max_points"), (int, float)):
                found[part] = stats["max_points"]
    graded = {p for s in shards for r in s.rows.values() for p in PARTS if r.value(p) is not None}
    if not graded <= set(found):
        found.update(batch.part_points(None))
    return {p: found[p] for p in [*PARTS, *sorted(set(found) - set(PARTS))] if p in found}


def copy_student(source: Path, target: Path) -> None:
    """Put a copy of ``source`` (a file or folder) at ``target``, replacing what was there; nothing if absent."""
    if not source.exists():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.merging")
    shutil.rmtree(partial, ignore_errors=True)
    if source.is_dir():
        shutil.copytree(source, partial)
        shutil.rmtree(target, ignore_errors=True)
    else:
        shutil.copyfile(source, partial)
    partial.replace(target)


def run(options: MergeOptions) -> int:
    started = time.monotonic()
    try:
        shards = load(options.shards)
    except MergeError as err:
        print(f"grade-all merge: {err}", file=sys.stderr)
        return 2
    csv_path = Path(options.out).resolve()
    stem = csv_path.with_suffix("")
    if any(s.csv == csv_path for s in shards):
        print(f"grade-all merge: --out {options.out} is one of the shards; write the class to its own CSV", file=sys.stderr)
        return 2
    students = shards[0].students
    owner = {out.student_key(n): s for s in shards for n in students if s.shard.holds(n)}
    ordered = [owner[out.student_key(n)].rows[out.student_key(n)] for n in students]
    kept = [r for s in shards for k, r in s.rows.items() if k not in owner]  # rows a shard kept from earlier runs
    if kept:
        ordered = sorted(ordered + kept, key=lambda r: out.student_key(r.student))
    try:
        previous = None if options.replace else batch.previous_rows(csv_path)
        hand = batch.load_hand(options.hand, None, [r.student for r in ordered])
    except batch.Refused as why:
        print(why, file=sys.stderr)
        return 2
    if options.lms:
        from . import lms
        try:
            lms.read_roster(options.roster)
        except lms.RosterError as err:
            print(f"grade-all merge: {err}", file=sys.stderr)
            return 2
    log = batch.Log(Path(f"{stem}.log"))
    files = [(owner[out.student_key(n)], n) for n in students]  # each student's files from the shard that graded them
    files += [(s, n) for s in shards for k, r in s.rows.items() if k not in owner
              for n in student_files(s.stem, r.student)]
    for s, name in files:
        copy_student(s.feedback(name), Path(f"{stem}_feedback") / name)
        copy_student(s.checks(name), Path(f"{stem}_checks") / f"{name}.json")
    merged, change = batch.merge_rows(previous, ordered, csv_path.name)
    if hand:
        merged = batch.with_hand(merged, hand)
    out.write_csv(merged, csv_path)
    points = part_max(shards)
    if hand:
        points.update(hand["points"])
    summary = out.summarize(merged, points)
    summary["seconds"] = max((s.summary.get("seconds") or 0.0 for s in shards), default=0.0)  # the array's wall time
    out.write_summary(summary, stem)
    batch.write_written(csv_path, [owner[out.student_key(n)].written[out.student_key(n)] for n in students
                                   if out.student_key(n) in owner[out.student_key(n)].written])
    with open(log.path, "a", encoding="utf-8", errors="backslashreplace") as handle:
        for s in shards:
            shard_log = Path(f"{s.stem}.log")
            if shard_log.is_file():
                handle.write(f"---- shard {s.shard}: {shard_log}\n{shard_log.read_text(errors='backslashreplace')}")
    log.write(f"merged {len(shards)} shards ({', '.join(str(s.csv) for s in shards)}): {len(merged)} rows")
    print(out.summary_text(summary))
    print(f"\nwrote {csv_path}, {stem}_summary.txt, feedback in {stem}_feedback/ from {len(shards)} shards "
          f"({time.monotonic() - started:.1f} s)")
    if change:
        print(change)
        log.write(change)
    failed = batch.lms_exports(options, merged, csv_path, log, sum(points.values()))
    failed = batch.report(csv_path, log) or failed
    return 1 if summary["statuses"].get(Row.GRADER_ERROR) or failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    from ..command_line import run as run_command
    from .terminal import safe_streams

    safe_streams()
    return run_command(parser(), argv, "grade-all merge")
