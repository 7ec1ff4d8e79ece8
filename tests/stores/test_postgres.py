"""The PostgreSQL backend (ddrsearch.stores.postgres) against the in-memory retrievers, on the real archive.

A session fixture starts a private PostgreSQL server (PyPI package pgserver)
in a temporary folder and removes it at the end; every test here is skipped,
with one line, when pgserver cannot start on the platform.

Parity: the dense leg with exact search gives the in-memory dense
retriever's top 10 for every archive question; the BM25 leg (BM25 from the
postings table) and the hybrid (convex and RRF) give the in-memory top 10 on the
development questions; ts_rank_cd retrieves the same reports as BM25, in
another order (it has no IDF). Bad input: an unreachable server, a database
without pgvector, tables of an older schema, searches during an add (two
processes).
"""

from __future__ import annotations

import multiprocessing as mp
import shutil
import tempfile
from dataclasses import replace

import numpy as np
import pytest

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'ddrsearch[postgres]')")

from ddrsearch.errors import DDRSearchError, QueryError  # noqa: E402
from ddrsearch.evaluation.metrics import rank_by_score  # noqa: E402
from ddrsearch.stores.postgres import (  # noqa: E402
    EmbeddedServer,
    EmbeddedServerError,
    PostgresRetriever,
    SchemaVersionError,
    ServerUnreachableError,
    VectorExtensionError,
    connect,
    drop_collection,
    tsvector_literal,
    well_of,
)
from ddrsearch.text.tokenizer import tokenize  # noqa: E402


@pytest.fixture(scope="session")
def pg_url():
    """A private server in a temporary folder, stopped and removed after the session."""
    folder = tempfile.mkdtemp(prefix="ddrsearch-pg-")
    try:
        server = EmbeddedServer(f"{folder}/data", delete=True)
    except EmbeddedServerError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(f"pgserver cannot start here: {exc}")
    yield server.url
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def chunks(archive):
    from ddrsearch.retrieval.chunking import chunk_reports

    return chunk_reports(archive)


@pytest.fixture(scope="session")
def embedder():
    from ddrsearch.embedding.encoder import Embedder

    return Embedder()


@pytest.fixture(scope="session")
def pg_hybrid(pg_url, chunks, archive, embedder):
    """The book's pipeline in PostgreSQL: operation chunks, BM25 with expansion, dense, convex weight 0.5."""
    r = PostgresRetriever("hybrid", collection="archive", url=pg_url, embedder=embedder).index(chunks)
    r.attach_reports(archive)
    return r


@pytest.fixture(scope="session")
def questions():
    from ddrsearch.evaluation.questionfiles import load_questions

    return load_questions("archive", check_evidence=False)


def _reports(hits):
    return [h.report for h in hits]


# --- the tables -----------------------------------------------------------------------------

def test_well_and_tsvector_literal():
    assert well_of("FORGE-16A-78-32_Completion_001_2021-01-04.pdf") == "FORGE-16A-78-32"
    assert well_of("COPY007_FORGE-16A-78-32_Drilling_038_2020-11-26.pdf") == "COPY007_FORGE-16A-78-32"
    assert tsvector_literal(["o'neil", "a\\b"]) == "'o''neil':1 'a\\\\b':2"


@pytest.mark.data
@pytest.mark.model
def test_tsvector_holds_the_package_tokens(pg_hybrid, chunks):
    """Every chunk's tsvector is exactly the set of its tokens (clock times, md/tvd, 32.6 kept whole)."""
    rows = dict(pg_hybrid.conn.execute(
        f"SELECT passage_id, tsvector_to_array(tsv) FROM {pg_hybrid.tables['passages']}").fetchall())
    assert len(rows) == len(chunks)
    for c in chunks:
        assert set(rows[c.passage_id]) == set(pg_hybrid.tokenize(c.indexed_text)), c.passage_id
    clock = [c for c in chunks if any(":" in t for t in tokenize(c.indexed_text))]
    assert clock, "no chunk holds a clock time"
    assert any(":" in t for t in rows[clock[0].passage_id])


# --- parity with the in-memory retrievers ---------------------------------------------------

@pytest.mark.data
@pytest.mark.model
@pytest.mark.parametrize("unit", ["operation", "report"])
def test_dense_exact_top10_is_the_in_memory_top10(unit, pg_url, archive, chunks, embedder, questions):
    from ddrsearch.retrieval.dense import DenseRetriever

    items = chunks if unit == "operation" else archive
    pg = PostgresRetriever("dense", collection=f"dense_{unit}", url=pg_url, embedder=embedder).index(items)
    mem = DenseRetriever(embedder=embedder).index(items)
    for q in questions:  # the ranking (search() without looking up each hit's line)
        a, b = pg.report_scores(q.question), mem.report_scores(q.question)
        top_a, top_b = rank_by_score(a)[:10], rank_by_score(b)[:10]
        assert top_a == top_b, q.id
        assert np.allclose([a[r] for r in top_a], [b[r] for r in top_b], atol=1e-5), q.id
    for q in list(questions)[:3]:  # the hits themselves, with the passage that earned each score
        a, b = pg.search(q.question, 10), mem.search(q.question, 10)
        assert [(h.report, h.passage_id, h.text) for h in a] == [(h.report, h.passage_id, h.text) for h in b], q.id


@pytest.mark.data
@pytest.mark.model
def test_bm25_from_the_postings_matches_bm25s_on_dev_questions(pg_url, pg_hybrid, chunks, embedder, questions):
    from ddrsearch.retrieval.lexical import BM25Retriever

    pg = PostgresRetriever("bm25", collection="archive", url=pg_url, expand=True, embedder=embedder)
    pg.load_passages()
    mem = BM25Retriever(expand=True).index(chunks)
    assert [p.passage_id for p in pg.passages] == [c.passage_id for c in chunks]
    for q in questions.split("dev"):
        a, b = pg.passage_scores(q.question), mem.passage_scores(q.question)
        assert np.array_equal(np.isnan(a), np.isnan(b)), q.id  # the same passages retrieved
        assert np.nanmax(np.abs(a - b), initial=0.0) < 1e-5, q.id  # bm25s keeps float32
        assert _reports(pg.search(q.question, 10)) == _reports(mem.search(q.question, 10)), q.id


@pytest.mark.data
@pytest.mark.model
def test_ts_rank_cd_retrieves_the_same_reports_in_another_order(pg_url, pg_hybrid, chunks, embedder, questions):
    from ddrsearch.retrieval.lexical import BM25Retriever

    pg = PostgresRetriever("bm25", collection="archive", url=pg_url, expand=True, lexical="ts_rank_cd",
                           embedder=embedder)
    mem = BM25Retriever(expand=True).index(chunks)
    reordered = 0
    for q in questions.split("dev"):
        a, b = pg.report_scores(q.question), mem.report_scores(q.question)
        assert set(a) == set(b), q.id
        reordered += sorted(a, key=lambda r: (-a[r], r))[:10] != sorted(b, key=lambda r: (-b[r], r))[:10]
    assert reordered > 0  # cover density is not BM25: no IDF, proximity instead


@pytest.mark.data
@pytest.mark.model
@pytest.mark.parametrize("fusion", ["convex", "rrf"])
def test_hybrid_top10_is_the_in_memory_top10_on_dev_questions(fusion, pg_hybrid, archive, embedder, questions):
    from ddrsearch.retrieval.dense import DenseRetriever
    from ddrsearch.retrieval.hybrid import HybridRetriever
    from ddrsearch.retrieval.pipeline import DEFAULT_WEIGHT, passages_for

    mem = HybridRetriever(fusion=fusion, weight=DEFAULT_WEIGHT, bm25_options={"expand": True},
                          dense=DenseRetriever(embedder=embedder)).index(passages_for(archive, "operation"))
    pg = PostgresRetriever("hybrid", collection="archive", url=pg_hybrid.url, fusion=fusion, weight=DEFAULT_WEIGHT,
                           embedder=embedder)
    for q in questions.split("dev"):
        a, b = pg.search(q.question, 10), mem.search(q.question, 10)
        assert _reports(a) == _reports(b), q.id
        assert np.allclose([h.score for h in a], [h.score for h in b], atol=1e-5), q.id
    hit = pg.search("stuck pipe", 1)[0]  # a citation: the chunk that earned the score, with page and row
    assert hit.text and hit.page == 1 and hit.passage_id.startswith(hit.report)


@pytest.mark.data
@pytest.mark.model
def test_hnsw_recall_at_10_against_exact(pg_url, chunks, embedder, questions):
    pg = PostgresRetriever("dense", collection="hnsw", url=pg_url, embedder=embedder).index(chunks)
    approx = PostgresRetriever("dense", collection="hnsw", url=pg_url, embedder=embedder, dense_search="hnsw")
    pg.create_hnsw()
    plan = "\n".join(r[0] for r in pg.conn.execute(
        f"EXPLAIN SELECT passage_id FROM {pg.tables['passages']} ORDER BY embedding <#> %s LIMIT 10",
        (embedder.encode_uncached(["x"])[0],)).fetchall())
    assert "hnsw" in plan
    recall = []
    for q in questions:
        vec = pg.embed_query(q.question)
        with pg.conn.transaction():
            exact = {r[0] for r in pg._dense(vec, 10)}
        with approx.conn.transaction():
            found = {r[0] for r in approx._dense(vec, 10)}
        recall.append(len(exact & found) / 10)
    assert np.mean(recall) >= 0.95


# --- bad input ------------------------------------------------------------------------------

def test_unreachable_server_is_one_line_with_url_and_reason(monkeypatch):
    url = "postgresql://ddr@127.0.0.1:1/nowhere"
    with pytest.raises(ServerUnreachableError) as err:
        connect(url)
    msg = str(err.value)
    assert "\n" not in msg and url in msg and "refused" in msg.lower()
    monkeypatch.setenv("DDRSEARCH_DATABASE_URL", "postgresql://ddr:secret@127.0.0.1:1/nowhere")
    with pytest.raises(DDRSearchError) as err:
        PostgresRetriever("bm25").count()
    assert "127.0.0.1:1" in str(err.value) and "secret" not in str(err.value)


def test_database_without_pgvector_says_how_to_add_it(pg_url):
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS novector")
        admin.execute("DROP ROLE IF EXISTS plain")
        admin.execute("CREATE ROLE plain LOGIN")  # not a superuser: may not create the extension
        admin.execute("CREATE DATABASE novector OWNER plain")
    url = psycopg.conninfo.make_conninfo(pg_url, user="plain", dbname="novector")
    with pytest.raises(VectorExtensionError, match="CREATE EXTENSION vector"):
        connect(url)


@pytest.mark.data
@pytest.mark.model
def test_tables_of_an_older_schema_are_refused_with_how_to_rebuild(pg_url, chunks, embedder):
    PostgresRetriever("bm25", collection="old", url=pg_url, embedder=embedder).index(chunks[:20])
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("UPDATE ddrsearch_schema SET version = 0, package_version = '0.0.1' WHERE collection = 'old'")
    with pytest.raises(SchemaVersionError, match=r"version 0.*drop_collection\('old'\)"):
        PostgresRetriever("bm25", collection="old", url=pg_url).count()
    with psycopg.connect(pg_url, autocommit=True) as admin:  # tables without an entry: an even older layout
        admin.execute("DELETE FROM ddrsearch_schema WHERE collection = 'old'")
    with pytest.raises(SchemaVersionError, match="no entry in ddrsearch_schema"):
        PostgresRetriever("bm25", collection="old", url=pg_url).count()
    drop_collection("old", pg_url)
    r = PostgresRetriever("bm25", collection="old", url=pg_url, embedder=embedder).index(chunks[:20])
    assert r.count() == 20


@pytest.mark.data
@pytest.mark.model
def test_bad_queries_and_ids(pg_url, pg_hybrid, chunks, embedder):
    with pytest.raises(QueryError):
        pg_hybrid.search("   ")
    with pytest.raises(QueryError, match="no searchable words"):
        pg_hybrid.search("of the")
    with pytest.raises(ValueError):
        pg_hybrid.search("stuck pipe", k=0)
    with pytest.raises(ValueError, match="collection"):
        PostgresRetriever(collection="Robert'); DROP TABLE x;--", url=pg_url)
    with pytest.raises(RuntimeError, match="empty"):
        PostgresRetriever("bm25", collection="never_indexed", url=pg_url).search("stuck pipe")
    r = PostgresRetriever("bm25", collection="dup", url=pg_url, embedder=embedder).index(chunks[:5])
    with pytest.raises(ValueError, match="already in collection"):
        r.add(chunks[4:6])
    assert r.count() == 5  # the failed add left nothing behind


def _search_during_add(url, query, ready, written, seen, done):
    """Child process: search before, during (written, not committed) and after an add in the parent."""
    r = PostgresRetriever("bm25", collection="conc", url=url, expand=True)
    states = []

    def state():
        scores = r.report_scores(query)
        copies = {k for k in scores if k.startswith("COPY")}
        return scores, copies

    before, _ = state()
    states.append("old")
    ready.set()
    written.wait(60)
    scores, copies = state()  # the parent's add is written but not committed
    states.append("old" if not copies and scores == before else "half")
    seen.set()
    done.wait(60)
    scores, copies = state()
    originals = {k for k in scores if not k.startswith("COPY")}
    twins_agree = all(abs(scores["COPY_" + k] - scores[k]) < 1e-9 for k in originals if "COPY_" + k in scores)
    states.append("new" if len(copies) == len(originals) and twins_agree else "half")
    return states


def _child(url, query, ready, written, seen, done, out):
    try:
        out.put(_search_during_add(url, query, ready, written, seen, done))
    except Exception as exc:  # report, do not hang the parent
        out.put([f"error: {exc}"])


@pytest.mark.data
@pytest.mark.model
def test_a_search_during_an_add_sees_old_or_new_never_half(pg_url, chunks, embedder):
    r = PostgresRetriever("bm25", collection="conc", url=pg_url, expand=True, embedder=embedder).index(chunks)
    copies = [replace(c, passage_id="COPY_" + c.passage_id, report="COPY_" + c.report) for c in chunks]
    ctx = mp.get_context("spawn")
    ready, written, seen, done, out = ctx.Event(), ctx.Event(), ctx.Event(), ctx.Event(), ctx.Queue()
    child = ctx.Process(target=_child, args=(pg_url, "trip out of hole", ready, written, seen, done, out))
    child.start()
    try:
        assert ready.wait(120)
        with r.conn.transaction():  # hold the add open while the other process searches
            r.add(copies)
            written.set()
            assert seen.wait(120)
        done.set()
        states = out.get(timeout=120)
    finally:
        child.join(30)
        if child.is_alive():
            child.kill()
    assert states == ["old", "old", "new"]
    assert r.count() == 2 * len(chunks)
