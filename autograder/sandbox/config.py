"""What the grader tells the template about one worker: a typed record, sent as JSON, read strictly."""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from .confinement import Mode

CLEAN_UP_SECONDS = 60.0  # a template's wait for its keepers' clean-up once the grader hangs up (template.finish)


@dataclass(frozen=True)
class WorkerConfig:
    mode: Mode = Mode.NAMESPACES  # confinement.py: how this machine confines a worker
    memory_mib: int = 4096  # the whole tree's memory (control group or watchdog), and each process's address space
    file_mib: int = 64  # the largest file it may write
    disk_mib: int = 256  # its scratch space
    processes: int = 256  # processes and threads of the tree
    keep: tuple[str, ...] = ()  # trees it may read besides the system's: the Python installation
    hidden: tuple[str, ...] = ()  # never visible to it, even inside a kept tree (the hidden code, the checkout)
    own_uid: bool = True  # it gets a uid of its own (else it keeps the grader's)
    landlock_abi: int = 0  # the kernel's Landlock ABI (mode landlock)
    scratch_parent: str = ""  # where a work directory is made without namespaces ("": the system's temp dir)

    def to_json(self) -> bytes:
        return json.dumps(dataclasses.asdict(self)).encode()

    @classmethod
    def from_json(cls, data: bytes) -> WorkerConfig:
        raw = json.loads(data)
        fields = {f.name: f for f in dataclasses.fields(cls)}
        if not isinstance(raw, dict) or set(raw) - set(fields):
            raise ValueError(f"unexpected worker config fields: {sorted(set(raw) - set(fields))}")
        values = dict(raw)
        values["mode"] = Mode(raw.get("mode", Mode.NAMESPACES))
        for name in ("keep", "hidden"):
            values[name] = tuple(str(p) for p in raw.get(name, ()))
        for name in ("memory_mib", "file_mib", "disk_mib", "processes", "landlock_abi"):
            if name in raw and type(raw[name]) is not int:
                raise ValueError(f"worker config {name} must be an integer")
        return cls(**values)
