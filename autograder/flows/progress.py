"""Progress of a long run, one way for every flow: done / total, time left, and the current one.

grade-all, `make nbgrader-autograde` (python -m autograder.flows.nbgrader), `written` and
`make release` draw a bar on stderr (tqdm); inside `nbgrader autograde`, whose own log lines
would tear a bar apart, the same meter is written as one log line per student.
"""
from __future__ import annotations

import sys
from typing import Any

from ..engine.safe_text import text as safe_line


def bar(total: int, desc: str, unit: str = "nb") -> Any:
    """A progress bar on stderr (tqdm): ``update(n)`` as work finishes, ``now(bar, name)`` for the current one."""
    from tqdm import tqdm

    return tqdm(total=total, file=sys.stderr, unit=unit, desc=desc, dynamic_ncols=True)


def now(progress: Any, current: str) -> None:
    """Name the one being worked on (or just finished) beside the bar; never raises (a bar is a nicety)."""
    try:
        progress.set_postfix_str(safe_line(current)[:60])
    except Exception:  # noqa: BLE001 - whatever the name holds, the work goes on
        pass


def line(done: int, total: int, seconds: float, desc: str, current: str, unit: str = "nb") -> str:
    """The bar's meter as one line of text, for a log: 'week7_attention:  8%|▊  | 3/40 [00:12<02:34, ..., alice]'."""
    from tqdm import tqdm

    meter: str = tqdm.format_meter(done, total, seconds, prefix=desc, unit=unit, postfix=safe_line(current)[:60])
    return meter
