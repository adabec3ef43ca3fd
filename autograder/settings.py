"""Every grading setting, declared once with its type, default and help: one typed record from each entry point
to the worker (standard library only: parsing a command line must not import PyTorch).

    Settings                 what a flow grades with: feedback, visibility, confinement, parts, and
      .limits  Limits        what one submission may use, and what of it the grader reads and keeps: every limit
                             of the grader, declared here only (the worker's confinement reads them through
                             sandbox/config.py's WorkerConfig, the hidden suites through their Student)

Where they come from, later ones winning: the defaults below; a TOML file beside the course
(``autograder.toml`` in the working directory, or ``--config FILE``; ``week7-grader.toml``, its former name,
where it is the only one); the command line (every
field is an option: ``--feedback``, ``--call-seconds`` ...); for the nbgrader flow, nbgrader_config.py
(``c.SandboxGrading.<field>``, the same names); for Gradescope, the zip carries the file as data.

    # autograder.toml
    feedback = "values"
    visibility = "after_published"
    [limits]
    submission_seconds = 600

``python -m autograder settings`` prints the whole surface with the values in force. A command line becomes a
Settings once (command_line.py, with from_args below); the flows are handed it, never the parsed options.
"""
from __future__ import annotations

import argparse
import dataclasses
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

# What students are shown, least to most (--feedback): each level adds to the one before.
FEEDBACK_HELP = {
    "score": "the total and each part's points, nothing about single checks",
    "checks": "+ each check's title and whether it passed",
    "values": "+ why a check failed: the value found, the value expected, where",
    "hints": "+ a hint at the likely cause, and the diagnosed cause (the default during the term)",
}
FEEDBACK_LEVELS = tuple(FEEDBACK_HELP)
DEFAULT_FEEDBACK = "hints"

# When students see each test's output on Gradescope (results.json "visibility"); grade and
# grade-all write the same field.
VISIBILITY_HELP = {
    "visible": "at once",
    "hidden": "never (instructors only)",
    "after_due_date": "after the due date",
    "after_published": "once the grades are published",
}
VISIBILITIES = tuple(VISIBILITY_HELP)
DEFAULT_VISIBILITY = "visible"

# How workers are confined (autograder/sandbox/confinement.py probes what the machine allows).
CONFINEMENTS = ("namespaces", "user-namespace", "landlock", "none")
CONFIG_FILE = "autograder.toml"
# Its name while the engine served week 7 alone: still read where it is the only one (a course folder set up then, and
# an older Gradescope zip, whose own run_autograder names it), so nothing needs migrating.
LEGACY_CONFIG_FILE = "week7-grader.toml"


def config_path(workdir: Path) -> Path:
    """The settings file of ``workdir``: autograder.toml, or week7-grader.toml where only that one is there."""
    path, legacy = Path(workdir) / CONFIG_FILE, Path(workdir) / LEGACY_CONFIG_FILE
    return legacy if not path.is_file() and legacy.is_file() else path


def setting(default: Any, help: str, choices: tuple | None = None, option: str | None = None) -> Any:  # noqa: A002
    """A dataclass field carrying its help text (and choices, and the option's name where it differs)."""
    return field(default=default, metadata={"help": help, "choices": choices, "option": option})


def feedback_help() -> str:
    return "what students see: " + "; ".join(f"{k}: {v}" for k, v in FEEDBACK_HELP.items()) + \
        f" (default {DEFAULT_FEEDBACK})"


def visibility_help() -> str:
    return "when students see the tests: " + "; ".join(f"{k}: {v}" for k, v in VISIBILITY_HELP.items()) + \
        f" (default {DEFAULT_VISIBILITY})"


@dataclass(frozen=True)
class Limits:
    """What one submission may use, and what of it the grader reads and keeps. Enforced from outside the worker
    (engine/supervisor.py, sandbox/), each declared here once: the flows, the worker's confinement
    (sandbox/config.py's WorkerConfig) and the hidden suites read them from the Settings they are given."""
    call_seconds: float = setting(10.0, "seconds for one call of a graded function (its model requests included)")
    cell_seconds: float = setting(30.0, "seconds for one notebook cell at start-up")
    submission_seconds: float = setting(300.0, "seconds for everything of one submission", option="budget")
    training_seconds: float = setting(120.0, "seconds for the training check's whole run (the lab's smoke run, "
                                             "calling the student's mask, shift and loss; each call within "
                                             "call_seconds)")
    memory_mib: int = setting(4096, "MiB of memory for the worker's whole tree (and each process's address space)")
    reply_mib: int = setting(64, "MiB of the largest reply the grader reads")
    file_mib: int = setting(64, "MiB of the largest file the worker may write")
    disk_mib: int = setting(256, "MiB of the worker's scratch space")
    processes: int = setting(256, "processes and threads of the worker's tree")
    starts_per_second: int = setting(200, "processes and threads the worker's tree may start within a second, "
                                          "where a watchdog bounds it (an honest grade starts a few dozen in all; "
                                          "a tree that changes pid faster than it is sampled hides its memory)")
    scratch_entries: int = setting(20_000, "files and folders the worker's scratch space may hold (each takes "
                                           "kernel memory that no byte count shows)")
    max_restarts: int = setting(12, "workers one submission may use up (a crashed or hung one is replaced)")
    arena_mib: int = setting(16, "MiB of shared memory for one call's tensor arguments")
    notebook_mib: int = setting(32, "MiB of the largest notebook read from a submission, in every flow (a larger one "
                                    "scores 0 with a message saying why; the released notebook is ~60 KiB)")
    cell_output_chars: int = setting(4000, "characters of one cell's printed output kept for the feedback (the rest "
                                           "is dropped, and the output says how much)")
    output_chars: int = setting(1_000_000, "characters of printed output kept of the whole notebook")
    model_seconds: float = setting(20.0, "seconds of the grader's own CPU running lab models for one submission")
    model_passes: int = setting(512, "forward passes of the lab models that one call of a graded function may ask "
                                     "the grader to run (an honest one asks for 2, the most thorough check ~113)")
    model_tokens: int = setting(8192, "tokens (N * T) of one such forward pass (8192: 4 MiB of attention weights)")
    call_model_tokens: int = setting(65536, "tokens of all the forward passes of one call (an honest "
                                            "prefix_change asks for 40, the most thorough check ~2,300)")
    grader_grace_seconds: float = setting(300.0, "seconds beyond submission_seconds that a flow waits for one "
                                                 "grade before it takes the grader itself for hung (grade-all's "
                                                 "grading processes, nbgrader's grading service)")

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "limits") -> Limits:
        """Strict, as Settings.from_dict (the worker's config carries them so: sandbox/config.py)."""
        return _build(cls, data, where)

    @property
    def grade_wait(self) -> float:
        """Seconds a flow waits for one grade from a grading process of its own: the submission's budget, then
        the grace (the budget stops student code; this only catches a grader that hangs)."""
        return self.submission_seconds + self.grader_grace_seconds


@dataclass(frozen=True)
class Settings:
    """What a flow grades with. Frozen: a flow builds one, every grade of it reads the same."""
    feedback: str = setting(DEFAULT_FEEDBACK, feedback_help(), FEEDBACK_LEVELS)
    visibility: str = setting(DEFAULT_VISIBILITY, visibility_help(), VISIBILITIES)
    confinement: str = setting("auto", "how workers are confined: auto (default) takes the strongest this machine "
                                       "allows; name one to insist on it (grading stops if it cannot be built)",
                               ("auto", *CONFINEMENTS))
    unsafe_no_sandbox: bool = setting(False, "where no confinement can be built, run student code UNCONFINED: only "
                                             "for notebooks you trust (your own), never for students'")
    parts: tuple[str, ...] = setting((), "grade only these parts (all when empty)")
    limits: Limits = setting(Limits(), "what one submission may use")

    def __post_init__(self) -> None:
        for f in fields(self):
            choices = f.metadata.get("choices")
            if choices and getattr(self, f.name) not in choices:
                raise SettingsError(f"{f.name} = {getattr(self, f.name)!r}: one of {', '.join(choices)}")
        from .assignment import PART_IDS
        unknown = [p for p in self.parts if p not in PART_IDS]
        if unknown:
            raise SettingsError(f"parts: no part {', '.join(unknown)}; the parts are {', '.join(PART_IDS)}")

    # ---- as data -------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["parts"] = list(self.parts)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "settings") -> Settings:
        """Strict: an unknown key, a wrong type or value is a SettingsError naming it (and ``where``)."""
        return _build(cls, data, where)

    def to_toml(self) -> str:
        """The file form (what the Gradescope zip carries): top-level settings, then [limits]."""
        lines, limits = [], []
        for f in fields(self):
            if f.name != "limits":
                lines.append(f"{f.name} = {_toml(getattr(self, f.name))}")
        for f in fields(Limits):
            limits.append(f"{f.name} = {_toml(getattr(self.limits, f.name))}")
        return "\n".join([*lines, "", "[limits]", *limits]) + "\n"

    @classmethod
    def from_file(cls, path: str | Path) -> Settings:
        try:
            with open(path, "rb") as handle:
                data = tomllib.load(handle)
        except (OSError, tomllib.TOMLDecodeError) as err:
            raise SettingsError(f"{path}: {err}") from None
        return cls.from_dict(data, str(path))

    def replace(self, **changes: Any) -> Settings:
        """A copy with ``changes`` (limits' fields by name too: ``replace(call_seconds=5)``)."""
        mine = {k: v for k, v in changes.items() if k in {f.name for f in fields(self)}}
        theirs = {k: v for k, v in changes.items() if k not in mine}
        if theirs:
            mine["limits"] = dataclasses.replace(mine.get("limits", self.limits), **theirs)
        return dataclasses.replace(self, **mine)


class SettingsError(ValueError):
    """A setting that cannot be: the message names it, where it came from and what it may be."""


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)


def _build(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise SettingsError(f"{where}: expected a table of settings")
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise SettingsError(f"{where}: unknown setting {', '.join(unknown)}; the settings are "
                            f"{', '.join(known)}")
    values: dict[str, Any] = {}
    for name, value in data.items():
        kind = known[name].type
        if name == "limits":
            values[name] = _build(Limits, value, f"{where} [limits]")
        elif kind in ("bool",) and isinstance(value, bool):
            values[name] = value
        elif kind == "int" and isinstance(value, int) and not isinstance(value, bool):
            values[name] = value
        elif kind == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
            values[name] = float(value)
        elif kind == "str" and isinstance(value, str):
            values[name] = value
        elif kind.startswith("tuple") and isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            values[name] = tuple(value)
        else:
            raise SettingsError(f"{where}: {name} = {value!r} is not a {kind}")
    try:
        return cls(**values)
    except SettingsError as err:
        raise SettingsError(f"{where}: {err}") from None


# ---- the command line ----------------------------------------------------------------------------------
def _option(f: dataclasses.Field) -> str:
    return "--" + (f.metadata.get("option") or f.name).replace("_", "-")


def add_options(parser: argparse.ArgumentParser) -> None:
    """Every setting as an option, defaulting to "not given" (so that a file's value stands unless overridden)."""
    group = parser.add_argument_group(f"settings (also from {CONFIG_FILE} beside the course, or --config FILE)")
    group.add_argument("--config", metavar="FILE", help=f"a settings file (default: {CONFIG_FILE} in the working "
                                                        "directory, when there is one)")
    for f in [*fields(Settings), *fields(Limits)]:
        if f.name == "limits":
            continue
        default = Limits() if f in fields(Limits) else Settings()
        shown = getattr(default, f.name)
        helptext = f"{f.metadata['help']} (default {shown!r})"
        if f.type == "bool":
            group.add_argument(_option(f), dest=f.name, action="store_const", const=True, default=None, help=helptext)
        elif f.name == "parts":
            from .assignment import PART_IDS
            group.add_argument("--part", dest="parts", action="append", choices=PART_IDS, default=None,
                               help="grade only this part (repeatable)")
        else:
            kind = {"int": int, "float": float}.get(str(f.type), str)
            group.add_argument(_option(f), dest=f.name, type=kind, default=None, choices=f.metadata.get("choices"),
                               help=helptext)


def option_names() -> set[str]:
    """The names add_options gives the parsed command line (a command's own options are the rest)."""
    return {"config", *(f.name for f in fields(Settings) if f.name != "limits"), *(f.name for f in fields(Limits))}


def from_args(args: argparse.Namespace, workdir: Path | None = None) -> Settings:
    """The defaults, then the settings file (``--config``, or autograder.toml in ``workdir``), then the options
    given on the command line. SettingsError for anything that cannot be."""
    config = getattr(args, "config", None)
    path = Path(config) if config else (config_path(workdir) if workdir else None)
    settings = Settings.from_file(path) if path is not None and (config or path.is_file()) else Settings()
    given = {f.name: getattr(args, f.name) for f in [*fields(Settings), *fields(Limits)]
             if f.name != "limits" and getattr(args, f.name, None) is not None}
    if "parts" in given:
        given["parts"] = tuple(given["parts"])
    try:
        return settings.replace(**given)
    except SettingsError:
        raise
    except (TypeError, ValueError) as err:
        raise SettingsError(str(err)) from None


def describe(settings: Settings) -> str:
    """The whole surface, one line a setting: name = value  # help."""
    lines = []
    for f in fields(Settings):
        if f.name != "limits":
            lines.append(f"{f.name} = {_toml(getattr(settings, f.name))}  # {f.metadata['help']}")
    lines.append("[limits]")
    for f in fields(Limits):
        lines.append(f"{f.name} = {_toml(getattr(settings.limits, f.name))}  # {f.metadata['help']}")
    return "\n".join(lines)


MARKDOWN_FILE = "docs/settings.md"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """docs/settings.md: every field of Settings and Limits with its type, default and help, from the fields above
    (the help text is the one source; tests/test_settings.py fails when the committed file differs)."""
    lines = [
        "# Settings reference",
        "",
        "Every grading setting with its type, default and help, generated from `autograder/settings.py` "
        "(`.venv/bin/python -m autograder settings --markdown > docs/settings.md`; do not edit by hand).",
        "",
        f"Where they come from, later ones winning: the defaults below; `{CONFIG_FILE}` in the working directory "
        f"(or `--config FILE`; `{LEGACY_CONFIG_FILE}`, its former name, where it is the only one); the options of `grade`, `grade-all`, `written`, `crosscheck` and `make gradescope` "
        "(the option column); in an nbgrader course, `c.SandboxGrading.<name>` in `nbgrader_config.py` (the same "
        f"names). `make gradescope` puts them in the zip as `{CONFIG_FILE}`. In the file, the limits go under "
        "`[limits]`. "
        "`.venv/bin/python -m autograder settings` prints every setting in force with its help.",
        "",
    ]
    for title, cls, default in (("Settings", Settings, Settings()), ("Limits (`[limits]`)", Limits, Limits())):
        lines += [f"## {title}", "", _cell((cls.__doc__ or "").strip()), "",
                  "| name | option | type | default | help |", "|---|---|---|---|---|"]
        for f in fields(cls):
            if f.name == "limits":
                continue
            option = "--part (repeatable)" if f.name == "parts" else _option(f)
            value = _toml(getattr(default, f.name))
            choices = f.metadata.get("choices")
            kind = f"{f.type}: {', '.join(choices)}" if choices else str(f.type)
            lines.append(f"| `{f.name}` | `{option}` | {_cell(kind)} | `{value}` | {_cell(f.metadata['help'])} |")
        lines.append("")
    return "\n".join(lines)
