"""BM25 against references: a short implementation of the formula in BM25Retriever's docstring, and rank_bm25."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

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


@pytest.mark.data
def test_rank_bm25_okapi_gives_a_common_word_no_weight(sample):
    """The reason the package does not use BM25Okapi on ten reports."""
    docs = [tokenize(r.text) for r in sample]
    okapi = BM25Okapi(docs)
    in_all = [t for t in set(docs[0]) if all(t in d for d in docs)]
    assert "rig" in in_all
    idf = okapi.idf["rig"]
    assert idf <= 0.25 * okapi.average_idf + 1e-12  # floored to epsilon * mean idf, or below
    # rank-bm25's floor is epsilon * average_idf; when most terms are common it goes negative
    common = BM25Okapi([["rig", "trip"], ["rig", "trip"], ["rig", "stuck"]])
    assert common.idf["rig"] < 0 and common.idf["trip"] < 0
    assert np.all(common.get_scores(["rig"]) < 0)
    # the package's BM25 (Lucene IDF) keeps such a term positive
    lucene = BM25Retriever().index([Passage(str(i), f"r{i}", " ".join(d)) for i, d in enumerate([["rig", "trip"], ["rig", "trip"], ["rig", "stuck"]])])
    assert all(s > 0 for s in lucene.report_scores("rig").values())
