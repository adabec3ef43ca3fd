"""Text a submission controls, made safe for every output the grader writes.

A submission controls more text than it seems: its exception messages and type names,
the names of its functions, its cells' output, its file names. Every writer (the
terminal table, feedback.txt, results.json, JUnit XML, grades.csv, grades.log) passes
such text through one of these helpers, never writes it raw:

    student(text)         redact the grader's secrets, then ``text`` (below): for any report
    text(value)           one line: lone surrogates and control characters shown escaped
                          (ESC as ``\\x1b``, ``"\\ud800"`` as ``\\ud800``), never an encoding error
    text(value, True)     the same, keeping newlines and tabs (a multi-line field)
    csv_cell(value)       ``text`` + a leading ``'`` on a cell a spreadsheet would run as a
                          formula (= + - @, tab, CR, and their full-width forms)
    xml_text(value)       ``text`` minus the characters XML 1.0 cannot hold (for JUnit)
    redact(value)         every value of the grader's environment, command line and host mount
                          table (8 characters or more) replaced by ``[redacted]``

Redaction is defence in depth: the worker's environment is kept clean where it starts,
and this makes sure that whatever a submission learns anyway never reaches a report.
"""
import os
import re
import sys
from collections.abc import Iterable, Mapping
from typing import overload

from ..settings import FEEDBACK_LEVELS, VISIBILITIES

REDACTED = "[redacted]"
MIN_SECRET = 8  # shorter values ("1", "/tmp", "C.UTF-8") are too common to redact and too short to matter
# A message cut short (the worker keeps a few hundred characters) can end inside a secret: of a secret
# this long, any start of TRUNCATED_HEAD characters or more is redacted too.
TRUNCATED_SECRET, TRUNCATED_HEAD = 16, 10

# Controls (C0 but \n and \t, DEL, C1), invisible or direction-changing format characters
# (zero-width, bidi overrides and isolates, BOM: text that reads differently from what it is),
# line/paragraph separators, and lone surrogates (which no UTF-8 writer can encode).
_UNSAFE_MULTI = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
                           "\ud800-\udfff]")
_UNSAFE_LINE = re.compile("[\t\n]|" + _UNSAFE_MULTI.pattern)
_FORMULA = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")
# Characters XML 1.0 cannot hold at all, even escaped (after ``text`` only U+FFFE/U+FFFF remain).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

# Values that are public anyway, never worth redacting (they would only blur the feedback).
_PUBLIC = {*VISIBILITIES, "grade-all", "crosscheck", "autograder"}
# Mount points under these are the system's own, the same on every machine.
_SYSTEM = ("/proc", "/sys", "/dev", "/usr", "/etc", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/boot", "/run")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def text(value: object, multiline: bool = False) -> str:
    """``value`` as a str that prints, encodes and displays as what it is.

    Lone surrogates and control characters become visible escapes (``\\x1b``, ``\\r``
    as ``\\x0d``, ``\\ud800``): nothing can move the cursor, redraw a line, or make a
    UTF-8 writer raise. ``multiline`` keeps ``\\n`` and ``\\t``; otherwise they are
    escaped too, so the result is one line.
    """
    if not isinstance(value, str):
        try:
            value = str(value)
        except Exception:  # noqa: BLE001 - a hostile __str__ must not break a report
            value = f"<{type(value).__name__}>"
    return (_UNSAFE_MULTI if multiline else _UNSAFE_LINE).sub(_escape, value)


@overload
def csv_cell(value: None) -> None: ...
@overload
def csv_cell(value: int) -> int: ...
@overload
def csv_cell(value: float) -> float: ...
@overload
def csv_cell(value: str) -> str: ...
@overload
def csv_cell(value: object) -> str | int | float | None: ...
def csv_cell(value: object) -> str | int | float | None:
    """A CSV cell that a spreadsheet shows as text: a formula-like start gets a leading quote.

    A text that starts with a quote gets one more, so that the escape can be undone (csv_text):
    the students "=bob" and "'=bob" stay two rows ("'=bob" and "''=bob") when a CSV is read back.
    """
    if value is None or isinstance(value, (int, float)):
        return value
    raw = value if isinstance(value, str) else text(value)
    cleaned = text(raw)
    if raw.startswith(_FORMULA) or cleaned.startswith((*_FORMULA, "'")):
        cleaned = "'" + cleaned
    return cleaned


@overload
def csv_text(cell: str) -> str: ...
@overload
def csv_text(cell: object) -> object: ...
def csv_text(cell: object) -> object:
    """The text of a cell that csv_cell wrote: its escaping quote dropped (csv_text(csv_cell(t)) == text(t))."""
    return cell[1:] if isinstance(cell, str) and cell.startswith("'") else cell


def xml_text(value: object, multiline: bool = True) -> str:
    """``text`` without the characters XML 1.0 cannot hold (JUnit XML)."""
    return _NOT_XML.sub("", text(value, multiline))


# ---- redaction ----------------------------------------------------------------------------------

def grader_secrets(environ: Mapping[str, str] | None = None, argv: Iterable[object] | None = None,
                   mounts: Iterable[str] | None = None, public: Iterable[str] = ()) -> list[str]:
    """Strings of the grader's own context that no report may show, longest first.

    Every environment value, every command-line argument and its folder, and every host mount
    point outside the system's directories, of ``MIN_SECRET`` characters or more. Kept out:
    option names (``--out``), the package's own public words (parts, feedback levels),
    a notebook's bare file name (the student knows it), and ``public``.
    """
    from ..assignment import PART_IDS as PARTS

    environ = dict(os.environ) if environ is None else environ
    argv = [*getattr(sys, "orig_argv", []), *sys.argv] if argv is None else argv
    mounts = _mount_points() if mounts is None else mounts
    skip = set(PARTS) | _PUBLIC | set(FEEDBACK_LEVELS) | set(public)
    found = set()
    for value in environ.values():
        found.add(value)
    for arg in argv:
        arg = str(arg)
        if arg.startswith("-"):
            name, _, value = arg.partition("=")
            if not value:
                continue
            arg = value
        if "/" not in arg and arg.lower().endswith(".ipynb"):
            continue  # the notebook's own name
        found.add(arg)
        if "/" in arg:
            found.add(os.path.dirname(arg.rstrip("/")))
    for mount in mounts:
        if not any(mount == s or mount.startswith(s + "/") for s in _SYSTEM):
            found.add(mount)
    found = {s for s in found if isinstance(s, str) and len(s) >= MIN_SECRET and s not in skip and s.strip()}
    return sorted(found, key=lambda s: (-len(s), s))


def _mount_points() -> list[str]:
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
            return [line.split()[4].replace("\\040", " ") for line in handle if len(line.split()) > 4]
    except OSError:
        return []


class Redactor:
    """Replace every occurrence of the given secrets by ``[redacted]`` (longest first).

    A long secret's first ``TRUNCATED_HEAD`` characters and however many more follow in
    the text are redacted too: a message cut in the middle of a secret shows none of it.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = sorted({s for s in secrets if s}, key=lambda s: (-len(s), s))
        self._pattern = re.compile("|".join(re.escape(s) for s in self.secrets)) if self.secrets else None
        self._long = [s for s in self.secrets if len(s) >= TRUNCATED_SECRET]

    def __call__(self, value: object) -> str:
        value = value if isinstance(value, str) else text(value)
        if self._pattern is None:
            return value
        value = self._pattern.sub(REDACTED, value)
        for secret in self._long:
            head, start = secret[:TRUNCATED_HEAD], 0
            while (i := value.find(head, start)) >= 0:
                j = i + len(head)
                while j < len(value) and j - i < len(secret) and value[j] == secret[j - i]:
                    j += 1
                value = value[:i] + REDACTED + value[j:]
                start = i + len(REDACTED)
        return value


_redactor: Redactor | None = None


def redact(value: object) -> str:
    """``value`` with the secrets of this process (environment, command line, mounts) redacted.

    The list is taken once per process, on first use: by then the command line is parsed
    and the environment is the one the grader was started with.
    """
    global _redactor
    if _redactor is None:
        _redactor = Redactor(grader_secrets())
    return _redactor(value)


def student(value: object, multiline: bool = False) -> str:
    """Text a submission controls, ready for any report: secrets redacted, then made safe."""
    return text(redact(value if isinstance(value, str) else text(value, multiline)), multiline)
