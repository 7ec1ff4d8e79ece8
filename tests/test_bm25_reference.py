"""BM25 against a short reference implementation of the formula in BM25Retriever's docstring.

The reference is written from the formula alone (Lucene IDF, no (k1 + 1) factor;
Robertson and Zaragoza 2009, Kamphuis et al. 2020), not from bm25s, and compared
with :class:`ddrsearch.retrieval.lexical.BM25Retriever` on random small corpora: every
passage's score, for random queries and random k1 and b.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ddrsearch.retrieval.lexical import BM25Retriever
from ddrsearch.retrieval.passages import Passage
from ddrsearch.text.tokenizer import tokenize

WORDS = ["stuck", "pipe", "trip", "hole", "mud", "losses", "bit", "slide", "jar", "free"]


def reference_bm25(docs: list[list[str]], query: list[str], k1: float, b: float) -> list[float]:
    """score(q, d) = sum over query terms t of IDF(t) * tf / (tf + k1 * (1 - b + b * |d| / avgdl)),
    IDF(t) = ln(1 + (N - df + 0.5) / (df + 0.5)); nan where d holds no query term."""
    n = len(docs)
    avgdl = sum(len(d) for d in docs) / n
    df = Counter(t for d in docs for t in set(d))
    out = []
    for d in docs:
        tf = Counter(d)
        if not any(tf[t] for t in query):
            out.append(math.nan)
            continue
        score = 0.0
        for t in query:
            if tf[t]:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                score += idf * tf[t] / (tf[t] + k1 * (1 - b + b * len(d) / avgdl))
        out.append(score)
    return out


corpus = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=12), min_size=1, max_size=8)
query = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4, unique=True)


@settings(max_examples=150, deadline=None)
@given(docs=corpus, q=query, k1=st.floats(0.0, 3.0), b=st.floats(0.0, 1.0))
def test_passage_scores_equal_the_reference_formula(docs, q, k1, b):
    passages = [Passage(f"doc{i}", f"doc{i}.pdf", " ".join(d)) for i, d in enumerate(docs)]
    retriever = BM25Retriever(k1=k1, b=b).index(passages)
    ours = retriever.passage_scores(" ".join(q))
    ref = np.array(reference_bm25([tokenize(p.text) for p in passages], q, k1, b))
    assert np.array_equal(np.isnan(ours), np.isnan(ref))
    np.testing.assert_allclose(ours[~np.isnan(ours)], ref[~np.isnan(ref)], rtol=1e-5, atol=1e-6)


def test_reference_by_hand():
    # two documents, one query term in the first only: IDF = ln(1 + 1.5/1.5) = ln 2
    docs = [["stuck", "pipe"], ["trip", "hole", "mud"]]
    k1, b = 1.5, 0.75
    avgdl = 2.5
    expected = math.log(2) * 1 / (1 + k1 * (1 - b + b * 2 / avgdl))
    got = reference_bm25(docs, ["stuck"], k1, b)
    assert math.isclose(got[0], expected) and math.isnan(got[1])
