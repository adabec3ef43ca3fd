"""The one thing pyproject.toml cannot say: the wheel also carries the checkout files outside the two packages
that the grader reads (autograder/assignment.py SHIPPED: the released student notebook, the slim lock).

They are copied to autograder/_shipped/<their checkout path>; an installed package finds them there
(assignment.CHECKOUT_FILES). An sdist carries them at their own paths (MANIFEST.in), so a wheel built
from it gets them the same way.
"""
import importlib.util
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def shipped() -> tuple[str, ...]:
    """assignment.SHIPPED, read without importing the package (setup.py runs before it is installed)."""
    spec = importlib.util.spec_from_file_location("week7_assignment", HERE / "autograder" / "assignment.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # standard library only
    return module.SHIPPED


class BuildPyWithShipped(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads them in the checkout
            return
        for name in shipped():
            target = Path(self.build_lib) / "autograder" / "_shipped" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(HERE / name, target)


setup(cmdclass={"build_py": BuildPyWithShipped})
