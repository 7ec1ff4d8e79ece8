"""The two result figures of ``ddrsearch.evaluation.plots``, on small hand-made tables (no reports needed)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import io

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle

from ddrsearch.evaluation.plots import METHOD_COLOURS, category_heatmap, metrics_bar_chart


@pytest.fixture
def compare_table():
    """Three methods, as ddrsearch.evaluation.evaluate.compare returns them (plus columns the chart ignores)."""
    return pd.DataFrame(
        {
            "P@5": [0.2, 0.3, 0.4],
            "recall@5": [0.25, 0.5, 0.75],
            "hit@5": [0.4, 0.6, 0.8],
            "MRR": [0.3, 0.45, 0.7],
            "MAP": [0.2, 0.4, 0.6],
            "NDCG@5": [0.35, 0.55, 0.65],
        },
        index=pd.Index(["keyword", "bm25", "hybrid"], name="method"),
    )


@pytest.fixture
def breakdown_table():
    """Two categories by three methods, as ddrsearch.evaluation.evaluate.breakdown returns it (one empty cell)."""
    table = pd.DataFrame(
        {"questions": [3, 5], "keyword": [0.0, 0.5], "bm25": [1 / 3, np.nan], "hybrid": [2 / 3, 1.0]},
        index=pd.Index(["losses_mud", "tests"], name="category"),
    )
    return table


def _bars(ax):
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def test_bar_chart_has_one_bar_per_method_and_metric(compare_table):
    fig = metrics_bar_chart(compare_table)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    bars = _bars(ax)
    assert len(bars) == 3 * 4
    # bar heights are the table's values, method by method, metric by metric
    heights = [b.get_height() for b in bars]
    expected = [compare_table.loc[m, c] for m in compare_table.index for c in ("hit@5", "recall@5", "MRR", "NDCG@5")]
    assert heights == pytest.approx(expected)
    # labels: metric names on the x axis, methods in the legend, in table order, fixed colours
    assert [t.get_text() for t in ax.get_xticklabels()] == ["hit@5", "recall@5", "MRR", "NDCG@5"]
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["keyword", "bm25", "hybrid"]
    for i in range(3):
        for b in bars[4 * i: 4 * i + 4]:
            assert to_hex(b.get_facecolor()) == METHOD_COLOURS[i]
    assert ax.get_ylim() == (0, 1)
    assert ax.get_ylabel()
    fig.savefig(io.BytesIO(), format="png")  # it renders


def test_bar_chart_metrics_argument_and_errors(compare_table):
    fig = metrics_bar_chart(compare_table, metrics=("P@5", "MAP"), title="dev")
    ax = fig.axes[0]
    assert len(_bars(ax)) == 3 * 2
    assert [t.get_text() for t in ax.get_xticklabels()] == ["P@5", "MAP"]
    assert ax.get_title() == "dev"
    with pytest.raises(KeyError, match="recall@10"):
        metrics_bar_chart(compare_table, metrics=("recall@10",))
    with pytest.raises(ValueError):
        metrics_bar_chart(compare_table.iloc[:0])


def test_bar_chart_can_draw_into_a_panel(compare_table):
    fig = Figure()
    top, bottom = fig.subplots(2, 1)
    assert metrics_bar_chart(compare_table, ax=bottom) is fig
    assert len(_bars(bottom)) == 12 and len(_bars(top)) == 0


def test_bar_chart_is_deterministic(compare_table):
    def png():
        buf = io.BytesIO()
        metrics_bar_chart(compare_table).savefig(buf, format="png", metadata={"Software": None})
        return buf.getvalue()

    assert png() == png()


def test_heatmap_has_one_cell_per_group_and_method(breakdown_table):
    fig = category_heatmap(breakdown_table, "recall@5")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    images = [a for a in ax.get_images() if isinstance(a, AxesImage)]
    assert len(images) == 1
    assert images[0].get_array().shape == (2, 3)
    # one value written per non-empty cell, two decimals
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted(["0.00", "0.33", "0.67", "0.50", "1.00"])
    # row labels carry the question counts; columns are the methods
    assert [t.get_text() for t in ax.get_yticklabels()] == ["losses_mud (3)", "tests (5)"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["keyword", "bm25", "hybrid"]
    # the colour bar names the metric, on a fixed 0-1 scale
    assert len(fig.axes) == 2 and "recall@5" in fig.axes[1].get_ylabel()
    assert images[0].get_clim() == (0.0, 1.0)
    fig.savefig(io.BytesIO(), format="png")


def test_heatmap_text_is_readable_on_dark_cells(breakdown_table):
    ax = category_heatmap(breakdown_table).axes[0]
    colour = {t.get_text(): t.get_color() for t in ax.texts}
    assert colour["1.00"] == "white" and colour["0.00"] == "black"


def test_heatmap_without_counts_and_errors(breakdown_table):
    fig = category_heatmap(breakdown_table.drop(columns="questions"), "NDCG@5")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["losses_mud", "tests"]
    assert "NDCG@5" in fig.axes[1].get_ylabel()
    with pytest.raises(ValueError):
        category_heatmap(breakdown_table[["questions"]])


@pytest.fixture
def interval_table(compare_table):
    """95%-style intervals around each value, asymmetric, rows in another order than the table."""
    table = {}
    for metric in ("hit@5", "recall@5", "MRR", "NDCG@5"):
        table[f"{metric} low"] = compare_table[metric] - 0.1
        table[f"{metric} high"] = compare_table[metric] + 0.05
    return pd.DataFrame(table).iloc[::-1]


def test_bar_chart_error_bars_are_the_intervals(compare_table, interval_table):
    fig = metrics_bar_chart(compare_table, intervals=interval_table)
    ax = fig.axes[0]
    bars = _bars(ax)
    assert len(bars) == 12  # the intervals add no bar
    (segments,) = [c for c in ax.collections if c.get_gid() == "intervals"]
    lines = segments.get_segments()
    assert len(lines) == len(bars)
    metrics = ("hit@5", "recall@5", "MRR", "NDCG@5")
    expected = [(interval_table.loc[m, f"{c} low"], interval_table.loc[m, f"{c} high"])
                for m in compare_table.index for c in metrics]
    for bar, line, (low, high) in zip(bars, lines, expected, strict=True):
        (x0, y0), (x1, y1) = line
        # a vertical bar from the interval's low to its high end, at the centre of its bar
        assert x0 == x1 == pytest.approx(bar.get_x() + bar.get_width() / 2)
        assert (y0, y1) == pytest.approx((low, high))
        assert y0 <= bar.get_height() <= y1
    # the legend still names the methods only
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["keyword", "bm25", "hybrid"]
    fig.savefig(io.BytesIO(), format="png")


def test_bar_chart_without_intervals_draws_no_error_bars(compare_table):
    ax = metrics_bar_chart(compare_table).axes[0]
    assert not [c for c in ax.collections if c.get_gid() == "intervals"]


def test_bar_chart_refuses_intervals_that_do_not_fit(compare_table, interval_table):
    with pytest.raises(KeyError, match="NDCG@5 high"):
        metrics_bar_chart(compare_table, intervals=interval_table.drop(columns="NDCG@5 high"))
    with pytest.raises(KeyError, match="bm25"):
        metrics_bar_chart(compare_table, intervals=interval_table.drop(index="bm25"))
    shifted = interval_table.copy()
    shifted.loc["hybrid", "MRR low"] = 0.9  # above hybrid's MRR of 0.7
    with pytest.raises(ValueError, match="hybrid, MRR"):
        metrics_bar_chart(compare_table, intervals=shifted)
    # only the drawn metrics need intervals
    fig = metrics_bar_chart(compare_table, metrics=("MRR",), intervals=interval_table[["MRR low", "MRR high"]])
    (segments,) = [c for c in fig.axes[0].collections if c.get_gid() == "intervals"]
    assert len(segments.get_segments()) == 3
