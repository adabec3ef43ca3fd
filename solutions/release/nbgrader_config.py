# nbgrader configuration of the generated course directory (copied there by `make release`).
import os

c = get_config()  # noqa: F821 - provided by nbgrader
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "week7"
c.CourseDirectory.db_assignments = [dict(name="week7_attention")]
# Student notebooks carry no outputs; test cells are restored from the source at autograde time.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# ---- Autograding (`make nbgrader-autograde`); each setting is exercised by tests/test_nbgrader_flow.py.
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor  # noqa: E402
from nbgrader.preprocessors import CheckCellMetadata, ClearOutput, DeduplicateIds, GetGrades, OverwriteKernelspec  # noqa: E402,E501

from autograder.flows.nbgrader_course import HideHiddenTests, RestoreDeletedCells  # noqa: E402

# Any stderr output zeroes a test cell, whatever score the cell returned. Warnings are not
# failures: drop stderr streams that hold one (`...: UserWarning: ...`, a logged `WARNING: ...`,
# PyTorch's C++ `[W ...] ...`). grade_part silences Python warnings, but not a logging handler
# the student set up (it holds the kernel's stderr).
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"(?mi)\b\w*warning\b|^\[W[\d ]"
# A student who deletes a graded cell is still graded: the cell is put back from the gradebook.
# (nbgrader's own OverwriteCells.add_missing_cells crashes on this notebook; see RestoreDeletedCells.)
c.OverwriteCells.add_missing_cells = True
c.Autograde.sanitize_preprocessors = [ClearOutput, DeduplicateIds, OverwriteKernelspec, RestoreDeletedCells,
                                      CheckCellMetadata]
# Seconds per cell (the training part trains a small model); a cell past it is interrupted and scores 0.
c.Execute.timeout = 240
c.Execute.interrupt_on_timeout = True
# Feedback HTML: no hidden-test source, no internal tracebacks from the graded cells.
c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, CSSHTMLHeaderPreprocessor]
