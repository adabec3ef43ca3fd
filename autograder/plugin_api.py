"""The plug-in interface: everything the engine knows of an assignment, it learns through here.

An assignment is one Python package (week 7's: ``solutions.week7_attention``). Its
``__init__.py`` imports nothing but the standard library and this module, and defines

    ASSIGNMENT: Assignment     its facts, and where its content is (checkout-relative paths)

The engine (``autograder/`` minus nothing: the package holds no assignment) never imports
an assignment by name; it asks ``autograder.assignment`` (``current()``), which finds the
package by the one rule below, once per process, and reads everything from it:

    DISCOVERY RULE  the environment variable ``AUTOGRADER_ASSIGNMENT`` names the assignment
                    package (a dotted module name importable from the grader's sys.path:
                    the checkout, or site-packages for the installed wheel); unset or empty,
                    it is ``DEFAULT_ASSIGNMENT`` (week 7), so every command works unchanged.

    IN NBGRADER     one course folder may hold several assignments, each graded in the sandbox by its own
                    package. The course's ``nbgrader_config.py`` (the instructor's file) names them, one line
                    each: ``grade_in_sandbox(c)`` the package of the rule above, ``grade_in_sandbox(c,
                    "solutions.week6_bigram")`` that package (``AUTOGRADER_ASSIGNMENT=<package> python -m
                    autograder install-nbgrader COURSE`` writes it). A package grades the nbgrader assignment
                    whose folder is its ``Assignment.name``; each is graded by a grading service that loaded it
                    alone (the rule above, the variable set to that package), with its own kernel spec and
                    records. Which package grades a notebook is never read from what a student submits (its
                    metadata, kernelspec or cells, all of which a student can change): nbgrader names the
                    assignment (its folder, its command line), the course's config the package.

What the engine hands to student functions beyond tensors (today: the lab's model, whose
forward passes the grader serves to a replica in the worker; the probes drawn per
submission; the warm-up of the worker template) comes from the package's ``served``
module, which implements the ``Served`` protocol below: the narrowest surface the trusted
grader and the sandboxed worker actually call. Everything else the assignment's hidden
suites use (probe models, the smoke-training lane, the reference runs) they import from
their own package; the engine never sees it.

Standard library only: the Makefile, the sandbox and the release tooling import it before
(or without) PyTorch.
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Mapping, Protocol, runtime_checkable

ASSIGNMENT_VARIABLE = "AUTOGRADER_ASSIGNMENT"
# The package graded when $AUTOGRADER_ASSIGNMENT is unset: week 7's, the assignment the engine was written for,
# so that every command and course set up before the plug-ins works unchanged (tests/test_imports.py allows it).
DEFAULT_ASSIGNMENT = "solutions.week7_attention"


@dataclass(frozen=True)
class Assignment:
    """One assignment's facts and the places of its content.

    Paths are posix and relative to the checkout (the folder holding ``autograder/`` and the
    assignment's packages): the same names in a checkout, an unzipped Gradescope copy and an
    installed wheel (``autograder.assignment`` turns them into files).
    """

    name: str
    """The assignment's name: nbgrader folder, notebook file stem, LMS column."""
    parts: Mapping[str, tuple[str, ...]]
    """{part id: graded function names}, parts and functions in notebook order. Part ids are the
    pytest markers, results.json tags, grades.csv columns."""
    uses: Mapping[str, tuple[str, ...]]
    """{graded function: the graded functions it calls directly}: how a failure is traced back to a
    function that fails its own checks, and a diagnosed cause looked for upstream."""
    package: str
    """The assignment package's dotted name (what the discovery rule named)."""
    suites: str
    """The folder of hidden pytest files (``test_<part>.py``, points beside each test). Never shown to a worker."""
    reference: str
    """The folder of the reference answers (a package). Never shown to a worker."""
    lab: str
    """The public lab module's file (e.g. ``lab.py``): the worker executes its source text, and the
    notebook holds a copy."""
    notebook_source: str
    """The notebook source instructors edit (prose and cell layout, ``.md``)."""
    student_notebook: str
    """The released student notebook (generated, committed; shipped with the grader for the written
    questions' text)."""
    served: str
    """Dotted name of the module implementing ``Served`` (what student functions are handed)."""
    facts: str = ""
    """The file where ``parts`` and ``uses`` are written: what the release names when the parts, the
    notebook source and the suites disagree, and what an author edits to add a part or a function."""
    diagnosis: str = ""
    """Dotted name of the misconception library (a ``Diagnoser`` class and a ``hints`` submodule with
    ``Check`` and ``follow_the_cause``, ``core.record``); empty: failed checks keep their static hints."""
    release: str = ""
    """Dotted name of the module whose ``build_course(...)`` builds the nbgrader course (``make release``)."""
    kernel: str = ""
    """The Jupyter kernel spec nbgrader runs this assignment's notebooks in (the nbgrader flow's isolated kernel;
    letters, digits, ``.``, ``_``, ``-``). Empty: ``<name>-isolated`` (lower-case, other characters as ``-``). A course's
    gradebook records it per notebook, so an assignment keeps the name it was first released with."""
    hidden: tuple[str, ...] = ()
    """Code never in a worker's memory or view (folders or files): the suites, the reference, the
    diagnosis. The template's guard refuses to fork a worker from a process holding any of it."""
    lab_code: tuple[str, ...] = ()
    """The given lab code (public: the student notebook holds a copy)."""
    grader_code: tuple[str, ...] = ()
    """Everything of the assignment the grader reads at grading time (the Gradescope zip, the resume key)."""
    reference_run: tuple[str, ...] = ()
    """What the reference smoke run's numbers depend on (its cache key), besides torch and the CPU."""
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Anything else the assignment wants to say about itself; the engine reads none of it."""

    @property
    def part_ids(self) -> tuple[str, ...]:
        """The part ids in notebook order."""
        return tuple(self.parts)

    def depends_on(self, function: str) -> tuple[str, ...]:
        """Every graded function ``function`` calls, directly or through another (``uses``, transitively)."""
        found: list[str] = []
        todo = list(self.uses.get(function, ()))
        while todo:
            used = todo.pop(0)
            if used not in found:
                found.append(used)
                todo += self.uses.get(used, ())
        return tuple(found)

    def served_module(self) -> Served:
        """The ``Served`` implementation (imports PyTorch: only the grader and the template ask)."""
        module: Any = importlib.import_module(self.served)
        return module  # a module whose functions implement the protocol

    def diagnosis_module(self) -> ModuleType | None:
        """The misconception library, or None when the assignment has none."""
        return importlib.import_module(self.diagnosis) if self.diagnosis else None


@runtime_checkable
class ModelServer(Protocol):
    """The grader's side of the models handed to one call: they stay in the grader, the worker gets
    stand-ins whose forward passes the grader runs (``serve``)."""

    seconds: float
    """The grader's CPU seconds this call's forward passes took (charged to the submission)."""
    forward_modes: list[bool]
    """For each forward pass run, whether it ran in training mode (dropout active)."""

    def outgoing(self, model: Any) -> Any:
        """The wire record (``sandbox.wire.values.RemoteModel``) that stands for ``model`` in the call's arguments."""

    def serve(self, op: Any) -> Any:
        """Run one forward-pass request (``protocol.ModelOp``) of the worker; the reply (``protocol.ModelResult``)."""

    def settle(self, reported: object) -> None:
        """Take the flags the worker reported for the models it was handed, once the call ended."""

    def modes(self) -> list[tuple[bool, ...]]:
        """Each handed model's train/eval flags after the call, in argument order."""


@runtime_checkable
class ReplicaSet(Protocol):
    """The worker's side (sandboxed): stand-ins for the grader's models, one call at a time."""

    def begin_call(self) -> None:
        """A call starts: models handed to earlier calls are no longer served."""

    def replica(self, spec: Any) -> Any:
        """The stand-in object the student's function receives for a ``wire.RemoteModel``."""

    def end_call(self) -> list[Any]:
        """A call ended: the flags of each model it was handed, for the reply."""


@runtime_checkable
class Served(Protocol):
    """What the engine hands to student functions besides plain values, and how (module-level functions
    of the assignment's ``served`` module). Called by the grader (``is_model``, ``model_server``,
    ``use_submission``), by the in-process transport of the package's tests (``mode_vector``,
    ``dropout_active``) and by the worker template before any fork (``warm_up``, ``replicas``)."""

    def is_model(self, value: object) -> bool:
        """True for an argument that must stay in the grader and be served (a lab model)."""

    def model_server(self, limits: Any, seconds: float) -> ModelServer:
        """A server for one call's models, bounded by ``limits`` (the submission's settings.Limits: tokens a pass
        and a call; not imported here, as settings reads the assignment's facts) and to ``seconds`` of the
        grader's CPU."""

    def replicas(self, channel: Any, lab: ModuleType) -> ReplicaSet:
        """The worker's stand-ins, asking the grader over ``channel``; ``lab`` is the public lab module."""

    def warm_up(self, lab: ModuleType) -> None:
        """Pay PyTorch's first-call costs of what the checks ask workers to do, once, in the template."""

    def mode_vector(self, model: Any) -> list[bool]:
        """The train/eval flag of every module of ``model``, in modules() order."""

    def dropout_active(self, model: Any) -> bool:
        """Whether a forward pass of ``model`` would run with dropout active."""

    def use_submission(self, base: int) -> None:
        """Draw this submission's probes from ``base`` from now on (0: the fixed, public probes); the
        engine derives ``base`` from its secret and the notebook's bytes (``engine.secret.submission_base``)."""


def load(package: str | None = None) -> Assignment:
    """The assignment the discovery rule names (``package`` overrides it): its package's ``ASSIGNMENT``."""
    name = package or os.environ.get(ASSIGNMENT_VARIABLE) or DEFAULT_ASSIGNMENT
    found = getattr(importlib.import_module(name), "ASSIGNMENT", None)
    if not isinstance(found, Assignment):
        raise TypeError(f"{name} (${ASSIGNMENT_VARIABLE}) defines no ASSIGNMENT = autograder.plugin_api.Assignment(...)")
    return found
