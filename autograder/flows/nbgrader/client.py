"""How nbgrader's process asks the course's grading service (service.py) for a sandboxed grade.

The first request of a course starts the service (a fresh interpreter, detached: it outlives
one `nbgrader autograde`, so the next one, or the next click in the formgrader, finds it
warm); every later one, from any process of the user, connects to it. Its output goes to
COURSE/logs/grading-service.log. A grade is asked for as soon as nbgrader has read the
submission and its answer is read only when nbgrader's kernel is up (``Asked``): the two
run side by side.

Each assignment of the course graded in the sandbox has its own service (``Graded``: the package the course's
config names; default the current assignment), started with $AUTOGRADER_ASSIGNMENT set to that package.
"""
from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ...assignment import WORKDIR_VARIABLE, workdir
from ...plugin_api import ASSIGNMENT_VARIABLE
from ...settings import Settings
from . import CURRENT, Graded, default_name
from .address import ServiceError, private_dir, socket_path
from .service import lock_path, peer_uid, read_message, send_message

MODULE = "autograder.flows.nbgrader.service"
# The service's own start-up (torch, the worker template, the suites) on a busy machine: no submission runs yet,
# so not one of the Limits (a grade's wait is: Limits.grade_wait).
START_SECONDS = 180.0
ATTEMPTS = 3  # a service that retires (new code) is replaced by a new one


def log_path(course: str | os.PathLike[str], name: str | None = None) -> Path:
    """The service's log: logs/grading-service.log (another assignment than the default: -<name> before .log)."""
    tail = "" if name is None or name == default_name() else f"-{name}"
    return Path(course).resolve() / "logs" / f"grading-service{tail}.log"


def service_env(package: str = CURRENT.package) -> dict[str, str]:
    """The service's whole environment: nothing of the caller's (a Jupyter server's tokens stay there) but its
    working directory, where the secret and the reference cache are. Without it, an installed package's service
    (started in a private folder) drew probes from a secret of its own, and nbgrader's grades differed from
    `grade`, `grade-all` and Gradescope's for a probe-sensitive notebook (red team of issue 23). The assignment
    package it grades is named explicitly (``package``, from the course's config), never inherited."""
    env = {"PATH": os.path.dirname(sys.executable) + os.pathsep + os.defpath, "HOME": os.environ.get("HOME", "/"),
           "LANG": "C.UTF-8", "PYTHONHASHSEED": "0", "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg",
           WORKDIR_VARIABLE: str(workdir()), ASSIGNMENT_VARIABLE: package}
    if os.environ.get("AUTOGRADER_SECRET_FILE"):  # a course whose secret lives elsewhere (engine/secret.py)
        env["AUTOGRADER_SECRET_FILE"] = os.environ["AUTOGRADER_SECRET_FILE"]
    return env


def start(course: Path, idle: float, settings: dict[str, Any] | None = None,
          assignment: Graded = CURRENT) -> subprocess.Popen[bytes]:
    log = log_path(course, assignment.name)
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        # -P: nothing of the working directory is importable; cwd is the user's private folder anyway.
        return subprocess.Popen([sys.executable, "-P", "-m", MODULE, str(course), "--idle", f"{idle:g}",
                                 "--settings", json.dumps(settings or {})],
                                cwd=private_dir(), env=service_env(assignment.package), stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)


def starting(course: Path, name: str | None = None) -> bool:
    """True while some process holds the service lock of the course's assignment (a service starting or serving)."""
    try:
        with open(lock_path(course, name or default_name()), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return False
    except BlockingIOError:
        return True
    except OSError:
        return False


def _connect(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
        if peer_uid(sock) != os.getuid():
            raise ServiceError(f"{path} is served by another user")
    except BaseException:
        sock.close()
        raise
    return sock


def connect(course: Path, idle: float, settings: dict[str, Any] | None = None,
            assignment: Graded = CURRENT) -> socket.socket:
    """A connection to the service of the course's assignment, started if none is serving or starting."""
    path, name = socket_path(course, assignment.name), assignment.name
    process, deadline = None, time.monotonic() + START_SECONDS
    while True:
        try:
            return _connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            pass
        if process is not None and process.poll() not in (None, 0):
            raise ServiceError(f"the grading service did not start (exit {process.returncode}); "
                               f"see {log_path(course, name)}:\n{tail(log_path(course, name))}")
        if (process is None or process.poll() == 0) and not starting(course, name):  # 0: another held the lock
            process = start(course, idle, settings, assignment)
        if time.monotonic() > deadline:
            raise ServiceError(f"the grading service did not answer within {START_SECONDS:g} s; "
                               f"see {log_path(course, name)}")
        time.sleep(0.05)


def start_early(course: str | os.PathLike[str], idle: float, settings: dict[str, Any] | None = None,
                assignment: Graded = CURRENT) -> None:
    """Start the service of the course's assignment now if none is serving or starting; never waits for it."""
    course = Path(course).resolve()
    try:
        _connect(socket_path(course, assignment.name)).close()
    except (FileNotFoundError, ConnectionRefusedError):
        if not starting(course, assignment.name):
            start(course, idle, settings, assignment)


def tail(path: Path, size: int = 3000) -> str:
    try:
        return path.read_bytes()[-size:].decode(errors="replace")
    except OSError:
        return ""


class Asked:
    """A request sent to the course's service; ``reply()`` reads its answer (sent again if the service retired),
    waiting as long as the request's settings give one grade (Limits.grade_wait): a silent service is a fault."""

    def __init__(self, course: str | os.PathLike[str], request: dict[str, Any], idle: float,
                 assignment: Graded = CURRENT) -> None:
        self.course, self.request, self.idle, self.assignment = Path(course).resolve(), request, idle, assignment
        self.log = log_path(self.course, assignment.name)
        self.settings = Settings.from_dict(request.get("settings") or {}, "the request's settings")
        self.seconds = self.settings.limits.grade_wait
        self.sock = self._send()

    def _send(self) -> socket.socket:
        sock = connect(self.course, self.idle, self.request.get("settings"), self.assignment)
        try:
            sock.settimeout(self.seconds)
            send_message(sock, self.request)
        except BaseException:
            sock.close()
            raise
        return sock

    def reply(self) -> dict[str, Any]:
        for attempt in range(ATTEMPTS):
            try:
                with self.sock:
                    answer = read_message(self.sock)
            except (ConnectionError, ValueError, OSError) as err:
                raise ServiceError(f"the grading service stopped answering ({err}); see {self.log}:"
                                   f"\n{tail(self.log)}") from err
            if not answer.get("restart"):
                return answer
            time.sleep(0.2 * (attempt + 1))  # the retiring service releases the socket and its lock
            self.sock = self._send()
        raise ServiceError(f"the grading service kept retiring; see {self.log}")

    def close(self) -> None:
        self.sock.close()


def ask(course: str | os.PathLike[str], request: dict[str, Any], idle: float,
        assignment: Graded = CURRENT) -> dict[str, Any]:
    """The service's reply to ``request``; ServiceError when it cannot be had."""
    return Asked(course, request, idle, assignment).reply()


def grade_request(student: str, settings: dict[str, Any], then: list[str], name: str | None = None) -> dict[str, Any]:
    """A grade of ``student`` with ``settings`` (autograder/settings.py Settings.to_dict()) in assignment ``name``."""
    return {"op": "grade", "student": student, "settings": settings, "then": list(then), "workdir": str(workdir()),
            "assignment": name or CURRENT.name}


def checked(reply: dict[str, Any]) -> dict[str, Any]:
    """{"sha256", "score", "max_score", "cached"} of a grade reply; ServiceError when the service refused."""
    if not reply.get("ok"):
        raise ServiceError(reply.get("error") or "the grading service refused")
    return reply


def grade(course: str | os.PathLike[str], student: str, settings: dict[str, Any], then: list[str], idle: float,
          assignment: Graded = CURRENT) -> dict[str, Any]:
    """The student's sandboxed grade, waited for (record.json is written)."""
    return checked(ask(course, grade_request(student, settings, then, assignment.name), idle, assignment))


def stop(course: str | os.PathLike[str], name: str | None = None) -> bool:
    """Ask the service of the course's assignment ``name`` (default: the default one) to exit; False when none ran."""
    try:
        with _connect(socket_path(course, name)) as sock:
            sock.settimeout(120)
            send_message(sock, {"op": "stop"})
            read_message(sock)
        return True
    except (FileNotFoundError, ConnectionError, OSError, ValueError):
        return False
