"""The PostgreSQL backend raises the package's errors, not psycopg's (issue 26, stores.postgres)."""

from __future__ import annotations

import re
import shutil
import tempfile
from types import SimpleNamespace

import numpy as np
import pytest

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'ddrsearch[postgres]')")

from ddrsearch.errors import PostgresError  # noqa: E402
from ddrsearch.retrieval.passages import Passage  # noqa: E402
from ddrsearch.stores.postgres import (  # noqa: E402
    ConnectionLostError,
    EmbeddedServer,
    EmbeddedServerError,
    PostgresRetriever,
    VectorDimensionError,
    connect,
)

PASSAGES = [Passage(f"r{i}.pdf#op{i}", f"r{i}.pdf", text, kind="operation") for i, text in enumerate(
    ["Pipe became stuck while tripping out", "Jarred the stuck pipe free", "Drill ahead to 5,330 ft"])]


class _ThreeD:
    """An embedding model whose vectors have 3 dimensions, not 384."""

    source = SimpleNamespace(location="tiny-3d-model", key="sha256-3d")

    def encode(self, texts):
        return np.ones((len(texts), 3), dtype=np.float32) / np.sqrt(3)

    def encode_query(self, query):
        return np.ones(3, dtype=np.float32) / np.sqrt(3)


class _Fixed384:
    """A 384-dimensional model that needs no weights: one fixed unit vector per text length."""

    source = SimpleNamespace(location="fixed-384", key="sha256-384")

    def encode(self, texts):
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, len(t) % 384] = 1.0
        return out

    def encode_query(self, query):
        return self.encode([query])[0]


@pytest.fixture(scope="module")
def pg_url():
    folder = tempfile.mkdtemp(prefix="ddrsearch-pg-")
    try:
        server = EmbeddedServer(f"{folder}/data", delete=True)
    except EmbeddedServerError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.skip(f"pgserver cannot start here: {exc}")
    yield server.url
    server.stop()
    shutil.rmtree(folder, ignore_errors=True)


def test_a_model_of_another_dimension_is_named_with_both_lengths(pg_url):
    """Before: `psycopg.errors.DataException: expected 384 dimensions, not 3` (index) and `different vector
    dimensions 384 and 3` (search). After: VectorDimensionError naming the model and the collection's length."""
    with pytest.raises(VectorDimensionError) as exc:
        PostgresRetriever("dense", collection="dims", url=pg_url, embedder=_ThreeD()).index(PASSAGES)
    assert "tiny-3d-model gives 3-dimensional vectors" in str(exc.value) and "384-dimensional" in str(exc.value)
    assert "'dims'" in str(exc.value)
    PostgresRetriever("dense", collection="dims", url=pg_url, embedder=_Fixed384()).index(PASSAGES)
    other = PostgresRetriever("dense", collection="dims", url=pg_url, embedder=_ThreeD()).load_passages()
    with pytest.raises(VectorDimensionError, match="tiny-3d-model gives 3-dimensional"):
        other.search("stuck pipe", 2)
    assert isinstance(exc.value, PostgresError)


def test_a_connection_lost_mid_search_is_named_and_a_retry_reconnects(pg_url):
    """Before: `psycopg.OperationalError: consuming input failed` when the server dropped the connection.
    After: ConnectionLostError naming the server and saying to retry; the next search opens a new connection."""
    r = PostgresRetriever("hybrid", collection="lost", url=pg_url, embedder=_Fixed384()).index(PASSAGES)
    assert r.search("stuck pipe", 2)
    pid = r.conn.info.backend_pid
    with connect(pg_url) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        admin.commit()
    with pytest.raises(ConnectionLostError) as exc:
        r.search("stuck pipe", 2)
    assert "Lost the connection to the PostgreSQL server at" in str(exc.value) and "Retry" in str(exc.value)
    assert [h.report for h in r.search("stuck pipe", 2)]  # reconnected


def test_a_word_longer_than_a_postgresql_lexeme_is_stored_and_found(pg_url):
    """Before (adversarial pass): a passage holding a 3,000-letter word failed with ConnectionLostError 'Lost the
    connection ... (word is too long (3000 bytes, max 2046 bytes)). Retry', and a retry failed the same way.
    After: a term past MAX_TERM_BYTES is stored as its start and its SHA-256 in passages and queries alike, so the
    passage is indexed and the same word finds it."""
    from ddrsearch.stores.postgres import MAX_TERM_BYTES, stored_term

    word = "x" * 3000
    long_one = Passage("r9.pdf#op9", "r9.pdf", f"pipe {word}", kind="operation")
    pg = PostgresRetriever("bm25", collection="longword", url=pg_url, embedder=_Fixed384())
    pg.index(PASSAGES + [long_one])
    assert [h.passage_id for h in pg.search(word, 2)] == ["r9.pdf#op9"]
    assert len(stored_term(word).encode()) <= MAX_TERM_BYTES and stored_term(word) != stored_term(word + "y")


def test_text_postgresql_cannot_store_is_refused_naming_the_passage_and_the_field(pg_url):
    """Before: a NUL in a passage's text gave a raw psycopg.DataError, a lone surrogate a raw UnicodeEncodeError."""
    pg = PostgresRetriever("bm25", collection="badtext", url=pg_url, embedder=_Fixed384())
    pg.index(PASSAGES)
    for text, what in (("stuck\x00pipe", "a NUL character"), ("stuck \ud800 pipe", "U+D800, a lone surrogate")):
        with pytest.raises(ValueError, match=re.escape(f"Passage 'r7.pdf#op7': its text holds {what}")):
            pg.add([Passage("r7.pdf#op7", "r7.pdf", text, kind="operation")])
    assert pg.count() == len(PASSAGES)


def test_a_refusal_of_a_live_server_is_not_reported_as_a_lost_connection(pg_url):
    """Before: every psycopg.OperationalError (a statement timeout, a limit) said 'Lost the connection ... Retry'.
    After: when the connection is still open the message says the server refused the operation, and the
    connection stays usable."""
    from ddrsearch.stores.postgres import _database_errors

    pg = PostgresRetriever("bm25", collection="refusal", url=pg_url, embedder=_Fixed384())
    pg.index(PASSAGES)

    @_database_errors
    def too_slow(self):  # a statement the server cancels (QueryCanceled, an OperationalError)
        self.conn.execute("SET statement_timeout = 1")
        try:
            self.conn.execute("SELECT pg_sleep(1)")
        finally:
            self.conn.rollback()
            self.conn.execute("SET statement_timeout = 0")

    with pytest.raises(PostgresError) as exc:
        too_slow(pg)
    assert not isinstance(exc.value, ConnectionLostError)
    assert "refused an operation on collection 'refusal'" in str(exc.value) and "QueryCanceled" in str(exc.value)
    assert pg.count() == len(PASSAGES)
