"""`nbgrader autograde` killed (SIGKILL) at each stage of its work on a student, then run again as typed:
never a silent 0 (issue 28).

The kill is deterministic: the course's nbgrader_config.py gets, for this test only, a few lines that
SIGKILL nbgrader's own process at a named stage (after the student's folder is set up, after the
sanitized notebook is written to autograded/, after our sandboxed execution, before and after nbgrader
saves the scores, after the autograded notebook is written). The plain rerun must end with the
student's full marks in the gradebook (what `grade` gives the solution), whatever stage the kill hit.
"""
import shutil
import signal
import subprocess

import nbformat
import pytest

from autograder.assignment import course_notebook
from autograder.flows.nbgrader import course as nc
from flows.nbgrader_course import BIN, instructor_course, nbgrader, services, shell_env
from flows.shared import ASSIGNMENT
from flows.submissions import dump, filled

pytestmark = pytest.mark.slow

STUDENT = "ann"
KILL_AT = """
# ---- test only: SIGKILL this nbgrader process at a named stage of its per-student work
import os as _os, signal as _signal
_STAGE = _os.environ.get("WEEK7_TEST_KILL_AT")
if _STAGE:
    from nbgrader.converters.autograde import Autograde as _Autograde
    from nbgrader.converters.base import BaseConverter as _Base
    from nbgrader.preprocessors import SaveAutoGrades as _Save
    from autograder.flows.nbgrader import preprocessors as _pp

    def _kill(stage):
        if stage == _STAGE:
            _os.kill(_os.getpid(), _signal.SIGKILL)

    def _wrap(cls, name, before=None, after=None):
        inner = getattr(cls, name)
        def wrapped(self, *args, **kwargs):
            if before:
                _kill(before)
            out = inner(self, *args, **kwargs)
            if after:
                _kill(after if not callable(after) else after(self))
            return out
        setattr(cls, name, wrapped)

    _writes = []
    def _written(self):
        _writes.append(1)
        return "sanitized-written" if len(_writes) == 1 else "autograded-written"

    _wrap(_Autograde, "init_assignment", after="assignment-set-up")
    _wrap(_Base, "write_single_notebook", after=_written)
    _wrap(_pp.IsolatedExecute, "preprocess", after="executed")
    _wrap(_Save, "preprocess", before="before-scores-saved", after="scores-saved")
"""
STAGES = ["assignment-set-up", "sanitized-written", "executed", "before-scores-saved", "scores-saved",
          "autograded-written"]
UNFINISHED = {"sanitized-written", "executed", "before-scores-saved"}  # the window: a silent 0 before the fix


@pytest.fixture(scope="module")
def course_with_one_student(tmp_path_factory):
    course = instructor_course(tmp_path_factory.mktemp("interrupted"))
    released = nbformat.read(course_notebook(course, "release", None), as_version=4)
    source = nbformat.read(course_notebook(course, "source", None), as_version=4)
    dump(nbformat.writes(filled(released, source)), course_notebook(course, "submitted", STUDENT))
    with open(course / "nbgrader_config.py", "a") as handle:
        handle.write(KILL_AT)
    return course


def _full_marks(points):
    return {p: top for p, (_, top) in points.items()}


@pytest.mark.parametrize("stage", STAGES)
def test_a_killed_autograde_then_the_plain_rerun_gives_the_real_score(course_with_one_student, tmp_path, stage):
    course = tmp_path / "course"
    shutil.copytree(course_with_one_student, course, symlinks=True)
    with services(course):
        killed = nbgrader_with(course, {"WEEK7_TEST_KILL_AT": stage}, "autograde", ASSIGNMENT)
        assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr[-3000:])
        rerun = nbgrader(course, "autograde", ASSIGNMENT)
        assert rerun.returncode == 0, rerun.stderr[-4000:]
        if stage in UNFINISHED:  # folder made, scores not saved: the rerun says so and grades them again
            assert f"{STUDENT}'s last autograde was interrupted" in rerun.stderr, rerun.stderr[-4000:]
        points = nc.gradebook_points(course, [STUDENT], auto=True)[STUDENT]
        assert points, rerun.stderr[-4000:]
        got = {p: score for p, (score, _) in points.items()}
        assert got == _full_marks(points), (stage, got, rerun.stderr[-3000:])
        export = nbgrader(course, "export")
        assert export.returncode == 0, export.stderr[-2000:]


def nbgrader_with(course, extra_env, *args):
    """`nbgrader ARGS` in the course folder with ``extra_env`` added to the instructor's shell."""
    return subprocess.run([str(BIN / "nbgrader"), *args], cwd=course, env={**shell_env(), **extra_env},
                          capture_output=True, text=True, timeout=1800)

