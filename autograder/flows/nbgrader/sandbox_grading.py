"""c.SandboxGrading: the settings of autograder/settings.py as nbgrader config traits, declared from the fields.

Its own module, so that the preprocessors (which read it) and the config lines (which register them) do not
import each other.
"""
from dataclasses import Field, fields
from typing import Any

from traitlets import Bool, Enum, Float, Int, List, TraitType, Unicode
from traitlets.config import Configurable

from ...settings import Limits, Settings


def _trait(f: Field[Any], default: Any) -> TraitType[Any, Any]:
    """The traitlets form of a settings field (autograder/settings.py), its help and default included."""
    helptext, choices = f.metadata["help"], f.metadata.get("choices")
    if choices:
        return Enum(choices, default_value=default, help=helptext).tag(config=True)
    kinds: dict[object, type[TraitType[Any, Any]]] = {"bool": Bool, "int": Int, "float": Float}
    kind = kinds.get(f.type)  # a name: settings.py's annotations are strings (from __future__ import annotations)
    if kind is not None:
        return kind(default, help=helptext).tag(config=True)
    return List(Unicode(), default_value=list(default), help=helptext).tag(config=True)


def _traits() -> dict[str, TraitType[Any, Any]]:
    """One trait per setting, under the same names (the limits' by theirs): declared once, in settings.py."""
    traits = {f.name: _trait(f, getattr(Settings(), f.name)) for f in fields(Settings) if f.name != "limits"}
    traits.update({f.name: _trait(f, getattr(Limits(), f.name)) for f in fields(Limits)})
    return traits


class SandboxGrading(Configurable):
    """c.SandboxGrading.*: how this assignment is graded in the sandbox (the rest of the course is nbgrader's).

    Every setting of autograder/settings.py, by its name (feedback, visibility, confinement, call_seconds ...),
    and the service's own idle time.
    """

    service_idle = Float(600.0, help="Seconds the course's warm grading service waits for the next submission "
                                     "before it exits (the next autograde then starts it again, ~3 s)").tag(config=True)
    locals().update(_traits())

    def settings(self) -> Settings:
        """The typed record these traits make (SettingsError if they cannot make one)."""
        mine = {f.name: getattr(self, f.name) for f in fields(Settings) if f.name != "limits"}
        mine["parts"] = tuple(mine["parts"])
        return Settings(**mine, limits=Limits(**{f.name: getattr(self, f.name) for f in fields(Limits)}))
