"""ddrsearch.evaluation.leverbench: the lever table pairs the questions."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.data


def test_lever_table_pairs_the_questions():
    """The lever table compares each lever with the baseline question by question (gain, questions changed)."""
    import pandas as pd

    from ddrsearch.evaluation.leverbench import lever_table

    idx = pd.Index(["Q1", "Q2", "Q3", "Q4"], name="id")
    base = pd.DataFrame({"hit@5": [1, 0, 1, 0], "RR": [1, 0, 0.5, 0], "NDCG@5": [1, 0, 0.6, 0]}, index=idx, dtype=float)
    better = base.assign(**{"hit@5": [1, 1, 1, 0], "RR": [1, 0.5, 0.5, 0], "NDCG@5": [1, 0.6, 0.6, 0]})
    t = lever_table({"plain": base, "lever": better}, baseline="plain")
    assert t.loc["plain", "gain"] == 0 and t.loc["plain", "changed"] == 0
    assert t.loc["lever", "gain"] == pytest.approx(0.15) and t.loc["lever", "changed"] == 1
    assert t.loc["lever", "gain low"] <= 0.15 <= t.loc["lever", "gain high"]
    assert t.loc["lever", "MRR"] == pytest.approx(0.5)
    with pytest.raises(ValueError):
        lever_table({"plain": base, "other": better.iloc[:3]}, baseline="plain")
