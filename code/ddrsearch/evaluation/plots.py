"""Figures of retrieval results: methods side by side, and where each method fails.

Both functions take the tables of :mod:`ddrsearch.evaluation.evaluate` and return a
:class:`matplotlib.figure.Figure`. They never call ``plt.show()``: in a
notebook, display the figure (``display(fig)``, or make it the last line of
the cell); in a script, ``fig.savefig("chart.png")``.

The figures are built with :class:`matplotlib.figure.Figure` directly, not
through ``pyplot``, so calling them in a loop opens no windows and leaks no
figures. Colours are fixed: the i-th method of a table always gets the i-th
colour of :data:`METHOD_COLORS`, so a figure looks the same every time it is
drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

__all__ = ["METHOD_COLORS", "METHOD_COLOURS", "category_heatmap", "metrics_bar_chart"]

#: Colours given to methods in table order: matplotlib's "tab10" palette, written out so it never changes.
METHOD_COLORS = (
    "#1f77b4",  # blue
    "#ff7f0e",  # orange
    "#2ca02c",  # green
    "#d62728",  # red
    "#9467bd",  # purple
    "#8c564b",  # brown
    "#e377c2",  # pink
    "#7f7f7f",  # grey
    "#bcbd22",  # olive
    "#17becf",  # cyan
)

DEFAULT_METRICS = ("hit@5", "recall@5", "MRR", "NDCG@5")


#: The British spelling, kept for code written against earlier versions.
METHOD_COLOURS = METHOD_COLORS


def metrics_bar_chart(
    compare_table: pd.DataFrame,
    metrics: Sequence[str] = DEFAULT_METRICS,
    *,
    intervals: pd.DataFrame | None = None,
    title: str | None = None,
    ax: Axes | None = None,
    figsize: tuple[float, float] = (9.0, 4.5),
) -> Figure:
    """Grouped bar chart: one group per metric, one bar per method, optionally with intervals.

    Args:
        compare_table: ``pandas.DataFrame`` with one row per method (the index
            holds the method names) and one column per metric, such as the
            table returned by :func:`ddrsearch.evaluation.evaluate.compare`. Values
            are between 0 and 1.
        metrics: ``Sequence[str]``, the columns to draw, left to right
            (default ``("hit@5", "recall@5", "MRR", "NDCG@5")``).
        intervals: ``pandas.DataFrame`` or ``None``; when given, each bar
            gets a black error bar from ``intervals.loc[method, f"{metric}
            low"]`` to ``intervals.loc[method, f"{metric} high"]``, for
            example 95% bootstrap intervals from
            :func:`ddrsearch.evaluation.significance.bootstrap_ci`. One row per method
            of ``compare_table`` (any order, extra rows ignored).
        title: ``str`` or ``None``, the axes title.
        ax: ``matplotlib.axes.Axes`` or ``None``; draw into these axes (for
            example one panel of a larger figure) instead of a new figure.
        figsize: ``(width, height)`` in inches of a new figure.

    Returns:
        ``matplotlib.figure.Figure``: the figure holding the chart. It has
        ``len(compare_table) * len(metrics)`` bars; the i-th method is drawn
        in colour ``METHOD_COLORS[i % 10]`` and named in the legend. With
        ``intervals``, the axes also hold one ``LineCollection`` with
        ``gid="intervals"``: one vertical segment per bar, at the bar's
        centre, in the order of the bars (method by method, metric by metric).

    Raises:
        KeyError: a metric is not a column of ``compare_table``, or an
            interval column or method row is missing from ``intervals``
            (the message names them).
        ValueError: ``compare_table`` has no rows or ``metrics`` is empty; an
            interval does not hold the bar's value (low <= value <= high),
            so it cannot belong to that mean.
    """
    metrics = list(metrics)
    missing = [m for m in metrics if m not in compare_table.columns]
    if missing:
        raise KeyError(f"metric(s) {missing} are not columns of the table; its columns are {list(compare_table.columns)}")
    if len(compare_table) == 0 or not metrics:
        raise ValueError("nothing to draw: the table has no methods or no metrics were asked for")
    if intervals is not None:
        lows, highs = _interval_bounds(compare_table, metrics, intervals)

    if ax is None:
        fig = Figure(figsize=figsize, layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    methods = [str(m) for m in compare_table.index]
    n = len(methods)
    width = 0.8 / n
    x = np.arange(len(metrics))
    centres = []
    for i, method in enumerate(methods):
        values = compare_table.iloc[i][metrics].astype(float).to_numpy()
        ax.bar(x - 0.4 + width * (i + 0.5), values, width=width * 0.95, label=method,
               color=METHOD_COLORS[i % len(METHOD_COLORS)])
        centres.extend(x - 0.4 + width * (i + 0.5))
    if intervals is not None:
        # one segment per bar, low to high, and short caps at both ends
        ax.vlines(centres, lows, highs, colors="black", linewidths=1.0, gid="intervals")
        cap = width * 0.25
        for ends in (lows, highs):
            ax.hlines(ends, np.subtract(centres, cap), np.add(centres, cap), colors="black",
                      linewidths=1.0, gid="interval caps")
    ax.set_xticks(x, metrics)
    ax.set_xlim(-0.5, len(metrics) - 0.5)
    ax.set_ylim(0, 1)
    ax.set_ylabel("mean over the questions")
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    if title:
        ax.set_title(title)
    ax.legend(title="method", loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, title_fontsize=9)
    return fig


def _interval_bounds(compare_table: pd.DataFrame, metrics: list[str],
                     intervals: pd.DataFrame) -> tuple[list[float], list[float]]:
    """Low and high ends of each bar's interval, in bar order; checks that each holds its bar's value."""
    columns = [f"{m} {end}" for m in metrics for end in ("low", "high")]
    missing = [c for c in columns if c not in intervals.columns]
    if missing:
        raise KeyError(f"interval column(s) {missing} are missing; the intervals table has {list(intervals.columns)}")
    absent = [m for m in compare_table.index if m not in intervals.index]
    if absent:
        raise KeyError(f"no intervals for method(s) {absent}; the intervals table has {list(intervals.index)}")
    lows, highs = [], []
    for method in compare_table.index:
        for m in metrics:
            value = float(compare_table.loc[method, m])
            low, high = float(intervals.loc[method, f"{m} low"]), float(intervals.loc[method, f"{m} high"])
            if not low - 1e-12 <= value <= high + 1e-12:
                raise ValueError(f"the interval {low:.3f} to {high:.3f} of {method}, {m} does not hold its value "
                                 f"{value:.3f}: was it computed on other questions?")
            lows.append(low)
            highs.append(high)
    return lows, highs


def category_heatmap(
    breakdown_table: pd.DataFrame,
    metric_name: str = "recall@5",
    *,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Heat map of one metric: one row per group (category), one column per method.

    Each cell is coloured by its value (0 white-yellow to 1 dark blue, fixed
    scale so that two heat maps can be compared) and shows the value with
    two decimals. The row labels give the number of questions in the group,
    e.g. ``"casing_cementing (9)"``.

    Args:
        breakdown_table: ``pandas.DataFrame`` as returned by
            :func:`ddrsearch.evaluation.evaluate.breakdown`: the groups in the index,
            a ``questions`` column with the number of questions in each group,
            then one column per method holding the mean metric (0 to 1).
            Without a ``questions`` column the row labels are the group names.
        metric_name: ``str``, the metric the table holds, for the colour-bar
            label (default ``"recall@5"``).
        title: ``str`` or ``None``, the axes title.
        figsize: ``(width, height)`` in inches; default grows with the table.

    Returns:
        ``matplotlib.figure.Figure`` with one image of
        ``groups x methods`` cells, one text per cell, and a colour bar.
        An empty cell (``NaN``: no question of that group) is left blank.

    Raises:
        ValueError: the table has no method column or no rows.
    """
    table = breakdown_table
    counts = table["questions"] if "questions" in table.columns else None
    values = table.drop(columns=["questions"]) if counts is not None else table
    if values.shape[0] == 0 or values.shape[1] == 0:
        raise ValueError("nothing to draw: the breakdown table needs at least one group and one method column")
    data = values.astype(float).to_numpy()
    groups = [str(g) for g in values.index]
    row_labels = [f"{g} ({int(c)})" for g, c in zip(groups, counts, strict=True)] if counts is not None else groups
    methods = [str(m) for m in values.columns]

    if figsize is None:
        figsize = (1.6 + 1.15 * len(methods) + 1.2, 0.9 + 0.45 * len(groups) + 1.2)
    fig = Figure(figsize=figsize, layout="constrained")
    ax = fig.add_subplot()
    cmap = "YlGnBu"
    image = ax.imshow(np.ma.masked_invalid(data), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto")
    colours = image.cmap
    for r in range(data.shape[0]):
        for c in range(data.shape[1]):
            v = data[r, c]
            if np.isnan(v):
                continue
            red, green, blue, _ = colours(v)
            dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.55
            ax.text(c, r, f"{v:.2f}", ha="center", va="center", fontsize=9, color="white" if dark else "black")
    ax.set_xticks(range(len(methods)), methods, rotation=30, ha="right", rotation_mode="anchor")
    ax.set_yticks(range(len(groups)), row_labels)
    ax.set_xlabel("method")
    ax.set_ylabel(f"{values.index.name or 'group'} (questions)")
    ax.tick_params(length=0)
    if title:
        ax.set_title(title)
    bar = fig.colorbar(image, ax=ax, shrink=0.8)
    bar.set_label(f"mean {metric_name}")
    return fig
