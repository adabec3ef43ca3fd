"""Run the assignment notebook top to bottom, as a student would, and report its public checks.

    python .github/scripts/public_checks.py week7_attention.ipynb [--junit-xml public-checks.xml]
                                                                   [--executed executed.ipynb]

GRADING is unset, so the notebook runs exactly as in Jupyter (the lab's training run
included). Then, in the same kernel, each part's public checks run from this file (not
from the notebook, whose check cells may have been edited or deleted): a part passes when
the functions it grades are defined and its checks pass. Parts are found by those
functions' names, never by nbgrader metadata, so a notebook whose metadata was stripped
is checked the same way.

The points shown are what the hidden tests of each part are worth at grading time;
passing the public checks is necessary, not sufficient. The table goes to stdout and,
on GitHub Actions, to the job summary ($GITHUB_STEP_SUMMARY). Exit status 1 when a
part fails, so the commit shows a red cross until every public check passes.
"""
import argparse
import html
import os
import re
import sys
import time
from pathlib import Path
from xml.etree import ElementTree as ET

import nbformat
from nbclient import NotebookClient

# part: (the functions the hidden tests call, points). Kept equal to the grader's by the package's tests.
PARTS = {
    "softmax_read": (("stable_softmax", "attention_read"), 18),
    "masks": (("causal_mask_blocked", "causal_mask_allowed", "causal_mask_additive", "padding_mask_blocked",
               "sdpa_mask"), 18),
    "multihead": (("split_heads", "merge_heads", "multi_head_self_attention"), 16),
    "positions": (("sinusoidal_positions",), 8),
    "targets": (("shift_for_next_token", "next_token_loss"), 10),
    "leakage": (("prefix_change", "assert_no_future_leakage"), 12),
    "training": (("causal_mask_blocked", "shift_for_next_token", "next_token_loss"), 18),
}
PRELUDE = """\
import math
import torch
from torch import nn
from torch.nn import functional as F
"""
# The notebook's public check cells (the package's tests keep them equal), and for the training part
# the lab's 2-epoch smoke run with your mask, shift and loss.
CHECKS = {
    'softmax_read': """\
# The lesson's example: softmax([2, 0.5, -1]) ≈ [0.7856, 0.1753, 0.0391]
w = stable_softmax(torch.tensor([2.0, 0.5, -1.0]))
torch.testing.assert_close(w, torch.tensor([0.7856, 0.1753, 0.0391]), atol=1e-4, rtol=0)

# Huge scores must not overflow, and shifting a row must not change its softmax.
big = stable_softmax(torch.tensor([[1000.0, 999.0, 998.0]]))
assert torch.isfinite(big).all(), "overflow: subtract the row maximum before exp"
torch.testing.assert_close(big, stable_softmax(torch.tensor([[2.0, 1.0, 0.0]])))

# A read with one blocked key: its weight is exactly 0 and every row sums to 1.
q, k, v = torch.randn(2, 4), torch.randn(3, 4), torch.randn(3, 5)
blocked = torch.tensor([[False, False, True], [False, False, True]])
out, weights = attention_read(q, k, v, blocked)
assert out.shape == (2, 5) and weights.shape == (2, 3), (out.shape, weights.shape)
assert (weights[:, 2] == 0).all(), "blocked keys must get weight exactly 0"
torch.testing.assert_close(weights.sum(-1), torch.ones(2))
print("softmax_read: public checks passed")
""",
    'masks': """\
expected_blocked = torch.tensor([[False, True, True], [False, False, True], [False, False, False]])
assert causal_mask_blocked(3).dtype == torch.bool
assert torch.equal(causal_mask_blocked(3), expected_blocked)
assert torch.equal(causal_mask_allowed(3), ~expected_blocked)
torch.testing.assert_close(causal_mask_additive(5), nn.Transformer.generate_square_subsequent_mask(5))

lengths = torch.tensor([2, 4])
assert torch.equal(padding_mask_blocked(lengths, 4),
                   torch.tensor([[False, False, True, True], [False, False, False, False]]))
m = sdpa_mask(lengths, 4)
assert m.shape == (2, 1, 4, 4) and m.dtype == torch.bool
assert not m[0, 0, 3, 2], "key 2 of sequence 0 is padding: nobody may read it"
assert m[1, 0, 3, 2] and not m[1, 0, 2, 3]
print("masks: public checks passed")
""",
    'multihead': """\
x = torch.arange(2 * 5 * 12, dtype=torch.float32).reshape(2, 5, 12)  # (N, T, D) with D = 12
heads = split_heads(x, 3)
assert heads.shape == (2, 3, 5, 4), heads.shape
assert torch.equal(heads[0, 1, 0], x[0, 0, 4:8]), "head 1 must hold features 4..7"
assert torch.equal(merge_heads(heads), x), "merge_heads must undo split_heads"

mha = nn.MultiheadAttention(12, 3, batch_first=True)
x = torch.randn(2, 5, 12)
mine, my_weights = multi_head_self_attention(x, mha, causal_mask_blocked(5))
theirs, their_weights = mha(x, x, x, attn_mask=causal_mask_blocked(5), average_attn_weights=False)
torch.testing.assert_close(mine, theirs)
torch.testing.assert_close(my_weights, their_weights)
print("multihead: public checks passed")
""",
    'positions': """\
pe = sinusoidal_positions(50, 16)
assert pe.shape == (50, 16) and pe.dtype == torch.float32
torch.testing.assert_close(pe[0], torch.tensor([0.0, 1.0] * 8))  # sin(0) = 0, cos(0) = 1
torch.testing.assert_close(pe[3, 0], torch.tensor(math.sin(3.0)))
torch.testing.assert_close(pe[3, 3], torch.tensor(math.cos(3 / 10000 ** (2 / 16))))
print("positions: public checks passed")
""",
    'targets': """\
tokens = torch.tensor([[0, 1, 2, 3], [5, 6, 7, 0]])
inputs, targets = shift_for_next_token(tokens)
assert torch.equal(inputs, torch.tensor([[0, 1, 2], [5, 6, 7]]))
assert torch.equal(targets, torch.tensor([[1, 2, 3], [6, 7, 0]]))

uniform = torch.zeros(2, 3, 8)  # equal logits for all 8 tokens
torch.testing.assert_close(next_token_loss(uniform, targets), torch.tensor(math.log(8)))
print("targets: public checks passed")
""",
    'leakage': """\
torch.manual_seed(0)
tokens = counting_sequences(4, seed=0)[:, :-1]  # (4, 12)
positions = sinusoidal_positions(MAX_POSITIONS, WIDTH)
causal = TinyTransformer(positions, causal_mask_blocked)
leaky = TinyTransformer(positions, lambda T: None)  # no mask at all: reads the future

before = tokens.clone()
assert prefix_change(causal, tokens, 5, VOCAB) < 1e-5
assert prefix_change(leaky, tokens, 5, VOCAB) > 1e-3
assert torch.equal(tokens, before), "prefix_change must not modify its input"
causal.train()
assert_no_future_leakage(causal, tokens, 5, VOCAB)
assert causal.training, "restore the model's train/eval mode"
try:
    assert_no_future_leakage(leaky, tokens, 5, VOCAB)
except AssertionError as err:
    print("leaky model caught:", err)
else:
    raise AssertionError("assert_no_future_leakage accepted a model that reads the future")
print("leakage: public checks passed")
""",
    "training": """\
torch.manual_seed(0)
smoke_model, smoke_val = train_lab(EPOCHS["smoke"], sinusoidal_positions(MAX_POSITIONS, WIDTH),
                                   causal_mask_blocked, shift_for_next_token, next_token_loss)
with torch.no_grad():
    smoke_test = split_loss(smoke_model, lab_splits()["test"], shift_for_next_token, next_token_loss).item()
assert math.isfinite(smoke_test) and smoke_test < BASELINE, \\
    f"2-epoch smoke run: test loss {smoke_test:.4f} is not below the uniform baseline log(8) = {BASELINE:.4f}"
print(f"training: public checks passed (smoke run test loss {smoke_test:.4f})")
""",
}
MARK = "week7_public_check"  # metadata key of the check cells appended to the executed notebook
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def check_source(part):
    """The cell appended for ``part``: are its functions defined, then its public checks."""
    names, _ = PARTS[part]
    return (f"# Public checks of part {part} (appended by public_checks.py)\n{PRELUDE}"
            f"_missing = [n for n in {names!r} if not callable(globals().get(n))]\n"
            "if _missing:\n"
            "    raise NameError('the notebook does not define ' + ', '.join(_missing))\n"
            f"{CHECKS[part]}")


def first_error(cell):
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            name, value = output.get("ename", "Error"), output.get("evalue", "")
            if name == "NotImplementedError" and not value:
                value = "a function of this part is not implemented yet"
            return ANSI.sub("", f"{name}: {value}".strip().rstrip(":"))
    return ""


def execute(path, timeout):
    """Run the notebook, then one appended check cell per part, in one kernel. Returns (nb, why it stopped)."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:  # graded cells hold the hidden tests' placeholder: nothing to run here
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "code" and isinstance(meta, dict) and meta.get("grade") and not meta.get("solution"):
            cell.source = ""
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    for part in PARTS:
        nb.cells.append(nbformat.v4.new_code_cell(check_source(part), metadata={MARK: part}))
    os.environ.pop("GRADING", None)  # run as a student runs it
    stopped = ""
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                       resources={"metadata": {"path": str(Path(path).resolve().parent)}}).execute()
    except Exception as err:  # noqa: BLE001 - a cell that hangs or kills the kernel: the checks after it did not run
        stopped = ANSI.sub("", f"{type(err).__name__}: {err}").strip()
    return nb, stopped


def report(nb, stopped=""):
    """[{part, points, passed, message}] from the appended check cells."""
    rows = []
    for cell in nb.cells:
        part = cell.get("metadata", {}).get(MARK)
        if part not in PARTS:
            continue
        if cell.get("execution_count") is None and not cell.get("outputs"):
            message = "the check did not run: the notebook stopped" + (f" ({stopped})" if stopped else "")
        else:
            message = first_error(cell)
        rows.append({"part": part, "points": float(PARTS[part][1]), "passed": not message, "message": message})
    return rows


def notebook_errors(nb):
    """[(cell number, error)] of the student's own cells that raised (the appended checks excluded)."""
    return [(i + 1, first_error(c)) for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and MARK not in c.get("metadata", {}) and first_error(c)]


def md_cell(text, limit=300):
    """``text`` as the content of one Markdown table cell: whatever it holds, the table stays a table.

    Newlines become <br>, pipes \\|, HTML is escaped (&lt;), and backticks, backslashes and the
    emphasis/link characters are backslash-escaped, so no code span or link can swallow a pipe."""
    text = ANSI.sub("", str(text)).replace("\r\n", "\n").replace("\r", "\n").replace("\t", " ")
    text = "".join(ch if ch == "\n" or ch.isprintable() else " " for ch in text).strip()
    if len(text) > limit:
        text = text[:limit].rstrip() + "…"
    text = html.escape(text, quote=False)
    text = re.sub(r"([\\`*_\[\]|~])", r"\\\1", text)
    return "<br>".join(line.strip() for line in text.split("\n"))


def markdown(rows, notebook, seconds, errors=()):
    passed = sum(r["passed"] for r in rows)
    lines = [f"### Public checks of {md_cell(notebook)}: {passed} / {len(rows)} parts pass", "",
             "| part | public checks | points at stake | first problem |", "|---|---|---|---|"]
    for r in rows:
        mark = "✅ pass" if r["passed"] else "❌ fail"
        lines.append(f"| {r['part']} | {mark} | {r['points']:g} | {md_cell(r['message'])} |")
    at_stake = sum(r["points"] for r in rows if r["passed"])
    lines += ["", f"Parts whose public checks pass are worth {at_stake:g} / {sum(r['points'] for r in rows):g} "
              f"points; the hidden tests decide the score at grading time. Ran in {seconds:.0f} s."]
    if errors:
        lines += ["", f"Cells of the notebook that raised ({len(errors)}):", ""]
        lines += [f"* cell {i}: {md_cell(e, 200)}" for i, e in errors[:20]]
    return "\n".join(lines)


def junit(rows, seconds):
    suite = ET.Element("testsuite", name="public-checks", tests=str(len(rows)),
                       failures=str(sum(not r["passed"] for r in rows)), time=f"{seconds:.2f}")
    for r in rows:
        case = ET.SubElement(suite, "testcase", classname=r["part"], name=f"{r['part']} public checks")
        case.set("points", f"{r['points']:g}")
        if not r["passed"]:
            ET.SubElement(case, "failure", message=r["message"][:500]).text = r["message"]
    return ET.tostring(suite, encoding="unicode")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebook")
    parser.add_argument("--junit-xml", help="also write JUnit XML here")
    parser.add_argument("--executed", help="save the executed notebook (with the appended checks) here")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    args = parser.parse_args(argv)
    started = time.monotonic()
    nb, stopped = execute(args.notebook, args.timeout)
    seconds = time.monotonic() - started
    rows = report(nb, stopped)
    text = markdown(rows, Path(args.notebook).name, seconds, notebook_errors(nb))
    print(text)
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        with open(os.environ["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as handle:
            handle.write(text + "\n")
    if args.junit_xml:
        Path(args.junit_xml).write_text(junit(rows, seconds))
    if args.executed:
        nbformat.write(nb, args.executed)
    return 0 if rows and all(r["passed"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
