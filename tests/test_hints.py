"""Hints that follow the cause (solutions/week7_attention/diagnosis/hints.py, issue 12): the feedback helpers one by
one, the declared dependency map they read (USES, in solutions/week7_attention/assignment.py), and two in-process grades
that show the stage at work (a wrong attention_read seen from the multihead checks; a sin/cos swap,
whose exponent check now passes). Every hint of the mistake corpus is checked against its known cause
in tests/test_diagnosis.py (test_no_hint_names_a_wrong_cause).
"""
import pytest

from autograder.assignment import PART_IDS, PARTS, USES, depends_on
from solutions.week7_attention.diagnosis import hints
from solutions.week7_attention.diagnosis.core import Call
from autograder.engine.plugin import TestResult as Result
from autograder.engine.call_result import CallResult

TITLES = {"softmax_read": (1, "Reading with attention"), "masks": (2, "Masks and their two conventions"),
          "multihead": (3, "Several heads")}
GRADED = {fn for fns in PARTS.values() for fn in fns}


def failed(part, hint="a static hint", cause="", status="failed"):
    return Result(f"{part}::t", part, "title", 1.0, 0.0, status, "x is 1, expected 0.", hint=hint, cause=cause)


def check(part, *called, unanswered=False, **kwargs):
    return hints.Check(failed(part, **kwargs), called, unanswered)


# --- the declared dependency map ------------------------------------------------------------------

def test_uses_names_graded_functions_and_has_no_cycle():
    for user, used in USES.items():
        assert user in GRADED and set(used) <= GRADED, user
        assert user not in depends_on(user), f"{user} depends on itself"


def test_depends_on_is_transitive_and_ordered():
    assert depends_on("multi_head_self_attention") == ("split_heads", "merge_heads", "attention_read",
                                                       "stable_softmax")
    assert depends_on("stable_softmax") == ()


# --- part labels ----------------------------------------------------------------------------------

def test_parse_part_titles_reads_the_notebook_headings():
    text = ("# Week 7\n## Part 1 — Reading with attention (`softmax_read`)\ntext\n"
            "### Part 3 - Several heads (`multihead`)\n")
    assert hints.parse_part_titles(text) == {"softmax_read": (1, "Reading with attention"),
                                             "multihead": (3, "Several heads")}


def test_part_label_from_titles_and_fallback():
    assert hints.part_label("softmax_read", TITLES) == "Part 1: Reading with attention"
    assert hints.part_label("targets", {}) == f"Part {PART_IDS.index('targets') + 1}: targets"


def test_part_label_defaults_to_the_released_notebook():
    """Every part has a heading in the notebook students read, so the hint uses their words."""
    labels = [hints.part_label(p) for p in PART_IDS]
    assert labels[0] == "Part 1: Reading with attention"
    assert all(label != f"Part {i + 1}: {p}" for i, (p, label) in enumerate(zip(PART_IDS, labels))), labels


# --- which checks are a function's own, and what a check depends on -------------------------------

def test_own_function_is_one_function_of_the_checks_part():
    assert check("softmax_read", "attention_read").own_function == "attention_read"
    assert check("softmax_read", "attention_read", "stable_softmax").own_function == ""  # several functions
    assert check("training", "causal_mask_blocked").own_function == ""  # another part's function
    assert check("masks").own_function == ""  # no call recorded


def test_check_from_recorded_calls():
    answered = Call("attention_read", (), {}, result=CallResult(True, 1.0))
    missing = Call("stable_softmax", (), {}, result=CallResult(False, error={"type": "NotImplementedError"}))
    other = Call("not_graded", (), {}, result=CallResult(True, 1.0))
    c = hints.Check.from_calls(failed("softmax_read"), [answered, answered, other])
    assert c.called == ("attention_read",) and not c.unanswered
    assert hints.Check.from_calls(failed("softmax_read"), [answered, missing]).unanswered


def test_failing_own_checks_ignores_shared_and_passed_checks():
    checks = [check("multihead", "split_heads", "merge_heads"),  # round trip: neither's own
              check("softmax_read", "attention_read"), check("masks", "causal_mask_blocked", status="passed"),
              check("softmax_read", "stable_softmax")]
    assert hints.failing_own_checks(checks) == ["stable_softmax", "attention_read"]


def test_dependencies():
    assert hints.dependencies(check("multihead", "multi_head_self_attention")) == [
        "split_heads", "merge_heads", "attention_read", "stable_softmax"]
    assert hints.dependencies(check("training", "causal_mask_blocked", "next_token_loss")) == [
        "causal_mask_blocked", "next_token_loss"]  # called directly by the grader: not the check's own
    assert hints.dependencies(check("softmax_read", "stable_softmax")) == []


def test_roots_keep_the_functions_to_fix_first():
    assert hints.roots(["attention_read", "stable_softmax"]) == ["stable_softmax"]
    assert hints.roots(["next_token_loss", "causal_mask_blocked"]) == ["causal_mask_blocked", "next_token_loss"]


# --- the text -------------------------------------------------------------------------------------

def test_redirect_text():
    assert hints.redirect([], TITLES) == ""
    assert hints.redirect(["attention_read"], TITLES) == \
        "`attention_read` (Part 1: Reading with attention) fails its own checks; fix it first."
    assert hints.redirect(["split_heads", "merge_heads"], TITLES) == \
        "`split_heads` and `merge_heads` (Part 3: Several heads) fail their own checks; fix them first."
    assert hints.redirect(["stable_softmax", "causal_mask_blocked"], TITLES) == (
        "`stable_softmax` (Part 1: Reading with attention) and `causal_mask_blocked` (Part 2: Masks and their "
        "two conventions) fail their own checks; fix them first.")


def test_redirect_doctest():
    import doctest
    assert doctest.testmod(hints).failed == 0


# --- follow_the_cause: what a student reads -------------------------------------------------------

def test_the_layer_points_back_to_the_read_it_uses():
    layer = check("multihead", "multi_head_self_attention", hint="... and scale by sqrt(D // H).")
    read = check("softmax_read", "attention_read", hint="Scores are q kᵀ / √dk.")
    changed = hints.follow_the_cause([layer, read], TITLES)
    assert changed == [layer]
    assert layer.result.hint == "`attention_read` (Part 1: Reading with attention) fails its own checks; fix it first."
    assert layer.result.feedback("hints") == f"x is 1, expected 0. {layer.result.hint}"
    assert read.result.hint == "Scores are q kᵀ / √dk."  # its own check keeps its hint
    assert layer.result.feedback("values") == "x is 1, expected 0."  # lower levels never show it


def test_a_cause_replaces_the_static_hint():
    cause = "in `attention_read` (Part 1: Reading with attention; fix it first): the scores are not divided by √dk."
    layer = check("multihead", "multi_head_self_attention", hint="... scale by sqrt(D // H).", cause=cause)
    hints.follow_the_cause([layer, check("softmax_read", "attention_read")], TITLES)
    assert layer.result.hint == ""
    assert layer.result.feedback("hints") == f"x is 1, expected 0.\nLikely cause: {cause}"


def test_hints_stay_when_nothing_upstream_fails():
    layer = check("multihead", "multi_head_self_attention",
                  hint="Finish with merge_heads and then the output projection.")
    passed = check("softmax_read", "attention_read", status="passed")
    assert hints.follow_the_cause([layer, passed], TITLES) == []
    assert layer.result.hint == "Finish with merge_heads and then the output projection."


def test_unwritten_functions_keep_their_message():
    """The released notebook: every function raises NotImplementedError, the message says which."""
    layer = check("multihead", "multi_head_self_attention", unanswered=True, hint="")
    read = check("softmax_read", "attention_read", unanswered=True)
    assert hints.follow_the_cause([layer, read], TITLES) == []


def test_training_checks_name_the_pieces_that_fail():
    run = check("training", "causal_mask_blocked", "shift_for_next_token", "next_token_loss", hint="")
    mask = check("masks", "causal_mask_blocked")
    hints.follow_the_cause([run, mask], TITLES)
    assert run.result.hint == ("`causal_mask_blocked` (Part 2: Masks and their two conventions) fails its own "
                               "checks; fix it first.")


# --- in-process grades: the stage and the suites together ------------------------------------------

def _grade(edit, parts):
    from solutions.week7_attention.diagnosis import measure
    return [r for r in measure.grade(measure.namespace(edit), parts) if r.status == "failed"]


@pytest.mark.multihead
def test_wrong_read_is_named_in_the_multihead_feedback():
    # A read that forgets √dk (tests/corpus/mutants attention_no_sqrt_dk).
    results = _grade({"attention_read": ("/ math.sqrt(q.size(-1)) / temperature", "/ temperature")},
                     ("softmax_read", "multihead"))
    layer = [r for r in results if r.part == "multihead"]
    assert layer, "the layer built on a wrong read must fail"
    for r in layer:
        text = r.feedback("hints")
        assert "sqrt(D // H)" not in text, text
        assert "`attention_read` (Part 1: Reading with attention) fails its own checks" in text or \
            "`attention_read` (Part 1: Reading with attention; fix it first)" in text, text


@pytest.mark.positions
def test_sin_cos_swap_fails_only_the_checks_of_the_order():
    """The exponent check measures the frequency only: a swap keeps it (+1 point since issue 12)."""
    swap = ("    table[:, 0::2] = torch.sin(pos * rate)\n    table[:, 1::2] = torch.cos(pos * rate)\n",
            "    table[:, 0::2] = torch.cos(pos * rate)\n    table[:, 1::2] = torch.sin(pos * rate)\n")
    results = _grade({"sinusoidal_positions": swap}, ("positions",))
    titles = {r.title for r in results}
    assert "Frequencies use 10000^(2i / width)" not in titles
    assert "Even columns are sin, odd columns are cos" in titles
    assert not any("2i, not i" in r.feedback("hints") for r in results)


@pytest.mark.positions
def test_exponent_check_still_catches_i_instead_of_2i():
    results = _grade({"sinusoidal_positions": ("torch.arange(0, width, 2, dtype=torch.float64)",
                                               "torch.arange(0, width // 2, dtype=torch.float64)")}, ("positions",))
    assert "Frequencies use 10000^(2i / width)" in {r.title for r in results}
