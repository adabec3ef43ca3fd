"""`grade-all --shard I/N`: one deterministic share of a class, for a job array (Slurm, Kubernetes, a CI matrix).

Every shard discovers the whole class exactly as a plain run does (same student ids, the "~2"
suffixes included), then keeps the students whose id hashes to it: sha256 of the id as the CSV
writes it, modulo N. The share depends on the student alone, not on who else handed in, so a
shard rerun after a late submission keeps its students and no student lands in two shards; with
a few hundred students the shares differ by a few percent.

Beside its CSV a shard writes ``<stem>_shard.json``: which shard it was, the whole class in
discovery order, which `grade-all merge` (batch_merge.py) uses to check that the shards fit
together and to write the rows in the order a plain run writes them, and a fingerprint of the
grader's secret: shards that drew their probes from different secrets (jobs on machines that do
not share the working directory, each making a secret of its own) are refused at the merge.
"""
import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from . import batch_summary as out

MANIFEST_VERSION = 1
# What a secret's bytes are hashed with for its fingerprint: the text of the time the engine served week 7 alone,
# kept byte for byte so that shard manifests and nbgrader records written then still verify.
FINGERPRINT_SALT = b"week7 shard manifest\0"


@dataclass(frozen=True)
class Shard:
    index: int  # 1..count
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, student: str) -> bool:
        """True when ``student`` (a discovered id) is graded by this shard."""
        return shard_of(student, self.count) == self.index


def shard_of(student: str, count: int) -> int:
    """The shard (1..count) a student id belongs to."""
    digest = hashlib.sha256(out.student_key(student).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1


def parse(text: str) -> Shard:
    """``"I/N"`` -> Shard; ValueError with a message for argparse otherwise."""
    found = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text or "")
    if not found:
        raise ValueError(f"--shard takes I/N (this job's number I of N shards, 1 <= I <= N), not {text!r}")
    index, count = int(found.group(1)), int(found.group(2))
    if not 1 <= index <= count:
        raise ValueError(f"--shard {text}: I must be between 1 and N (job arrays counting from 0: pass I+1)")
    return Shard(index, count)


def manifest_path(csv_path: str | Path) -> Path:
    csv_path = Path(csv_path)
    return csv_path.with_name(f"{csv_path.stem}_shard.json")


def secret_fingerprint() -> str | None:
    """A short hash of the grader's secret (never the secret), or None when there is none yet.

    Read after the shard's grading is done, without creating the file: the grading processes
    create it if needed, and a grading process must never hold it before its template is forked.
    """
    from ..engine import secret

    try:
        data = secret.path().read_bytes()
    except OSError:
        return None
    return fingerprint(data)


def fingerprint(data: bytes) -> str:
    """A short hash of a secret's bytes, never the secret (shard manifests, the nbgrader records' key)."""
    return hashlib.sha256(FINGERPRINT_SALT + data).hexdigest()[:16]


@dataclass(frozen=True)
class Manifest:
    """``<stem>_shard.json``: which shard a CSV holds, the whole class in discovery order, the secret's fingerprint."""

    shard: Shard
    students: list[str]
    secret: str | None
    VERSION = MANIFEST_VERSION

    def to_json(self) -> str:
        data = {"version": self.VERSION, "shard": [self.shard.index, self.shard.count], "class": list(self.students),
                "secret": self.secret}
        return json.dumps(data, indent=1) + "\n"  # ids may hold surrogates: \u escapes

    @classmethod
    def from_json(cls, text: str) -> "Manifest":
        """ValueError (or KeyError, TypeError) when ``text`` is not a manifest of this version."""
        data = json.loads(text)
        index, count = data["shard"]
        students = data["class"]
        secret = data.get("secret")
        if data.get("version") != cls.VERSION or not isinstance(students, list) \
                or not all(isinstance(s, str) for s in students) or not (secret is None or isinstance(secret, str)):
            raise ValueError("unknown format")
        return cls(Shard(int(index), int(count)), students, secret)


def write_manifest(csv_path: Path, shard: Shard, students: Iterable[str]) -> None:
    """``<stem>_shard.json`` for this shard, with the secret's fingerprint as it is now."""
    out.write_atomic(manifest_path(csv_path), Manifest(shard, list(students), secret_fingerprint()).to_json())


def read_manifest(csv_path: Path) -> Manifest:
    """The manifest of a shard's CSV; ValueError saying why it cannot be merged."""
    path = manifest_path(csv_path)
    try:
        return Manifest.from_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{path} is missing: was {csv_path} written by `grade-all --shard I/N`?") from None
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{path} is not a shard manifest ({err})") from None
