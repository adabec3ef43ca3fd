#!/usr/bin/env bash
# Gradescope runs this once, when the autograder image is built. Everything is pinned:
# the packages from requirements.txt (the grader's slim lock), and PyTorch as the CPU build from
# PyTorch's own index (PyPI's torch==2.13.0 for Linux is the multi-GB CUDA build). TORCH_INDEX
# overrides that index (the package's tests build this image where only PyPI is reachable).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
TORCH="torch==@TORCH_VERSION@"
CPU_INDEX="${TORCH_INDEX:-https://download.pytorch.org/whl/cpu}"

export DEBIAN_FRONTEND=noninteractive
if ! command -v python@PY_MINOR@ >/dev/null 2>&1; then
    apt-get update -qq
    apt-get install -y -qq python@PY_MINOR@ python@PY_MINOR@-venv >/dev/null
fi
python@PY_MINOR@ -m venv "$HERE/.venv"
PIP="$HERE/.venv/bin/pip"
"$PIP" install --quiet --index-url "$CPU_INDEX" "$TORCH"
# torch is already satisfied by the CPU build (2.13.0+cpu matches ==2.13.0); the rest from PyPI.
"$PIP" install --quiet -r "$HERE/requirements.txt"
"$HERE/.venv/bin/python" - <<'PY'
import torch
assert torch.__version__.split("+")[0] == "@TORCH_VERSION@", torch.__version__
assert torch.version.cuda is None, "a CUDA build of torch was installed; the grader needs the CPU build"
print("torch", torch.__version__, "(CPU build)")
PY
chmod +x "$HERE/run_autograder"
