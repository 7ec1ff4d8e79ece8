"""Fine-tune all of all-MiniLM-L6-v2 on the archive's own text (no labels), then score it on the DEV questions.

The packaged adapter (:mod:`ddrsearch.retrieval.adaptation`) trains a 384 x 384 matrix
on top of the frozen model. This script trains *every* weight of the model on
the same unlabeled pairs (:func:`ddrsearch.retrieval.adaptation.training_pairs`: rows in
shorthand vs written out, and the inverse cloze task's pseudo-queries), with
sentence-transformers' ``MultipleNegativesRankingLoss`` (in-batch negatives,
scale 20, as the adapter) in a plain AdamW loop (linear warm-up over a tenth
of the steps, then linear decay), one epoch, seeded. A pair whose row text is
already in the batch is skipped in that epoch (its positive would be
a false negative). It never loads a
held-out question.

Usage (from the project folder, the package on PYTHONPATH)::

    python benchmarks/finetune_dev.py --out /tmp/minilm-archive   # train, then score
    python benchmarks/finetune_dev.py --out /tmp/minilm-archive --score-only

Prints the training time, the SHA-256 of the trained ``model.safetensors``,
and the default pipeline's hit@5, MRR and NDCG@5 on the dev questions with
the book's model and with the fine-tuned one, with 95% bootstrap intervals
and the paired NDCG@5 gain (:func:`ddrsearch.evaluation.significance.comparison_table`),
and dense retrieval alone for both. The weights (87 MB) are not kept in the
repository; the recipe here, the seed and the printed hash pin them.

Measured 2026-12-01 on this project's 2-core machine: 2,026 pairs, 63 steps
in 321 s; model.safetensors SHA-256 61b977bf...976db7. Default pipeline on
dev, NDCG@5 0.660 -> 0.606, paired gain -0.054 [-0.129, +0.011], 18 of 41
questions changed; dense leg alone 0.442 -> 0.403, -0.039 [-0.103, +0.024].
Not kept: it does not help on dev (as the linear adapter, it cannot be told
from no change, and here the sign is negative).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import time
from pathlib import Path

import pandas as pd

from ddrsearch.data.folders import archive_dir
from ddrsearch.embedding.encoder import Embedder
from ddrsearch.embedding.model import resolve_model
from ddrsearch.evaluation.evaluate import evaluate_retriever
from ddrsearch.evaluation.leverbench import LeverBench
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.evaluation.significance import comparison_table
from ddrsearch.reading.report import load_archive
from ddrsearch.retrieval.adaptation import training_pairs
from ddrsearch.retrieval.chunking import chunk_reports
from ddrsearch.retrieval.dense import DenseRetriever

SEED = 0


def train(reports, out: Path, epochs: int, batch_size: int, lr: float) -> None:
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import losses

    random.seed(SEED)
    torch.manual_seed(SEED)
    pairs = training_pairs(chunk_reports(reports, "operation"), seed=SEED)
    print(f"{len(pairs)} pairs ({sum(p.kind == 'shorthand' for p in pairs)} shorthand, "
          f"{sum(p.kind == 'query' for p in pairs)} pseudo-queries)", flush=True)
    model = SentenceTransformer(str(resolve_model().location), device="cpu")
    model.max_seq_length = 256
    loss = losses.MultipleNegativesRankingLoss(model)  # scale 20, in-batch negatives
    steps = epochs * ((len(pairs) + batch_size - 1) // batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    warmup = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda i: min(1.0, (i + 1) / warmup) * max(0.0, (steps - i) / max(1, steps - warmup)))
    model.train()
    start, step = time.perf_counter(), 0
    for epoch in range(epochs):
        order = list(range(len(pairs)))
        random.Random(SEED + epoch).shuffle(order)
        batches, batch, seen = [], [], set()
        for i in order:  # no two pairs of one row text in a batch: they would be each other's negatives
            if pairs[i].group in seen:
                continue
            batch.append(i)
            seen.add(pairs[i].group)
            if len(batch) == batch_size:
                batches.append(batch)
                batch, seen = [], set()
        batches += [batch] if batch else []
        for batch in batches:
            features = [model.preprocess([pairs[i].anchor for i in batch]),
                        model.preprocess([pairs[i].positive for i in batch])]
            value = loss(features, None)
            optimizer.zero_grad()
            value.backward()
            optimizer.step()
            schedule.step()
            step += 1
            if step % 10 == 0:
                print(f"step {step}: loss {value.item():.3f} ({time.perf_counter() - start:.0f} s)", flush=True)
    print(f"trained {step} steps in {time.perf_counter() - start:.0f} s on {torch.get_num_threads()} threads",
          flush=True)
    model.eval()
    model.save(str(out))


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="folder for the fine-tuned model (not in the repository)")
    ap.add_argument("--score-only", action="store_true", help="score a model already trained into --out")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-5)
    args = ap.parse_args()
    reports = load_archive(archive_dir())
    if not args.score_only:
        train(reports, args.out, args.epochs, args.batch_size, args.lr)
    print(f"model.safetensors SHA-256 {sha256(args.out / 'model.safetensors')}")
    dev = load_questions("archive").split("dev").answerable()
    cache = os.environ.get("DDRSEARCH_CACHE_DIR")
    book, tuned = Embedder(), Embedder(model_path=args.out, cache_dir=cache)
    results, dense = {}, {}
    for name, embedder in (("book model", book), ("fine-tuned", tuned)):
        bench = LeverBench(reports, embedder=embedder)
        results[name] = evaluate_retriever(bench.default(), dev)
        d = DenseRetriever(embedder=embedder)
        d.index(bench.passages())
        d.attach_reports(reports)
        dense[name] = evaluate_retriever(d, dev)
    with pd.option_context("display.width", 160):
        print(f"\ndefault pipeline, {len(dev)} dev questions:")
        print(comparison_table(results, "book model").round(3).to_string())
        print("\ndense leg alone (operation chunks):")
        print(comparison_table(dense, "book model").round(3).to_string())


if __name__ == "__main__":
    main()
