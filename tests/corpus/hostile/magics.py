"""IPython magics and shell escapes (%timeit, %env, %%bash, %%writefile, !rm -rf ~, !touch, x = !cmd, get_ipython().system) trying to run a shell and leave files: attacks the no-shell rule; every part keeps full points."""
from autograder.assignment import PART_IDS
ATTACKS = []
KEEPS = list(PART_IDS)
NEVER = ["HOSTILE_SHELL_MARKER_42", "HOSTILE_SHELL_RAN"]
ADD = [(None, "%timeit sum(range(10))\n%env HOSTILE_ENV=1\n!rm -rf ~\n!touch __REPO__/HOSTILE_SHELL_RAN __CANARY__/HOSTILE_SHELL_RAN\n"),
       (None, "%%bash\ntouch __REPO__/HOSTILE_SHELL_RAN __CANARY__/HOSTILE_SHELL_RAN\necho HOSTILE_SHELL_MARKER_$((6*7))\n"),
       (None, "%%writefile __REPO__/HOSTILE_SHELL_RAN\nHOSTILE_SHELL_MARKER_42\n"),
       (None, "%%sh\nrm -rf ~ __REPO__\n"),
       (None, "listing = !echo HOSTILE_SHELL_MARKER_$((6*7))\n"
              "other = get_ipython().getoutput('echo HOSTILE_SHELL_MARKER_$((6*7))')\n"
              "get_ipython().system('touch __CANARY__/HOSTILE_SHELL_RAN')\n"
              "if listing or other:\n"
              "    raise RuntimeError(f'a shell ran: {listing} {other}')\n"
              "raise RuntimeError('MAGICS: no shell output')\n")]
EXPECT = ["MAGICS: no shell output"]
