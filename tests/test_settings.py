"""autograder/settings.py: one typed record of every setting, read from a file, the command line and nbgrader's config.

Fast tests. The flows carrying it to the worker are tested where they run: the Gradescope zip carries it as
data (tests/test_gradescope.py), grade-all's grading processes get it whole (the limits' names below), the
nbgrader service is started with it (tests/test_nbgrader_flow.py).
"""
import argparse
import dataclasses
import subprocess
import sys

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
