"""The hostile campaign's machinery: grade one group of cases through the real CLI, and watch
what must not change (files), leak (hidden lines), be reached (host listeners) or survive
(processes). tests/test_hostile.py holds the assertions.
"""
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from . import build

from autograder.assignment import HIDDEN, INSTRUCTOR_NOTEBOOK as SOLUTION, LAB_PY, ROOT, files
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
STARTUP_SLACK = 90.0  # s beyond --budget for the CLI's own start (PyTorch import, suite collection) on a busy box
UNCHANGED = {"added": [], "removed": [], "changed": []}


# ---- what must not change, leak or survive ---------------------------------------------------------
def snapshot(top):
    """{relative path: (kind, size, mtime_ns, sha256 or None)} of everything under ``top``."""
    state = {}
    for folder, dirs, names in os.walk(top):
        for name in dirs + names:
            path = os.path.join(folder, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            digest = None
            heavy = "/.venv/" in path or "/.git/objects/" in path
            if name in names and not heavy and st.st_size < 2 << 20 and not os.path.islink(path):
                with open(path, "rb") as handle:
                    digest = hashlib.sha256(handle.read()).hexdigest()
            kind = "dir" if name in dirs else "file"
            state[os.path.relpath(path, top)] = (kind, st.st_size, st.st_mtime_ns, digest)
    return state


def diff(before, after):
    changed = sorted(p for p in before.keys() & after.keys() if before[p] != after[p])
    return {"added": sorted(after.keys() - before.keys()), "removed": sorted(before.keys() - after.keys()),
            "changed": changed}


def secret_lines():
    """Distinctive lines of the hidden suites and the reference that a student never has."""
    public = set()
    for path in (SOLUTION, LAB_PY):
        text = path.read_text()
        if path.suffix == ".ipynb":
            text = "\n".join("".join(c.get("source", "")) for c in json.loads(text)["cells"])
        public |= {line.strip() for line in text.splitlines()}
    lines = set()
    for path in files(HIDDEN):
        for line in path.read_text().splitlines():
            line = line.strip()
            if len(line) >= 24 and line not in public and any(c.isalpha() for c in line):
                lines.add(line)
    return lines


def processes():
    """{pid: (uid, cmdline, environ)} of every live (non-zombie) process."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as handle:
                status = handle.read()
            if "\nState:\tZ" in status:
                continue
            uid = int(status.split("\nUid:\t", 1)[1].split()[0])
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        found[int(entry)] = (uid, cmdline, environ)
    return found


class Listeners:
    """A TCP and a UDP port on the host's loopback and an abstract Unix socket; records every contact."""

    def __init__(self, marker):
        self.contacts, self.stop = [], threading.Event()
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen()
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", self.port))
        self.abstract_name = f"hostile-{marker}"
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind("\0" + self.abstract_name)
        self.unix.listen()
        for sock in (self.tcp, self.udp, self.unix):
            sock.settimeout(0.2)
            threading.Thread(target=self._watch, args=(sock,), daemon=True).start()

    def _watch(self, sock):
        while not self.stop.is_set():
            try:
                if sock.type == socket.SOCK_DGRAM:
                    self.contacts.append(("udp", sock.recvfrom(1024)))
                else:
                    conn, peer = sock.accept()
                    self.contacts.append((str(sock.family), peer))
                    conn.close()
            except (socket.timeout, OSError):
                continue

    def close(self):
        if not self.stop.is_set():
            self.stop.set()
            time.sleep(0.3)
            for sock in (self.tcp, self.udp, self.unix):
                sock.close()


# ---- one grade ---------------------------------------------------------------------------------------
@dataclass
class Grade:
    group: str
    budget: float
    cases: list
    out: Path
    returncode: int = None
    seconds: float = 0.0
    stdout: str = ""
    stderr: str = ""
    results_text: str = ""

    @property
    def results(self):
        return json.loads(self.results_text)

    def every_output(self):
        return "\n".join((self.stdout, self.stderr, self.results_text))


def grade(group, budget, cases, workdir, params, marker, extra=()):
    out_dir = workdir / group
    out_dir.mkdir(parents=True)
    notebook = workdir / f"{group}.ipynb"
    import nbformat
    nbformat.write(build(SOLUTION, cases, {**params, "__OUT_DIR__": out_dir}), str(notebook))
    result = Grade(group, budget, cases, out_dir / "results.json")
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", HOSTILE_RUN_MARKER=marker)
    started = time.monotonic()
    process = subprocess.Popen([PYTHON, "-m", "autograder", "grade", str(notebook), "--out", str(result.out),
                                "--budget", str(budget), *extra], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
    try:
        result.stdout, result.stderr = process.communicate(timeout=budget + STARTUP_SLACK + 120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        result.stdout, result.stderr = process.communicate()
    result.seconds = time.monotonic() - started
    result.returncode = process.returncode
    result.results_text = result.out.read_text() if result.out.exists() else ""
    return result


@dataclass
class Campaign:
    grades: dict
    files: dict  # "checkout" / "canary": diff
    outside: list  # paths outside both that must not appear
    leftovers: list
    contacts: list
    canary: Path


def attack_traces(changes, top):
    """Added or changed paths under ``top`` that an attack wrote (its file names, or its forged content)."""
    traces = []
    for path in changes["added"] + changes["changed"]:
        name = os.path.basename(path)
        if "HOSTILE" in name or (name.startswith("fill") and name[4:].isdigit()):
            traces.append(path)
        elif name in ("results.json", "grades.csv", "junit.xml") and os.path.isfile(os.path.join(top, path)):
            if "FORGED_BY_SUBMISSION" in Path(top, path).read_text(errors="replace"):
                traces.append(path)
    return traces
