"""What runs in the worker, beside the student's code, once its steps have confined it: the cells, executed as
Jupyter would minus the shell (notebook_exec.py), each Call answered by the student's function (calls.py), and the
loop that serves the grader until it is killed (serve.py). Student code can change anything here: whatever the
worker replies is the student's word (engine/supervisor.py splits what the grader believes from what it only uses)."""
