"""Fine-tune all of all-MiniLM-L6-v2 on pairs without any question, then score it on the DEV questions.

The packaged adapter (:mod:`ddrsearch.retrieval.adaptation`) trains a 384 x 384 matrix
on top of the frozen model. This script trains *every* weight of the model on
one recipe of pairs (``--pairs``, :func:`recipe_pairs`):

- ``unlabeled`` (default): the archive's own rows, no labels
  (:func:`ddrsearch.retrieval.adaptation.training_pairs`: rows in shorthand vs
  written out, and the inverse cloze task's pseudo-queries);
- ``lexicon``: the drilling lexicon's own pairs
  (:func:`ddrsearch.retrieval.adaptation.lexicon_pairs`: each definition and
  each plain phrasing with the term the reports print; the entries of one
  printed term share a group);
- ``lexicon+rows``: both, the lexicon's groups numbered after the rows'.

The loop: sentence-transformers' ``MultipleNegativesRankingLoss`` (in-batch
negatives, scale 20, as the adapter), plain AdamW (lr 2e-5, linear warm-up
over a tenth of the steps, then linear decay), batch 32, maximum sequence
length 256, one epoch, seed 0 (torch, Python and the batch order). A pair
whose group is already in the batch is skipped in that epoch (its positive
would be a false negative). Only the development split of each set is
scored; the held-out questions are dropped as the file is read.

Usage (from the project folder, the package on PYTHONPATH; keep ``--out``
outside the repository)::

    python benchmarks/finetune_dev.py --out /tmp/minilm-archive   # train, then score
    python benchmarks/finetune_dev.py --pairs lexicon --out /tmp/minilm-lexicon
    python benchmarks/finetune_dev.py --out /tmp/minilm-archive --score-only

Prints the pairs, the training time (with the load average), the SHA-256 of
the trained ``model.safetensors``, then for the default pipeline and for the
dense leg alone (operation chunks) hit@5, MRR and NDCG@5 with the book's
model and the fine-tuned one, with 95% bootstrap intervals and the paired
NDCG@5 gain (:func:`ddrsearch.evaluation.significance.comparison_table`), on the
dev split of each set of :data:`SETS` and on them pooled. The weights (87 MB)
are not kept in the repository; the recipe here, the seed and the printed
hash pin them.
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
from ddrsearch.retrieval.adaptation import Pair, lexicon_pairs, training_pairs
from ddrsearch.retrieval.chunking import chunk_reports
from ddrsearch.retrieval.dense import DenseRetriever

SEED = 0

#: The question sets whose DEV split is scored (pooled as well as one by one).
SETS = ("archive", "plain")

#: The ``--pairs`` recipes: which pairs the model is trained on (:func:`recipe_pairs`).
RECIPES = ("unlabeled", "lexicon", "lexicon+rows")


def recipe_pairs(recipe: str, reports) -> list[Pair]:
    """The training pairs of one ``--pairs`` recipe, never a question of any set.

    ``"unlabeled"``: :func:`ddrsearch.retrieval.adaptation.training_pairs` over the
    reports' operation chunks (seeded). ``"lexicon"``:
    :func:`ddrsearch.retrieval.adaptation.lexicon_pairs` (each definition and plain
    phrasing with the printed term). ``"lexicon+rows"``: the unlabeled pairs, then
    the lexicon's, its groups numbered after theirs (so no lexicon pair is taken
    for a row's negative twin).

    Raises:
        ValueError: an unknown recipe (names :data:`RECIPES`).
    """
    if recipe not in RECIPES:
        raise ValueError(f"--pairs must be one of {', '.join(RECIPES)}, not {recipe!r}")
    pairs: list[Pair] = []
    if recipe in ("unlabeled", "lexicon+rows"):
        pairs = training_pairs(chunk_reports(reports, "operation"), seed=SEED)
    if recipe in ("lexicon", "lexicon+rows"):
        pairs += lexicon_pairs(group_start=max((p.group for p in pairs), default=-1) + 1)
    return pairs


def batches_of(pairs: list[Pair], batch_size: int, epoch: int) -> tuple[list[list[int]], int]:
    """One epoch's batches (indexes into ``pairs``) and how many pairs were skipped.

    The order is shuffled with seed ``SEED + epoch``; a pair whose group is
    already in the batch being filled is skipped for this epoch (its positive
    would be a false negative); the last batch may be short.
    """
    order = list(range(len(pairs)))
    random.Random(SEED + epoch).shuffle(order)
    batches, batch, seen, skipped = [], [], set(), 0
    for i in order:  # no two pairs of one group in a batch: they would be each other's negatives
        if pairs[i].group in seen:
            skipped += 1
            continue
        batch.append(i)
        seen.add(pairs[i].group)
        if len(batch) == batch_size:
            batches.append(batch)
            batch, seen = [], set()
    batches += [batch] if batch else []
    return batches, skipped


def train(reports, out: Path, epochs: int, batch_size: int, lr: float, recipe: str = "unlabeled") -> None:
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import losses

    random.seed(SEED)
    torch.manual_seed(SEED)
    pairs = recipe_pairs(recipe, reports)
    kinds = {k: sum(p.kind == k for p in pairs) for k in ("shorthand", "query", "lexicon")}
    print(f"{recipe}: {len(pairs)} pairs ({kinds['shorthand']} shorthand, {kinds['query']} pseudo-queries, "
          f"{kinds['lexicon']} lexicon), {len({p.group for p in pairs})} groups", flush=True)
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
        batches, skipped = batches_of(pairs, batch_size, epoch)
        print(f"epoch {epoch + 1}: {len(batches)} batches, {skipped} pairs skipped (group already in the batch)",
              flush=True)
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
    print(f"trained {step} steps in {time.perf_counter() - start:.0f} s on {torch.get_num_threads()} threads "
          f"(load {os.getloadavg()[0]:.1f})", flush=True)
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
    ap.add_argument("--pairs", default="unlabeled", choices=RECIPES, help="the training pairs (RECIPES)")
    args = ap.parse_args()
    reports = load_archive(archive_dir())
    if not args.score_only:
        train(reports, args.out, args.epochs, args.batch_size, args.lr, args.pairs)
    print(f"model.safetensors SHA-256 {sha256(args.out / 'model.safetensors')}", flush=True)
    sets = {name: load_questions(name, reports=reports).split("dev").answerable() for name in SETS}
    cache = os.environ.get("DDRSEARCH_CACHE_DIR")
    models = {"book model": Embedder(), "fine-tuned": Embedder(model_path=args.out, cache_dir=cache)}
    results: dict[str, dict] = {"default pipeline": {}, "dense leg alone": {}}
    for name, embedder in models.items():
        t0 = time.perf_counter()
        bench = LeverBench(reports, embedder=embedder)
        dense = DenseRetriever(embedder=embedder)
        dense.index(bench.passages())
        dense.attach_reports(reports)
        for method, retriever in (("default pipeline", bench.default()), ("dense leg alone", dense)):
            results[method][name] = {s: evaluate_retriever(retriever, qs) for s, qs in sets.items()}
        print(f"scored {name} in {time.perf_counter() - t0:.0f} s (load {os.getloadavg()[0]:.1f})", flush=True)
    with pd.option_context("display.width", 200):
        for method, by_model in results.items():
            for label, tables in pooled_tables(by_model).items():
                n = len(next(iter(tables.values())))
                print(f"\n== {method}, {label}, {n} answerable dev questions")
                table = comparison_table(tables, "book model")
                print(table.round(3).to_string())


def pooled_tables(by_model: dict[str, dict[str, pd.DataFrame]]) -> dict[str, dict[str, pd.DataFrame]]:
    """Per-question tables regrouped for :func:`comparison_table`: each set's, then all sets pooled.

    Args:
        by_model: model name -> set name -> per-question table (one row a
            question, :func:`ddrsearch.evaluation.evaluate.evaluate_retriever`).

    Returns:
        label (the set name, then ``"pooled"`` when there are two sets or
        more) -> model name -> table; the pooled table is the sets' tables
        concatenated in set order, so the paired bootstrap pairs a question
        with itself across models.
    """
    names = list(next(iter(by_model.values())))
    out = {s: {m: tables[s] for m, tables in by_model.items()} for s in names}
    if len(names) > 1:
        out["pooled"] = {m: pd.concat([tables[s] for s in names]) for m, tables in by_model.items()}
    return out

if __name__ == "__main__":
    main()
