"""What the grader tells the template about one worker: a typed record, sent as JSON, read strictly."""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from ..settings import Limits
from .confinement import Mode

# A template's wait for its keepers' clean-up once the grader hangs up (template.finish): the grader's own
# machinery, after every submission is done with, so not one of the Limits.
CLEAN_UP_SECONDS = 60.0


@dataclass(frozen=True)
class WorkerConfig:
    mode: Mode = Mode.NAMESPACES  # confinement.py: how this machine confines a worker
    limits: Limits = Limits()  # what its tree may use: the submission's (autograder/settings.py, declared there once)
    keep: tuple[str, ...] = ()  # trees it may read besides the system's: the Python installation
    hidden: tuple[str, ...] = ()  # never visible to it, even inside a kept tree (the hidden code, the checkout)
    own_uid: bool = True  # it gets a uid of its own (else it keeps the grader's)
    landlock_abi: int = 0  # the kernel's Landlock ABI (mode landlock)
    scratch_parent: str = ""  # where a work directory is made without namespaces ("": the system's temp dir)

    # The limits the confinement enforces (confine.py, steps.py, the template's watchdog), read through the config.
    @property
    def memory_mib(self) -> int:
        """The whole tree's memory (control group or watchdog), and each process's address space."""
        return self.limits.memory_mib

    @property
    def file_mib(self) -> int:
        return self.limits.file_mib

    @property
    def disk_mib(self) -> int:
        return self.limits.disk_mib

    @property
    def processes(self) -> int:
        return self.limits.processes

    @property
    def starts_per_second(self) -> int:
        return self.limits.starts_per_second

    @property
    def scratch_entries(self) -> int:
        return self.limits.scratch_entries

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
        values["limits"] = Limits.from_dict(raw.get("limits", {}), "worker config limits")  # strict, typed
        for name in ("keep", "hidden"):
            values[name] = tuple(str(p) for p in raw.get(name, ()))
        if "landlock_abi" in raw and type(raw["landlock_abi"]) is not int:
            raise ValueError("worker config landlock_abi must be an integer")
        return cls(**values)
