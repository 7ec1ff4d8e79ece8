"""ddrsearch.stores.postgres: BM25 from the postings table gives the in-memory BM25Retriever's scores.

Issue 25: BM25 in SQL read every passage holding a query term through its
tsvector and was the PostgreSQL backend's bottleneck from 10x the archive on.
It now reads a postings table (term, passage, tf) through an index on (term,
passage); these tests pin that the scores did not move: equal to the in-memory
BM25Retriever's on every question of the shipped sets over the sample, after an
add as after a full index, with the postings holding each passage's exact term
counts, and a top n found by term bounds (MaxScore) equal to the full ranking's
first n. Skipped, with one line, when pgserver cannot start here.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'ddrsearch[postgres]')")

from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.stores.postgres import EmbeddedServer, EmbeddedServerError, PostgresRetriever

pytestmark = [pytest.mark.data, pytest.mark.model]

SHIPPED_SETS = ("starter", "archive", "fresh", "fresh2")


@pytest.fixture(scope="module")
def pg_url():
    """A private server in a temporary folder, stopped and removed after the module."""
    folder = tempfile.mkdtemp(prefix="ddrsearch-pg-")
    try:
        server = EmbeddedServer(f"{folder}/data", delete=True)
    except EmbeddedServerError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(f"pgserver cannot start here: {exc}")
    yield server.url
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def sample_chunks(sample):
    from ddrsearch.retrieval.chunking import chunk_reports

    return chunk_reports(sample)


@pytest.fixture(scope="module")
def embedder():
    from ddrsearch.embedding.encoder import Embedder

    return Embedder()


@pytest.fixture(scope="module")
def questions():
    return [q.question for name in SHIPPED_SETS for q in load_questions(name)]


@pytest.mark.parametrize("expand", [True, False])
def test_postings_bm25_equals_the_in_memory_bm25_on_the_sample(expand, pg_url, sample_chunks, embedder, questions):
    """For every question of the four shipped sets, the PostgreSQL BM25 scores every sample passage as the
    in-memory BM25Retriever does (the same passages retrieved, scores within float32 rounding), with and
    without abbreviation expansion."""
    from ddrsearch.retrieval.lexical import BM25Retriever

    pg = PostgresRetriever("bm25", collection=f"postings_{int(expand)}", url=pg_url, expand=expand,
                           embedder=embedder).index(sample_chunks)
    mem = BM25Retriever(expand=expand).index(sample_chunks)
    compared = 0
    for q in questions:
        if not mem.tokenize(q):
            continue  # no searchable words: both refuse it (tested elsewhere)
        a, b = pg.passage_scores(q), mem.passage_scores(q)
        assert np.array_equal(np.isnan(a), np.isnan(b)), q
        assert np.nanmax(np.abs(a - b), initial=0.0) < 1e-5, q  # bm25s keeps float32
        compared += 1
    assert compared >= 200


def test_postings_hold_each_passages_exact_term_counts_and_follow_an_add(pg_url, sample_chunks, embedder,
                                                                         questions):
    """After index(first half) then add(second half), the postings table holds one row per (term, passage)
    with the exact count and the passage's length, the document frequencies agree with it, and the scores
    equal those of indexing everything at once."""
    half = len(sample_chunks) // 2
    pg = PostgresRetriever("bm25", collection="postings_add", url=pg_url, embedder=embedder)
    pg.index(sample_chunks[:half])
    pg.add(sample_chunks[half:])
    t = pg.tables
    rows = pg.conn.execute(f"SELECT term, passage_id, tf, dl FROM {t['postings']}").fetchall()
    want = {}
    for c in sample_chunks:
        tokens = pg.tokenize(c.indexed_text)
        for term, tf in Counter(tokens).items():
            want[(term, c.passage_id)] = (tf, len(tokens))
    assert {(r[0], r[1]): (r[2], r[3]) for r in rows} == want
    assert len(rows) == len(want)  # no (term, passage) twice
    df = dict(pg.conn.execute(f"SELECT term, df FROM {t['terms']}").fetchall())
    assert df == dict(Counter(term for term, _ in want))
    whole = PostgresRetriever("bm25", collection="postings_whole", url=pg_url, embedder=embedder).index(sample_chunks)
    for q in questions[:40]:
        if pg.tokenize(q):
            a, b = pg.passage_scores(q), whole.passage_scores(q)
            assert np.array_equal(np.isnan(a), np.isnan(b)) and np.nanmax(np.abs(a - b), initial=0.0) < 1e-9, q


def test_bm25_reads_the_postings_index_not_every_passage(pg_url, sample_chunks, embedder):
    """The BM25 query plan reaches the postings through the index on the term, and does not scan the
    passages table (the scan of issue 25)."""
    pg = PostgresRetriever("bm25", collection="postings_plan", url=pg_url, embedder=embedder).index(sample_chunks)
    with pg.conn.transaction():
        pg.conn.execute("SET LOCAL enable_seqscan = off")  # a small table would be scanned whatever the index
        plan = pg.lexical_plan("stuck pipe while tripping out")
    assert pg.tables["postings"] in plan and "Index" in plan, plan
    assert pg.tables["passages"] not in plan, plan


def test_top_passages_by_term_bounds_equal_the_full_rankings_first_n_ties_included(pg_url, sample_chunks,
                                                                                    embedder, questions):
    """BM25's top n (scored only on the passages holding the query's rarer terms, MaxScore) is the first n
    of the full ranking, scores and order alike, for every shipped question and several n; the sample is
    indexed twice under other report names, so every score is tied with a copy's and the order of ties
    (report, then passage id) is pinned at the cut too."""
    from dataclasses import replace

    copies = [replace(c, passage_id=f"COPY{i}_{c.passage_id}", report=f"COPY{i}_{c.report}")
              for i in range(2) for c in sample_chunks]
    pg = PostgresRetriever("bm25", collection="postings_top", url=pg_url, embedder=embedder).index(copies)
    compared = 0
    for q in questions:
        terms = pg.tokenize(q)
        if not terms:
            continue
        with pg.conn.transaction():
            full = pg._lexical(terms, None)
            for n in (1, 5, 25, 100):
                assert pg._lexical(terms, n) == full[:n], (q, n)
        compared += 1
    assert compared >= 200
