# nbgrader configuration of the generated course directory (copied there by `make release`).
import os

c = get_config()  # noqa: F821 - provided by nbgrader
c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "week7"
# Student notebooks carry no outputs; test cells are restored from the source at autograde time.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"

# ---- Autograding (`make nbgrader-autograde` = python -m autograder.flows.nbgrader); each setting is
# exercised by tests/test_nbgrader_flow.py. No student code runs in nbgrader: the flow grades every
# submission in the sandbox first, and nbgrader's kernel (`week7-isolated`) only answers each test
# cell with that recorded score. A bare `nbgrader autograde` (no record) fails for every student.
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor  # noqa: E402
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearOutput, DeduplicateIds,  # noqa: E402
                                    GetGrades, IgnorePattern, LimitOutput, OverwriteKernelspec, SaveAutoGrades)

from autograder.flows.nbgrader import KERNEL_NAME  # noqa: E402
from autograder.flows.nbgrader.preprocessors import (FeedbackExporter, FeedbackStyle, FeedbackTitles,  # noqa: E402
                                                     HideHiddenTests, IsolatedExecute, MatchesRecord,
                                                     ModelAnswers, RestoreCellMetadata, RestoreDeletedCells)

# The kernel: nbclient runs the notebook's own kernelspec (`python3`) unless Execute.kernel_name is
# set; IsolatedExecute refuses any other kernel even without this line.
c.Execute.kernel_name = KERNEL_NAME
# Metadata tricks (duplicate grade_id, a test cell re-marked as a solution, changed cell types, bogus
# grade cells) would make autograde fail for the student: RestoreCellMetadata puts the instructor's
# metadata back first. MatchesRecord: the file nbgrader reads is the one the isolated grader graded.
# A deleted test cell is put back (nbgrader 0.9.6's own add_missing_cells crashes on this notebook).
c.OverwriteCells.add_missing_cells = True
c.Autograde.sanitize_preprocessors = [RestoreCellMetadata, MatchesRecord, ClearOutput, DeduplicateIds,
                                      OverwriteKernelspec, RestoreDeletedCells, CheckCellMetadata]
c.Autograde.autograde_preprocessors = [IsolatedExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
                                       SaveAutoGrades, AssignLatePenalties, CheckCellMetadata,
                                       ModelAnswers]  # graders see the model answers in the formgrader
# Any stderr output zeroes a test cell. The isolated kernel writes none; kept as a guard.
c.IgnorePattern.enabled = True
c.IgnorePattern.pattern = r"(?mi)\b\w*warning\b|^\[W[\d ]"
# Seconds per cell: the kernel answers at once; a silent kernel is a fault, and the cell scores 0.
c.Execute.timeout = 60
c.Execute.interrupt_on_timeout = True
# Feedback HTML: no hidden-test source, no internal tracebacks from the graded cells, no model answers;
# part names and points in the table of contents; long output lines wrap.
c.GenerateFeedback.preprocessors = [GetGrades, HideHiddenTests, FeedbackTitles, CSSHTMLHeaderPreprocessor,
                                    FeedbackStyle]
c.GenerateFeedback.exporter_class = FeedbackExporter
