"""Bootstrap confidence intervals for mean retrieval metrics over questions.

A mean over 41 questions moves a lot when a few questions change; the
percentile bootstrap (Efron and Tibshirani, "An Introduction to the
Bootstrap", 1993, ch. 13) shows by how much: resample the questions with
replacement ``n`` times, take the mean each time, and report the 2.5th and
97.5th percentiles of those means (for a 95% interval). For two methods on
the same questions, :func:`paired_bootstrap` resamples the *differences*
per question, which is what decides whether one method beats the other
(Sakai, "Statistical reform in information retrieval?", SIGIR Forum 2014).
Seeded, so the same numbers come out every run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

__all__ = ["bootstrap_ci", "bootstrap_table", "comparison_table", "paired_bootstrap"]


def _resampled_means(values: np.ndarray, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(values), size=(n, len(values)))
    return values[idx].mean(axis=1)


def bootstrap_ci(values: Sequence[float], n: int = 2000, level: float = 0.95, seed: int = 0) -> tuple[float, float, float]:
    """Mean and percentile-bootstrap interval of per-question values.

    Args:
        values: one metric value per question (e.g. hit@5 of each question).
        n: bootstrap resamples.
        level: coverage of the interval (0.95: the 2.5th to 97.5th percentile).
        seed: random seed (fixed: the interval is the same every run).

    Returns:
        ``(mean, low, high)``.

    Raises:
        ValueError: no values, a NaN among them, ``n < 1`` or ``level`` outside (0, 1).
    """
    arr = np.asarray(values, dtype=float)
    if arr.size == 0 or np.isnan(arr).any():
        raise ValueError("bootstrap_ci needs at least one value and no NaN (score a missed question as 0).")
    if n < 1 or not 0 < level < 1:
        raise ValueError(f"need n >= 1 and 0 < level < 1, got n={n}, level={level}")
    means = _resampled_means(arr, n, seed)
    tail = (1 - level) / 2 * 100
    return float(arr.mean()), float(np.percentile(means, tail)), float(np.percentile(means, 100 - tail))


def paired_bootstrap(a: Sequence[float], b: Sequence[float], n: int = 2000, level: float = 0.95,
                     seed: int = 0) -> tuple[float, float, float]:
    """Mean difference ``a - b`` over the same questions, with its bootstrap interval.

    An interval that does not hold 0 says the difference is unlikely to be
    an accident of which questions were asked.

    Raises:
        ValueError: ``a`` and ``b`` differ in length (they must be the same questions, in the same order).
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired_bootstrap needs the same questions for both methods: {a.shape} vs {b.shape}")
    return bootstrap_ci(a - b, n, level, seed)


def bootstrap_table(results: Mapping[str, pd.DataFrame], metrics: Sequence[str] = ("hit@5", "RR", "NDCG@5"),
                    n: int = 2000, seed: int = 0) -> pd.DataFrame:
    """One row per method: each metric's mean and its half interval width (``"±"``).

    Args:
        results: method name -> per-question table (:func:`ddrsearch.evaluation.evaluate.evaluate_run`).
        metrics: columns to summarise (``RR`` is shown as ``MRR``).

    Returns:
        DataFrame with columns ``<metric>`` and ``<metric> ±`` per metric
        (half the width of the 95% interval), index the method names.
    """
    rows = {}
    for name, df in results.items():
        row = {}
        for m in metrics:
            mean, lo, hi = bootstrap_ci(df[m].to_numpy(), n=n, seed=seed)
            label = "MRR" if m == "RR" else m
            row[label], row[f"{label} ±"] = mean, (hi - lo) / 2
        rows[name] = row
    table = pd.DataFrame(rows).T
    table.index.name = "method"
    return table


def comparison_table(results: Mapping[str, pd.DataFrame], baseline: str,
                     metrics: Sequence[str] = ("hit@5", "RR", "NDCG@5"), gain_on: str = "NDCG@5",
                     n: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Each method's means with 95% bootstrap half-widths, and its paired gain over ``baseline``.

    Args:
        results: method name -> per-question table (:func:`ddrsearch.evaluation.evaluate.evaluate_run`),
            all over the same questions in the same order.
        baseline: the method every other one is compared with.
        metrics: columns to summarise.
        gain_on: the column whose paired difference is the gain.
        n, seed: bootstrap resamples and seed (:func:`bootstrap_ci`).

    Returns:
        One row per method (index name ``method``): for each metric its mean,
        ``"<metric> ±"`` (half the width of the percentile-bootstrap
        interval over the questions; ``RR`` is shown as ``MRR``) and the
        interval itself, ``"<metric> low"`` and ``"<metric> high"`` (it need
        not be symmetric about the mean, and stays within the metric's
        range), then
        ``gain`` (mean difference of ``gain_on`` with the baseline on the same
        questions) with ``gain low`` and ``gain high`` (its paired 95%
        interval), and ``changed`` (questions whose ``gain_on`` moved).

    Raises:
        KeyError: ``baseline`` is not among the results.
        ValueError: the tables hold different questions.
    """
    base = results[baseline]
    rows = {}
    for name, df in results.items():
        if list(df.index) != list(base.index):
            raise ValueError(f"{name!r} was scored on other questions than {baseline!r}")
        row: dict = {}
        for m in metrics:
            mean, lo, hi = bootstrap_ci(df[m].to_numpy(), n=n, seed=seed)
            label = "MRR" if m == "RR" else m
            row[label], row[f"{label} ±"] = mean, (hi - lo) / 2
            row[f"{label} low"], row[f"{label} high"] = lo, hi
        gain, lo, hi = paired_bootstrap(df[gain_on].to_numpy(), base[gain_on].to_numpy(), n=n, seed=seed)
        row.update({"gain": gain, "gain low": lo, "gain high": hi,
                    "changed": int((df[gain_on] - base[gain_on]).abs().gt(1e-12).sum())})
        rows[name] = row
    table = pd.DataFrame(rows).T
    table.index.name = "method"
    table["changed"] = table["changed"].astype(int)
    return table
