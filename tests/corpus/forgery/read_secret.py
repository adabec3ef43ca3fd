"""Item 3 (the secret): a top-level cell and a graded function try to read the grader's secret (build/secret.key and the Gradescope copy, via the checkout path, /proc, the environment, open descriptors) to predict the probes. The secret's bytes must appear in no output, and nothing is gained over the solution."""
ADD = [(None, '''
import glob
import os

def _steal():
    found = []
    paths = ["__REPO__/build/secret.key", "/autograder/source/build/secret.key", "/autograder/build/secret.key",
             os.environ.get("AUTOGRADER_SECRET_FILE", ""), *glob.glob("/proc/*/cwd/build/secret.key"),
             *glob.glob("/proc/*/root__REPO__/build/secret.key"), *glob.glob("/proc/self/fd/*")]
    for path in paths:
        try:
            with open(path, "rb") as handle:
                data = handle.read(64)
            if 16 <= len(data) <= 64:
                found.append((path, data.hex()))
        except Exception:
            pass
    for env in glob.glob("/proc/*/environ"):
        try:
            if b"SECRET" in open(env, "rb").read():
                found.append((env, "env"))
        except Exception:
            pass
    return found

print("STOLEN", _steal())
''')]
ATTACK_REPLACE = {"positions_solution": '''
def sinusoidal_positions(length, width):
    print("STOLEN", _steal())
    pe = torch.zeros(length, width)
    position = torch.arange(length, dtype=torch.float32)[:, None]
    rate = torch.exp(torch.arange(0, width, 2, dtype=torch.float32) * (-math.log(10000.0) / width))
    pe[:, 0::2] = torch.sin(position * rate)
    pe[:, 1::2] = torch.cos(position * rate)
    return pe
'''}
