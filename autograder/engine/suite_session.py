"""One pytest session per grading process: configured and collected once, its tests run once per submission.

``pytest.main`` for every submission paid pytest's own start-up each time: the configuration,
registering the plugins and their fixtures, collecting the suites, and two full garbage
collections when the session ends (~0.15 s a grade, a third of a warm grade). A SuiteSession
pays it once. Each ``run`` then goes through pytest's own per-test protocol
(``pytest_runtest_protocol``: setup, call, teardown, with the same fixtures, markers and hooks),
the way pytest itself re-runs a test (pytest-rerunfailures does the same).

Nothing of one submission reaches the next:

* the last test of every run is given ``nextitem=None``, so pytest tears down every fixture,
  session-scoped ones (the student, the training run) included;
* after every run the session checks that no fixture still holds a value and that pytest's
  setup stack is empty; a session that fails the check, or whose run was interrupted, is
  thrown away (``broken``), and the next run builds a new one;
* the student and the grading plugin are handed in for one run and taken out after it.
"""
from __future__ import annotations

import gc
import io
from collections.abc import Iterable, Sequence
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

from ..assignment import SUITES
from .suite_items import describe, remember
from .student import STUDENT_KEY

# -s: no fd capture held open between runs (each run's output goes to its own buffer instead);
# plugins a grade never uses are not loaded: the terminal reporter (it would keep writing to the
# buffer it was created with), the cache, warnings and log capture, and the unraisable/thread
# exception hooks (the latter run gc.collect() twice on every teardown of a session).
ARGS = ("-s", "--assert=plain", "-p", "no:cacheprovider", "-p", "no:warnings", "-p", "no:logging",
        "-p", "no:terminal", "-p", "no:unraisableexception", "-p", "no:threadexception", "-p", "no:faulthandler",
        "-p", "no:junitxml", "-p", "no:pastebin", "-p", "no:doctest", "-p", "no:stepwise")


class SuiteSession:
    """The hidden suites, collected once, run as often as there are submissions (one at a time)."""

    def __init__(self) -> None:
        import _pytest.config
        from _pytest.main import Session

        self.log = io.StringIO()  # what pytest printed while starting
        self.broken = ""  # why this session may not run again ("" while it may)
        errors = _CollectionErrors()
        with redirect_stdout(self.log), redirect_stderr(self.log):
            self.config = _pytest.config._prepareconfig([str(SUITES), *ARGS], plugins=[errors])
            try:
                self.config._do_configure()
                self.session = Session.from_config(self.config)
                self.config.hook.pytest_sessionstart(session=self.session)
                self.config.hook.pytest_collection(session=self.session)
            except BaseException:
                self.config._ensure_unconfigure()
                raise
        self.items: Sequence[Any] = tuple(self.session.items)
        try:
            if self.session.testsfailed or errors.found:
                raise RuntimeError("collecting the hidden suites failed:\n" + "\n".join(errors.found)[-4000:])
            tests = [describe(item) for item in self.items]  # a test without its part or points: a suite bug
        except RuntimeError:
            self.close()
            raise
        remember(tests)  # the catalog, from this very collection
        _freeze_heap()

    def run(self, student: Any, plugin: Any, parts: Iterable[str] | None = None) -> str:
        """Run the tests of ``parts`` (all by default) for ``student``, reporting to ``plugin``.

        Returns what pytest itself printed ("" when all went as it should); the plugin
        collects the results. Raises only what interrupts a grade (KeyboardInterrupt,
        SystemExit); the session is then broken.
        """
        if self.broken:
            raise RuntimeError(f"this suite session is broken ({self.broken})")
        wanted = set(parts) if parts is not None else None
        items = [i for i in self.items if wanted is None or describe(i).part in wanted]
        log = io.StringIO()
        self.config.stash[STUDENT_KEY] = student
        self.config.pluginmanager.register(plugin)
        try:
            with redirect_stdout(log), redirect_stderr(log):
                for i, item in enumerate(items):
                    # nextitem=None for the last: pytest tears down every fixture, session scope included.
                    nextitem = items[i + 1] if i + 1 < len(items) else None
                    item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        except BaseException as err:
            self.broken = f"a run was interrupted ({type(err).__name__})"
            raise
        finally:
            self.config.pluginmanager.unregister(plugin)
            del self.config.stash[STUDENT_KEY]
            left = self._leftovers()
            if left and not self.broken:
                self.broken = f"fixtures still set up after a run: {', '.join(left)}"
            if self.broken:
                self.close()
        return log.getvalue()

    def _leftovers(self) -> list[str]:
        """Fixtures that still hold a value, or nodes still set up: a run that did not tear down."""
        left = [f"node {node.nodeid or 'session'}" for node in self.session._setupstate.stack]
        left += [f"fixture {d.argname}" for d in self.session._fixturemanager._get_all_fixture_defs()
                 if d.cached_result is not None]
        return left

    def close(self) -> None:
        """Unconfigure pytest (its own atexit-style clean-up); the session cannot run again."""
        if not self.broken:
            self.broken = "closed"
        try:
            with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
                self.config._ensure_unconfigure()
        except Exception:  # noqa: BLE001 - clean-up of a session we drop anyway
            pass


class _CollectionErrors:
    """What pytest's terminal reporter would have printed of a suite that does not collect."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            self.found.append(f"{report.nodeid or 'the suites'}: {report.longreprtext.strip()}")


def _freeze_heap() -> None:
    """Once per process, after the first collection: move what is alive (PyTorch, pytest, the suites)
    out of the garbage collector's sight, so that the collections a grade triggers walk only that
    grade's objects instead of PyTorch's whole heap (~0.2 s each). Garbage is collected first, so
    nothing unreachable is kept alive."""
    if not _frozen:
        _frozen.append(True)
        gc.collect()
        gc.freeze()


_frozen: list[bool] = []
_current: list[SuiteSession] = []  # this process's session, built on first use


def shared() -> SuiteSession:
    """This process's session: the one built earlier, or a new one if there is none or it broke."""
    if not _current or _current[0].broken:
        _current[:] = [SuiteSession()]
    return _current[0]
