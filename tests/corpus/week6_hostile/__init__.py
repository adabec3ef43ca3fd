"""Attacks on week 6 (solutions/week6_bigram), in the hostile corpus's format (tests/corpus/hostile/__init__.py builds
them into week 6's solution notebook): what is particular to it, a function handed the grader's model. The
generic attacks (hostile's reach group) are built into the same notebook; tests/test_environments.py grades it in
every environment."""
import importlib

GENERIC = ["write_everywhere", "reach_grader", "note_for_next", "leave_the_group", "renice_everyone"]


def load(name):
    return importlib.import_module(f"{__name__}.{name}")
