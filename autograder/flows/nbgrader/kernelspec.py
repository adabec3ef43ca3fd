"""An assignment's isolated Jupyter kernel spec (kernel.py): what it runs, where it is installed, whether it is ours.

Installed into the venv (`--sys-prefix`, next to its `python3`) by `make install` and by
`python -m autograder install-nbgrader`; started by nbgrader for the assignment's notebooks. Each assignment
graded in the sandbox has a spec of its own (``kernel_name``: the name its package declares, else
`<name>-isolated`), and every spec runs the same program: the kernel finds the assignment by its working
directory (autograded/<student>/<assignment>/). ``kernel`` below defaults to the current assignment's.
"""
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...engine.output_file import write_atomic
from . import CURRENT

MODULE = "autograder.flows.nbgrader.kernel"


def display_name(kernel: str = CURRENT.kernel) -> str:
    """What the isolated kernel spec ``kernel`` calls itself: `<kernel without -isolated> isolated grades (runs no code)`."""
    return f"{kernel.removesuffix('-isolated')} isolated grades (runs no code)"


def kernel_spec(python: str | None = None, kernel: str = CURRENT.kernel) -> dict[str, Any]:
    """kernel.json of ``kernel``: this interpreter, isolated mode (-I: the working directory,
    which holds the student's files, is not importable; PYTHON* variables are ignored)."""
    return {"argv": [python or sys.executable, "-I", "-m", MODULE, "-f", "{connection_file}"],
            "display_name": display_name(kernel), "language": "python", "metadata": {"debugger": False}}


def kernel_spec_path(prefix: str | os.PathLike[str] | None = None, kernel: str = CURRENT.kernel) -> Path:
    return Path(prefix or sys.prefix) / "share" / "jupyter" / "kernels" / kernel / "kernel.json"


def install_kernel(prefix: str | os.PathLike[str] | None = None, kernel: str = CURRENT.kernel) -> Path:
    """Install the kernel spec into the venv (`--sys-prefix`, next to its `python3` kernel)."""
    path = kernel_spec_path(prefix, kernel)
    write_atomic(path, json.dumps(kernel_spec(kernel=kernel), indent=1) + "\n")
    return path


def jupyter_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment for nbgrader: this interpreter's bin first on PATH (nbgrader runs `alembic`),
    its Jupyter data first (so the isolated kernels are this venv's)."""
    env = dict(base if base is not None else os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    jupyter = os.path.join(sys.prefix, "share", "jupyter")
    env["JUPYTER_PATH"] = jupyter + (os.pathsep + env["JUPYTER_PATH"] if env.get("JUPYTER_PATH") else "")
    return env


def check_kernel(env: Mapping[str, str] | None = None, kernel: str = CURRENT.kernel) -> list[str]:
    """The spec Jupyter resolves for ``kernel`` must be ours, in this venv; installed if missing."""
    code = ("import json, jupyter_client.kernelspec as k; s = k.KernelSpecManager().get_kernel_spec("
            f"{kernel!r}); print(json.dumps([s.argv, s.resource_dir]))")

    def resolve() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env or jupyter_env())

    run = resolve()
    if run.returncode != 0:
        print(f"installing Jupyter kernel {kernel!r} into {sys.prefix}", file=sys.stderr)
        install_kernel(kernel=kernel)
        run = resolve()
    if run.returncode != 0:
        raise SystemExit(f"Jupyter kernel {kernel!r} not found; run `make install`.\n{run.stderr[-2000:]}")
    argv: list[str]
    argv, _ = json.loads(run.stdout)
    if argv != kernel_spec(kernel=kernel)["argv"]:
        raise SystemExit(f"Jupyter kernel {kernel!r} runs {argv}, not this package's isolated kernel; "
                         "run `make install`")
    return argv
