"""Red-team corpus: findings against the sandbox protocol and the flows, in the hostile corpus's style.

A case is a module with a one-line docstring and ADD / REPLACE (as in tests/corpus/hostile/);
tests/test_redteam.py builds each from the solution notebook and states what must hold. Every
case here is a finding: its test fails while the bug exists.
"""
import importlib
import pkgutil


def case_names():
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def load(name):
    return importlib.import_module(f"{__name__}.{name}")
