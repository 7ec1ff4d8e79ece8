"""Benchmark the PostgreSQL backend against the in-memory retrievers, at 1x, 10x, 100x (and 1000x) the archive.

Run it with ``python benchmarks/bench_postgres.py`` (``--scales 1,10,100,1000``).
It starts its own embedded server (pgserver) in a temporary folder, or uses
``$DDRSEARCH_DATABASE_URL``, prints a table and writes
``bench-results/bench_postgres.json``. Nothing here is pass/fail.

For each scale, in a fresh Python process: the build (tokenise, look up the
vectors, COPY into PostgreSQL, ANALYZE), query latency median and 95th
percentile of BM25 (from the postings table), dense exact, hybrid exact, then after building
the HNSW index (its build time) dense and hybrid with HNSW, HNSW recall@10
against exact search (passages, dense leg), the client's peak resident
memory, the server's memory (proportional set size of its processes) and the
tables' size on disk. Beside it, the in-memory hybrid retriever at the same
scale (``bench_retrievers.py``'s measurement, ``--no-in-memory`` to skip),
and from its memory growth an estimate of the scale at which the in-memory
backend no longer fits in 24 GB.

Synthetic scales repeat the archive's operation chunks under distinct report
names (``COPY007_FORGE-...pdf``, so each copy is a well of its own); their
vectors are the archive's, from the embedding cache, looked up once per
distinct text.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core for torch and BLAS: the machine is shared, and steadier latencies
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import benchmark_queries, clear_query_cache, in_child, peak_rss_mb, query_latency
from bench_retrievers import _scaled

from ddrsearch.retrieval.vectorindex import recall_with_ties

MEMORY_BUDGET_GB = 24
#: Room asked of the server's disk per passage before a scale is run, when no smaller scale has been
#: measured yet: tables, postings, indexes and HNSW measured at 100x (about 4 kB), with room for the
#: write-ahead log and for postings that compress less than the copies' (12 bytes a posting uncompressed).
DISK_PER_PASSAGE = 6_000
#: Margin on the disk a scale needs, from the per-passage size measured at the largest scale run so far.
DISK_MARGIN = 2.0


class _SharedVectors:
    """An embedder that looks up each distinct text once (copies share their vectors)."""

    def __init__(self, embedder):
        self.inner = embedder

    def encode(self, texts):
        import numpy as np

        uniq = list(dict.fromkeys(texts))
        vecs = dict(zip(uniq, self.inner.encode(uniq)))
        return np.stack([vecs[t] for t in texts])

    def encode_uncached(self, texts):
        return self.inner.encode_uncached(texts)

    def encode_query(self, query):
        return self.inner.encode_query(query)


def _scaled_chunks(scale: int):
    from ddrsearch.data.folders import archive_dir
    from ddrsearch.reading.report import load_archive
    from ddrsearch.retrieval.chunking import chunk_reports

    chunks = chunk_reports(load_archive(archive_dir()))
    if scale == 1:
        return chunks
    return [replace(c, passage_id=f"COPY{i:03d}_{c.passage_id}", report=f"COPY{i:03d}_{c.report}")
            for i in range(scale) for c in chunks]


def _server_memory_mb(url: str) -> float:
    """Proportional set size of the server's processes (shared buffers counted once), in MB."""
    import psutil
    import psycopg

    with psycopg.connect(url) as conn:
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        try:
            main = psutil.Process(backend).parent()  # the postmaster
            procs = [main, *main.children()]
            if not all("postgres" in p.name() for p in procs):
                return float("nan")  # a server elsewhere, or not ours to measure
            return sum(p.memory_full_info().pss for p in procs) / 2**20
        except psutil.Error:
            return float("nan")


def _latency(retriever, queries) -> tuple[float, float]:
    """Median and p95 ms of ``retriever.search``; embedding the query is part of its latency (cache cleared)."""
    return query_latency(lambda q: retriever.search(q, 10), queries, lambda: clear_query_cache(retriever))


def _pg(scale: int, n_queries: int, url: str, keep: bool, queue) -> None:
    """Build, query latency, HNSW and sizes of the PostgreSQL backend at one scale."""
    from ddrsearch.embedding.encoder import Embedder
    from ddrsearch.retrieval.pipeline import DEFAULT_WEIGHT
    from ddrsearch.stores.postgres import PostgresRetriever, drop_collection

    chunks = _scaled_chunks(scale)
    emb = _SharedVectors(Embedder())
    emb.inner.query_encoder()  # the question encoder (ONNX) first: its loading is not part of the build
    coll = f"bench_{scale}x"
    drop_collection(coll, url)
    opts = dict(collection=coll, url=url, embedder=emb, weight=DEFAULT_WEIGHT)
    r = PostgresRetriever("hybrid", **opts)
    r.tokenize = functools.lru_cache(maxsize=None)(r.tokenize)  # copies share their tokens too
    t0 = time.perf_counter()
    r.index(chunks)
    build = time.perf_counter() - t0
    queries = benchmark_queries(n_queries)
    row = {"scale": scale, "passages": len(chunks), "build_s": build}
    configs = {"bm25": PostgresRetriever("bm25", expand=True, **opts),
               "dense_exact": PostgresRetriever("dense", **opts), "hybrid_exact": r}
    for name, ret in configs.items():
        row[f"{name}_median_ms"], row[f"{name}_p95_ms"] = _latency(ret, queries)
    t0 = time.perf_counter()
    r.create_hnsw()
    row["hnsw_build_s"] = time.perf_counter() - t0
    hnsw = {"dense_hnsw": PostgresRetriever("dense", dense_search="hnsw", **opts),
            "hybrid_hnsw": PostgresRetriever("hybrid", dense_search="hnsw", **opts)}
    for name, ret in hnsw.items():
        row[f"{name}_median_ms"], row[f"{name}_p95_ms"] = _latency(ret, queries)
    exact, approx = configs["dense_exact"], hnsw["dense_hnsw"]
    recall = []
    for q in queries[:100]:
        vec = exact.embed_query(q)
        with exact.conn.transaction():
            truth = exact._dense(vec, 10)
        with approx.conn.transaction():
            found = approx._dense(vec, 10)
        # tie-aware: the copies share their vectors, so the exact top 10 is one of many equally good lists
        recall.append(recall_with_ties([x[2] for x in found], [x[2] for x in truth]))
    row["hnsw_recall_at_10"] = statistics.mean(recall)
    p, o = r.tables["passages"], r.tables["postings"]
    sizes = r.conn.execute(f"SELECT pg_total_relation_size('{p}') + pg_total_relation_size('{o}'), "
                           f"pg_relation_size('{p}_hnsw'), pg_indexes_size('{p}') + pg_indexes_size('{o}'), "
                           f"pg_total_relation_size('{o}')").fetchone()
    row.update(disk_mb=sizes[0] / 2**20, hnsw_mb=sizes[1] / 2**20, indexes_mb=sizes[2] / 2**20,
               postings_mb=sizes[3] / 2**20,
               client_peak_rss_mb=peak_rss_mb(), server_pss_mb=_server_memory_mb(url))
    for ret in [*configs.values(), *hnsw.values()]:
        ret.close()
    if not keep:
        drop_collection(coll, url)
    queue.put(row)


def _disk_needed(scale: int, done: list[dict]) -> float:
    """Bytes of disk the server needs for ``scale``: from the largest scale measured so far, else a constant."""
    per_passage, archive_passages = DISK_PER_PASSAGE, 771
    if done:
        last = max(done, key=lambda r: r["passages"])
        per_passage = max(per_passage / DISK_MARGIN, (last["disk_mb"] + last["hnsw_mb"]) * 2**20 / last["passages"])
        archive_passages = last["passages"] / last["scale"]
    return DISK_MARGIN * per_passage * archive_passages * scale


def _fit_budget(mem_rows: list[dict]) -> dict | None:
    """Linear fit of in-memory peak RSS against passages (two largest scales): where it reaches the budget."""
    rows = sorted(mem_rows, key=lambda r: r["passages"])[-2:]
    if len(rows) < 2:
        return None
    (p0, m0), (p1, m1) = [(r["passages"], r["peak_rss_mb"]) for r in rows]
    per_passage_mb = (m1 - m0) / (p1 - p0)
    passages = p0 + (MEMORY_BUDGET_GB * 1024 - m0) / per_passage_mb
    return {"mb_per_1000_passages": per_passage_mb * 1000, "passages_at_budget": passages,
            "archive_multiples_at_budget": passages / rows[0]["passages"] * rows[0]["scale"],
            "budget_gb": MEMORY_BUDGET_GB}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", default="1,10,100", help="archive multiples (default 1,10,100; add 1000)")
    parser.add_argument("--queries", type=int, default=100, help="queries per measurement (default 100)")
    parser.add_argument("--no-in-memory", action="store_true", help="skip the in-memory hybrid beside it")
    parser.add_argument("--keep", action="store_true", help="keep the bench_<scale>x tables")
    parser.add_argument("--out", default="bench-results/bench_postgres.json", help="JSON output file")
    args = parser.parse_args(argv)
    scales = [int(s) for s in args.scales.split(",")]

    from ddrsearch.stores.postgres import DATABASE_URL_ENV, EmbeddedServer

    tmp = None
    url = os.environ.get(DATABASE_URL_ENV, "").strip()
    if not url:
        tmp = tempfile.mkdtemp(prefix="ddrsearch-bench-pg-")
        server = EmbeddedServer(f"{tmp}/data", delete=True)
        url = server.url
    result = {"pg": [], "in_memory": [], "cpus": os.cpu_count()}
    started = time.perf_counter()
    try:
        data_dir = Path(tmp) if tmp else Path(tempfile.gettempdir())
        for scale in scales:
            need, free = _disk_needed(scale, result["pg"]), shutil.disk_usage(data_dir).free
            if need > free:
                print(f"PostgreSQL at {scale}x skipped: it needs about {need / 1e9:.0f} GB of disk, "
                      f"{free / 1e9:.0f} GB free at {data_dir}", flush=True)
                result.setdefault("skipped", []).append({"scale": scale, "needs_gb": need / 1e9, "free_gb": free / 1e9})
                continue
            print(f"PostgreSQL at {scale}x ...", flush=True)
            t = time.perf_counter()
            result["pg"].append(in_child(_pg, scale, args.queries, url, args.keep))
            print(f"  done in {time.perf_counter() - t:.0f} s", flush=True)
            if not args.no_in_memory and scale <= 100:
                print(f"in-memory hybrid at {scale}x ...", flush=True)
                result["in_memory"].append(in_child(_scaled, "hybrid", scale, args.queries))
    finally:
        if tmp:
            server.stop()
            shutil.rmtree(tmp, ignore_errors=True)
    result["in_memory_budget"] = _fit_budget(result["in_memory"])
    result["seconds"] = time.perf_counter() - started
    result["load_average"] = os.getloadavg()  # 1, 5 and 15 minutes, at the end of the run

    mem = {r["scale"]: r for r in result["in_memory"]}
    print()
    head = (f"{'scale':>5} {'passages':>8} {'build s':>7} {'hnsw s':>6} {'bm25':>6} {'dense':>6} {'hybrid':>6} "
            f"{'d-hnsw':>6} {'h-hnsw':>6} {'recall':>6} {'disk MB':>7} | {'mem hyb':>7} {'mem MB':>7}")
    print("p95 query latency in ms; recall = HNSW recall@10 vs exact; mem = in-memory hybrid")
    print(head)
    print("-" * len(head))
    for r in result["pg"]:
        m = mem.get(r["scale"])
        tail = f"{m['query_p95_ms']:>7.1f} {m['peak_rss_mb']:>7.0f}" if m else f"{'-':>7} {'-':>7}"
        print(f"{r['scale']:>4}x {r['passages']:>8} {r['build_s']:>7.1f} {r['hnsw_build_s']:>6.1f} "
              f"{r['bm25_p95_ms']:>6.1f} {r['dense_exact_p95_ms']:>6.1f} {r['hybrid_exact_p95_ms']:>6.1f} "
              f"{r['dense_hnsw_p95_ms']:>6.1f} {r['hybrid_hnsw_p95_ms']:>6.1f} {r['hnsw_recall_at_10']:>6.3f} "
              f"{r['disk_mb']:>7.0f} | {tail}")
    b = result["in_memory_budget"]
    if b:
        print(f"\nIn-memory hybrid: {b['mb_per_1000_passages']:.1f} MB per 1000 passages; "
              f"{b['budget_gb']} GB holds about {b['passages_at_budget']:,.0f} passages "
              f"({b['archive_multiples_at_budget']:,.0f}x the archive).")
    print(f"\nTargets (issue 25): hybrid HNSW p95 <= 100 ms at 100x; a measured figure at 1000x. "
          f"Whole run {result['seconds'] / 60:.1f} min; load average at the end {result['load_average'][0]:.1f} / "
          f"{result['load_average'][1]:.1f} / {result['load_average'][2]:.1f} (1 / 5 / 15 min) on "
          f"{os.cpu_count()} cores")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"Wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
