"""Benchmark the on-disk index (issue 14): a search from a new process, in-process latency, add, and scale.

Run with ``make bench`` (after bench_retrievers.py) or ``python benchmarks/bench_index.py``.
It prints a table and writes ``bench-results/bench_index.json``. Nothing here is pass/fail:
the machine is shared, so the figures are for reading, with the targets beside them.

Measured, each in a fresh Python process:

* ``new process``: wall time of ``ddrsearch search "..." --corpus archive --index DIR`` with a
  built archive index, model load included (median of 3 runs);
* ``in process``: query latency of the loaded index (hybrid, k = 10), median and p95 over the
  archive questions, the query cache cleared before each query;
* ``add``: ``add_reports`` of one report into the index of the 75 others, the new report's passages
  not in the embedding cache: embedded as ``ddrsearch index add`` does (the model's ONNX export,
  :class:`~ddrsearch.embedding.encoder.OnnxPassageEmbedder`, no PyTorch), and again by
  sentence-transformers with the model loaded before the timing;
* at 10x and 100x the archive (copies of its passages under other report names, as in
  bench_retrievers.py): index build (BM25 + writing), ``add_reports`` of one real report,
  open, query median and p95, and the index's size on disk.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _timing import benchmark_queries, clear_query_cache, in_child, query_latency

TARGETS = {"new_process_s": 3.0, "in_process_p95_ms": 50.0, "add_one_s": 2.0, "hybrid_p95_100x_ms": 50.0}


def _latency(index, n: int) -> tuple[float, float]:
    """Median and p95 ms of ``index.search`` over ``n`` archive questions (repeated), query cache cleared each time."""
    return query_latency(lambda q: index.search(q, 10), benchmark_queries(n, suffixes=("",)),
                         lambda: clear_query_cache(index))


def _archive(folder: str, n_queries: int, queue) -> None:
    """Build the archive index; in-process latency; add of one report with the model loaded."""
    from ddrsearch.data.folders import corpus_paths
    from ddrsearch.embedding.encoder import Embedder, OnnxPassageEmbedder
    from ddrsearch.stores.disk_index import add_reports, build_index, open_index

    out = {}
    paths = corpus_paths("archive")
    t = time.perf_counter()
    gen = build_index(paths, Path(folder) / "archive", source={"corpus": "archive"})
    out["build_s"], out["size_mb"], out["passages"] = time.perf_counter() - t, gen.size_bytes() / 1e6, gen.header["n_passages"]
    t = time.perf_counter()
    index = open_index(Path(folder) / "archive")
    out["open_s"] = time.perf_counter() - t
    out["query_median_ms"], out["query_p95_ms"] = _latency(index, n_queries)
    last = paths[-1]
    build_index([p for p in paths if p != last], Path(folder) / "minus1")
    onnx = Embedder().query_encoder()  # the model's ONNX export (made once in the default cache if missing)
    shutil.copytree(Path(folder) / "minus1", Path(folder) / "minus1_torch")  # the same index, for the second add
    for name, source in (("add_one", Path(folder) / "minus1"), ("add_one_torch", Path(folder) / "minus1_torch")):
        with tempfile.TemporaryDirectory() as cache:  # empty: the new report's passages are not cached
            if name == "add_one" and onnx is not None:  # what `ddrsearch index add` runs: the export, no PyTorch
                emb = OnnxPassageEmbedder(onnx, cache_dir=cache)
            else:  # sentence-transformers, the model loaded before the timing
                emb = Embedder(cache_dir=cache)
                _ = emb.model
            result = add_reports([last], source, embedder=emb)
            out[f"{name}_s"], out[f"{name}_passages"] = result.seconds, result.passages
            out[f"{name}_encoder"] = type(emb).__name__
    queue.put(out)


def _scaled(folder: str, scale: int, n_queries: int, queue) -> None:
    """Index of ``scale`` copies of the archive's passages: build, add one report, open, query, size."""
    import numpy as np

    from ddrsearch.data.folders import corpus_paths
    from ddrsearch.retrieval.lexical import BM25Retriever
    from ddrsearch.stores.disk_index import add_reports, build_index, open_index
    from ddrsearch.stores.generations import write_generation

    paths = corpus_paths("archive")
    base = build_index(paths[:-1], Path(folder) / "base")
    h = base.header
    passages, vectors = base.passages(), base.vectors()
    copies, entries = [], []
    for i in range(scale):
        prefix = f"COPY{i:03d}_"
        copies += [replace(p, passage_id=prefix + p.passage_id, report=prefix + p.report) for p in passages]
        entries += [{**e, "file_name": prefix + e["file_name"], "sha256": f"{i:03d}{e['sha256'][3:]}"} for e in h["reports"]]
    t = time.perf_counter()
    bm25 = BM25Retriever(**h["settings"]["bm25"]).index(copies)
    target = Path(folder) / f"x{scale}"
    write_generation(target, {**{k: v for k, v in h.items() if k not in ("generation", "format")},
                                "reports": entries, "n_passages": len(copies)},
                       copies, np.tile(vectors, (scale, 1)), bm25._bm25)
    build_s = time.perf_counter() - t
    result = add_reports(paths[-1:], target)
    t = time.perf_counter()
    index = open_index(target)
    open_s = time.perf_counter() - t
    median, p95 = _latency(index, n_queries)
    queue.put({"scale": scale, "passages": len(index.retriever.passages), "build_s": build_s, "add_one_s": result.seconds,
               "open_s": open_s, "query_median_ms": median, "query_p95_ms": p95,
               "size_mb": result.generation.size_bytes() / 1e6})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scales", default="10,100", help="archive multiples to measure (default 10,100; '' for none)")
    parser.add_argument("--queries", type=int, default=200, help="queries per latency measurement (default 200)")
    parser.add_argument("--out", default="bench-results/bench_index.json", help="JSON output file")
    args = parser.parse_args(argv)
    scales = [int(s) for s in args.scales.split(",") if s.strip()]
    result = {"targets": TARGETS, "cpus": os.cpu_count(), "load_average": os.getloadavg()}
    with tempfile.TemporaryDirectory() as folder:
        print("Archive index: build, in-process queries, add one report ...", flush=True)
        a = result["archive"] = in_child(_archive, folder, args.queries)
        runs = []
        for _ in range(3):
            t = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "ddrsearch.cli.command", "search", "stuck pipe", "--corpus", "archive",
                                   "--index", str(Path(folder) / "archive")], capture_output=True, text=True)
            runs.append(time.perf_counter() - t)
            if proc.returncode or "index" not in proc.stdout or proc.stderr.strip():
                raise RuntimeError(f"the search did not use the index: {proc.stdout[-300:]} {proc.stderr[-300:]}")
        a["new_process_s"] = statistics.median(runs)
        rows = []
        for scale in scales:
            print(f"{scale}x the archive ...", flush=True)
            rows.append(in_child(_scaled, folder, scale, args.queries))
        result["scaled"] = rows
    print(f"\narchive: {a['passages']} passages, build {a['build_s']:.1f} s, {a['size_mb']:.1f} MB on disk, open {a['open_s']:.2f} s")
    print(f"  search from a new process: {a['new_process_s']:.1f} s (median of 3)   target <= {TARGETS['new_process_s']:.0f} s")
    print(f"  in process: median {a['query_median_ms']:.1f} ms, p95 {a['query_p95_ms']:.1f} ms   "
          f"target p95 <= {TARGETS['in_process_p95_ms']:.0f} ms")
    print(f"  add one report ({a['add_one_passages']} passages embedded by {a['add_one_encoder']}): "
          f"{a['add_one_s']:.2f} s   target <= {TARGETS['add_one_s']:.0f} s")
    print(f"  the same with sentence-transformers, model loaded before: {a['add_one_torch_s']:.2f} s "
          f"({a['add_one_torch_passages']} passages)")
    if rows:
        head = f"{'scale':>6} {'passages':>9} {'build s':>8} {'add s':>7} {'open s':>7} {'median ms':>10} {'p95 ms':>8} {'MB':>7}"
        print("\n" + head + "\n" + "-" * len(head))
        for r in rows:
            print(f"{r['scale']:>5}x {r['passages']:>9} {r['build_s']:>8.1f} {r['add_one_s']:>7.1f} {r['open_s']:>7.2f} "
                  f"{r['query_median_ms']:>10.1f} {r['query_p95_ms']:>8.1f} {r['size_mb']:>7.0f}")
    print(f"\nload average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores "
          "(figures on a busy machine are upper bounds)")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, default=str))
    print(f"Wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
