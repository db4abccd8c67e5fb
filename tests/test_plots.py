"""Figures a reader can read: lines to the end of the run, axes that a peak does not flatten,
one colour per algorithm, map labels that do not print over each other."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import mmcc  # noqa: E402
from mmcc.plots import ALGORITHM_ORDER, algorithm_color, radio_figures, scale_for_peaks, step_to_end  # noqa: E402
from mmcc.scenario import load  # noqa: E402


def test_a_step_plot_holds_its_last_value_to_the_end_of_the_run():
    """Vegas' window stops changing long before the run ends: its line is drawn to the end."""
    r = mmcc.run(load("siddiqui-1a"), cca="vegas")  # 16.5 s
    cw = r.tables["cwnd"].to_pydict()
    assert cw["t_s"][-1] < 16.0  # the last change, well before the end
    fig, ax = plt.subplots()
    (line,) = step_to_end(ax, cw["t_s"], cw["cwnd_segments"], 16.5)
    x, y = line.get_data()
    assert x[-1] == 16.5 and y[-1] == cw["cwnd_segments"][-1]
    plt.close(fig)


def test_a_slow_start_peak_gets_a_log_axis_and_a_flat_window_does_not():
    fig, (a, b) = plt.subplots(2)
    assert scale_for_peaks(a, [10, 20, 110_000] + [2000] * 50) and a.get_yscale() == "log"
    assert not scale_for_peaks(b, [1800, 2000, 2400]) and b.get_yscale() == "linear"
    plt.close(fig)


def test_every_algorithm_has_its_own_colour():
    colors = [algorithm_color(a) for a in ALGORITHM_ORDER]
    assert len({tuple(c) for c in colors}) == min(len(ALGORITHM_ORDER), 20)
    assert set(ALGORITHM_ORDER) >= {a["name"] for a in mmcc.algorithms()}


def test_map_labels_one_place_once(tmp_path):
    """Where the UE stands still its time marks are joined into one label ("5-9s"), and the
    trees have a legend entry."""
    r = mmcc.run(load("thesis-edge"), duration="31s")
    labels = []
    orig = matplotlib.axes.Axes.annotate

    def spy(self, text, *a, **k):
        labels.append((id(self), text, tuple(np.round(a[0], 3))))
        return orig(self, text, *a, **k)

    matplotlib.axes.Axes.annotate = spy
    try:
        radio_figures(r, tmp_path)
    finally:
        matplotlib.axes.Axes.annotate = orig
    for ax_id in {x[0] for x in labels}:
        places = [x[2] for x in labels if x[0] == ax_id]
        assert len(places) == len(set(places)), places
    assert any("-" in x[1] for x in labels)  # a stop joined into one label
    assert (tmp_path / "map.png").is_file()
