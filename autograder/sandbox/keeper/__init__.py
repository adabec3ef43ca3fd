"""The trusted side of a worker's life, which never runs student code: the template forked from the grader
(template.py), which forks a keeper per worker, and the keeper's bounds on the worker's whole tree (budget.py: a
control group, or the watchdog that samples /proc and kills past a cap; the sweep of stale groups). A keeper runs its
steps from the plan (../steps.py) before it forks the worker, and undoes them after."""
