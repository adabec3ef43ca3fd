"""This assignment in nbgrader: the plain nbgrader commands, its grades from the sandbox.

    python -m autograder install-nbgrader COURSE      once per course (install.py)
    nbgrader autograde week7_attention                 ... and every other nbgrader command, as usual

  install.py        the one install step: two lines in the course's nbgrader_config.py, the kernel
                    spec, the assignment in source/ and the gradebook (generate_assignment)
  config.py         those lines' function: this package's preprocessors in nbgrader's lists, and the
                    settings c.SandboxGrading.* (feedback level, the service's idle time)
  preprocessors.py  per assignment (others are untouched): metadata repair, SandboxGrade (the grading
                    service grades the submitted bytes), the isolated kernel, model answers for graders
  feedback.py       generate_feedback: no hidden tests, part titles, wrapping
  service.py        the course's grading service: a warm Grader behind a private Unix socket (address.py)
  client.py         how nbgrader's process reaches it (and starts it)
  record.py         a submission's bytes and its sandboxed grade, kept in COURSE/isolated/<student>/
  kernel.py         the Jupyter kernel nbgrader runs for this notebook (``kernel_name``): it runs no
                    code, it answers each test cell with the recorded part score (kernelspec.py)
  course.py         `make nbgrader-autograde`: nbgrader autograde with a progress bar, the gradebook
                    checked against the records, generate_feedback, export (a convenience)
  hand.py           hand scores of the written answers into the gradebook

Several assignments in one course (issue 29). Each nbgrader assignment the course grades in the sandbox is
named, with the assignment package that grades it, by a line of the course's nbgrader_config.py (the
instructor's file): `grade_in_sandbox(c)` is the assignment of the discovery rule (week 7 unless the
instructor's $AUTOGRADER_ASSIGNMENT says otherwise), `grade_in_sandbox(c, "solutions.week6_bigram")` another
(install-nbgrader writes it). ``REGISTERED`` maps nbgrader assignment names (the package's Assignment.name,
which is the nbgrader folder) to them; nothing a student submits is read to choose it: nbgrader names the
assignment by its folder and its command line. Each assignment has its own kernel spec (the one its package
declares, plugin_api.Assignment.kernel, else `<name>-isolated`), records folder and grading service (a process
that loaded that package alone: ``autograder.assignment`` is once per process). The default assignment keeps the
records and log names the flow had while it served one assignment alone (COURSE/isolated/,
logs/grading-service.log), and week 7 declares its kernel's name of then, so a course set up then works unchanged.

This module stays light (no nbgrader, no torch): the kernel imports it.
"""
import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import cache

from ...assignment import ASSIGNMENT as _CURRENT, NAME, PART_IDS as PARTS
from ...plugin_api import DEFAULT_ASSIGNMENT, Assignment, load

ASSIGNMENT = NAME  # the current assignment's (discovery rule): `make nbgrader-autograde`, crosscheck, hand scores
RECORDS = "isolated"  # COURSE/isolated/<student>/{submitted.ipynb,record.json}: never shown to students
BEGIN, END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"
# The hook line solutions/release/build.py writes into each test cell (inside the hidden region).
HOOK = re.compile(r"^grade_part\((['\"])(\w+)\1, globals\(\)\)\s*$", re.M)


@cache
def default_name() -> str:
    """The default assignment's name (week 7's): the one whose records and log keep their old names."""
    return _CURRENT.name if _CURRENT.package == DEFAULT_ASSIGNMENT else load(DEFAULT_ASSIGNMENT).name


KERNEL = re.compile(r"[a-z0-9._-]+", re.I)  # what Jupyter allows in a kernel spec's name


def kernel_name(facts: Assignment) -> str:
    """The isolated kernel spec of an assignment: the one its package declares, else `<name>-isolated`."""
    name = facts.kernel or re.sub(r"[^a-z0-9.-]", "-", facts.name.lower()) + "-isolated"
    if not KERNEL.fullmatch(name):
        raise ValueError(f"{facts.package}: kernel {name!r} is not a Jupyter kernel name (letters, digits, '.-_')")
    return name


def records_folder(name: str) -> str:
    """The folder (in the course) of assignment ``name``'s records: COURSE/<it>/<student>/."""
    return RECORDS if name == default_name() else f"{RECORDS}-{name}"


@dataclass(frozen=True)
class Graded:
    """One assignment a course grades in the sandbox, and the names the flow gives its things."""

    facts: Assignment

    @property
    def name(self) -> str:
        return self.facts.name

    @property
    def package(self) -> str:
        return self.facts.package

    @property
    def parts(self) -> tuple[str, ...]:
        return self.facts.part_ids

    @property
    def kernel(self) -> str:
        return kernel_name(self.facts)

    @property
    def records(self) -> str:
        return records_folder(self.name)


@cache
def graded(package: str) -> Graded:
    """The assignment package ``package`` (its facts only: standard library) as this flow grades it."""
    return Graded(load(package))


CURRENT = graded(_CURRENT.package)
# nbgrader assignment name -> the package grading it: the current one, and each grade_in_sandbox(c, package) line.
REGISTERED: dict[str, Graded] = {CURRENT.name: CURRENT}


def register(package: str | None = None) -> Graded:
    """The course grades ``package``'s assignment in the sandbox (None: the current one); config.py calls it."""
    found = graded(package) if package else CURRENT
    known = REGISTERED.get(found.name)
    if known is not None and known.package != found.package:
        raise ValueError(f"nbgrader assignment {found.name} is graded by {known.package} already, not {found.package}")
    REGISTERED[found.name] = found
    return found


def registered(name: object) -> Graded | None:
    """The assignment graded in the sandbox under nbgrader assignment name ``name``, or None (nbgrader's own)."""
    return REGISTERED.get(name) if isinstance(name, str) else None


def part_of(grade_id: object, parts: Collection[str] = PARTS) -> str | None:
    """The part a graded cell belongs to (its grade_id is `<part>_tests`), or None."""
    if not isinstance(grade_id, str):
        return None
    part = grade_id[:-len("_tests")] if grade_id.endswith("_tests") else None
    return part if part in parts else None


def hooked_part(code: str | None, parts: Collection[str] | None = PARTS) -> str | None:
    """The part whose test-cell hook line `code` holds, or None (``parts``: None for any part name)."""
    match = HOOK.search(code or "")
    return match.group(2) if match and (parts is None or match.group(2) in parts) else None
