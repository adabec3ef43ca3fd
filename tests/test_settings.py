"""autograder/settings.py: one typed record of every setting, read from a file, the command line and nbgrader's config.

Fast tests. The flows carrying it to the worker are tested where they run: the Gradescope zip carries it as
data (tests/test_gradescope.py), grade-all's grading processes get it whole (the limits' names below), the
nbgrader service is started with it (tests/test_nbgrader_flow.py).
"""
import argparse
import ast
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.assignment import ROOT
from autograder.settings import (CONFIG_FILE, MARKDOWN_FILE, Limits, Settings, SettingsError, add_options, from_args,
                                 markdown)


def parsed(*argv):
    parser = argparse.ArgumentParser()
    add_options(parser)
    return parser.parse_args(list(argv))


def test_every_field_has_help_and_every_limit_is_an_option():
    for f in [*dataclasses.fields(Settings), *dataclasses.fields(Limits)]:
        assert f.metadata.get("help"), f"{f.name} has no help text"
    args = parsed()
    for f in dataclasses.fields(Limits):
        assert hasattr(args, f.name), f"no option for {f.name}"


def test_the_file_form_round_trips(tmp_path):
    settings = Settings(feedback="values", visibility="after_published", parts=("masks", "targets"),
                        limits=Limits(call_seconds=5.0, memory_mib=2048))
    path = tmp_path / CONFIG_FILE
    path.write_text(settings.to_toml())
    assert Settings.from_file(path) == settings
    assert Settings.from_dict(settings.to_dict()) == settings


@pytest.mark.parametrize("text, says", [
    ('feedbak = "values"\n', "unknown setting feedbak"),
    ('feedback = "everything"\n', "feedback = 'everything': one of score"),
    ('parts = ["mask"]\n', "no part mask"),
    ('[limits]\ncall_seconds = "ten"\n', "call_seconds = 'ten' is not a float"),
    ('[limits]\nmemory = 4\n', "unknown setting memory"),
    ('unsafe_no_sandbox = 1\n', "is not a bool"),
    ('feedback = \n', "Invalid"),
])
def test_a_bad_file_is_refused_naming_what_and_where(tmp_path, text, says):
    path = tmp_path / CONFIG_FILE
    path.write_text(text)
    with pytest.raises(SettingsError) as err:
        Settings.from_file(path)
    assert says in str(err.value) and str(path) in str(err.value)


def test_defaults_then_the_file_then_the_command_line(tmp_path):
    (tmp_path / CONFIG_FILE).write_text('feedback = "values"\nvisibility = "hidden"\n[limits]\ncall_seconds = 7\n')
    settings = from_args(parsed("--feedback", "score", "--budget", "120", "--part", "masks"), tmp_path)
    assert (settings.feedback, settings.visibility, settings.parts) == ("score", "hidden", ("masks",))
    assert (settings.limits.call_seconds, settings.limits.submission_seconds) == (7.0, 120.0)
    assert from_args(parsed(), tmp_path / "elsewhere") == Settings()  # no file there: the defaults
    with pytest.raises(SettingsError):
        from_args(parsed("--config", str(tmp_path / "missing.toml")))


def test_nbgraders_traits_mirror_the_settings():
    from traitlets.config import Config

    from autograder.flows.nbgrader.config import SandboxGrading
    traits = SandboxGrading.class_traits(config=True)
    names = {f.name for f in dataclasses.fields(Settings) if f.name != "limits"} | \
        {f.name for f in dataclasses.fields(Limits)}
    assert names <= set(traits)
    c = Config()
    c.SandboxGrading.feedback = "checks"
    c.SandboxGrading.call_seconds = 4.0
    c.SandboxGrading.parts = ["leakage"]
    assert SandboxGrading(config=c).settings() == Settings(feedback="checks", parts=("leakage",),
                                                             limits=Limits(call_seconds=4.0))


def test_the_settings_command_shows_the_values_in_force(tmp_path):
    (tmp_path / "s.toml").write_text('[limits]\ndisk_mib = 128\n')
    run = subprocess.run([sys.executable, "-m", "autograder", "settings", "--config", str(tmp_path / "s.toml"),
                          "--visibility", "after_due_date"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert 'visibility = "after_due_date"' in run.stdout and "disk_mib = 128" in run.stdout


def test_the_settings_reference_is_generated_from_the_fields():
    """docs/settings.md is `settings --markdown`: every field of Settings and Limits with its type, default and help,
    so a field added or a help text changed without regenerating the page fails here."""
    page = markdown()
    for f in [*dataclasses.fields(Settings), *dataclasses.fields(Limits)]:
        if f.name != "limits":
            assert f"| `{f.name}` |" in page and f.metadata["help"].replace("|", "\\|") in page, f.name
    assert (ROOT / MARKDOWN_FILE).read_text() == page, (
        f"{MARKDOWN_FILE} differs from what autograder/settings.py generates: run "
        f"`.venv/bin/python -m autograder settings --markdown > {MARKDOWN_FILE}`")


# ---- the flows are handed typed records, never a parsed command line ----------------------------------------
PARSING = {"parse_args", "parse_known_args", "parse_intermixed_args", "parse_known_intermixed_args"}


def namespace_uses(source: str) -> list[str]:
    """Where ``source`` parses a command line or reads what argparse parsed: a parse_*args call, the name
    Namespace, a parameter named ``args`` (or ``namespace``) or annotated Namespace. A ``*args`` is a call's
    arguments, not a command line, and is left alone."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in PARSING:
            found.append(f"line {node.lineno}: .{node.func.attr}()")
        elif (isinstance(node, ast.Attribute) and node.attr == "Namespace") or \
                (isinstance(node, ast.Name) and node.id == "Namespace"):
            found.append(f"line {node.lineno}: Namespace")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            given = node.args
            for arg in [*given.posonlyargs, *given.args, *given.kwonlyargs]:
                annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
                if arg.arg in ("args", "namespace") or "Namespace" in annotation:
                    found.append(f"line {node.lineno}: parameter {arg.arg}")
    return found


def test_the_scan_sees_a_namespace_read():
    assert namespace_uses("def run(args):\n    return args.out\n")
    assert namespace_uses("run = lambda args: install(args.course)\n")
    assert namespace_uses("def main(argv):\n    options = parser().parse_args(argv)\n")
    assert namespace_uses("def key(s):\n    return key(argparse.Namespace(settings=s))\n")
    assert namespace_uses("def run(options: 'argparse.Namespace'):\n    pass\n")
    assert not namespace_uses("def nbgrader(course, *args, check=True):\n    return list(args)\n")
    assert not namespace_uses("def run(settings: Settings, options: GradeAll) -> int:\n    return options.jobs\n")


def test_no_flow_reads_a_parsed_command_line():
    """Every module under autograder/flows/ is handed Settings and its command's own typed record
    (autograder/command_line.py makes both, once); none parses argv or reads an argparse Namespace."""
    import autograder.flows

    home = Path(autograder.flows.__file__).parent
    flows = sorted(home.rglob("*.py"))
    names = {p.relative_to(home).as_posix() for p in flows}
    assert {"batch.py", "batch_merge.py", "gradescope/run.py", "gradescope/build.py", "nbgrader/course.py",
            "nbgrader/service.py", "written/command.py", "lms.py"} <= names  # the scan reads the flows themselves
    found = {p.relative_to(ROOT).as_posix(): uses for p in flows if (uses := namespace_uses(p.read_text()))}
    assert not found, found


def commands():
    """(name, parser) of every command whose module is under autograder/flows/ or is cli.py itself."""
    from autograder import cli
    from autograder.flows import batch_merge
    from autograder.flows.gradescope import build, run
    from autograder.flows.nbgrader import course, hand, service

    top = cli.parser()
    subparsers = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    found = [(name, p) for name, p in subparsers.choices.items() if p.get_default("handler") is not None]
    assert {name for name, _ in found} >= {"grade", "settings", "grade-all", "written", "class-report", "crosscheck",
                                           "install-nbgrader"}
    return found + [("grade-all merge", batch_merge.parser()), ("gradescope", build.parser()),
                    ("run_autograder", run.parser()), ("nbgrader", course.parser()),
                    ("nbgrader-hand", hand.parser()), ("grading service", service.parser())]


def test_each_command_hands_its_flow_typed_records():
    """The handler takes (Settings, its record) when the command has the settings' options, else its record; the
    record's fields are the command's own options, one for one, so none is dropped or read untyped."""
    import inspect
    import typing

    from autograder.settings import option_names

    for name, parser in commands():
        handler, record = parser.get_default("handler"), parser.get_default("options")
        assert dataclasses.is_dataclass(record) and record.__dataclass_params__.frozen, name
        dests = {a.dest for a in parser._actions if a.dest != "help"}
        with_settings = "config" in dests
        own = dests - (option_names() if with_settings else set())
        assert own == {f.name for f in dataclasses.fields(record)}, name
        hints = typing.get_type_hints(handler)
        takes = [hints.get(p) for p in inspect.signature(handler).parameters]
        assert takes == ([Settings, record] if with_settings else [record]), (name, takes)


def test_the_worker_config_is_a_view_of_the_limits():
    """sandbox/config.py's WorkerConfig declares none of the limits: it carries the Limits and reads through them."""
    from autograder.sandbox.config import WorkerConfig

    limits = Limits(memory_mib=1024, file_mib=8, disk_mib=32, processes=16)
    config = WorkerConfig(limits=limits, keep=("/usr",))
    assert (config.memory_mib, config.file_mib, config.disk_mib, config.processes) == (1024, 8, 32, 16)
    assert WorkerConfig.from_json(config.to_json()) == config
    assert not {f.name for f in dataclasses.fields(WorkerConfig)} & {f.name for f in dataclasses.fields(Limits)}
    assert WorkerConfig().memory_mib == Limits().memory_mib
    with pytest.raises(SettingsError):
        WorkerConfig.from_json(b'{"limits": {"memory_mib": "4096"}}')


def test_the_settings_file_and_its_former_name(tmp_path):
    """autograder.toml in the working directory; week7-grader.toml (its name while the engine served week 7 alone) is
    still read where it is the only one, so a course folder set up then needs no migration; the new name wins."""
    import argparse

    from autograder.settings import CONFIG_FILE, LEGACY_CONFIG_FILE, config_path, from_args

    assert (CONFIG_FILE, LEGACY_CONFIG_FILE) == ("autograder.toml", "week7-grader.toml")
    assert config_path(tmp_path) == tmp_path / CONFIG_FILE  # neither: the new name, not read
    assert from_args(argparse.Namespace(), tmp_path).feedback == Settings().feedback
    (tmp_path / LEGACY_CONFIG_FILE).write_text('feedback = "score"\n')
    assert config_path(tmp_path) == tmp_path / LEGACY_CONFIG_FILE
    assert from_args(argparse.Namespace(), tmp_path).feedback == "score"
    (tmp_path / CONFIG_FILE).write_text('feedback = "checks"\n')
    assert from_args(argparse.Namespace(), tmp_path).feedback == "checks"
