"""Oracle-only notebooks: blank but for one part's function, implemented by calling what it was handed.

A case is a module with a one-line docstring, PART (the part it attacks), REPLACE (grade_id -> the
cell's source, as in tests/corpus/hostile/) and POINTS (what the part may still give: 0 unless the
docstring says which check is left and why). tests/test_oracle_only.py builds each from the blank
student notebook and grades it; tests/test_environments.py grades them in each environment's batch.
"""
import importlib
import pkgutil


def case_names():
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def load(name):
    return importlib.import_module(f"{__name__}.{name}")
