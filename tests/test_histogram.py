"""flows/histogram.py: the class report's plots. Bins as matplotlib's hist(range=(0, top)), a drawing that is
well-formed SVG with one bar per non-empty (bin, group), and nothing drawn for no values. Fast unit tests."""
from xml.etree import ElementTree

import numpy as np
import pytest

from autograder.flows import histogram
from autograder.flows.batch_summary import COLOURS

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("values, top, bins", [
    ([0, 18, 18, 9, 9.5, 17.999, 0.3], 18, 18),
    ([0.0, 0.1, 0.2, 0.3, 0.7, 1.0], 1.0, 10),  # 0.3 * 10 is 2.9999999999999996 in floating point
    ([100, 77, 84, 84, 0, 64.5], 100, 20),
    ([2, 4, 4], 4, 4),
])
def test_bins_match_numpy_histogram(values, top, bins):
    expected, _ = np.histogram(values, bins=bins, range=(0, top))
    assert histogram.bin_counts(values, top, bins) == list(expected)


def test_values_outside_the_range_are_left_out_as_matplotlib_does():
    assert histogram.bin_counts([-1, 5, 11], 10, 10) == [0] * 5 + [1] + [0] * 4


@pytest.mark.parametrize("largest, most, step", [(18, 6, 5), (100, 6, 20), (40, 6, 10), (4, 6, 1), (1, 6, 1),
                                                 (0.5, 6, 1), (7, 6, 2), (250, 6, 50)])
def test_nice_steps(largest, most, step):
    assert histogram.nice_step(largest, most) == step


def parse(drawing):
    root = ElementTree.fromstring(drawing)
    assert root.tag == f"{SVG}svg"
    return root


def bars(root):
    return [r for r in root.iter(f"{SVG}rect") if r.find(f"{SVG}title") is not None]


def test_one_bar_per_filled_bin_and_group_stacked_in_order():
    groups = {"attempted": [18, 18, 9], "blank (nothing implemented)": [0, 0]}
    root = parse(histogram.svg("masks", 18, groups, COLOURS))
    found = bars(root)
    assert len(found) == 3  # bins 18 (2 students), 9 (1), 0 (2 blank)
    assert {b.get("fill") for b in found} == {COLOURS["attempted"], COLOURS["blank (nothing implemented)"]}
    titles = sorted(b.find(f"{SVG}title").text for b in found)
    assert titles == ["attempted: 1 in [9, 10)", "attempted: 2 in [17, 18]",  # the last bin holds its top
                      "blank (nothing implemented): 2 in [0, 1)"]
    title = root.find(f"{SVG}title").text
    assert title == "masks: mean 15.0, median 18 (attempted)"
    legend = [t.text for t in root.iter(f"{SVG}text") if t.text and t.text.endswith(")")]
    assert "attempted (3)" in legend and "blank (nothing implemented) (2)" in legend


def test_one_group_has_no_legend_and_its_title_names_no_group():
    root = parse(histogram.svg("total", 100, {"graded": [100] * 30}, COLOURS))
    assert root.find(f"{SVG}title").text == "total: mean 100.0, median 100"
    assert not any(t.text and t.text.startswith("graded (") for t in root.iter(f"{SVG}text"))
    assert len(bars(root)) == 1


def test_bars_stay_inside_the_plot():
    root = parse(histogram.svg("p", 16, {"a": list(range(17)) * 3, "b": [16] * 40}, COLOURS))
    for bar in bars(root):
        x, y, w, h = (float(bar.get(k)) for k in ("x", "y", "width", "height"))
        assert histogram.LEFT <= x and x + w <= histogram.RIGHT + 1e-6
        assert histogram.TOP - 1e-6 <= y and y + h <= histogram.BOTTOM + 1e-6 and h > 0


def test_nothing_to_draw():
    assert histogram.svg("masks", 18, {"attempted": [], "blank": []}, COLOURS) is None


@pytest.mark.parametrize("groups", [
    {"attempted": [18] * 35 + [9] * 3, "blank (nothing implemented)": [0] * 2},  # full marks: tall bar on the right
    {"attempted": [1] * 30 + [18], "no gradable notebook": [0] * 9},  # tall bars on the left
    {"attempted": list(range(19)) * 4, "blank (nothing implemented)": [0] * 4},  # bars everywhere
])
def test_no_bar_reaches_the_legend(groups):
    root = parse(histogram.svg("masks", 18, groups, COLOURS))
    legend = next(r for r in root.iter(f"{SVG}rect") if r.get("stroke") == "#ccc")
    lx, ly, lw, lh = (float(legend.get(k)) for k in ("x", "y", "width", "height"))
    for bar in bars(root):
        x, y, w = (float(bar.get(k)) for k in ("x", "y", "width"))
        if x + w > lx and x < lx + lw:
            assert y > ly + lh, f"a bar under the legend reaches it: {bar.find(f'{SVG}title').text}"
