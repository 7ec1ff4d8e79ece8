"""Dense and hybrid retrieval with and without the embedding adapter, on the DEV questions only.

Usage (from the project folder, the package on PYTHONPATH)::

    python benchmarks/adapter_dev.py                 # the packaged adapter
    python benchmarks/adapter_dev.py --adapter F.npy # another adapter file
    python benchmarks/adapter_dev.py --train --epochs 10 --identity-weight 1.0   # train in-process first

Prints hit@5, MRR and NDCG@5 overall and by question style (paraphrase,
shorthand, literal) for dense retrieval over operation chunks and for the
default hybrid pipeline. The held-out (test) questions are never loaded.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from ddrsearch.data.folders import archive_dir
from ddrsearch.embedding.encoder import Embedder
from ddrsearch.evaluation.evaluate import evaluate_retriever
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.reading.report import load_archive
from ddrsearch.retrieval.adaptation import AdaptedEmbedder, TrainingConfig, train_from_reports
from ddrsearch.retrieval.pipeline import build_retriever

METRICS = {"hit@5": "hit@5", "MRR": "RR", "NDCG@5": "NDCG@5"}


def summarise(name: str, table: pd.DataFrame) -> list[dict]:
    rows = [{"method": name, "style": "all", "n": len(table), **{m: table[c].mean() for m, c in METRICS.items()}}]
    for style, part in table.groupby("style"):
        rows.append({"method": name, "style": style, "n": len(part), **{m: part[c].mean() for m, c in METRICS.items()}})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adapter", default=None, help="adapter .npy (default: the packaged one)")
    parser.add_argument("--train", action="store_true", help="train an adapter in-process instead of loading one")
    parser.add_argument("--epochs", type=int, default=TrainingConfig.epochs)
    parser.add_argument("--identity-weight", type=float, default=TrainingConfig.identity_weight)
    parser.add_argument("--lr", type=float, default=TrainingConfig.lr)
    parser.add_argument("--queries", type=int, default=TrainingConfig.queries_per_passage)
    parser.add_argument("--save", default=None, help="with --train: also save the matrix here")
    args = parser.parse_args()
    reports = load_archive(archive_dir())
    dev = load_questions("archive").answerable().split("dev")
    if args.train:
        config = TrainingConfig(epochs=args.epochs, identity_weight=args.identity_weight, lr=args.lr,
                                queries_per_passage=args.queries)
        adapter, info = train_from_reports(reports, config)
        print(config, info)
        if args.save:
            np.save(args.save, adapter, allow_pickle=False)
    else:
        adapter = args.adapter
    adapted = AdaptedEmbedder(adapter=adapter)
    print(adapted)
    rows = []
    for label, embedder in (("base", Embedder()), ("adapted", adapted)):
        start = time.perf_counter()
        dense = build_retriever("dense", reports, unit="operation", embedder=embedder)
        rows += summarise(f"dense/{label}", evaluate_retriever(dense, dev))
        hybrid = build_retriever("hybrid", reports, dense_options={"embedder": embedder})
        rows += summarise(f"hybrid/{label}", evaluate_retriever(hybrid, dev))
        print(f"{label}: {time.perf_counter() - start:.1f} s")
    frame = pd.DataFrame(rows).set_index(["method", "style"])
    with pd.option_context("display.float_format", "{:.3f}".format, "display.width", 120):
        print(frame.unstack("method").swaplevel(0, 1, axis=1).sort_index(axis=1).to_string())
        print(frame.to_string())


if __name__ == "__main__":
    main()
