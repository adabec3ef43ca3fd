"""Precision and recall of the diagnosis over the mistake corpus (tests/corpus), graded in-process.

Each mutant (one text edit in one reference function) and each correct alternative is run
through the hidden suites with ``run_suites(Student(LocalTransport(namespace)))``, where the
namespace is the notebook's: every graded function defined in one shared global namespace,
so a wrong stable_softmax is also what attention_read calls. A diagnosis is a failed check
that got a ``Likely cause``; it is right when its family is the one expected for the edit.

    precision = right diagnoses / all diagnoses (mutants and alternatives; a cause on an
                alternative or on a mutant outside the library is wrong)
    recall    = mutants expected to be diagnosed that get the right cause on at least one
                check / mutants expected to be diagnosed

``figures(corpora)`` returns both corpora's figures; ``table()`` prints them. The corpora are
handed in, as plain data (``load`` reads the file ``python -m tests.corpus.measured DIR``
writes): the tests own them, and the product never imports the tests.

    corpora = {"mutants": [mutant, ...], "alternatives": [{"name", "cells"}, ...],
               "fresh": [mutant with "expected", ...]}
    mutant  = {"name", "part", "function", "old", "new", "affects"}
"""
import inspect
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import solutions.reference as reference

# The family each existing mutant (tests/corpus/mutants) is an instance of; None: no library entry.
EXPECTED = {
    "softmax_no_max_shift": "softmax_no_max_shift",
    "softmax_sum_over_last_dim": "softmax_wrong_axis",
    "softmax_nan_for_all_inf_rows": "softmax_nan_blocked_rows",
    "softmax_divides_by_zero": "softmax_nan_blocked_rows",
    "attention_no_sqrt_dk": "attention_no_sqrt_dk",
    "attention_scale_by_dk": "attention_scale_by_dk",
    "attention_temperature_multiplies": "attention_temperature_multiplies",
    "attention_temperature_inside_sqrt": "attention_temperature_in_sqrt",
    "attention_opposite_mask": "attention_mask_inverted",
    "attention_mask_after_softmax": "attention_mask_after_softmax",
    "attention_large_negative_mask": "attention_finite_mask",
    "attention_transpose_dims_1_2": "attention_transpose_k",
    "attention_softmax_over_queries": "attention_softmax_over_queries",
    "blocked_diagonal_0": "mask_blocks_diagonal",
    "blocked_uses_allowed_convention": "mask_blocked_in_allowed_convention",
    "allowed_uses_blocked_convention": "mask_allowed_in_blocked_convention",
    "allowed_excludes_diagonal": "mask_allowed_without_diagonal",
    "additive_large_negative": "additive_finite",
    "additive_plus_inf": "additive_plus_inf",
    "additive_ignores_dtype": "additive_ignores_dtype",
    "padding_greater_than": "padding_off_by_one",
    "padding_transposed": "padding_transposed",
    "sdpa_without_padding": "sdpa_without_padding",
    "sdpa_without_causal": "sdpa_without_causal",
    "sdpa_padding_on_queries": "sdpa_padding_on_queries",
    "sdpa_no_head_dim": "sdpa_mask_head_dim",
    "split_view_directly": "split_without_transpose",
    "merge_without_transpose": "merge_without_transpose",
    "mha_ignores_in_proj_bias": "mha_no_in_proj_bias",
    "mha_out_proj_weight_only": "mha_no_out_proj_bias",
    "mha_queries_keys_swapped": "mha_projection_rows",
    "mha_no_out_proj": "mha_no_out_proj",
    "positions_sin_cos_swapped": "positions_sin_cos_swapped",
    "positions_i_instead_of_2i": "positions_exponent_i",
    "positions_float64": "positions_float64",
    "positions_start_at_one": "positions_start_at_one",
    "shift_reversed": "shift_reversed",
    "shift_targets_not_shifted": "shift_missing",
    "shift_inputs_off_by_one": "shift_missing",
    "loss_sum": "loss_not_averaged",
    "loss_wrong_transpose": "loss_pairs_scrambled",
    "loss_hardcoded_vocab": None,
    "prefix_no_eval": "prefix_train_mode",
    "prefix_mutates_tokens": "prefix_mutates_tokens",
    "prefix_mode_not_restored": "prefix_mode_not_restored",
    "prefix_compares_all_positions": "prefix_compares_whole_sequence",
    "prefix_misses_last_prefix_position": "prefix_cut_off_by_one",
    "prefix_perturbs_from_cut_plus_one": "prefix_perturbs_after_cut",
    "assert_wrong_direction": "assert_wrong_direction",
    "assert_returns_bool": "assert_never_fires",
    "assert_ignores_tol": "assert_ignores_tol",
    "assert_message_without_number": "assert_message_without_number",
}

PRELUDE = "import math\nimport torch\nfrom torch import nn\nfrom torch.nn import functional as F\n"
FUNCTIONS = [name for names in reference.PARTS.values() for name in names]


def namespace(edits=None, cells=None):
    """The notebook's namespace: every graded function (reference source, one edit applied) in one dict.

    edits: {function: (old, new)}; cells: {part: full source of that part's solution cell}.
    """
    ns = {}
    exec(PRELUDE, ns)  # noqa: S102 - our own reference source
    for part, names in reference.PARTS.items():
        if cells and part in cells:
            exec(compile(cells[part], f"<alternative {part}>", "exec"), ns)  # noqa: S102
            continue
        for name in names:
            source = inspect.getsource(getattr(reference, name))
            if edits and name in edits:
                old, new = edits[name]
                assert source.count(old) == 1, f"{name}: {old!r} occurs {source.count(old)} times"
                source = source.replace(old, new)
            exec(compile(source, f"<cell {name}>", "exec"), ns)  # noqa: S102
    return ns


def grade(ns, parts=None):
    """TestResults of the hidden suites for the functions in ``ns`` (in this process)."""
    from autograder.engine.plugin import run_suites
    from autograder.engine.student import LocalTransport, Student
    return run_suites(Student(LocalTransport(ns)), parts)


@dataclass
class Case:
    name: str
    expected: object  # family id, None (outside the library), or "" for a correct alternative
    causes: list = field(default_factory=list)  # (part, test title, family id or "?") per diagnosed check
    failed: int = 0
    hints: list = field(default_factory=list)  # (part, test title, hint shown at level "hints", cause) per failed check

    @property
    def right(self):
        return sum(1 for _, _, fam in self.causes if self.expected and fam == self.expected)

    @property
    def wrong(self):
        return len(self.causes) - self.right


def run_case(name, expected, ns, parts=None):
    from . import family_of
    case = Case(name, expected)
    for r in grade(ns, parts):
        if r.status != "passed":
            case.failed += 1
            case.hints.append((r.part, r.title, r.hint, r.cause))
        if r.cause:
            case.causes.append((r.part, r.title, family_of(r.cause) or "?"))
    return case


def _parts(mutant: dict) -> tuple:
    """Every part but the (slow) training run, unless the edit can change the training run."""
    return tuple(p for p in reference.PARTS if p != "training" or "training" in (mutant["part"], *mutant["affects"]))


@dataclass
class Figures:
    corpus: str
    cases: list

    @property
    def diagnoses(self):
        return sum(len(c.causes) for c in self.cases)

    @property
    def right(self):
        return sum(c.right for c in self.cases)

    @property
    def precision(self):
        return self.right / self.diagnoses if self.diagnoses else 1.0

    @property
    def in_library(self):
        return [c for c in self.cases if c.expected]

    @property
    def recall(self):
        hit = [c for c in self.in_library if c.right]
        return len(hit) / len(self.in_library) if self.in_library else math.nan

    @property
    def clean_cases(self):
        """Cases (mutants or alternatives) without a single wrong cause."""
        return sum(1 for c in self.cases if c.wrong == 0)

    def row(self):
        return (f"{self.corpus:<22} {len(self.cases):>5} {len(self.in_library):>7} "
                f"{sum(1 for c in self.in_library if c.right):>6} {self.recall:>7.1%} "
                f"{self.diagnoses:>9} {self.right:>6} {self.precision:>9.1%}")


HEADER = (f"{'corpus':<22} {'cases':>5} {'in lib':>7} {'found':>6} {'recall':>7} "
          f"{'diagnoses':>9} {'right':>6} {'precision':>9}")


CORPORA_FILE = "corpora.json"  # in the folder `python -m tests.corpus.measured DIR` writes


def load(folder: Path) -> dict:
    """The corpora written into ``folder`` (see the module's docstring for their form)."""
    return json.loads((Path(folder) / CORPORA_FILE).read_text())


@dataclass(frozen=True)
class Job:
    """One case to grade, carrying its own data (spawned workers get it pickled)."""
    name: str
    expected: object
    cells: dict | None = None  # an alternative: part -> its whole solution cell
    edit: tuple | None = None  # a mutant: (function, old, new)
    parts: tuple | None = None


def _library_jobs(corpora: dict) -> list[Job]:
    return ([Job(m["name"], EXPECTED[m["name"]], edit=(m["function"], m["old"], m["new"]), parts=_parts(m))
             for m in corpora["mutants"]]
            + [Job(a["name"], "", cells=a["cells"]) for a in corpora["alternatives"]])


def _fresh_jobs(corpora: dict) -> list[Job]:
    return [Job(m["name"], m["expected"], edit=(m["function"], m["old"], m["new"]), parts=_parts(m))
            for m in corpora["fresh"]]


def _run_job(job: Job) -> "Case":
    if job.cells is not None:
        return run_case(job.name, job.expected, namespace(cells=job.cells))
    function, old, new = job.edit
    return run_case(job.name, job.expected, namespace({function: (old, new)}), job.parts)


def _one_thread():
    """As the grader computes: one thread per process. Two processes of two OpenMP threads each on
    two cores spin against each other (measured: 178 s for the corpus instead of ~45 s)."""
    import torch
    torch.set_num_threads(1)


def _run_all(jobs, workers):
    if workers <= 1:
        return [_run_job(j) for j in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=_one_thread) as pool:
        return list(pool.map(_run_job, jobs))


def library_corpus(corpora: dict, workers: int = 1) -> "Figures":
    """Cases of the library's mutants (the library was built from them) and of the correct alternatives."""
    return Figures("library mutants + alt.", _run_all(_library_jobs(corpora), workers))


def fresh_corpus(corpora: dict, workers: int = 1) -> "Figures":
    """Cases of the fresh mutants: written for the measurement, not used to build the library."""
    return Figures("fresh mutants", _run_all(_fresh_jobs(corpora), workers))


def figures(corpora: dict, workers: int = 2) -> dict:
    """{"library": Figures, "fresh": Figures}: what the bench reports.

    ``workers`` spawned processes grade the cases (not forked: a fork of a process whose PyTorch
    thread pools already ran can deadlock, as it did under pytest).
    """
    library, fresh = _library_jobs(corpora), _fresh_jobs(corpora)
    cases = _run_all(library + fresh, workers)
    return {"library": Figures("library mutants + alt.", cases[:len(library)]),
            "fresh": Figures("fresh mutants", cases[len(library):])}


def table(all_figures):
    lines = [HEADER] + [f.row() for f in all_figures.values()]
    for f in all_figures.values():
        for c in f.cases:
            wrong = [x for x in c.causes if not (c.expected and x[2] == c.expected)]
            if (c.expected and not c.right) or wrong:
                lines.append(f"  {f.corpus}: {c.name} expected {c.expected or '(no cause)'}; "
                             f"got {sorted({x[2] for x in c.causes}) or 'nothing'}")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 2:
        raise SystemExit("usage: python -m solutions.week7_attention.diagnosis.measure CORPUS_DIR "
                         "(written by `python -m tests.corpus.measured CORPUS_DIR`)")
    print(table(figures(load(Path(sys.argv[1])))))
