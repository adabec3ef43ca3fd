"""The trusted side of grading: how a notebook becomes a score, for whichever assignment plugs in.

It names no assignment and imports none: the assignment's facts, hidden suites, reference, lab,
misconception library and what it hands to student functions all come through
``autograder.assignment`` (the plug-in found by ``autograder/plugin_api.py``'s discovery rule).

One grading process (a CLI grade, each `grade-all --jobs` process, the Gradescope run, the
nbgrader flow's sandboxed grade) holds the hidden suites, the reference and the secret;
student code never runs here::

    with Grader(limits, feedback) as g        grader.py: forks the worker template first,
    │                                         before any hidden code, grade or secret is loaded
    └── g.grade(path) ── grade_notebook       grade.py
        ├── read_submission(path)             the bytes once: their cells, their sha256
        ├── WorkerSession(template, cells)    supervisor.py: a fresh sandboxed worker runs the cells
        ├── served().use_submission(...)      HMAC(secret.py's key, sha256) seeds every probe (the assignment's)
        ├── run_suites(Student(session))      plugin.py, in this process's one pytest session
        │   │                                 (suite_session.py: collected once, torn down per run)
        │   ├── <suites>/test_<part>.py       each check calls student.<fn>(...): a Call to the worker,
        │   │                                 the reply used as data; models stay here (stand-ins there);
        │   │                                 the assignment's training lane runs here
        │   └── GradingPlugin                 one TestResult per check (points from @points);
        │                                     failed checks diagnosed (the assignment's misconceptions())
        └── GradeReport                       report.py renders it: table, results.json, JUnit
"""
