"""A histogram of points as a small SVG drawing: the class report's plots and grades_plots/<part>.svg.

Plain SVG text, built here: no plotting library to import at the end of a batch (matplotlib
cost ~1.3 s for a class's eight plots), crisp at any zoom, a few KiB, and shown inline by the
report under its Content-Security-Policy (no script, no fetch). Bins as matplotlib's
``hist(range=(0, top))``: equal widths, each [low, high) but the last, which holds ``top``.
"""
from __future__ import annotations

import html
import math
import statistics
from collections.abc import Mapping, Sequence

WIDTH, HEIGHT = 500, 320
LEFT, RIGHT, TOP, BOTTOM = 52, 486, 34, 270  # the plot area, in pixels
DEFAULT_COLOUR = "#8172B3"


def bin_counts(values: Sequence[float], top: float, bins: int) -> list[int]:
    """How many values fall in each of ``bins`` equal bins over [0, top]; values outside are left out.

    numpy.histogram's own rule (what matplotlib draws): the index from the value, then corrected
    against the edges as np.linspace computes them, so a value on an edge lands where numpy puts it.
    """
    counts = [0] * bins
    span = top or 1.0
    edges = [i * (span / bins) for i in range(bins)] + [span]
    for v in values:
        if not 0 <= v <= span:
            continue
        i = min(int(v * (bins / span)), bins - 1)
        if v < edges[i]:
            i -= 1
        elif v >= edges[i + 1] and i != bins - 1:
            i += 1
        counts[i] += 1
    return counts


def nice_step(largest: float, most_ticks: int) -> float:
    """The smallest of 1, 2, 2.5, 5 x 10^k that puts at most ``most_ticks`` intervals up to ``largest``."""
    if largest <= 0:
        return 1.0
    magnitude = 10 ** math.floor(math.log10(largest / most_ticks)) if largest >= most_ticks else 1.0
    for factor in (1, 2, 2.5, 5, 10):
        step = factor * magnitude
        if largest / step <= most_ticks:
            return step
    return 10 * magnitude


def _overlaps(i: int, bins: int, span: float, box_x: float, box_w: float) -> bool:
    """Whether bin ``i`` lies (partly) under the horizontal extent of the legend box."""
    low = LEFT + (RIGHT - LEFT) * i / bins
    high = LEFT + (RIGHT - LEFT) * (i + 1) / bins
    return high > box_x and low < box_x + box_w


def _num(x: float) -> str:
    return f"{x:g}"


def svg(name: str, top: float, groups: Mapping[str, Sequence[float]], colours: Mapping[str, str]) -> str | None:
    """The SVG of one histogram, the ``groups`` ({label: values}) stacked in order, in their ``colours``.

    The title's mean and median are over the first group (the submissions that were graded or
    attempted); None when no group has a value.
    """
    groups = {label: list(values) for label, values in groups.items() if values}
    if not groups:
        return None
    span = top or 1.0
    bins = min(int(top), 20) if top >= 1 else 10
    counts = {label: bin_counts(values, top, bins) for label, values in groups.items()}
    stacked = [sum(c[i] for c in counts.values()) for i in range(bins)]
    labels = list(groups)
    rows = [f"{label} ({len(groups[label])})" for label in labels] if len(labels) > 1 else []
    # The legend (with several groups) goes in the upper corner over the lower half of the bars,
    # and the count axis is made tall enough that no bar under it reaches it.
    box_w, box_h = 24 + 6 * max((len(r) for r in rows), default=0), 8 + 15 * len(rows)
    left_side = max(stacked[:bins // 2] or [0]) <= max(stacked[bins // 2:] or [0])
    box_x = LEFT + 8 if left_side else RIGHT - box_w - 6
    under = [stacked[i] for i in range(bins) if rows and _overlaps(i, bins, span, box_x, box_w)]
    room = (BOTTOM - (TOP + 6 + box_h) - 4) / (BOTTOM - TOP)  # the fraction of the height below the legend
    needed = max(max(stacked), max(under, default=0) / room if room > 0 else 0)
    y_step = max(1.0, nice_step(needed, 6))
    y_top = max(y_step, math.ceil(needed / y_step - 1e-9) * y_step)

    def x(points: float) -> float:
        return LEFT + (RIGHT - LEFT) * points / span

    def y(count: float) -> float:
        return BOTTOM - (BOTTOM - TOP) * count / y_top

    main = groups[labels[0]]
    title = (f"{name}: mean {statistics.fmean(main):.1f}, median {statistics.median(main):g}"
             + (f" ({labels[0]})" if len(labels) > 1 else ""))
    e = html.escape
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
           f'role="img" aria-label="{e(title)}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
           f"<title>{e(title)}</title>",
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           f'<text x="{(LEFT + RIGHT) / 2:g}" y="20" text-anchor="middle" font-size="12">{e(title)}</text>']
    # the bars: each bin's groups stacked bottom up, a white gap between bins
    for i in range(bins):
        low, high = x(span * i / bins), x(span * (i + 1) / bins)
        base = 0
        for label in labels:
            n = counts[label][i]
            if n:
                out.append(f'<rect x="{low + 0.5:.1f}" y="{y(base + n):.1f}" width="{max(high - low - 1, 0.5):.1f}" '
                           f'height="{y(base) - y(base + n):.1f}" fill="{colours.get(label, DEFAULT_COLOUR)}">'
                           f"<title>{e(label)}: {n} in [{_num(span * i / bins)}, {_num(span * (i + 1) / bins)}"
                           f"{']' if i == bins - 1 else ')'}</title></rect>")
            base += n
    # axes, ticks and their labels
    out.append(f'<path d="M{LEFT} {TOP}V{BOTTOM}H{RIGHT}" fill="none" stroke="#333" stroke-width="1"/>')
    x_step = nice_step(span, 6)
    for k in range(int(span / x_step + 1e-9) + 1):
        px = x(k * x_step)
        out.append(f'<path d="M{px:.1f} {BOTTOM}v4" stroke="#333"/><text x="{px:.1f}" y="{BOTTOM + 16}" '
                   f'text-anchor="middle" font-size="10">{_num(k * x_step)}</text>')
    for k in range(int(y_top / y_step + 1e-9) + 1):
        py = y(k * y_step)
        out.append(f'<path d="M{LEFT} {py:.1f}h-4" stroke="#333"/><text x="{LEFT - 7}" y="{py + 3.5:.1f}" '
                   f'text-anchor="end" font-size="10">{_num(k * y_step)}</text>')
    out.append(f'<text x="{(LEFT + RIGHT) / 2:g}" y="{HEIGHT - 14}" text-anchor="middle" font-size="11">'
               f"points (out of {_num(top)})</text>")
    out.append(f'<text transform="translate(14 {(TOP + BOTTOM) / 2:g}) rotate(-90)" text-anchor="middle" '
               f'font-size="11">submissions</text>')
    if rows:  # the legend, inside the plot above the lower bars
        lx, ly = box_x, TOP + 6
        out.append(f'<rect x="{lx}" y="{ly}" width="{box_w}" height="{box_h}" fill="white" stroke="#ccc"/>')
        for j, (label, row) in enumerate(zip(labels, rows)):
            out.append(f'<rect x="{lx + 6}" y="{ly + 6 + 15 * j}" width="10" height="10" '
                       f'fill="{colours.get(label, DEFAULT_COLOUR)}"/><text x="{lx + 21}" y="{ly + 15 + 15 * j}" '
                       f'font-size="10">{e(row)}</text>')
    out.append("</svg>")
    return "\n".join(out)
