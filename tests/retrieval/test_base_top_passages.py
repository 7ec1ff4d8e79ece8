"""Retriever.top_passages (ddrsearch.retrieval.base): the n best passages from a partial sort.

Checked against the rule written out in plain Python (scores descending, ties by report name then
passage id, passages not retrieved left out) on scores with many ties, passages not retrieved, and
fewer retrieved passages than asked for.
"""

from __future__ import annotations

import numpy as np
import pytest

from ddrsearch.retrieval.base import Retriever
from ddrsearch.retrieval.passages import Passage


class _Given(Retriever):
    def _fit(self, passages):
        pass

    def passage_scores(self, query):
        return self.given


def _plain_top(passages, scores, n):
    kept = [i for i, s in enumerate(scores) if not np.isnan(s)]
    kept.sort(key=lambda i: (-scores[i], passages[i].report, passages[i].passage_id))
    return kept if n is None else kept[:n]


@pytest.mark.parametrize("missing", [0.0, 0.3, 0.97, 1.0])
@pytest.mark.parametrize("seed", range(4))
def test_the_n_best_passages_are_those_of_the_plain_rule(missing, seed):
    rng = np.random.default_rng(seed)
    names = [f"R{j:02d}.pdf" for j in range(12)]
    passages = [Passage(f"{names[r]}#{i:03d}", names[r], "t") for i, r in enumerate(rng.integers(0, 12, 300))]
    scores = rng.integers(0, 6, 300).astype(float) - 2.0  # few values, negative, zero and positive: many ties
    scores[rng.random(300) < missing] = np.nan
    r = _Given().index(passages)
    for n in (None, 1, 2, 5, 9, 64, 299, 300, 301, 1000):
        assert r.top_passages(scores, n).tolist() == _plain_top(passages, scores, n), n


@pytest.mark.parametrize("missing", [0.0, 0.5, 0.999])
@pytest.mark.parametrize("values", [4, 100_000])
def test_the_block_maxima_shortcut_keeps_the_plain_rule_on_many_passages(missing, values):
    """From TOP_MIN_PASSAGES passages on, the candidates come from block maxima (base._top_candidates):
    same passages, same order, with many ties (4 values) or few, a block-size remainder, blocks with no
    score, and too few retrieved passages for the shortcut."""
    from ddrsearch.retrieval.base import TOP_MIN_PASSAGES

    rng = np.random.default_rng(values)
    total = TOP_MIN_PASSAGES + 1000 + 37  # not a whole number of blocks
    names = [f"R{j:03d}.pdf" for j in range(200)]
    passages = [Passage(f"{names[r]}#{i:05d}", names[r], "t") for i, r in enumerate(rng.integers(0, 200, total))]
    scores = rng.integers(0, values, total).astype(float) / values
    scores[rng.random(total) < missing] = np.nan
    scores[:3000][rng.random(3000) < 0.9] = np.nan  # whole blocks without a score
    r = _Given().index(passages)
    for n in (1, 5, 10, 64, 65, 100):
        assert r.top_passages(scores, n).tolist() == _plain_top(passages, scores, n), n
