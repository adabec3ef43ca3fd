"""The trusted side of grading: how a notebook becomes a score.

One grading process (a CLI grade, each `grade-all --jobs` process, the Gradescope run, the
nbgrader flow's sandboxed grade) holds the hidden suites, the reference and the secret;
student code never runs here::

    with Grader(limits, feedback) as g        grader.py: forks the worker template first,
    │                                         before any hidden code, grade or secret is loaded
    └── g.grade(path) ── grade_notebook       grade.py
        ├── read_submission(path)             the bytes once: their cells, their sha256
        ├── WorkerSession(template, cells)    supervisor.py: a fresh sandboxed worker runs the cells
        ├── probes.use_submission(...)        probes.py: HMAC(secret.py's key, sha256) seeds every probe
        ├── run_suites(Student(session))      plugin.py, in this process's one pytest session
        │   │                                 (suite_session.py: collected once, torn down per run)
        │   ├── suites/test_<part>.py         each check calls student.<fn>(...): a Call to the worker,
        │   │                                 the reply used as data; models stay here (stand-ins there);
        │   │                                 training.py trains the lab's smoke run here
        │   └── GradingPlugin                 one TestResult per check (points from @points);
        │                                     failed checks diagnosed (solutions/week7_attention/diagnosis)
        └── GradeReport                       report.py renders it: table, results.json, JUnit
"""
