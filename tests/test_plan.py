"""The sandbox's plan is the whole truth (issue 30): `python -m autograder plan` and the table docs/security.md quotes.

What each step enforces is declared once, on the step (steps.py: ``provides``); what enforces a guarantee from
outside steps.plan() is steps.OUTSIDE, and what a mode does not bound is steps.NOT_BOUNDED, with the reason.
Here: the quote is the command's output; every step of every mode's plan enforces something; every guarantee is
enforced in every mode whatever the machine, or declared not bounded there; and every enforcer outside the plan
is in the function it names (read from its source, so the declaration cannot outlive the code).
"""
from __future__ import annotations

import ast
import inspect
import textwrap
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import cli
from autograder.assignment import ROOT
from autograder.sandbox import plan_report, steps
from autograder.sandbox.confinement import Mode
from autograder.sandbox.guarantees import COVERING, Guarantee

MODES = list(Mode)


def test_security_md_quotes_the_plan() -> None:
    page = (ROOT / plan_report.DOC).read_text()
    assert plan_report.MARK_BEGIN in page and plan_report.MARK_END in page, (
        f"{plan_report.DOC} lost its plan markers: put them back and run `{plan_report.REGENERATE}`")
    assert plan_report.quoted(page) == plan_report.markdown(), (
        f"the table {plan_report.DOC} quotes differs from what the steps declare: run `{plan_report.REGENERATE}`")


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_every_step_enforces_something(mode: Mode) -> None:
    plan = plan_report.plan_of(mode)
    idle = [repr(step) for step in (*plan.keeper, *plan.worker)
            if not any(mode in p.only_in for p in step.provides)]
    assert not idle, f"{mode}: {idle} declare no guarantee they enforce in this mode (steps.py: provides)"


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_every_guarantee_is_enforced_or_declared_not_bounded(mode: Mode) -> None:
    declared = steps.NOT_BOUNDED.get(mode, {})
    open_ = [g.key for g in Guarantee if not plan_report.enforced(mode, g) and not declared.get(g, "").strip()]
    assert not open_, (f"{mode}: nothing enforces {open_} whatever the machine: a step or steps.OUTSIDE must "
                       "(guarantees.COVERING says which conditions add up), or steps.NOT_BOUNDED says why not")
    # and a reason for a guarantee the mode enforces whole would say less than the table: it goes
    stale = [g.key for g, why in declared.items() if plan_report.enforced(mode, g)]
    assert not stale, f"{mode}: {stale} are enforced whatever the machine, yet steps.NOT_BOUNDED says otherwise"


class _ModeReader(steps.Step):
    """What test_no_step_reads_the_mode must catch."""

    def run(self, ctx: steps.Context) -> None:
        if ctx.config.mode is Mode.LANDLOCK:
            pass


def test_no_step_reads_the_mode() -> None:
    """Steps get what differs by mode when the plan is built (steps.plan, the one place that reads it): a step
    that branched on the mode inside itself hid part of the plan (issue 30)."""
    def reads_mode(cls: type) -> bool:  # config.mode, ctx.config.mode: any attribute called mode
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
        return any(isinstance(node, ast.Attribute) and node.attr == "mode" for node in ast.walk(tree))

    readers = [cls.__name__ for cls in vars(steps).values()
               if isinstance(cls, type) and issubclass(cls, steps.Step) and cls is not steps.Step and reads_mode(cls)]
    assert reads_mode(_ModeReader), "the check must see a step that reads the mode"
    assert not readers, f"these steps read the mode: give them a parameter in steps.plan instead: {readers}"


def test_conditions_that_add_up_are_complements() -> None:
    for group, why in COVERING:
        assert len(group) >= 2 and why, (group, why)


def _function(dotted: str) -> ast.AST:
    """The definition ``module.function`` or ``module.Class.method`` under autograder/, from its source."""
    parts = dotted.split(".")
    for split in range(len(parts) - 1, 0, -1):
        path = ROOT / "autograder" / Path(*parts[:split]).with_suffix(".py")
        if path.is_file():
            break
    else:
        raise AssertionError(f"no module for {dotted}")
    node: ast.AST = ast.parse(path.read_text())
    for name in parts[split:]:
        node = next(n for n in ast.iter_child_nodes(node)
                    if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == name)
    return node


@pytest.mark.parametrize("outside", steps.OUTSIDE, ids=lambda o: o.name)
def test_what_runs_outside_the_plan_is_where_it_says(outside: steps.Outside) -> None:
    source = ast.unparse(_function(outside.where))
    assert outside.calls in source, f"{outside.where} no longer has {outside.calls}: steps.OUTSIDE[{outside.name!r}]"
    assert outside.provides and outside.purpose


def test_every_guarantee_is_a_row_and_every_mode_a_column() -> None:
    table = plan_report.markdown()
    for guarantee in Guarantee:
        assert f"| {guarantee.value} |" in table
    assert table.splitlines()[0] == "| step | purpose | " + " | ".join(map(str, Mode)) + " |"
    assert "outside the plan" in table and "NOTHING" not in table


def test_the_plan_command(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert cli.main(["plan", "--mode", "landlock"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("landlock\n") and "Landlock" in out and "Watch (without a control group)" in out
    assert "\n    namespaces:" not in out and "\nnone\n" not in out
    assert cli.main(["plan", "--markdown"]) == 0
    assert capsys.readouterr().out == plan_report.markdown()
    page = tmp_path / "page.md"
    page.write_text(f"before\n{plan_report.MARK_BEGIN}\nold\n{plan_report.MARK_END}\nafter\n")
    assert cli.main(["plan", "--into", str(page)]) == 0
    written = page.read_text()
    assert plan_report.quoted(written) == plan_report.markdown() and written.endswith(f"{plan_report.MARK_END}\nafter\n")
    (tmp_path / "bare.md").write_text("no markers\n")
    assert cli.main(["plan", "--into", str(tmp_path / "bare.md")]) == 2
    assert "has no" in capsys.readouterr().err
    assert (tmp_path / "bare.md").read_text() == "no markers\n"


def test_the_command_runs_as_a_module() -> None:
    run = subprocess.run([sys.executable, "-m", "autograder", "plan"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    for mode in Mode:
        assert f"\n{mode}\n" in f"\n{run.stdout}"
    assert "guarantees: a submission cannot" in run.stdout
