"""A course's grading service: one warm Grader that nbgrader asks for sandboxed grades.

    python -P -m autograder.flows.nbgrader.service COURSE --idle SECONDS   (client.py starts it)

nbgrader runs each submission in a fresh kernel, and the formgrader's Autograde button
runs autograde inside the Jupyter server: neither may run student code or hold the
hidden suites. Both ask this process, over a Unix socket only their user can reach
(address.py), for the sandboxed grade of one student's submission:

1. It starts the worker template (engine/grader.py) before it reads any request; the
   first grade collects the hidden suites (once): every later grade is a warm one.
2. For each request it reads COURSE/submitted/<student>/<assignment>/<assignment>.ipynb
   once (record.py: no links, a regular file). A current record of those bytes (same
   grader code, same feedback level) is the answer; otherwise the bytes are kept in
   COURSE/isolated/<student>/, graded in a fresh sandboxed worker that cannot see the
   course folder, and record.json is written.
3. A request may name the students nbgrader will autograde next: they are graded while
   nbgrader works on the current one (its kernel and our grades run side by side).
4. It exits after --idle seconds without a request, when asked, or when the grader's code
   changed under it (the client then starts one with the new code).

One service per course and assignment (a lock in COURSE/isolated/, COURSE/isolated-<name>/ for another
assignment than the default one); requests are served one at a time. The service grades the assignment its
process loaded (client.py starts it with $AUTOGRADER_ASSIGNMENT set to the package the course's config names)
and refuses a request for any other.
"""
from __future__ import annotations

import argparse
import fcntl
import json
import os
import select
import signal
import socket
import struct
import sys
import time
import traceback
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ...assignment import NAME, workdir
from ...settings import DEFAULT_FEEDBACK, Settings, SettingsError
from . import records_folder
from .address import socket_path

if TYPE_CHECKING:
    from ...engine.grader import Grader

# The service's protocol with its clients (nbgrader's processes, the user's own): not a submission's, so not Limits.
REQUEST_BYTES = 1 << 16  # a request is a student's name and the names of those after it
SOCKET_SECONDS = 10.0  # a client that neither asks nor listens for this long is dropped
LOCK_SECONDS = 15.0  # a service that retires (new code) releases the lock within this


def lock_path(course: Path, name: str = NAME) -> Path:
    """The lock the one service of the course's assignment ``name`` holds: in the course itself, so every process
    of the course agrees."""
    return course / records_folder(name) / ".grading-service.lock"


def valid_student(name: object) -> bool:
    """A student id that names one folder under submitted/ (never a path)."""
    return isinstance(name, str) and name not in ("", ".", "..") and "/" not in name and "\0" not in name \
        and len(name) <= 255


def grader_key(settings: Settings) -> str:
    """What a record depends on besides the notebook: grade-all's resume key (the grader's code and settings)."""
    from ..batch import grader_key as key

    return key(settings)


def secret_in_use() -> str:
    """The fingerprint of the secret this service draws probes from (created now if there is none): part of a
    record's key, so a record drawn from another secret is never current. Called once the Grader's template is
    forked (every grade reads the secret anyway)."""
    from ...engine import secret
    from ..batch_shard import fingerprint

    return fingerprint(secret.load())


def log(message: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{os.getpid()}] {message}", file=sys.stderr, flush=True)


class Service:
    def __init__(self, course: Path, grader: Grader) -> None:
        self.course, self.grader = course, grader
        self.settings = grader.settings.replace(feedback=DEFAULT_FEEDBACK)  # the feedback level is per request
        self.code = grader_key(Settings())  # compared before each request: new code, new service
        self.workdir = str(workdir())  # where the secret and caches are: the clients' (client.service_env)
        self.secret = secret_in_use()  # once: the template is forked; a record drawn from another is never current
        self.queue: deque[tuple[str, Settings]] = deque()  # (student, settings) nbgrader autogrades next

    def stale(self) -> bool:
        return grader_key(Settings()) != self.code

    def grade(self, student: str, settings: Settings) -> dict[str, Any]:
        """The record of the student's current submission: reused when current, else graded now."""
        level = settings.feedback
        from ...engine.grade import NotebookError, failed_everywhere, read_submission as cells_of
        from .record import Unreadable, build_record, is_current, keep_copy, load_record, read_submission, sha256, \
            write_record

        key, started, clock = f"{grader_key(settings)}/{self.secret}", time.time(), time.monotonic()
        try:
            data = read_submission(self.course, student, settings.limits.notebook_mib)
        except Unreadable as err:
            report, digest, cells = failed_everywhere(f"submitted/{student}", str(err)), None, []
            keep_copy(self.course, student, b"")
        else:
            digest = sha256(data)
            record = load_record(self.course, student)
            if record is not None and is_current(record, digest, key):
                return {"ok": True, "sha256": digest, "score": record["score"], "max_score": record["max_score"],
                        "cached": True}
            copy = keep_copy(self.course, student, data)
            # The bytes read above are graded, hashed and recorded: the copy is for nbgrader's check and crosscheck.
            report = self.grader.grade(copy, hide=[str(self.course)], data=data)
            faults = report.grader_faults()
            if faults:  # never a student's grade: no record, and nbgrader's autograde of this student fails
                raise RuntimeError(f"the grader failed on {len(faults)} check(s) (first: {faults[0].nodeid}); "
                                   "no grade was recorded: fix the cause (see this log) and autograde again")
            if report.sha256 and report.sha256 != digest:
                raise RuntimeError(f"the kept copy of {student}'s submission changed while it was graded")
            try:
                cells = cells_of(copy, settings.limits.notebook_mib, data)[0]
            except (NotebookError, OSError):
                cells = []
        confinement = self.grader.confinement.line() if self.grader.confinement else ""
        record = build_record(student, digest, report, cells, level, started, key, settings.limits.notebook_mib,
                              confinement=confinement)
        write_record(self.course, student, record)
        seconds = time.monotonic() - clock
        log(f"graded {student}: {report.score:g} / {report.max_score:g} in {seconds:.2f} s")
        return {"ok": True, "sha256": digest, "score": report.score, "max_score": report.max_score, "cached": False,
                "seconds": round(seconds, 3)}


class Refusing:
    """The service where no worker can be confined: each grade request fails with the reason, so nbgrader's
    autograde of that student fails too (never a 0 in the gradebook)."""

    def __init__(self, why: str) -> None:
        self.why = why
        self.settings: Settings | None = None
        self.workdir: str | None = None
        self.queue: deque[tuple[str, Settings]] = deque()

    def stale(self) -> bool:
        return False

    def grade(self, student: str, settings: Settings) -> dict[str, Any]:
        raise RuntimeError(f"no sandbox can be built on this machine, so nothing is graded: {self.why}")


# ---- the socket ---------------------------------------------------------------------------------
def peer_uid(conn: socket.socket) -> int:
    uid: int
    _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return uid


def read_message(conn: socket.socket) -> dict[str, Any]:
    """One JSON line (client and service speak alike)."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = conn.recv(4096)
        if not chunk:
            raise ConnectionError("the other end closed the connection")
        data += chunk
        if len(data) > REQUEST_BYTES:
            raise ValueError("message too long")
    message = json.loads(data)
    if not isinstance(message, dict):
        raise ValueError("not a JSON object")
    return message


def send_message(conn: socket.socket, message: dict[str, Any]) -> None:
    conn.sendall(json.dumps(message).encode() + b"\n")


def handle(conn: socket.socket, service: Service | Refusing) -> bool:
    """Serve one connection; True when the service must stop."""
    conn.settimeout(SOCKET_SECONDS)
    if peer_uid(conn) != os.getuid():  # the folder is private already; a second lock on the door
        return False
    try:
        request = read_message(conn)
    except (OSError, ValueError) as err:
        log(f"dropped a request: {err}")
        return False
    op = request.get("op")
    if op == "stop":
        send_message(conn, {"ok": True})
        return True
    if op == "ping":
        send_message(conn, {"ok": True, "pid": os.getpid()})
        return False
    if op != "grade":
        send_message(conn, {"ok": False, "error": f"unknown request {op!r}"})
        return False
    if service.stale():
        log("the grader's code changed: retiring (the next request starts a service with the new code)")
        send_message(conn, {"ok": False, "restart": True, "error": "the grader's code changed"})
        return True
    student = request.get("student")
    if request.get("assignment", NAME) != NAME:  # never another assignment's grade from this one's suites
        send_message(conn, {"ok": False, "error": f"this grading service grades {NAME}, not "
                                                  f"{request.get('assignment')!r}"})
        return False
    try:
        settings = Settings.from_dict(request.get("settings") or {}, "the request's settings")
    except SettingsError as err:
        send_message(conn, {"ok": False, "error": str(err)})
        return False
    if not valid_student(student):
        send_message(conn, {"ok": False, "error": f"bad request: student {student!r}"})
        return False
    if service.settings is not None and settings.replace(feedback=DEFAULT_FEEDBACK) != service.settings:
        log("asked to grade with other settings than it was started with: retiring (the next request starts "
            "a service with them)")
        send_message(conn, {"ok": False, "restart": True, "error": "the settings changed"})
        return True
    asked_workdir = request.get("workdir")
    if service.workdir is not None and asked_workdir is not None and str(asked_workdir) != service.workdir:
        log(f"asked to grade for the working directory {asked_workdir}, not {service.workdir}: retiring (the next "
            "request starts a service there)")
        send_message(conn, {"ok": False, "restart": True, "error": "the working directory changed"})
        return True
    service.queue = deque((s, settings) for s in request.get("then") or () if valid_student(s) and s != student)
    try:
        reply = service.grade(str(student), settings)
    except Exception as err:  # noqa: BLE001 - one submission's grader fault is that student's autograde error
        log(f"grader fault on {student}:\n{traceback.format_exc()}")
        reply = {"ok": False, "error": f"the grading service failed on {student}: {type(err).__name__}: {err}"}
    try:
        send_message(conn, reply)
    except OSError:
        pass  # the client gave up; the record is written all the same
    return False


def serve(listener: socket.socket, service: Service | Refusing, idle: float) -> None:
    """Requests first; between them, the students named as next; exit once idle."""
    last = time.monotonic()
    while True:
        wait = 0.0 if service.queue else max(0.0, idle - (time.monotonic() - last))
        ready, _, _ = select.select([listener], [], [], wait)
        if ready:
            conn, _ = listener.accept()
            with conn:
                if handle(conn, service):
                    return
        elif service.queue:
            student, settings = service.queue.popleft()
            try:
                service.grade(student, settings)
            except Exception:  # noqa: BLE001 - graded again when nbgrader asks; the request then reports it
                log(f"grader fault on {student} (ahead of its request):\n{traceback.format_exc()}")
        else:
            log(f"idle for {idle:g} s: exiting")
            return
        last = time.monotonic()


def take_lock(course: Path) -> TextIO | None:
    """The course's lock, or None when another service holds it (it serves; this one is not needed)."""
    path = lock_path(course)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    handle = open(path, "a")  # noqa: SIM115 - held open for the service's whole life
    deadline = time.monotonic() + LOCK_SECONDS
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            if time.monotonic() > deadline:
                handle.close()
                return None
            time.sleep(0.1)


@dataclass(frozen=True)
class ServiceOptions:
    course: str
    idle: float
    settings: Settings  # what it grades with: client.py hands them on as JSON


def _settings_json(text: str) -> Settings:
    return Settings.from_dict(json.loads(text), "--settings")


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m autograder.flows.nbgrader.service", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.set_defaults(handler=run, options=ServiceOptions)
    parser.add_argument("course", help="the nbgrader course folder")
    parser.add_argument("--idle", type=float, required=True, help="seconds without a request before exiting")
    parser.add_argument("--settings", type=_settings_json, default=Settings(),
                        help="what it grades with (autograder/settings.py, as JSON)")
    return parser


def main(argv: list[str] | None = None) -> int:
    from ...command_line import run as run_command

    return run_command(parser(), argv, "grading service")


def run(options: ServiceOptions) -> int:
    settings, course = options.settings, Path(options.course).resolve()
    lock = take_lock(course)
    if lock is None:
        log(f"another grading service serves {course}")
        return 0
    path = socket_path(course, NAME)
    path.unlink(missing_ok=True)  # a service that died left it; we hold the lock, so no live one uses it
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    umask = os.umask(0o177)
    try:
        listener.bind(str(path))
    finally:
        os.umask(umask)
    listener.listen(64)  # clients wait in the backlog while the grader warms up
    inode = os.stat(path).st_ino
    from ...engine.grader import Grader
    from ...sandbox.confinement import ConfinementUnavailable
    try:
        # First: the template inherits no request, no record, no roster. The hidden suites are collected by
        # the first grade, while its worker runs the notebook (collecting them here first would not overlap).
        with Grader(settings) as grader:
            assert grader.confinement is not None  # probed as the block was entered
            log(f"serving {NAME} of {course} on {path}; {grader.confinement.line()}")
            serve(listener, Service(course, grader), options.idle)
    except ConfinementUnavailable as why:  # nothing can be graded here: every request is told why, none is scored
        log(f"no sandbox on this machine: {why}")
        serve(listener, Refusing(str(why)), options.idle)
    finally:
        listener.close()
        try:
            if os.stat(path).st_ino == inode:
                path.unlink()
        except FileNotFoundError:
            pass
    return 0


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":  # workers inherit our string-hash seed (autograder/__main__.py)
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
    os.environ["OMP_NUM_THREADS"] = "1"  # before torch loads: one compute thread, as grade-all's processes
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # leave through the with-block: workers are closed
    sys.exit(main())
