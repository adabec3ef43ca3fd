"""The written answers of one submission, with the experiment cells they refer to.

Nothing is executed: the notebook is read (through engine/submission_file.py, the one way
every flow opens an upload) and the outputs the student saved in it are what is shown.

The questions come from the released notebook (trusted, committed): each written answer is
a Markdown cell with nbgrader metadata ``grade: true, solution: true``; its question is the
Markdown cell before it that holds the label ``**Qn (title).**``.

In a submission:

* **Answer.** The cell whose nbgrader ``grade_id`` is the question's. If no cell carries it
  (metadata stripped, cell re-created), the first Markdown cell after the cell holding the
  question's label ``Qn (`` and before the next question's label. An answer that is empty or
  still nbgrader's placeholder ``YOUR ANSWER HERE`` is *blank*.
* **Experiment cells.** (1) Every non-empty code cell of the written section (from the first
  question's label to the end of the notebook, or to the next ``#``/``##`` heading after the last
  question) belongs to the question whose label comes last before it (a given cell that was never
  run is skipped).
  (2) Elsewhere, a code cell the student added or changed (its code is not one of the released
  notebook's code cells) that contains ``not GRADING`` (the notebook asks for experiments inside
  ``if not GRADING:``) is an experiment too: of question n if it, or the Markdown cell right
  above it, names ``Qn``; otherwise it is listed as one of the student's *other* experiments.
* **Outputs.** Saved outputs of those cells: printed text (cut to 4,000 characters per cell),
  errors (name and message), and PNG/JPEG images (checked to be what they claim, at most 8 MiB
  and 12 per cell): the student's plots. HTML, SVG and JavaScript outputs are not shown.
"""
import base64
import binascii
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...assignment import STUDENT_NOTEBOOK
from ...engine import submission_file

RELEASED = STUDENT_NOTEBOOK
PLACEHOLDER = "YOUR ANSWER HERE"
# How much of a saved output the TAs' pages show (nothing of the submission runs here): this page's presentation,
# not Limits; the notebook itself is read within Limits.notebook_mib.
MAX_TEXT = 4000
MAX_IMAGE_BYTES = 8 << 20
MAX_IMAGES = 12
# A question's label, "**Q1 (ablate positions, 5 points).**", as student text may hold it. Every part is
# bounded and only a cell's first LABEL_SPAN characters are searched: int() of a 5000-digit "Q…" raised
# (Python's 4300-digit limit, red team round 3), and an unbounded "(...)" made the search quadratic in
# the cell (2 MB of "**Q1(" took ~40 min, round 4), in the batch parent, for the whole class.
LABEL = re.compile(r"\*\*\s{0,20}Q(\d{1,3})\s{0,20}\(([^)\n]{0,200})\)\s{0,20}\.?\s{0,20}\*\*")
LABEL_SPAN = 2000  # a label opens its cell (the released question cells do)
IMAGE_MAGIC = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff"}
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


UNREADABLE = "unreadable"  # a notebook whose cells the extraction rule itself failed on


@dataclass
class Question:
    key: str        # q1, q2, q3: the hand.csv column
    number: int
    grade_id: str   # nbgrader's cell id, e.g. q1_positions
    points: float
    title: str      # "ablate positions"
    text: str       # the question's Markdown, from its label on


@dataclass
class Output:
    kind: str              # "text", "error" or "image"
    text: str = ""
    mime: str = ""
    data: str = ""         # base64 of an image


@dataclass
class Cell:
    index: int             # position in the student's notebook (0-based)
    source: str
    outputs: list[Output] = field(default_factory=list)
    truncated: bool = False

    @property
    def images(self) -> list[Output]:
        return [o for o in self.outputs if o.kind == "image"]


@dataclass
class Answer:
    question: Question
    text: str = ""
    found: str = "missing"  # "grade_id", "after the question" or "missing"
    cell: int = -1
    attachments: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> {mime: base64}, images only
    experiments: list[Cell] = field(default_factory=list)

    @property
    def blank(self) -> bool:
        return self.text.strip() in ("", PLACEHOLDER)

    @property
    def words(self) -> int:
        return 0 if self.blank else len(self.text.split())


@dataclass
class Written:
    student: str
    notebook: str = ""      # path relative to the submissions folder
    status: str = "read"    # "read", or the reason nothing was read (grade-all's statuses, or UNREADABLE)
    problem: str = ""
    answers: dict[str, Answer] = field(default_factory=dict)  # key -> Answer
    other: list[Cell] = field(default_factory=list)    # experiment cells tied to no question


# ---- the questions (from the released notebook) ------------------------------------------------

def _source(cell: object) -> str:
    source = cell.get("source", "") if isinstance(cell, dict) else ""
    if isinstance(source, list):
        return "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


def _nbgrader(cell: object) -> dict[str, Any]:
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    meta = meta.get("nbgrader") if isinstance(meta, dict) else None
    return meta if isinstance(meta, dict) else {}


def has_questions(released: str | os.PathLike[str] = RELEASED) -> bool:
    """Whether the released notebook has any written-answer cell (nbgrader's graded Markdown solution cells):
    an assignment without written answers has nothing to extract, and grade-all skips the extraction."""
    nb = json.loads(Path(released).read_text(encoding="utf-8"))
    return any(cell.get("cell_type") == "markdown" and _nbgrader(cell).get("grade") and _nbgrader(cell).get("solution")
               for cell in nb["cells"])


def questions(released: str | os.PathLike[str] = RELEASED) -> list[Question]:
    """The written questions of the released notebook, in order: [Question]."""
    nb = json.loads(Path(released).read_text(encoding="utf-8"))
    label: tuple[int, str, str] | None
    cells, found, label = nb["cells"], list[Question](), None
    for cell in cells:
        text = _source(cell)
        if cell.get("cell_type") == "markdown":
            match = LABEL.search(text)
            if match:
                label = (int(match.group(1)), match.group(2).strip(), text[match.start():].strip())
        meta = _nbgrader(cell)
        if cell.get("cell_type") == "markdown" and meta.get("grade") and meta.get("solution"):
            if label is None:
                raise ValueError(f"written answer {meta.get('grade_id')} has no question label before it")
            number, title, qtext = label
            found.append(Question(f"q{number}", number, meta["grade_id"], float(meta.get("points") or 0),
                                  title, qtext))
            label = None
    if not found:
        raise ValueError(f"{released} has no written-answer cell")
    return found


def released_code(released: str | os.PathLike[str] = RELEASED) -> set[str]:
    """The normalised code of every code cell of the released notebook (to tell what a student added)."""
    nb = json.loads(Path(released).read_text(encoding="utf-8"))
    return {_normal(_source(c)) for c in nb["cells"] if c.get("cell_type") == "code"}


def _normal(code: str) -> str:
    return "\n".join(line.rstrip() for line in code.strip().splitlines())


# ---- one submission ------------------------------------------------------------------------------

class NotANotebook(Exception):
    """The file cannot be read as a notebook; ``str()`` is for the student, ``kind`` a grades.csv status."""

    def __init__(self, message: str, kind: str = submission_file.NOT_A_NOTEBOOK) -> None:
        super().__init__(message)
        self.kind = kind


def read_cells(path: str | os.PathLike[str], notebook_mib: int) -> list[dict[str, Any]]:
    """The cells (list of dicts) of the notebook at ``path``, within ``notebook_mib`` (Limits.notebook_mib);
    else NotANotebook."""
    path = Path(path)
    try:
        data = submission_file.read_notebook(path, notebook_mib)
    except submission_file.SubmissionFileError as err:
        raise NotANotebook(str(err), err.kind) from None
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotANotebook(f"{path.name} is not a text file, so it cannot be a Jupyter notebook") from None
    try:
        nb = json.loads(raw)
        if not (isinstance(nb, dict) and nb.get("nbformat") == 4 and isinstance(nb.get("cells"), list)):
            import nbformat  # other versions and odd shapes: nbformat converts or refuses

            nb = nbformat.reads(raw, as_version=4)  # type: ignore[no-untyped-call]  # nbformat: not annotated
    except Exception as err:  # noqa: BLE001 - nbformat raises several kinds for bad JSON
        first = str(err).splitlines()[0][:200] if str(err) else type(err).__name__
        raise NotANotebook(f"{path.name} is not a valid Jupyter notebook ({first})") from None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise NotANotebook(f"{path.name} has no list of cells")
    return [c if isinstance(c, dict) else {} for c in cells]


def extract(path: str | os.PathLike[str], student: str, notebook_mib: int, qs: Sequence[Question] | None = None,
            given: set[str] | None = None, notebook: str = "") -> Written:
    """The Written record of the notebook at ``path`` (read within ``notebook_mib``, Limits.notebook_mib); never
    raises for a bad submission: whatever one notebook holds, every other student's answers are still extracted."""
    qs = qs or questions()
    given = released_code() if given is None else given
    written = Written(student, notebook, answers={q.key: Answer(q) for q in qs})
    try:
        cells = read_cells(path, notebook_mib)
    except NotANotebook as err:
        written.status, written.problem = err.kind, str(err)
        return written
    try:
        return _extract(cells, written, qs, given)
    except Exception as err:  # noqa: BLE001 - a notebook this rule cannot read is that student's row, not the class's
        return Written(student, notebook, UNREADABLE, f"its written answers could not be read ({type(err).__name__}); "
                       f"open the notebook itself", {q.key: Answer(q) for q in qs})


def _extract(cells: list[dict[str, Any]], written: Written, qs: Sequence[Question], given: set[str]) -> Written:  # noqa: C901 - one pass over the cells, a branch per kind of cell
    by_number = {q.number: q for q in qs}
    labels: dict[int, int] = {}  # cell index -> question number whose label the cell holds
    for i, cell in enumerate(cells):
        if cell.get("cell_type") == "markdown":
            match = LABEL.search(_source(cell)[:LABEL_SPAN])
            if match and int(match.group(1)) in by_number:
                labels.setdefault(int(match.group(1)), i)
    label_at = {i: n for n, i in labels.items()}
    # Answers: by grade_id, else the first Markdown cell after the label.
    for q in qs:
        answer = written.answers[q.key]
        for i, cell in enumerate(cells):
            if _nbgrader(cell).get("grade_id") == q.grade_id:
                answer.found, answer.cell = "grade_id", i
                break
        else:
            start = labels.get(q.number)
            if start is not None:
                for i in range(start + 1, len(cells)):
                    if i in label_at:
                        break
                    if cells[i].get("cell_type") == "markdown":
                        answer.found, answer.cell = "after the question", i
                        break
        if answer.cell >= 0:
            cell = cells[answer.cell]
            answer.text = _source(cell)
            answer.attachments = _image_attachments(cell.get("attachments"))
    answer_cells = {a.cell for a in written.answers.values()}
    # The written section starts at the first label (or the first answer found by grade_id).
    starts = [i for i in labels.values()] + [a.cell for a in written.answers.values() if a.found == "grade_id"]
    section = min(starts) if starts else len(cells)
    end = len(cells)  # a top-level heading after the last question closes the section
    for i in range(max(starts + [section]) + 1, len(cells)):
        if cells[i].get("cell_type") == "markdown" and re.match(r"\s{0,3}#{1,2}\s", _source(cells[i])):
            end = i
            break
    current = None
    number: int | None  # the question an experiment cell belongs to (None: one of the other experiments)
    for i, cell in enumerate(cells):
        if i in label_at:
            current = label_at[i]
        code = _source(cell)
        if cell.get("cell_type") != "code" or i in answer_cells or not code.strip():
            continue
        if section <= i < end:
            if _normal(code) in given and not cell.get("outputs"):
                continue  # a given cell never run
            number = current if current is not None else qs[0].number
        elif "not GRADING" in code and _normal(code) not in given:
            number = _named(code) or _named(_source(cells[i - 1]) if i and cells[i - 1].get("cell_type") == "markdown"
                                            else "")
            number = number if number in by_number else None
        else:
            continue
        entry = _cell(i, cell)
        if number is None:
            written.other.append(entry)
        else:
            written.answers[by_number[number].key].experiments.append(entry)
    return written


def _named(text: str) -> int | None:
    match = re.search(r"\bQ(\d{1,3})\b", text, re.I)
    return int(match.group(1)) if match else None


def _cell(index: int, cell: dict[str, Any]) -> Cell:
    out = Cell(index, _source(cell))
    texts: list[str] = []
    data: Any  # an output's mime bundle (the notebook's JSON)
    outputs = cell.get("outputs")
    for o in outputs if isinstance(outputs, list) else []:
        if not isinstance(o, dict):
            continue
        kind = o.get("output_type")
        if kind == "stream":
            texts.append(_text(o.get("text")))
        elif kind == "error":
            texts.append(f"{_text(o.get('ename'))}: {_text(o.get('evalue'))}")
        elif kind in ("display_data", "execute_result"):
            data = o.get("data") if isinstance(o.get("data"), dict) else {}
            image = _image(data)
            if image and len(out.images) < MAX_IMAGES:
                out.outputs.append(image)
            elif "text/plain" in data and not image:
                texts.append(_text(data.get("text/plain")))
    text = ANSI.sub("", "".join(t if t.endswith("\n") else t + "\n" for t in texts if t))
    if len(text) > MAX_TEXT:
        text, out.truncated = text[:MAX_TEXT], True
    if text.strip():
        out.outputs.insert(0, Output("text", text=text))
    return out


def _text(value: object) -> str:
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


def _decoded(mime: str, value: object) -> str | None:
    """The base64 text of an image that is what it claims and within the limit, else None."""
    b64 = _text(value).replace("\n", "").strip()
    if not b64 or len(b64) > MAX_IMAGE_BYTES * 4 // 3 + 8:
        return None
    try:
        raw = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        return None
    return b64 if raw.startswith(IMAGE_MAGIC[mime]) else None


def _image(data: Mapping[str, object]) -> Output | None:
    for mime in IMAGE_MAGIC:
        if mime in data:
            b64 = _decoded(mime, data[mime])
            if b64:
                return Output("image", mime=mime, data=b64)
    return None


def _image_attachments(attachments: object) -> dict[str, dict[str, str]]:
    """Images attached to a Markdown cell (``![](attachment:name)``): PNG and JPEG only."""
    out: dict[str, dict[str, str]] = {}
    for name, bundle in (attachments.items() if isinstance(attachments, dict) else ()):
        if isinstance(name, str) and isinstance(bundle, dict):
            image = _image(bundle)
            if image:
                out[name] = {image.mime: image.data}
    return out
