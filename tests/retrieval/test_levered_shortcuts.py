"""ddrsearch.retrieval.levered: the query path's shortcuts give what the full scans over every passage give.

Each shortcut (candidates read from BM25's postings, partial sorts, sums over postings only) is checked
against the plain computation it replaced, written out here, on the real passages: equal values, not close.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.retrieval.chunking import chunk_reports
from ddrsearch.retrieval.levered import TunedHybridRetriever, proximity_pairs
from ddrsearch.retrieval.pipeline import DEFAULT_LEVERS

pytestmark = pytest.mark.data


@pytest.fixture(scope="module")
def lexical(archive):
    """The default pipeline's BM25 leg over the archive's operation rows, every word pair looked for (no model)."""
    r = TunedHybridRetriever(proximity=1.0, numbers=False, bm25_options=DEFAULT_LEVERS["bm25_options"])
    passages = chunk_reports(archive, "operation")
    r.bm25.index(passages)
    r.passages = passages
    return r


def full_scan_proximity(r: TunedHybridRetriever, query: str) -> np.ndarray:
    """The proximity feature as first written: every passage's word positions, every pair looked for in each."""
    n = len(r.passages)
    out = np.zeros(n)
    positions = []
    for p in r.passages:
        where = defaultdict(list)
        for j, t in enumerate(r._plain_tokenize(p.indexed_text)):
            where[t].append(j)
        positions.append(where)
    for a, b in proximity_pairs(r._plain_tokenize(query), r.numbers):
        near = np.array([bool(pos.get(a)) and bool(pos.get(b)) and
                         any(abs(i - j) < r.window for i in pos[a] for j in pos[b]) for pos in positions])
        df = int(near.sum())
        if df:
            out[near] += np.log(1 + (n - df + 0.5) / (df + 0.5))
    return out


def test_the_quantity_pairs_read_from_the_postings_equal_the_full_scan(lexical):
    """Pairs looked for only in the passages BM25 says hold both words score every passage as the full scan does,
    including pairs of a word BM25 drops ('while') and of words no passage holds."""
    questions = [q.question for q in load_questions("archive", check_evidence=False)][::4]
    questions += ["DIFF 250 psi", "500 psi over", "pipe stuck while sliding", "circulate while reaming",
                  "zzqx unknownword pipe"]
    found = 0
    for q in questions:
        got = lexical.proximity_scores(q)
        assert np.array_equal(got, full_scan_proximity(lexical, q)), q
        found += bool(got.any())
    assert found >= 10  # the questions do find pairs: the comparison is not of zeros
    # without 'while', word positions are worked out only for the passages holding both words of a pair
    lexical.__dict__.pop("_positions")
    assert lexical.proximity_scores("DIFF 250 psi").any()
    assert 0 < len(lexical.__dict__["_positions"][2]) < len(lexical.passages) / 10
