"""The book's search on PostgreSQL: full-text search for the lexical leg, pgvector for the dense leg.

Why one module: the tables, the SQL of both legs, the fusion over their
candidates and the transactions that keep a search on one snapshot are one
backend; the server's start, stop and connection live in
:mod:`ddrsearch.stores.pgserver`.

:class:`PostgresRetriever` has the interface of every ddrsearch retriever
(``index``, ``search(query, k)`` returning :class:`~ddrsearch.retrieval.base.Hit`
with citations) but keeps passages, metadata, term statistics and vectors in
PostgreSQL tables, so the archive can grow past what fits in memory.

* **Lexical leg.** Each passage's ``tsvector`` is built from the package's
  own tokens (:func:`ddrsearch.text.words.tokenize`, with the same ``expand``
  setting as :class:`~ddrsearch.retrieval.base.BM25Retriever`), written as a
  ``tsvector`` literal with positions, which is what the ``simple``
  configuration (lowercase, no stemming, no stop words) gives for text that
  is already tokenised, without its re-parsing (``to_tsvector('simple', ...)``
  would cut the clock time ``13:30`` into ``13`` and ``30``), so the
  package's tokenisation decisions carry over as they are. BM25 (the Lucene
  form bm25s uses, :class:`~ddrsearch.retrieval.lexical.BM25Retriever`) is
  computed from a postings table and a table of document frequencies, both
  kept in step with the passages. The postings are an inverted index
  (Manning, Raghavan and Schütze, *Introduction to Information Retrieval*,
  2008, ch. 1-2, 5) in blocks: a row holds up to :data:`POSTINGS_BLOCK`
  postings of one term as three arrays (the passages' positions, the term's
  exact count in each, each passage's length; unsigned 32-bit), one block
  per term and write, found through a b-tree index on (term, base). A query
  reads only its own terms' rows, one round trip, and the client adds up the
  scores with NumPy, each passage's terms in term order
  (:meth:`PostgresRetriever._bm25_scores`); the winners' ids come from an
  index on the position. The term frequency is the exact count of the token
  in the passage (as in memory; a ``tsvector`` keeps at most 256 positions of
  a lexeme). With ``lexical="ts_rank_cd"``,
  a GIN index on the ``tsvector`` finds the passages holding a query term
  (``tsv @@ tsquery``) and PostgreSQL's cover density ranking orders them
  (Clarke, Cormack and Tudhope, "Relevance ranking for one to three term
  queries", 2000), which knows no IDF.
* **Dense leg.** all-MiniLM-L6-v2 vectors (the shared embedding cache) in a
  pgvector ``vector(384)`` column, ranked by inner product ``<#>`` (the
  vectors are unit length, so it is the cosine): exact (a scan) or with an
  HNSW index (:meth:`PostgresRetriever.create_hnsw`; Malkov and Yashunin,
  IEEE TPAMI 2020).
* **Fusion** in the package over both legs' top ``candidates`` passages (each
  leg's own top passages keep the scores that leg found; only the other
  leg's are scored again, on their ids), with
  :func:`ddrsearch.retrieval.fusion.convex_scores` and :func:`ddrsearch.retrieval.fusion.rrf_scores`,
  as :class:`~ddrsearch.retrieval.fusion.HybridRetriever` does in memory.

Ranking rule as everywhere: score descending, ties by report name, then
passage id. Passages roll up to reports by their best passage (``max``).

The server: ``url=`` argument, else ``$DDRSEARCH_DATABASE_URL``, else an
embedded server from the PyPI package ``pgserver`` (PostgreSQL 16 with
pgvector) in a private data folder (:func:`embedded_server`), started on
first use and stopped when the process ends.

Consistency: an :meth:`~PostgresRetriever.index` or
:meth:`~PostgresRetriever.add` is one transaction, and every search reads
one snapshot (``REPEATABLE READ``), so a search running during an add sees
the collection before or after it, never half of it.

Errors (all :class:`PostgresError`, a :class:`~ddrsearch.errors.DDRSearchError`):
:class:`ServerUnreachableError` (one line: the URL and the reason),
:class:`VectorExtensionError` (how to add pgvector),
:class:`SchemaVersionError` (tables of another package version: how to
rebuild), :class:`EmbeddedServerError` (pgserver missing or cannot start).
"""

from __future__ import annotations

import contextlib
import functools
import math
import re
import warnings
from array import array
from collections import Counter
from collections.abc import Sequence

import numpy as np

from ddrsearch.checks import check_k as _check_k
from ddrsearch.errors import ConnectionLostError, QueryError, VectorDimensionError
from ddrsearch.reading.report import Report
from ddrsearch.retrieval.base import Retriever
from ddrsearch.retrieval.base import check_query as _check_query
from ddrsearch.retrieval.fusion import RRF_K, convex_scores, rrf_scores
from ddrsearch.retrieval.passages import Hit, Passage
from ddrsearch.stores.pgserver import (
    DATA_DIR_ENV,
    DATABASE_URL_ENV,
    EmbeddedServer,
    EmbeddedServerError,
    PostgresError,
    SchemaVersionError,
    ServerUnreachableError,
    VectorExtensionError,
    _redact,
    connect,
    database_url,
    embedded_server,
)
from ddrsearch.text.tokenizer import make_tokenizer

__all__ = [
    "DATABASE_URL_ENV",
    "DATA_DIR_ENV",
    "MAX_PASSAGE_TOKENS",
    "MAX_TERM_BYTES",
    "POSTINGS_BLOCK",
    "SCHEMA_VERSION",
    "ConnectionLostError",
    "EmbeddedServer",
    "EmbeddedServerError",
    "PostgresError",
    "PostgresRetriever",
    "SchemaVersionError",
    "ServerUnreachableError",
    "VectorDimensionError",
    "VectorExtensionError",
    "connect",
    "database_url",
    "drop_collection",
    "embedded_server",
    "stored_term",
    "tsvector_literal",
    "well_of",
]

#: Version of the table layout; tables written by another version are refused
#: (2: the postings table of BM25; 3: its index on (term, passage_id); 4: postings in blocks of arrays).
SCHEMA_VERSION = 4
#: Most postings in one row of the postings table (a block): 64 Ki, 256 KiB per array.
POSTINGS_BLOCK = 65_536
#: Largest token count of a passage (and so of a term in it): the postings store them as unsigned 32-bit.
MAX_PASSAGE_TOKENS = 2**32 - 1
#: Byte layout of the postings' arrays: unsigned 32-bit little-endian.
_U32 = np.dtype("<u4")
#: Length of the embedding vectors (all-MiniLM-L6-v2).
EMBEDDING_DIM = 384
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


# --- tables ---------------------------------------------------------------------------------

def well_of(report: str) -> str:
    """The well a report belongs to: its file name up to ``_Drilling_`` / ``_Completion_``.

    >>> well_of("FORGE-16A-78-32_Drilling_038_2020-11-26.pdf")
    'FORGE-16A-78-32'
    """
    m = re.match(r"^(.+?)_(?:Drilling|Completion)_", report)
    return m.group(1) if m else report


#: The longest term, in UTF-8 bytes, stored as itself (PostgreSQL's lexemes hold at most 2,046 bytes, a B-tree
#: entry about 2,700); a longer one is stored as its first characters and its SHA-256, in passages and queries alike.
MAX_TERM_BYTES = 512


def stored_term(term: str) -> str:
    """``term`` as the collection stores it: itself, or, past :data:`MAX_TERM_BYTES`, its first 64 characters, ``#``
    and its SHA-256 (so the same long word in a passage and a query is still one term).

    >>> stored_term("stuck")
    'stuck'
    >>> len(stored_term("x" * 3000).encode())
    129
    """
    if len(term.encode("utf-8", "surrogatepass")) <= MAX_TERM_BYTES:
        return term
    import hashlib

    return term[:64] + "#" + hashlib.sha256(term.encode("utf-8", "surrogatepass")).hexdigest()


def _check_storable(passages: Sequence[Passage]) -> None:
    """Refuse (``ValueError`` naming the passage and the field) text PostgreSQL cannot store: a NUL character or
    a lone surrogate (not UTF-8)."""
    for p in passages:
        for name in ("passage_id", "report", "text", "context", "kind"):
            value = getattr(p, name, None)
            if not isinstance(value, str):
                continue
            bad = "a NUL character" if "\x00" in value else None
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                bad = f"U+{ord(value[exc.start]):04X}, a lone surrogate (not UTF-8)"
            if bad:
                raise ValueError(f"Passage {p.passage_id!r}: its {name} holds {bad}, which PostgreSQL text cannot "
                                 "store; remove it from the text and add the passage again.")


def tsvector_literal(tokens: Sequence[str]) -> str:
    """A ``tsvector`` literal holding ``tokens`` as they are, with positions from 1.

    >>> tsvector_literal(["trip", "out", "hole", "trip"])
    "'trip':1,4 'out':2 'hole':3"
    """
    positions: dict[str, list[int]] = {}
    for i, t in enumerate(tokens, start=1):
        positions.setdefault(t, []).append(min(i, 16383))  # PostgreSQL's largest position
    quote = lambda t: "'" + t.replace("\\", "\\\\").replace("'", "''") + "'"  # noqa: E731
    return " ".join(f"{quote(t)}:{','.join(map(str, sorted(set(p))[:256]))}" for t, p in positions.items())


def _tsquery_literal(terms: Sequence[str]) -> str:
    return " | ".join("'" + t.replace("\\", "\\\\").replace("'", "''") + "'" for t in dict.fromkeys(terms))


def _tables(collection: str) -> dict[str, str]:
    if not isinstance(collection, str) or not _NAME_RE.match(collection):
        raise ValueError(f"collection must be lowercase letters, digits and _ (a letter first, at most 40), "
                         f"not {collection!r}")
    return {k: f"ddr_{collection}_{k}" for k in ("passages", "terms", "stats", "postings")}


def _schema_sql(t: dict[str, str]) -> list[str]:
    return [
        f"""CREATE TABLE {t['passages']} (
            pos bigint NOT NULL, passage_id text NOT NULL, well text NOT NULL, report text NOT NULL,
            text text NOT NULL, context text NOT NULL, page int, row_index int, start_time text, end_time text,
            kind text NOT NULL, span_start int, span_end int, n_tokens int NOT NULL, tsv tsvector NOT NULL,
            embedding vector({EMBEDDING_DIM}), PRIMARY KEY (well, passage_id))""",
        f"CREATE INDEX ON {t['passages']} USING gin (tsv)",
        # not UNIQUE: a sharded (Citus) table allows unique keys only with the distribution column (well);
        # add() checks that passage ids are new, under the stats row lock
        f"CREATE INDEX ON {t['passages']} (passage_id)",
        # a passage's position (its order of indexing) to its id and report: the lexical leg's winners
        f"CREATE INDEX ON {t['passages']} (pos) INCLUDE (passage_id, report)",
        f"CREATE TABLE {t['terms']} (term text PRIMARY KEY, df bigint NOT NULL)",
        # a term's postings in blocks of at most POSTINGS_BLOCK, each three arrays (positions from base, term
        # counts, passage lengths); one write adds a block per term it holds; found by the index on the term
        f"CREATE TABLE {t['postings']} (term text NOT NULL, base bigint NOT NULL, n int NOT NULL, "
        f"pos bytea NOT NULL, tf bytea NOT NULL, dl bytea NOT NULL)",
        f"CREATE INDEX ON {t['postings']} (term, base)",
        f"CREATE TABLE {t['stats']} (one bool PRIMARY KEY DEFAULT true CHECK (one), n bigint NOT NULL, "
        f"total_tokens bigint NOT NULL)",
        f"INSERT INTO {t['stats']} VALUES (true, 0, 0)",
    ]


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ddrsearch")
    except PackageNotFoundError:
        return "source"


def _open_collection(conn, collection: str, url: str, *, create: bool) -> dict[str, str]:
    """Check (and with ``create``, make) the collection's tables; refuse another schema version."""
    t = _tables(collection)
    conn.execute("""CREATE TABLE IF NOT EXISTS ddrsearch_schema (collection text PRIMARY KEY, version int NOT NULL,
                    package_version text NOT NULL, created timestamptz NOT NULL DEFAULT now())""")
    row = conn.execute("SELECT version, package_version FROM ddrsearch_schema WHERE collection = %s",
                       (collection,)).fetchone()
    exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (t["passages"],)).fetchone()[0]
    rebuild = (f"Rebuild it: `ddrsearch.stores.postgres.drop_collection({collection!r})` (with the same url), then "
               f"index the reports again.")
    if row is not None and row[0] != SCHEMA_VERSION:
        conn.rollback()
        raise SchemaVersionError(
            f"Collection {collection!r} at {_redact(url)} has table layout version {row[0]} (written by ddrsearch "
            f"{row[1]}); this ddrsearch ({_package_version()}) reads version {SCHEMA_VERSION}. {rebuild}")
    if row is None and exists:
        conn.rollback()
        raise SchemaVersionError(
            f"Collection {collection!r} at {_redact(url)} has tables ({t['passages']}) but no entry in "
            f"ddrsearch_schema: an older ddrsearch wrote them. {rebuild}")
    if row is None and create:
        for sql in _schema_sql(t):
            conn.execute(sql)
        conn.execute("INSERT INTO ddrsearch_schema (collection, version, package_version) VALUES (%s, %s, %s)",
                     (collection, SCHEMA_VERSION, _package_version()))
    conn.commit()
    return t


def _postings_blocks(start: int, tokens: Sequence[Sequence[str]]):
    """The postings rows of passages at positions ``start``, ``start + 1``, ... holding ``tokens``.

    Yields ``(term, base, n, pos, tf, dl)``: ``n`` postings of ``term`` (at most
    :data:`POSTINGS_BLOCK`), ``pos`` the passages' positions minus ``base`` (the
    first one's), ``tf`` the term's count in each, ``dl`` each passage's length in
    tokens, three arrays of unsigned 32-bit little-endian integers in position order.
    """
    buffers: dict[str, tuple[array, array, array]] = {}

    def block(term: str):
        pos, tf, dl = buffers.pop(term)
        at = np.frombuffer(pos, dtype=np.int64)
        return (term, int(at[0]), len(at), (at - at[0]).astype(_U32).tobytes(),
                np.frombuffer(tf, dtype=np.int64).astype(_U32).tobytes(),
                np.frombuffer(dl, dtype=np.int64).astype(_U32).tobytes())

    for i, ts in enumerate(tokens):
        for term, tf in Counter(ts).items():
            buf = buffers.get(term)
            if buf is None:
                buf = buffers[term] = (array("q"), array("q"), array("q"))
            buf[0].append(start + i)
            buf[1].append(tf)
            buf[2].append(len(ts))
            if len(buf[0]) == POSTINGS_BLOCK:
                yield block(term)
    for term in sorted(buffers):
        yield block(term)


def drop_collection(collection: str, url: str | None = None) -> None:
    """Drop a collection's tables and its schema entry (whatever version wrote them)."""
    t = _tables(collection)
    with connect(url) as conn:
        for name in t.values():
            conn.execute(f"DROP TABLE IF EXISTS {name}")
        if conn.execute("SELECT to_regclass('ddrsearch_schema') IS NOT NULL").fetchone()[0]:
            conn.execute("DELETE FROM ddrsearch_schema WHERE collection = %s", (collection,))
        conn.commit()




# --- the retriever --------------------------------------------------------------------------

# The postings of a query's terms, with each term's document frequency and the collection's size and
# total length (one snapshot, one round trip); found through the index on (term, base).
_POSTINGS_SQL = """
SELECT o.term, t.df, o.base, o.n, o.pos, o.tf, o.dl, s.n, s.total_tokens
FROM {postings} o JOIN {terms} t USING (term) CROSS JOIN {stats} s
WHERE o.term = ANY(%(terms)s::text[])"""

_BY_POS_SQL = "SELECT pos, passage_id, report FROM {passages} WHERE pos = ANY(%(pos)s::bigint[])"
_BY_ID_SQL = "SELECT pos, passage_id, report FROM {passages} WHERE passage_id = ANY(%(ids)s::text[])"

_TS_RANK_SQL = """
SELECT passage_id, report, ts_rank_cd(tsv, %(tsq)s::tsquery)::float8 AS score FROM {passages}
WHERE tsv @@ %(tsq)s::tsquery {only} ORDER BY score DESC, report, passage_id LIMIT %(n)s"""

_EXACT_SQL = """
SELECT passage_id, report, -(embedding <#> %(q)s) AS score FROM {passages} WHERE embedding IS NOT NULL {only}
ORDER BY score DESC, report, passage_id LIMIT %(n)s"""

_HNSW_SQL = """
SELECT * FROM (SELECT passage_id, report, -(embedding <#> %(q)s) AS score FROM {passages}
               ORDER BY embedding <#> %(q)s LIMIT %(n)s) AS s
ORDER BY score DESC, report, passage_id"""

_COLUMNS = ("pos, passage_id, well, report, text, context, page, row_index, start_time, end_time, kind, "
            "span_start, span_end, n_tokens, tsv, embedding")


def _database_errors(method):
    """Run ``method`` with psycopg's connection and vector-length errors turned into the backend's own.

    ``psycopg.OperationalError`` becomes :class:`ConnectionLostError` naming the server when the connection
    broke (the server went away: "consuming input failed", "server closed the connection"), and the
    connection is dropped so the next call opens a new one; when the connection is still open (a statement
    cancelled, a limit of the server) it becomes :class:`~ddrsearch.errors.PostgresError` naming the reason; pgvector's "expected N dimensions" / "different vector dimensions"
    becomes :class:`VectorDimensionError`.
    """

    @functools.wraps(method)
    def wrapped(self, *args, **kwargs):
        import psycopg

        try:
            return method(self, *args, **kwargs)
        except psycopg.OperationalError as exc:
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            conn = self._conn
            if conn is not None and not conn.broken and not conn.closed:  # the server said no; it is still there
                raise PostgresError(
                    f"The PostgreSQL server at {_redact(self.url)} refused an operation on collection "
                    f"{self.collection!r} ({type(exc).__name__}: {reason}); nothing of it was written.") from None
            self.close_broken()
            raise ConnectionLostError(
                f"Lost the connection to the PostgreSQL server at {_redact(self.url)} ({reason}). Retry: the next "
                "call opens a new connection (check that the server is still running).") from None
        except psycopg.errors.DataException as exc:
            if "dimension" not in str(exc):
                raise
            raise VectorDimensionError(
                f"Collection {self.collection!r} at {_redact(self.url)} holds {EMBEDDING_DIM}-dimensional vectors "
                f"and the model's are of another length ({str(exc).strip().splitlines()[0]}); use the model it was "
                f"built with ({self.model_name()}), or index into another collection.") from None

    return wrapped


class PostgresRetriever(Retriever):
    """BM25 (PostgreSQL full-text search), dense (pgvector) or hybrid search over PostgreSQL tables.

    Args:
        method: ``"bm25"`` (lexical leg only), ``"dense"`` or ``"hybrid"`` (both, fused).
        collection: name of the table set (``ddr_<collection>_passages``,
            ``_terms``, ``_stats``); lowercase letters, digits, ``_``.
        url: connection string; default ``$DDRSEARCH_DATABASE_URL``, else the embedded server.
        lexical: ``"bm25"`` (BM25 from the postings table, added up in NumPy; Lucene form, as
            :class:`~ddrsearch.retrieval.base.BM25Retriever`) or ``"ts_rank_cd"``.
        dense_search: ``"exact"`` (a scan; the in-memory ranking) or
            ``"hnsw"`` (approximate; needs :meth:`create_hnsw`).
        fusion, weight, rrf_k, candidates: as :class:`~ddrsearch.retrieval.fusion.HybridRetriever`.
        expand: glossary expansion of abbreviations in the lexical leg;
            default ``True`` for ``"hybrid"`` (the book's pipeline) and
            ``False`` otherwise (as :func:`ddrsearch.retrieval.pipeline.build_retriever`).
        k1, b: BM25 parameters.
        ef_search: HNSW candidate list per query (pgvector's ``hnsw.ef_search``, at most 1000).
        embedder, model_path, cache_dir: the :class:`~ddrsearch.embedding.encoder.Embedder` (or how to make one).

    The tokenizer and ``expand`` belong to the collection: index and search
    with the same setting. Only ``rollup="max"`` is supported.
    """

    def __init__(self, method: str = "hybrid", *, collection: str = "archive", url: str | None = None,
                 lexical: str = "bm25", dense_search: str = "exact", fusion: str = "convex", weight: float = 0.5,
                 rrf_k: int = RRF_K, candidates: int | None = 100, expand: bool | None = None, k1: float = 1.5,
                 b: float = 0.75, ef_search: int = 100, embedder=None, model_path=None, cache_dir=None):
        super().__init__("max")
        checks = [("method", method, ("bm25", "dense", "hybrid")), ("lexical", lexical, ("bm25", "ts_rank_cd")),
                  ("dense_search", dense_search, ("exact", "hnsw")), ("fusion", fusion, ("convex", "rrf"))]
        for what, value, allowed in checks:
            if value not in allowed:
                raise ValueError(f"{what} must be one of {', '.join(allowed)}; not {value!r}")
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"weight must be between 0 (pure BM25) and 1 (pure dense), got {weight}")
        if candidates is not None and (isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1):
            raise ValueError(f"candidates must be a whole number of at least 1 (or None for all), got {candidates!r}")
        if not (k1 >= 0 and 0 <= b <= 1):
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        if not 1 <= ef_search <= 1000:
            raise ValueError(f"ef_search must be between 1 and 1000 (pgvector's limit), got {ef_search}")
        self.method, self.lexical, self.dense_search, self.fusion = method, lexical, dense_search, fusion
        self.weight, self.rrf_k, self.candidates, self.k1, self.b, self.ef_search = weight, rrf_k, candidates, k1, b, ef_search
        self.name = f"postgres-{method}"
        self.expand = (method == "hybrid") if expand is None else expand
        words = make_tokenizer(expand=self.expand)
        self.tokenize = lambda text: [stored_term(t) for t in words(text)]
        self.tables = _tables(collection)
        self.collection = collection
        self.url = database_url(url)
        self._embedder, self._embedder_options = embedder, {"model_path": model_path, "cache_dir": cache_dir}
        self._conn = None

    # --- connection -------------------------------------------------------------------------
    @property
    def conn(self):
        """The open connection (autocommit; every operation opens its own transaction)."""
        if self._conn is None or self._conn.closed:
            conn = connect(self.url)
            _open_collection(conn, self.collection, self.url, create=True)
            conn.autocommit = True
            self._conn = conn
        return self._conn

    def close(self) -> None:
        """Close the connection (a later call reopens it)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def close_broken(self) -> None:
        """Forget a connection that broke (closing it may fail too); the next call opens a new one."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # a dead socket: nothing more to do with it
                conn.close()

    def model_name(self) -> str:
        """The embedding model, as its source names it (for messages)."""
        source = getattr(self.embedder, "source", None)
        return str(getattr(source, "location", None) or getattr(source, "key", None) or type(self.embedder).__name__)

    def _check_dim(self, vectors: np.ndarray) -> np.ndarray:
        """``vectors`` (one or a matrix), refused when their length is not the collection's :data:`EMBEDDING_DIM`."""
        dim = vectors.shape[-1] if vectors.ndim else 0
        if vectors.ndim not in (1, 2) or dim != EMBEDDING_DIM:
            raise VectorDimensionError(
                f"The embedding model {self.model_name()} gives {dim}-dimensional vectors, but collection "
                f"{self.collection!r} at {_redact(self.url)} holds {EMBEDDING_DIM}-dimensional ones "
                f"(vector({EMBEDDING_DIM})). Use the model the collection was built with (all-MiniLM-L6-v2), or "
                f"a model of {EMBEDDING_DIM} dimensions.")
        return vectors

    @property
    def embedder(self):
        if self._embedder is None:
            from ddrsearch.embedding.encoder import Embedder

            self._embedder = Embedder(**self._embedder_options)
        return self._embedder

    @_database_errors
    def count(self) -> int:
        """Number of passages in the collection."""
        return int(self.conn.execute(f"SELECT n FROM {self.tables['stats']}").fetchone()[0])

    # --- writing ----------------------------------------------------------------------------
    def _fit(self, passages: list[Passage]) -> None:
        self._write(passages, replace=True)

    def add(self, passages: Sequence[Passage]) -> PostgresRetriever:
        """Add passages to the collection, in one transaction (searches see all of them or none).

        Raises:
            ValueError: an empty list, something other than passages, a
                passage id already in the collection or twice in the list, or
                a passage's text holding a NUL character or a lone surrogate
                (the message names the passage and the field).
            PostgresError: the server refused the write (names its reason; nothing is written);
                :class:`ConnectionLostError` when the connection broke.
        """
        passages = list(passages)
        if not passages or not all(isinstance(p, Passage) for p in passages):
            raise ValueError("add() takes a non-empty list of Passage.")
        dup = [i for i, c in Counter(p.passage_id for p in passages).items() if c > 1]
        if dup:
            raise ValueError(f"Two passages have the id {dup[0]!r}; passage ids must be unique.")
        self._write(passages, replace=False)
        self.passages = self.passages + passages
        return self

    @_database_errors
    def _write(self, passages: list[Passage], *, replace: bool) -> None:
        t = self.tables
        _check_storable(passages)
        tokens = [self.tokenize(p.indexed_text) for p in passages]
        if long := next((p for p, ts in zip(passages, tokens) if len(ts) > MAX_PASSAGE_TOKENS), None):
            raise ValueError(f"Passage {long.passage_id!r} has more than MAX_PASSAGE_TOKENS = {MAX_PASSAGE_TOKENS:,} "
                             "tokens; split it into shorter passages.")
        with warnings.catch_warnings():  # encode() may import transformers, whose tqdm.auto warns in Jupyter
            warnings.filterwarnings("ignore", message=".*IProgress not found.*")
            vectors = np.asarray(self.embedder.encode([p.indexed_text for p in passages]), dtype=np.float32)
        self._check_dim(vectors)
        df = Counter(term for ts in tokens for term in set(ts))
        conn = self.conn
        with conn.transaction():
            held = conn.execute(f"SELECT n FROM {t['stats']} FOR UPDATE").fetchone()[0]  # one writer at a time
            if replace:
                for name in ("passages", "terms", "postings"):
                    conn.execute(f"DELETE FROM {t[name]}")
                conn.execute(f"UPDATE {t['stats']} SET n = 0, total_tokens = 0")
            else:
                clash = conn.execute(f"SELECT passage_id FROM {t['passages']} WHERE passage_id = ANY(%s) LIMIT 1",
                                     ([p.passage_id for p in passages],)).fetchone()
                if clash:
                    raise ValueError(f"Passage {clash[0]!r} is already in collection {self.collection!r}; "
                                     "passage ids must be unique.")
            start = conn.execute(f"SELECT coalesce(max(pos) + 1, 0) FROM {t['passages']}").fetchone()[0]
            # into a new (empty) collection, the secondary indexes are dropped and built after the COPY: one
            # sorted build each instead of a GIN and two B-tree inserts per row. Not when passages are
            # replaced: DROP INDEX would lock out the searches that still read the old ones.
            rebuild = self._drop_secondary_indexes() if replace and held == 0 else []
            with conn.cursor().copy(f"COPY {t['passages']} ({_COLUMNS}) FROM STDIN") as copy:
                for i, (p, ts, vec) in enumerate(zip(passages, tokens, vectors)):
                    span = p.span or (None, None)
                    copy.write_row((start + i, p.passage_id, well_of(p.report), p.report, p.text, p.context, p.page,
                                    p.row, p.start, p.end, p.kind, span[0], span[1], len(ts),
                                    tsvector_literal(ts), vec))
            with conn.cursor().copy(f"COPY {t['postings']} (term, base, n, pos, tf, dl) FROM STDIN") as copy:
                for row in _postings_blocks(start, tokens):
                    copy.write_row(row)
            if rebuild:
                conn.execute("SET LOCAL maintenance_work_mem = '512MB'")
                for definition in rebuild:
                    conn.execute(definition)
            conn.execute(
                f"INSERT INTO {t['terms']} SELECT * FROM unnest(%s::text[], %s::bigint[]) "
                f"ON CONFLICT (term) DO UPDATE SET df = {t['terms']}.df + excluded.df",
                (list(df), list(df.values())))
            conn.execute(f"UPDATE {t['stats']} SET n = n + %s, total_tokens = total_tokens + %s",
                         (len(passages), sum(map(len, tokens))))
        conn.execute(f"ANALYZE {t['passages']}")
        conn.execute(f"ANALYZE {t['terms']}")
        conn.execute(f"ANALYZE {t['stats']}")
        conn.execute(f"ANALYZE {t['postings']}")
        if conn.autocommit and conn.info.transaction_status.name == "IDLE":  # not inside a caller's transaction
            conn.execute(f"VACUUM {t['passages']}")  # the visibility map: positions to ids by an index-only scan

    def _drop_secondary_indexes(self) -> list[str]:
        """Drop the collection's indexes other than its primary keys (inside the caller's transaction).

        Returns:
            Their ``CREATE INDEX`` statements, as PostgreSQL prints them, to run again after loading.
        """
        names = [self.tables[k] for k in ("passages", "postings")]
        rows = self.conn.execute(
            "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i "
            "WHERE i.indrelid = ANY(%s::regclass[]) AND NOT i.indisprimary ORDER BY 1", (names,)).fetchall()
        for name, _ in rows:
            self.conn.execute(f"DROP INDEX {name}")
        return [definition for _, definition in rows]

    @_database_errors
    def create_hnsw(self, m: int = 16, ef_construction: int = 64) -> None:
        """Build pgvector's HNSW index on the vectors (inner product); ``m``, ``ef_construction`` as pgvector."""
        p = self.tables["passages"]
        with self.conn.transaction():
            self.conn.execute("SET LOCAL maintenance_work_mem = '1GB'")
            self.conn.execute("SET LOCAL max_parallel_maintenance_workers = 1")  # the machine is shared
            self.conn.execute(f"CREATE INDEX IF NOT EXISTS {p}_hnsw ON {p} USING hnsw (embedding vector_ip_ops) "
                              f"WITH (m = {int(m)}, ef_construction = {int(ef_construction)})")

    @_database_errors
    def drop_hnsw(self) -> None:
        """Drop the HNSW index (searches with ``dense_search="hnsw"`` then scan exactly)."""
        self.conn.execute(f"DROP INDEX IF EXISTS {self.tables['passages']}_hnsw")

    @_database_errors
    def load_passages(self) -> PostgresRetriever:
        """Read the collection's passages (text and metadata, no vectors) into :attr:`passages`, in index order."""
        rows = self.conn.execute(
            f"SELECT passage_id, report, text, page, row_index, start_time, end_time, kind, span_start, span_end, "
            f"context FROM {self.tables['passages']} ORDER BY pos").fetchall()
        self.passages = [Passage(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
                                 (r[8], r[9]) if r[8] is not None else None, r[10]) for r in rows]
        return self

    # --- the two legs -----------------------------------------------------------------------
    def _terms(self, query: str) -> list[str]:
        terms = self.tokenize(query)
        if not terms:
            raise QueryError(f"The query {query!r} has no searchable words (only stop words or punctuation).")
        return terms

    def _lexical(self, terms: list[str], n: int | None, only=None,
                 scores: tuple[np.ndarray, np.ndarray] | None = None) -> list[tuple[str, str, float]]:
        """Lexical ``(passage id, report, score)``, best first; ``only``: score just these passage ids.

        ``scores``: BM25's :meth:`_bm25_scores` of ``terms``, when already computed in this transaction.
        """
        if self.lexical == "bm25":
            score, held = self._bm25_scores(terms) if scores is None else scores
            return self._bm25_rows(score, held, n, only)
        sql = _TS_RANK_SQL.format(only="" if only is None else "AND passage_id = ANY(%(only)s)", **self.tables)
        return self.conn.execute(sql, {"tsq": _tsquery_literal(terms), "n": n, "only": only}).fetchall()

    def _bm25_scores(self, terms: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """BM25 score of every passage, by position, from the postings of ``terms``; and which hold a term.

        The Lucene form as :class:`~ddrsearch.retrieval.lexical.BM25Retriever`:
        ``sum over query terms (with multiplicity) of idf * tf / (tf + k1 (1 - b + b dl / avgdl))``, with
        ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))``, in float64, each passage's terms added in term order
        (so a score does not depend on the order the server returns the rows in). Reads only the
        postings of ``terms``; the arrays are as long as the largest position among them plus one.

        Returns:
            ``(score, held)``: float64 and bool arrays indexed by passage position (``pos``).
        """
        mult = Counter(terms)
        rows = self.conn.cursor(binary=True).execute(_POSTINGS_SQL.format(**self.tables),
                                                     {"terms": sorted(mult)}).fetchall()
        if not rows:
            return np.zeros(0), np.zeros(0, dtype=bool)
        rows.sort(key=lambda r: (r[0], r[2]))
        n_passages, total = rows[0][7], rows[0][8]
        avgdl = float(total) / max(n_passages, 1)
        size = max(r[2] + int(np.frombuffer(r[4], dtype=_U32)[-1]) for r in rows) + 1
        score, held = np.zeros(size), np.zeros(size, dtype=bool)
        k1, b = float(self.k1), float(self.b)
        for term, df, base, _, pos, tf, dl, _, _ in rows:
            idf = math.log(1 + ((float(n_passages) - df) + 0.5) / (df + 0.5))
            at = np.frombuffer(pos, dtype=_U32).astype(np.int64) + base
            tf = np.frombuffer(tf, dtype=_U32).astype(np.float64)
            dl = np.frombuffer(dl, dtype=_U32).astype(np.float64)
            score[at] += mult[term] * idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))
            held[at] = True
        return score, held

    def _bm25_rows(self, score: np.ndarray, held: np.ndarray, n: int | None,
                   only=None) -> list[tuple[str, str, float]]:
        """``(passage id, report, score)`` of the best ``n`` held passages (None: all), or of ``only``'s."""
        t = self.tables
        if only is not None:
            got = self.conn.execute(_BY_ID_SQL.format(**t), {"ids": list(only)}).fetchall()
            got = [r for r in got if r[0] < len(held) and held[r[0]]]
        else:
            at = np.flatnonzero(held)
            if n is not None and len(at) > n:
                values = score[at]
                nth = np.partition(values, len(at) - n)[len(at) - n]
                at = at[values >= nth]  # the best n and every passage tied with the n-th
            got = self.conn.execute(_BY_POS_SQL.format(**t), {"pos": at.tolist()}).fetchall() if len(at) else []
        rows = sorted(((pid, rep, float(score[pos])) for pos, pid, rep in got), key=lambda r: (-r[2], r[1], r[0]))
        return rows if n is None else rows[:n]

    def lexical_plan(self, query: str, n: int = 10) -> str:
        """PostgreSQL's plan (``EXPLAIN``, not run) of the lexical leg's query for ``query``'s top ``n`` passages.

        For BM25, the query that reads the postings of ``query``'s terms (the scores are summed in
        :meth:`_bm25_scores`); for ``ts_rank_cd``, the ranking query.

        Returns:
            The plan, one line per node, as ``EXPLAIN`` prints it.

        Raises:
            QueryError: ``query`` has no searchable words.
        """
        _check_query(query)
        terms = self._terms(query)
        sql = (_POSTINGS_SQL if self.lexical == "bm25" else _TS_RANK_SQL).format(only="", **self.tables)
        rows = self.conn.execute("EXPLAIN " + sql, {"terms": sorted(set(terms)), "tsq": _tsquery_literal(terms),
                                                    "n": int(n)}).fetchall()
        return "\n".join(r[0] for r in rows)

    def _dense(self, vec: np.ndarray, n: int | None, only=None) -> list[tuple[str, str, float]]:
        """Dense ``(passage id, report, score)``, best first; ``only``: score just these passage ids (exactly)."""
        if only is not None:
            return self.conn.execute(_EXACT_SQL.format(only="AND passage_id = ANY(%(only)s)", **self.tables),
                                     {"q": np.asarray(vec, dtype=np.float32), "n": None, "only": only}).fetchall()
        if self.dense_search == "exact":
            self.conn.execute("SET LOCAL enable_indexscan = off")
            sql = _EXACT_SQL
        else:
            n = min(n or 1000, 1000)
            self.conn.execute(f"SET LOCAL hnsw.ef_search = {max(self.ef_search, n)}")
            sql = _HNSW_SQL
        return self.conn.execute(sql.format(only="", **self.tables),
                                 {"q": np.asarray(vec, dtype=np.float32), "n": n}).fetchall()

    def embed_query(self, query: str) -> np.ndarray:
        """The query's unit vector, shape ``(384,)``; as the in-memory dense retriever, the last 256 are kept in memory."""
        return self._check_dim(np.asarray(self.embedder.encode_query(query), dtype=np.float32))

    def _ranked(self, query: str, n: int | None, vec=None) -> list[tuple[str, str, float]]:
        """``(passage id, report, score)`` of the best ``n`` passages (None: all retrieved), best first."""
        if self.method == "bm25":
            return self._lexical(self._terms(query), n)
        if self.method == "dense":
            return self._dense(self.embed_query(query) if vec is None else vec, n)
        terms = self._terms(query)
        vec = self.embed_query(query) if vec is None else vec
        scores = self._bm25_scores(terms) if self.lexical == "bm25" else None  # once: the top and the others
        lex, den = self._lexical(terms, self.candidates, scores=scores), self._dense(vec, self.candidates)
        report = {pid: rep for pid, rep, _ in lex + den}
        if self.fusion == "rrf":
            fused = rrf_scores([[r[0] for r in lex], [r[0] for r in den]], k=self.rrf_k)
        else:
            # the candidate union, then each leg's score of every passage in it (as the in-memory hybrid): a
            # leg's own top passages come with their scores, so only the other leg's are scored again
            union = ([r[0] for r in lex] if self.weight < 1 else []) + ([r[0] for r in den] if self.weight > 0 else [])
            union = list(dict.fromkeys(union))
            lex_all, den_all = self._leg_scores(lex, union), self._leg_scores(den, union)
            if missing := [pid for pid in union if pid not in lex_all]:
                lex_all.update((r[0], r[2]) for r in self._lexical(terms, None, only=missing, scores=scores))
            if missing := [pid for pid in union if pid not in den_all]:
                den_all.update((r[0], r[2]) for r in self._dense(vec, None, only=missing))
            lex_all = {pid: lex_all[pid] for pid in union if pid in lex_all}  # in the union's order, as before
            den_all = {pid: den_all[pid] for pid in union if pid in den_all}
            fused = convex_scores(lex_all, den_all, self.weight, candidates=None)
        rows = sorted(((pid, report[pid], s) for pid, s in fused.items()), key=lambda r: (-r[2], r[1], r[0]))
        return rows if n is None else rows[:n]

    @staticmethod
    def _leg_scores(rows, union: list[str]) -> dict[str, float]:
        """A leg's ``{passage id: score}`` of its ``rows`` that are in ``union``."""
        members = set(union)
        return {pid: score for pid, _, score in rows if pid in members}

    # --- searching --------------------------------------------------------------------------
    def _check_ready(self) -> None:
        if not self.passages and self.count() == 0:
            raise RuntimeError(f"PostgresRetriever: collection {self.collection!r} is empty; call index() first.")

    @staticmethod
    def _rollup_rows(rows) -> dict[str, tuple[float, str]]:
        out: dict[str, tuple[float, str]] = {}
        for pid, rep, score in rows:  # rows are best first, so a report's first row is its best
            if rep not in out:
                out[rep] = (float(score), pid)
        return out

    @_database_errors
    def report_scores(self, query: str) -> dict[str, float]:
        """Score each retrieved report (its best passage); all candidates, one snapshot."""
        _check_query(query)
        self._check_ready()
        with self.conn.transaction():
            self.conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            rows = self._ranked(query, None)
        return {rep: s for rep, (s, _) in self._rollup_rows(rows).items()}

    @_database_errors
    def passage_scores(self, query: str) -> np.ndarray:
        """Scores aligned with :attr:`passages` (``nan``: not retrieved); for tests and small collections."""
        with self.conn.transaction():
            rows = self._ranked(query, None)
        pos = {p.passage_id: i for i, p in enumerate(self.passages)}
        out = np.full(len(self.passages), np.nan)
        for pid, _, s in rows:
            if pid in pos:
                out[pos[pid]] = s
        return out

    @_database_errors
    def search(self, query: str, k: int = 10) -> list[Hit]:
        """The top ``k`` reports for ``query``, read from one snapshot of the collection.

        Returns, raises: as :meth:`ddrsearch.retrieval.base.Retriever.search`
        (``RuntimeError`` when the collection is empty); :class:`ConnectionLostError`
        when the server goes away (retry), :class:`VectorDimensionError` when the
        model's vectors are not the collection's length.
        """
        k = _check_k(k)
        _check_query(query)
        self._check_ready()
        vec = None if self.method == "bm25" else self.embed_query(query)  # outside the transaction
        n = max(4 * k, 64)
        with self.conn.transaction():
            self.conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            while True:
                rows = self._ranked(query, n, vec)
                rolled = self._rollup_rows(rows)
                if len(rolled) >= k or len(rows) < n or (self.method != "bm25" and self.dense_search == "hnsw"
                                                         and n >= 1000) or self.method == "hybrid":
                    break
                n *= 4
            order = sorted(rolled, key=lambda rep: (-rolled[rep][0], rep))[:k]
            ids = [rolled[rep][1] for rep in order]
            got = self.conn.execute(
                f"SELECT passage_id, text, page, row_index, start_time, end_time, kind FROM {self.tables['passages']} "
                f"WHERE passage_id = ANY(%s)", (ids,)).fetchall()
        info = {r[0]: r[1:] for r in got}
        hits = []
        for rank, rep in enumerate(order, start=1):
            score, pid = rolled[rep]
            text, page, row, start, end, kind = info[pid]
            if kind == "report" and rep in self._reports:
                line = self.best_line(query, self._reports[rep], vec)
                text, page, row, start, end = ((line.text, line.page, line.row, line.start, line.end)
                                               if line else (None, page, None, None, None))
            hits.append(Hit(report=rep, score=score, rank=rank, text=text, page=page, row=row, start=start, end=end,
                            passage_id=pid))
        return hits

    def best_line(self, query: str, report: Report, vec=None) -> Passage | None:
        """The report line shown for a whole-report hit: by embedding for dense (and hybrid weight >= 0.5), else by terms."""
        from ddrsearch.retrieval.base import report_lines

        if self.method == "bm25" or (self.method == "hybrid" and self.weight < 0.5):
            return super().best_line(query, report)
        lines = report_lines(report)
        if not lines:
            return None
        vec = self.embed_query(query) if vec is None else vec
        return lines[int(np.argmax(self.embedder.encode([line.text for line in lines]) @ vec))]

    def __repr__(self) -> str:
        return f"PostgresRetriever(method={self.method!r}, collection={self.collection!r}, url={_redact(self.url)!r})"
