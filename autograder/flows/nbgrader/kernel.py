"""The Jupyter kernel `nbgrader autograde` runs here (kernel spec `week7-isolated`): it runs no code.

Every submission was already graded in the sandbox (course.py) and its result kept in
COURSE/isolated/<student>/record.json. nbgrader starts this kernel in
COURSE/autograded/<student>/<assignment>/, which names the student. For each cell
nbgrader sends:

* an autograder test cell (it holds the hook line `grade_part('<part>', globals())`
  that the release writes into every test cell, restored from the instructor notebook
  at autograde time): the recorded part score as the cell's value (nbgrader's partial
  credit), the recorded per-check feedback as printed text;
* any other cell: the stdout and error that cell produced in the sandbox, matched by
  its source text in notebook order (a cell that did not run there shows nothing).

Anything amiss (no record, a record of someone else, an unexpected folder) is an error
in every test cell: 0 points, and the flow reports the student. Imports neither torch nor
nbgrader; started with `python -I` so nothing in the student's folder can be imported.

    python -I -m autograder.flows.nbgrader.kernel -f CONNECTION_FILE
"""
import sys
from pathlib import Path

from ipykernel.kernelbase import Kernel

from . import ASSIGNMENT, hooked_part
from .record import load_record


def locate(cwd):
    """(course, student) from the kernel's working directory COURSE/autograded/<student>/<assignment>."""
    cwd = Path(cwd).resolve()
    if cwd.name != ASSIGNMENT or cwd.parent.parent.name != "autograded":
        raise LookupError(f"the kernel runs in {cwd}, not in autograded/<student>/{ASSIGNMENT}/")
    return cwd.parent.parent.parent, cwd.parent.name


class IsolatedKernel(Kernel):
    implementation = "week7-isolated"
    implementation_version = "1"
    language = "python"
    language_version = "3"
    language_info = {"name": "python", "mimetype": "text/x-python", "file_extension": ".py",
                     "codemirror_mode": {"name": "ipython", "version": 3}, "pygments_lexer": "ipython3"}
    banner = "week7 isolated grades (runs no code)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.problem, self.record, self.cursor = "", None, 0
        try:
            course, self.student = locate(Path.cwd())
            self.record = load_record(course, self.student)
            if self.record is None:
                self.problem = f"no isolated grade recorded for student {self.student!r}"
        except (LookupError, OSError) as err:
            self.problem = str(err)

    # ---- replies ------------------------------------------------------------------------
    def _stream(self, text):
        if text:
            self.send_response(self.iopub_socket, "stream", {"name": "stdout", "text": text})

    def _error(self, ename, evalue):
        content = {"ename": ename, "evalue": evalue, "traceback": [f"{ename}: {evalue}"]}
        self.send_response(self.iopub_socket, "error", content)
        return dict(content, status="error", execution_count=self.execution_count)

    def _ok(self):
        return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}

    async def do_execute(self, code, silent, store_history=True, user_expressions=None, allow_stdin=False):
        part = hooked_part(code)
        if part is not None:
            return self._test_cell(part)
        return self._replay(code)

    def _test_cell(self, part):
        if self.problem:
            return self._error("IsolatedGradeMissing", self.problem)
        got = self.record.get("parts", {}).get(part)
        if not isinstance(got, dict) or not isinstance(got.get("score"), (int, float)):
            return self._error("IsolatedGradeMissing", f"the isolated grade of {self.student!r} has no part {part}")
        self._stream(str(got.get("text", "")))
        self.send_response(self.iopub_socket, "execute_result", {
            "execution_count": self.execution_count, "data": {"text/plain": repr(float(got["score"]))},
            "metadata": {}})
        return self._ok()

    def _replay(self, code):
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

    async def do_complete(self, code, cursor_pos):
        return {"status": "ok", "matches": [], "cursor_start": cursor_pos, "cursor_end": cursor_pos, "metadata": {}}

    async def do_inspect(self, code, cursor_pos, detail_level=0, omit_sections=()):
        return {"status": "ok", "found": False, "data": {}, "metadata": {}}

    async def do_is_complete(self, code):
        return {"status": "complete"}


def main():
    from ipykernel.kernelapp import IPKernelApp
    # No redirection of this process's own stdout/stderr into cells: only what do_execute sends.
    IPKernelApp.launch_instance(kernel_class=IsolatedKernel, outstream_class=None,
                                capture_fd_output=False)


if __name__ == "__main__":
    sys.exit(main())
