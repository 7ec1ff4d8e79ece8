"""Levers for plain-English questions, tried one at a time on the development questions only.

Usage: ``python benchmarks/plain_levers.py [--split dev] [--sets archive,plain]``

For each set's chosen split it scores the default pipeline, the plain hybrid of
chapter 9, the dense leg alone and BM25 with expansion, then the default with
one lever switched on (definition-mediated expansion through the drilling
lexicon, query-adaptive fusion, document-side expansion with the lexicon's
plain words, the activity group as a signal, the linear adapter trained on the
lexicon's own pairs; the variants are
``ddrsearch.evaluation.leverbench.PLAIN_VARIANTS``), and prints hit@5, MRR and NDCG@5 with 95%
bootstrap intervals and each method's paired NDCG@5 gain over the default.
Run it on ``--split dev`` while choosing; the held-out split is looked at once.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pandas as pd

from ddrsearch.data.folders import archive_dir
from ddrsearch.evaluation.evaluate import breakdown, evaluate_retriever
from ddrsearch.evaluation.leverbench import ADAPTER_RECIPES, PLAIN, PLAIN_VARIANTS, LeverBench, adapted_embedder
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.evaluation.significance import comparison_table
from ddrsearch.reading.report import load_archive
from ddrsearch.retrieval.pipeline import DEFAULT_LEVERS, DEFAULT_WEIGHT, build_retriever


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="dev", choices=["dev", "test", "all"])
    ap.add_argument("--sets", default="archive,plain")
    ap.add_argument("--levers", default=",".join(PLAIN_VARIANTS))
    args = ap.parse_args()
    t0 = time.perf_counter()
    reports = load_archive(archive_dir())
    bench = LeverBench(reports)
    default = {**DEFAULT_LEVERS, "weight": DEFAULT_WEIGHT}
    methods = {"default pipeline": bench.retriever(default), "plain hybrid": bench.retriever(PLAIN),
               "dense alone": bench.retriever(default, {"weight": 1.0, "structured": 0.0, "prf": None}),
               "BM25 + expansion": build_retriever("bm25", reports, expand=True)}
    adapters: dict = {}
    for name in args.levers.split(","):
        options = dict(PLAIN_VARIANTS[name])
        if options.get("embedder") in ADAPTER_RECIPES:
            recipe = options["embedder"]
            if recipe not in adapters:
                t1 = time.perf_counter()
                adapters[recipe] = a = adapted_embedder(recipe, reports, bench.embedder)
                print(f"adapter {recipe}: {a.pairs} pairs, trained in {time.perf_counter() - t1:.0f} s "
                      f"(load {os.getloadavg()[0]:.1f}), matrix sha256 {a.adapter_sha256[:16]}")
            options["embedder"] = adapters[recipe]
        methods[name] = bench.retriever(default, options)
    pd.set_option("display.width", 200)
    pooled: dict[str, list] = {name: [] for name in methods}
    for set_name in args.sets.split(","):
        qs = load_questions(set_name, reports=reports)
        qs = qs if args.split == "all" else qs.split(args.split)
        qs = qs.answerable()
        results = {name: evaluate_retriever(r, qs, 5) for name, r in methods.items()}
        for name, df in results.items():
            pooled[name].append(df)
        table = comparison_table(results, "default pipeline")
        print(f"\n== {set_name}, {args.split} split, {len(qs.questions)} answerable questions")
        print(table[["hit@5", "MRR", "NDCG@5", "gain", "gain low", "gain high", "changed"]].round(3).to_string())
        print(breakdown(results, by="style", metric="hit@5").round(2).to_string())
    if len(args.sets.split(",")) > 1:
        both = {name: pd.concat(dfs) for name, dfs in pooled.items()}
        table = comparison_table(both, "default pipeline")
        print(f"\n== all sets pooled, {args.split} split, {len(next(iter(both.values())))} answerable questions")
        print(table[["hit@5", "MRR", "NDCG@5", "gain", "gain low", "gain high", "changed"]].round(3).to_string())
    print(f"\n{time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
