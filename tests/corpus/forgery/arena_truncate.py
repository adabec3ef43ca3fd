"""The grading process itself: a top-level cell shrinks the call arena (the memfd the grader maps to see inputs written in place) to nothing, through its fd in /proc/self/fd and through the worker's own mmap object (resize), so that the grader's next write into its mapping is a SIGBUS that kills the grading process: `grade` died with exit 135, `grade-all` lost the submission after killing two grading processes, and the nbgrader flow stopped for every later student (red team, round 4). The arena's size is sealed: the grade goes on, no better than without the cell."""
ADD = [(None, '''
import gc as _gc
import mmap as _mmap
import os as _os

_shrunk = []
for _fd in _os.listdir("/proc/self/fd"):
    try:
        if "autograder-call-arena" in _os.readlink(f"/proc/self/fd/{_fd}"):
            _os.ftruncate(int(_fd), 0)
            _shrunk.append(f"fd {_fd}")
    except OSError as _err:
        _shrunk.append(f"fd {_fd} refused ({_err.strerror})")
for _obj in _gc.get_objects():
    if isinstance(_obj, _mmap.mmap):
        try:
            _obj.resize(0)
            _shrunk.append("mmap resized")
        except (OSError, ValueError, SystemError) as _err:
            _shrunk.append(f"mmap refused ({_err})")
print("ARENA:", _shrunk)
''')]
