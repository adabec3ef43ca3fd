"""The one thing pyproject.toml cannot say: the wheel also carries the checkout files outside the two packages
that the grader reads (autograder/assignment.py SHIPPED: the released student notebook, the slim lock).

They are copied to autograder/_shipped/<their checkout path>; an installed package finds them there
(assignment.CHECKOUT_FILES). An sdist carries them at their own paths (MANIFEST.in), so a wheel built
from it gets them the same way.
"""
import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


def shipped() -> tuple[str, ...]:
    """assignment.SHIPPED, read from the checkout (setup.py runs before the package is installed): the engine's
    assignment module, the plug-in interface and the assignment's facts import the standard library only."""
    sys.path.insert(0, str(HERE))
    try:
        from autograder import assignment
        return assignment.SHIPPED
    finally:
        sys.path.remove(str(HERE))


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
