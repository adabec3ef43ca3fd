"""What `nbgrader generate_feedback` does with this assignment's notebooks (config.py puts it in a course).

  HideHiddenTests    no hidden-test line, no internal traceback, no model answer
  FeedbackTitles     part names and points for the feedback's table of contents
  FeedbackStyle      long output lines wrap
  FeedbackExporter   nbgrader's feedback template with our table of contents; for any other
                     assignment, exactly the exporter nbgrader would use

Like preprocessors.py, each of them leaves other assignments' notebooks as nbgrader would.
"""
import os
from typing import Any, cast

from nbconvert.exporters import HTMLExporter
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import List
from traitlets.config import Config

from ... import notebook_meta
from . import BEGIN, END
from .preprocessors import MODEL_ANSWER, Processed, ours


class FeedbackPreprocessor(NbGraderPreprocessor):  # type: ignore[misc]  # nbgrader: not annotated
    """Base of the generate_feedback preprocessors: the HTML exporter hands every preprocessor its
    `display_data_priority` setting, which nbgrader's base class does not declare configurable (a
    "Config option not recognized" warning per preprocessor in every feedback log)."""

    display_data_priority = List(NbGraderPreprocessor.display_data_priority.default_value).tag(config=True)

    def __call__(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        # nbgrader's preprocessors are not annotated: they return (nb, resources)
        return cast(Processed, super().__call__(nb, resources)) if ours(resources) else (nb, resources)


class HideHiddenTests(FeedbackPreprocessor):
    """Feedback only: drop hidden-test regions and internal tracebacks from autograder test cells.

    nbgrader's feedback is the autograded notebook as HTML, and at autograde time the
    test cells were restored from the instructor notebook (hidden tests included). The
    student keeps the cell's printed result; a cell that raised keeps only `Name: message`.
    """

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        nb.cells = [c for c in nb.cells if notebook_meta.cell_kind(c) != MODEL_ANSWER]
        return cast(Processed, super().preprocess(nb, resources))  # nbgrader: not annotated

    def preprocess_cell(self, cell: NotebookNode, resources: dict[str, Any], index: int) -> Processed:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not meta.get("grade") or meta.get("solution"):
            return cell, resources
        kept: list[str] = []
        hiding = False
        for line in cell.source.splitlines():
            if BEGIN in line:
                hiding = True
            elif END in line:
                hiding = False
            elif not hiding:
                kept.append(line)
        cell.source = "\n".join(kept).rstrip()
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources


class FeedbackTitles(FeedbackPreprocessor):
    """Feedback: each graded cell's title in the table of contents, e.g. "masks (18 points)"
    or "Q1 q1_positions (written, 5 points)", read by the FeedbackExporter's template."""

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        written = 0
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if not meta.get("grade"):
                continue
            points = meta.get("points")
            worth = f"{float(points):g} points" if points is not None else "ungraded"
            grade_id = meta.get("grade_id", "")
            if cell.get("cell_type") == "markdown":
                written += 1
                title = f"Q{written} {grade_id} (written, {worth})"
            else:
                part = grade_id.removesuffix("_tests")
                title = f"{part} ({worth})"
            cell.metadata.setdefault(notebook_meta.KEY, {})["title"] = title
        return nb, resources


FEEDBACK_CSS = """
/* autograder: long lines wrap instead of running off the page */
div.output_area pre, div.output_text pre, div.output_subarea pre, div.input_area pre, .highlight pre {
  white-space: pre-wrap;
  word-wrap: break-word;
  overflow-wrap: anywhere;
}
div.output_subarea { max-width: 100%; overflow-x: auto; }
"""


class FeedbackStyle(FeedbackPreprocessor):
    """Feedback: CSS inlined into the page's <head> (nbgrader's template renders resources.inlining.css)."""

    def preprocess(self, nb: NotebookNode, resources: dict[str, Any]) -> Processed:
        inlining = resources.setdefault("inlining", {})
        inlining["css"] = list(inlining.get("css", [])) + [FEEDBACK_CSS]
        return nb, resources


TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")


class FeedbackExporter(HTMLExporter):
    """generate_feedback's exporter: template `autograder_feedback` (nbgrader's feedback template with
    the part names in its table of contents) for this assignment; for any other, the HTMLExporter
    nbgrader would have made, with the same preprocessors. Its own class, so the formgrader's
    HTMLExporter settings are untouched."""

    def __init__(self, config: Config | None = None, **kwargs: Any) -> None:
        import nbgrader

        self._stock_args = (config, dict(kwargs))  # what nbgrader gave: the other assignments' exporter
        self._stock: HTMLExporter | None = None
        nbgrader_templates = os.path.join(os.path.dirname(os.path.abspath(nbgrader.__file__)),
                                          "server_extensions", "formgrader", "templates")
        config = Config(config) if config is not None else Config()
        # Set before the exporter resolves its template paths; this class's section beats HTMLExporter's.
        config.FeedbackExporter.template_name = "autograder_feedback"
        config.FeedbackExporter.extra_template_basedirs = [TEMPLATES, nbgrader_templates]
        # ... and nbgrader's template root on the loader's path, so ours can extend 'feedback/index.html.j2'
        # (the CSS folder GenerateFeedback sets for HTMLExporter is kept: the page includes bootstrap from it).
        given = list(config.HTMLExporter.get("extra_template_paths", []))
        config.FeedbackExporter.extra_template_paths = given + [nbgrader_templates]
        super().__init__(config=config, **kwargs)  # type: ignore[no-untyped-call]  # nbconvert: not annotated

    # HTMLExporter's signature: the page (str), where the base Exporter's returns a notebook (nbconvert's own
    # exporters ignore this override error too)
    def from_notebook_node(  # type: ignore[override]
            self, nb: NotebookNode, resources: dict[str, Any] | None = None, **kw: Any) -> tuple[str, dict[str, Any]]:
        if ours(resources):
            return super().from_notebook_node(nb, resources, **kw)
        if self._stock is None:
            config, kwargs = self._stock_args
            self._stock = HTMLExporter(config=config, **kwargs)  # type: ignore[no-untyped-call]  # nbconvert: not annotated
            for preprocessor in self._preprocessors:  # ours leave this notebook alone
                self._stock.register_preprocessor(preprocessor)  # type: ignore[no-untyped-call]  # nbconvert: not annotated
        return self._stock.from_notebook_node(nb, resources, **kw)


__all__ = ["FeedbackExporter", "FeedbackStyle", "FeedbackTitles", "HideHiddenTests"]
