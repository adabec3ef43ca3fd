"""The one way a flow grades notebooks: ``with Grader(settings) as g: report = g.grade(path)``.

The Grader owns the worker template (engine/template.py) and the order its safety rests on:

* Entering the block starts the template. A flow opens the block before it reads anything
  of the grades (roster, gradebook, records, other students' results) and before the
  hidden suites, the reference or the secret are loaded: a template forked from this
  process carries what the process holds into every worker, so the earlier the better.
  (The template itself refuses to fork a process holding hidden code or the secret and
  starts a fresh interpreter instead; grade_notebook reads the secret only after the fork.)
* Before each grade, a template that died or stopped answering is replaced, so one
  submission that took the template down costs the rest of the class nothing.
* Leaving the block, however it is left, closes the template and every worker.

Student code runs only in the workers; the Grader's process runs the hidden suites.
A new flow is one module: find its submissions, grade each inside the block, render each
report with ``g.feedback`` (engine/report.py).
"""
from __future__ import annotations

import os
from collections.abc import Iterable

from ..sandbox.confinement import Confinement, probe
from .grade import GradeReport, grade_notebook
from ..settings import Limits, Settings
from .template import Template


class Grader:
    def __init__(self, settings: Settings | None = None, slot: int = 0,
                 hide: Iterable[str | os.PathLike[str]] = ()) -> None:
        self.settings = settings or Settings()  # autograder/settings.py: the one record every flow grades with
        self.limits: Limits = self.settings.limits
        self.feedback = self.settings.feedback  # what students are shown: the level every report of this flow renders
        self.slot = slot  # which of grade-all's grading processes this is (Template(slot=k))
        self.hide = tuple(str(h) for h in hide)  # folders no worker may see, for every grade
        self.confinement: Confinement | None = None
        self.template: Template | None = None

    def start(self) -> Grader:
        """Probe the confinement and start the template now (entering the block does): before the flow reads
        any grade data. ConfinementUnavailable when no worker can be confined here: nothing is graded."""
        if self.template is None:
            self.confinement = probe(self.settings.confinement, self.settings.unsafe_no_sandbox)
            self.template = Template(self.confinement, slot=self.slot)
        return self

    def grade(self, path: str | os.PathLike[str], parts: Iterable[str] | None = None,
              hide: Iterable[str | os.PathLike[str]] = (), data: bytes | None = None) -> GradeReport:
        """The report of the notebook at ``path`` (``parts``: only these; ``hide``: more folders for this one;
        ``data``: its bytes, already read by the caller: graded as they are, the file not read again)."""
        if self.template is None:
            raise RuntimeError("Grader.grade outside its with-block: the template must start before any grade "
                               "data is read")
        if not self.template.alive():  # a dead or stuck template would fail every check as a grader error
            self.template.close()
            self.template = Template(self.confinement, slot=self.slot)  # type: ignore[arg-type]  # probed by start()
        parts = parts if parts is not None else (self.settings.parts or None)
        return grade_notebook(path, self.template, parts, self.limits, hide=[*self.hide, *map(str, hide)], data=data)

    def close(self) -> None:
        template, self.template = self.template, None
        if template is not None:
            template.close()

    def __enter__(self) -> Grader:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()
