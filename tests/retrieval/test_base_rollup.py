"""Retriever._rollup and _rollup_top (ddrsearch.retrieval.base): passages to reports, in arrays.

Checked against the rule written out in plain Python (a report's score is its best passage's, or the
sum of its three best; its passage the best, ties by position; reports listed in the order of their
first retrieved passage) on scores with many ties and passages not retrieved.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from ddrsearch.retrieval.base import Retriever
from ddrsearch.retrieval.passages import Passage


class _Given(Retriever):
    """A retriever whose scores are given (the roll-up is what is tested)."""

    def _fit(self, passages):
        pass

    def passage_scores(self, query):
        return self.given


def _plain_rollup(passages, scores, rollup):
    per_report = defaultdict(list)
    for i, s in enumerate(scores):
        if not np.isnan(s):
            per_report[passages[i].report].append((float(s), i))
    out = {}
    for rep, items in per_report.items():
        items.sort(key=lambda t: (-t[0], t[1]))
        out[rep] = (items[0][0] if rollup == "max" else sum(s for s, _ in items[:3]), items[0][1])
    return out


def _retriever(rollup, seed):
    rng = np.random.default_rng(seed)
    names = [f"R{j:02d}.pdf" for j in range(12)]
    passages = [Passage(f"{names[r]}#{i}", names[r], "t") for i, r in enumerate(rng.integers(0, 12, 200))]
    scores = rng.integers(0, 6, 200).astype(float)  # few values: many ties
    scores[rng.random(200) < 0.3] = np.nan
    r = _Given(rollup=rollup).index(passages)
    r.given = scores
    return r, passages, scores


@pytest.mark.parametrize("rollup", ["max", "sum3"])
@pytest.mark.parametrize("seed", range(5))
def test_rollup_equals_the_plain_rule_in_value_and_order(rollup, seed):
    r, passages, scores = _retriever(rollup, seed)
    got, want = r._rollup(scores), _plain_rollup(passages, scores, rollup)
    assert list(got.items()) == list(want.items())


@pytest.mark.parametrize("k", [1, 3, 7, 12, 20])
@pytest.mark.parametrize("seed", range(5))
def test_search_gives_the_top_k_reports_of_the_full_rollup(k, seed):
    r, passages, scores = _retriever("max", seed)
    full = _plain_rollup(passages, scores, "max")
    want = sorted(full, key=lambda rep: (-full[rep][0], rep))[:k]
    hits = r.search("anything", k)
    assert [h.report for h in hits] == want
    assert [(h.score, h.passage_id) for h in hits] == [(full[rep][0], passages[full[rep][1]].passage_id)
                                                        for rep in want]
