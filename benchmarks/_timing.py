"""Timing and memory helpers shared by the benchmark scripts (one copy, imported by each).

``bench_retrievers.py``, ``bench_index.py`` and ``bench_postgres.py`` import
from here (the scripts' folder is on ``sys.path`` when run as
``python benchmarks/<script>.py``, and ``multiprocessing``'s spawned children
inherit it):

* :func:`peak_rss_mb`: this process's peak resident memory, in MB;
* :func:`median_p95`: median and 95th percentile of a list of latencies;
* :func:`query_latency`: warm up, then time one search per query (ms);
* :func:`clear_query_cache`: forget the query vectors a retriever's embedder
  keeps in memory, so that embedding the query counts in its latency;
* :func:`benchmark_queries`: ``n`` queries from the archive questions;
* :func:`in_child`: run one measurement in a fresh (spawned) Python process,
  so that its peak memory is its own.
"""

from __future__ import annotations

import multiprocessing as mp
import resource
import statistics
import sys
import time
from collections.abc import Callable, Sequence

#: Endings appended to the archive questions to make more distinct queries than there are questions.
QUERY_SUFFIXES = ("", " on the rig", " during drilling", " report", " in the hole")


def verdict(value: float, target: float) -> str:
    """``"met"`` when ``value <= target`` (both in the same unit), else ``"NOT MET"``: printed beside a target."""
    return "met" if value <= target else "NOT MET"


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MB.

    Linux: ``VmHWM`` of ``/proc/self/status`` (kB), this process's own high-water
    mark; ``ru_maxrss`` would keep the peak of the parent that started it (it is
    preserved across ``execve``). Elsewhere ``ru_maxrss`` (KiB here).
    """
    if sys.platform.startswith("linux"):
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def median_p95(values: Sequence[float]) -> tuple[float, float]:
    """Median and 95th percentile of ``values`` (any unit; the 95th is the nearest-rank value below).

    The 95th percentile is ``sorted(values)[int(0.95 * (n - 1))]``, the rule
    every benchmark of the project has used, so figures stay comparable.
    Raises ``ValueError`` for an empty list.
    """
    if not values:
        raise ValueError("median_p95 needs at least one value")
    ordered = sorted(values)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def query_latency(search: Callable[[str], object], queries: Sequence[str],
                  before_each: Callable[[], None] | None = None, warmup: int = 5) -> tuple[float, float]:
    """Median and 95th-percentile latency of ``search(query)`` over ``queries``, in milliseconds.

    The first ``warmup`` queries are run once untimed (the first call pays for
    lazy set-up). ``before_each`` runs before each timed query, outside the
    timing (e.g. to clear a query-vector cache so that embedding the query
    counts in its latency).
    """
    for q in queries[:warmup]:
        search(q)
    lat = []
    for q in queries:
        if before_each is not None:
            before_each()
        t = time.perf_counter()
        search(q)
        lat.append((time.perf_counter() - t) * 1000)
    return median_p95(lat)


#: Attributes followed from a retriever to the embedder that holds the query-vector cache.
_HOLDERS = ("retriever", "dense", "embedder", "inner")


def clear_query_cache(obj) -> int:
    """Drop the in-memory query-vector cache (``Embedder.encode_query``'s ``_query_cache``) under ``obj``.

    ``obj`` is a retriever, an opened index, or an embedder; the cache is found
    by following the attributes ``retriever``, ``dense``, ``embedder`` and
    ``inner`` (a wrapping embedder). Returns how many caches were cleared
    (0 when there is none yet, e.g. before the first query, or a BM25 retriever).
    """
    seen, todo, cleared = set(), [obj], 0
    while todo:
        o = todo.pop()
        if o is None or id(o) in seen or not hasattr(o, "__dict__"):
            continue
        seen.add(id(o))
        if o.__dict__.pop("_query_cache", None) is not None:
            cleared += 1
        todo.extend(getattr(o, name, None) for name in _HOLDERS)
    return cleared


def benchmark_queries(n: int, suffixes: Sequence[str] = QUERY_SUFFIXES) -> list[str]:
    """``n`` queries: the archive questions in order, then again with each of ``suffixes`` appended.

    With ``suffixes=("",)`` the questions simply repeat.
    """
    from ddrsearch.evaluation.questionfiles import load_questions

    base = [q.question for q in load_questions("archive", check_evidence=False)]
    return [base[i % len(base)] + suffixes[(i // len(base)) % len(suffixes)] for i in range(n)]


def in_child(target, *args):
    """Run ``target(*args, queue)`` in a spawned process and return what it put on ``queue``.

    Raises ``RuntimeError`` naming the target when the child exits with an error.
    """
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=target, args=(*args, q))
    p.start()
    result = q.get()
    p.join()
    if p.exitcode:
        raise RuntimeError(f"benchmark child {target.__name__}{args} failed with exit code {p.exitcode}")
    return result
