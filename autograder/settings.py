"""The settings every flow shares, each declared once with its help text (standard library only).

Parsing a command line must not import PyTorch (the batch parent never does), so these live
here rather than beside the code that applies them (engine/plugin.py, engine/report.py).
"""

# What students are shown, least to most (--feedback): each level adds to the one before.
FEEDBACK_HELP = {
    "score": "the total and each part's points, nothing about single checks",
    "checks": "+ each check's title and whether it passed",
    "values": "+ why a check failed: the value found, the value expected, where",
    "hints": "+ a hint at the likely cause, and the diagnosed cause (the default during the term)",
}
FEEDBACK_LEVELS = tuple(FEEDBACK_HELP)
DEFAULT_FEEDBACK = "hints"

# When students see each test's output on Gradescope (results.json "visibility"); grade and
# grade-all write the same field.
VISIBILITY_HELP = {
    "visible": "at once",
    "hidden": "never (instructors only)",
    "after_due_date": "after the due date",
    "after_published": "once the grades are published",
}
VISIBILITIES = tuple(VISIBILITY_HELP)
DEFAULT_VISIBILITY = "visible"


def feedback_help():
    return "what students see: " + "; ".join(f"{k}: {v}" for k, v in FEEDBACK_HELP.items()) + \
        f" (default {DEFAULT_FEEDBACK})"


def visibility_help():
    return "when students see the tests: " + "; ".join(f"{k}: {v}" for k, v in VISIBILITY_HELP.items()) + \
        f" (default {DEFAULT_VISIBILITY})"

# How workers are confined (--confinement; autograder/sandbox/confinement.py probes what the machine allows).
CONFINEMENTS = ("namespaces", "user-namespace", "landlock", "none")
