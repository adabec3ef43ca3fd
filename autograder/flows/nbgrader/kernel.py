"""The Jupyter kernel nbgrader runs for an assignment graded in the sandbox: it runs no code.

By the time nbgrader sends it the first cell, the course's grading service has graded the
submission in the sandbox (preprocessors.SandboxGrade asked, IsolatedExecute waited) and kept
the result in COURSE/isolated/<student>/record.json. nbgrader starts this kernel in
COURSE/autograded/<student>/<assignment>/, which names the student. For each cell
nbgrader sends:

* an autograder test cell (it holds the hook line `grade_part('<part>', globals())`
  that the release writes into every test cell, restored from the instructor notebook
  at autograde time): the recorded part score as the cell's value (nbgrader's partial
  credit), the recorded per-check feedback as printed text;
* any other cell: the stdout and error that cell produced in the sandbox, matched by
  its source text in notebook order (a cell that did not run there shows nothing).

Anything amiss (no record, a record of other bytes than the submitted file, an unexpected
folder) is an error in every test cell: 0 points, and the formgrader and `make
nbgrader-autograde` show it. That is also what a course whose nbgrader_config.py lost the
line config.py asks for gets: its gradebook still runs this notebook in this kernel
(preprocessors.IsolatedKernelspec), and no code of the student runs anywhere. Imports
neither torch nor nbgrader; started with `python -I` so nothing in the student's folder
can be imported.

One program for every assignment the course grades in the sandbox (each has a kernel spec of its own that runs
it): the assignment is the working directory's name, which nbgrader gives (never the student), and its records
are that assignment's (record.records_folder); a test cell's part is one its record has.

    python -I -m autograder.flows.nbgrader.kernel -f CONNECTION_FILE
"""
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ipykernel.kernelbase import Kernel

from . import hooked_part
from .record import Unreadable, load_record, read_submission, sendable, sha256


def locate(cwd: str | os.PathLike[str]) -> tuple[Path, str, str]:
    """(course, student, assignment) from the kernel's working directory COURSE/autograded/<student>/<assignment>."""
    cwd = Path(cwd).resolve()
    if cwd.parent.parent.name != "autograded" or cwd.name in ("", ".", ".."):
        raise LookupError(f"the kernel runs in {cwd}, not in autograded/<student>/<assignment>/")
    return cwd.parent.parent.parent, cwd.parent.name, cwd.name


def submitted_digest(course: Path, student: str, notebook_mib: int, name: str) -> str | None:
    """sha256 of the submitted notebook as it is now, read within the limit its record was read with (None when
    it cannot be read: its record says why)."""
    try:
        return sha256(read_submission(course, student, notebook_mib, name))
    except Unreadable:
        return None


class IsolatedKernel(Kernel):
    implementation = "autograder-isolated"  # the program every assignment's isolated kernel spec runs
    implementation_version = "1"
    language = "python"
    language_version = "3"
    language_info = {"name": "python", "mimetype": "text/x-python", "file_extension": ".py",
                     "codemirror_mode": {"name": "ipython", "version": 3}, "pygments_lexer": "ipython3"}
    banner = "isolated grades (runs no code)"

    problem: str  # why the test cells get no grade ("" when they do)
    record: dict[str, Any] | None  # the student's record.json, read at the first cell
    cursor: int  # the next recorded cell _replay looks at (cells come in notebook order)
    loaded: bool
    student: str | None

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # type: ignore[no-untyped-call]  # ipykernel: not annotated
        self.problem, self.record, self.cursor, self.loaded, self.student = "", None, 0, False, None

    def _load(self) -> None:
        """The record, read at the first cell: nbgrader starts this kernel while the grade is still being made."""
        self.loaded = True
        try:
            course, self.student, name = locate(Path.cwd())
            self.record = load_record(course, self.student, name)
            if self.record is None:
                self.problem = (f"no sandboxed grade of {self.student!r}: the course's nbgrader_config.py must "
                                f"load this assignment's grading (python -m autograder install-nbgrader COURSE)")
            elif self.record.get("sha256") != submitted_digest(course, self.student, self.record["notebook_mib"], name):
                self.problem = (f"the sandboxed grade of {self.student!r} is not of the submitted notebook "
                                "(changed since it was graded): autograde again")
        except (LookupError, OSError) as err:
            self.problem = str(err)

    # ---- replies ------------------------------------------------------------------------
    def _send(self, msg_type: str, content: dict[str, Any]) -> None:
        """An IOPub message of type ``msg_type`` to the cell being run."""
        self.send_response(self.iopub_socket, msg_type, content)  # type: ignore[no-untyped-call]  # ipykernel: not annotated

    def _stream(self, text: str) -> None:
        if text:
            self._send("stream", {"name": "stdout", "text": sendable(text)})

    def _error(self, ename: str, evalue: str) -> dict[str, Any]:
        ename, evalue = sendable(ename), sendable(evalue)
        content: dict[str, Any] = {"ename": ename, "evalue": evalue, "traceback": [f"{ename}: {evalue}"]}
        self._send("error", content)
        return dict(content, status="error", execution_count=self.execution_count)

    def _ok(self) -> dict[str, Any]:
        return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}

    # ipykernel hands cell_meta and cell_id only to a do_execute that names them (inspect.signature): this one
    # needs neither, so its signature stays the one ipykernel calls with the five arguments.
    async def do_execute(  # type: ignore[override]
            self, code: str, silent: bool, store_history: bool = True, user_expressions: dict[str, Any] | None = None,
            allow_stdin: bool = False) -> dict[str, Any]:
        try:
            if not self.loaded:
                self._load()
            part = hooked_part(code, parts=None)  # any part: one the record lacks is an error, never full marks
            if part is not None:
                return self._test_cell(part)
            return self._replay(code)
        except Exception as err:  # noqa: BLE001 - a reply always goes out: nbgrader must never wait out a timeout
            return self._error("IsolatedKernelError", f"{type(err).__name__}: {err}")

    def _test_cell(self, part: str) -> dict[str, Any]:
        if self.problem:
            return self._error("IsolatedGradeMissing", self.problem)
        assert self.record is not None  # _load gives a problem when there is none
        got = self.record.get("parts", {}).get(part)
        if not isinstance(got, dict) or not isinstance(got.get("score"), (int, float)):
            return self._error("IsolatedGradeMissing", f"the isolated grade of {self.student!r} has no part {part}")
        self._stream(str(got.get("text", "")))
        self._send("execute_result", {
            "execution_count": self.execution_count, "data": {"text/plain": repr(float(got["score"]))},
            "metadata": {}})
        return self._ok()

    def _replay(self, code: str) -> dict[str, Any]:
        cells = self.record.get("cells", []) if self.record else []
        for position in range(self.cursor, len(cells)):
            cell = cells[position]
            if cell.get("source") == code:
                self.cursor = position + 1
                if not cell.get("ran"):
                    return self._ok()
                self._stream(str(cell.get("output") or ""))
                error = cell.get("error")
                if cell.get("fatal"):
                    return self._error("CellSkipped", str(cell["fatal"]))
                if isinstance(error, dict):
                    return self._error(str(error.get("type") or "Error"),
                                       f"{error.get('message', '')}{error.get('where', '')}")
                return self._ok()
        return self._ok()  # not run in the sandbox (or changed since): nothing to show

    async def shutdown_request(self, stream: Any, ident: list[bytes], parent: dict[str, Any]) -> None:
        self.shutting_down = True
        # ipykernel's handler returns nothing (its reply goes out on the stream)
        await super().shutdown_request(stream, ident, parent)  # type: ignore[no-untyped-call]  # ipykernel: not annotated

    def _publish_status(self, status: str, channel: str, parent: dict[str, Any] | None = None) -> None:
        """No status once shutdown was asked for: ipykernel publishes "idle" after its shutdown reply, racing its
        own IOPub thread's exit (an uncaught ZMQError in nbgrader's output, now and then); nobody reads it."""
        if not getattr(self, "shutting_down", False):
            super()._publish_status(status, channel, parent)  # type: ignore[no-untyped-call]  # ipykernel: not annotated

    @property
    def kernel_info(self) -> dict[str, Any]:
        """ipykernel's reply without the debugger probe: importing debugpy to find out costs a start-up
        its time and prints a warning per student into nbgrader's output; this kernel has nothing to debug."""
        from ipykernel._version import kernel_protocol_version  # where kernelbase has it from (it does not export it)

        return {"protocol_version": kernel_protocol_version, "implementation": self.implementation,
                "implementation_version": self.implementation_version, "language_info": self.language_info,
                "banner": self.banner, "help_links": self.help_links, "supported_features": []}

    async def do_complete(self, code: str, cursor_pos: int) -> dict[str, Any]:
        return {"status": "ok", "matches": [], "cursor_start": cursor_pos, "cursor_end": cursor_pos, "metadata": {}}

    async def do_inspect(self, code: str, cursor_pos: int, detail_level: int = 0,
                         omit_sections: Sequence[str] = ()) -> dict[str, Any]:
        return {"status": "ok", "found": False, "data": {}, "metadata": {}}

    async def do_is_complete(self, code: str) -> dict[str, Any]:
        return {"status": "complete"}


def main() -> int:
    from ipykernel.kernelapp import IPKernelApp
    # No redirection of this process's own stdout/stderr into cells: only what do_execute sends.
    # Warnings of the app (plain TCP on localhost, which is how nbclient connects) would print once per
    # student into nbgrader's output; this kernel's messages carry nothing but recorded grades.
    IPKernelApp.launch_instance(kernel_class=IsolatedKernel, outstream_class=None,
                                capture_fd_output=False, log_level=logging.ERROR)
    return 0  # launch_instance returns once the kernel was shut down


if __name__ == "__main__":
    sys.exit(main())
