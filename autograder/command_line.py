"""Where a command line becomes typed records: the one reader of an argparse.Namespace (with cli.py).

A command declares its options on an argparse parser and names, with
``parser.set_defaults(handler=run, options=Record)``, the frozen dataclass they fill: its fields are the
options' names. ``run(parser, argv, name)`` parses ``argv`` and calls ``handler(settings, record)``, the
Settings made once from the settings' options (autograder/settings.py: the defaults, the settings file,
the options given) when the command has them (settings.add_options), else ``handler(record)``. So a flow
is handed typed values and never reads, or writes, a Namespace.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import fields, is_dataclass
from typing import Any

from .assignment import workdir
from .settings import Settings, SettingsError, from_args, option_names

EXIT_BAD_SETTINGS = 2  # a setting (file or option) that cannot be: said, nothing run
# What a parsed command line holds besides a command's own options and the settings' options: how it is run
# (cli.py's subcommand and --workdir, the handler and its record).
DISPATCH = frozenset({"handler", "options", "command", "workdir"})


def records(args: argparse.Namespace) -> tuple[Settings | None, Any]:
    """(the Settings, or None for a command without the settings' options; the command's own options record).

    SettingsError when the settings cannot be made; TypeError when the parser's options and the record's fields
    are not the same names (a command's mistake, found the first time it runs)."""
    given = vars(args)
    with_settings = "config" in given  # settings.add_options gave it the settings' options
    settings = from_args(args, workdir()) if with_settings else None
    record = given["options"]
    if not (isinstance(record, type) and is_dataclass(record)):
        raise TypeError(f"{record!r} is not a dataclass: a command's options are a typed record")
    settings_names = option_names() if with_settings else set()
    own = {k: v for k, v in given.items() if k not in DISPATCH and k not in settings_names}
    names = {f.name for f in fields(record)}
    if set(own) != names:
        raise TypeError(f"{record.__name__}'s fields ({', '.join(sorted(names))}) are not the command's options "
                        f"({', '.join(sorted(own))})")
    return settings, record(**own)


def dispatch(args: argparse.Namespace, name: str) -> int:
    """The handler's exit code, run with the records of ``args``; ``name`` starts the line a bad setting gets."""
    try:
        settings, options = records(args)
    except SettingsError as why:
        print(f"{name}: {why}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    return args.handler(options) if settings is None else args.handler(settings, options)


def run(parser: argparse.ArgumentParser, argv: Sequence[str] | None, name: str) -> int:
    """A module's own command line (``python -m autograder.flows...``): parsed here, then run as dispatch does."""
    return dispatch(parser.parse_args(None if argv is None else list(argv)), name)
