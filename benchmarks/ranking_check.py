"""Check that a speed change leaves the default pipeline's rankings as they were (issue 25).

Run it once before the change (``dump``) and once after (``compare``), with the same data and
embedding cache::

    python benchmarks/ranking_check.py dump /tmp/before.json            # on the old code
    python benchmarks/ranking_check.py compare /tmp/before.json         # on the new code
    python benchmarks/ranking_check.py dump /tmp/before100.json --scale 100

For every question of every shipped set (``datasets/eval/*.yaml``: 338 questions on
2026-12-02) it records the default pipeline's top ``--k`` (76: every report) with each hit's
report, passage, score, row text and the question terms the row holds. ``compare`` prints how
many questions differ in anything but the score, and the largest score change of the others;
it exits with 1 when a question differs or a score moved by more than ``--tolerance``.

At ``--scale 1`` the pipeline is :func:`ddrsearch.retrieval.pipeline.build_retriever`'s, the
reports attached; at a larger scale it is ``bench_retrievers.py``'s: the archive's passages
repeated under distinct report names, no reports attached (so no structured path), which is
where the shortcuts for many passages run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")

ROOT = Path(__file__).resolve().parents[1]


def _retriever(scale: int):
    from ddrsearch.data.folders import archive_dir
    from ddrsearch.embedding.encoder import Embedder
    from ddrsearch.reading.report import load_archive
    from ddrsearch.retrieval.chunking import chunk_reports
    from ddrsearch.retrieval.dense import DenseRetriever
    from ddrsearch.retrieval.levered import TunedHybridRetriever
    from ddrsearch.retrieval.pipeline import DEFAULT_LEVERS, DEFAULT_WEIGHT, build_retriever

    reports = load_archive(archive_dir())
    if scale == 1:
        return build_retriever("hybrid", reports)
    chunks = [replace(c, passage_id=f"COPY{i:03d}_{c.passage_id}", report=f"COPY{i:03d}_{c.report}")
              for i in range(scale) for c in chunk_reports(reports)]
    levers = {k: dict(v) if isinstance(v, dict) else v for k, v in DEFAULT_LEVERS.items()}
    return TunedHybridRetriever(weight=DEFAULT_WEIGHT, dense=DenseRetriever(embedder=Embedder()),
                                **levers).index(chunks)


def rankings(scale: int = 1, k: int = 76) -> dict[str, list[list]]:
    """``{"set:question id": [[report, passage id, score, row text, [terms]], ...]}`` of every shipped question."""
    from ddrsearch.evaluation.questionfiles import load_questions

    retriever = _retriever(scale)
    out = {}
    for path in sorted((ROOT / "datasets" / "eval").glob("*.yaml")):
        for q in load_questions(path, check_evidence=False):
            out[f"{path.stem}:{q.id}"] = [[h.report, h.passage_id, h.score, h.text, sorted(h.terms or ())]
                                          for h in retriever.search(q.question, k)]
    return out


def differences(before: dict, after: dict) -> tuple[list[str], float]:
    """The questions whose hits differ in anything but the score, and the largest score change of the others.

    Raises:
        ValueError: the two hold different questions.
    """
    if set(before) != set(after):
        raise ValueError(f"different questions: {sorted(set(before) ^ set(after))[:5]} ...")
    differ = [key for key in before
              if [h[:2] + h[3:] for h in before[key]] != [h[:2] + h[3:] for h in after[key]]]
    moved = [abs(a[2] - b[2]) for key in before if key not in differ for a, b in zip(before[key], after[key])]
    return differ, max(moved, default=0.0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=("dump", "compare"))
    parser.add_argument("file", help="the JSON written by dump, read by compare")
    parser.add_argument("--scale", type=int, default=1, help="archive multiples (default 1)")
    parser.add_argument("--k", type=int, default=76, help="hits per question (default 76: every report)")
    parser.add_argument("--tolerance", type=float, default=0.0, help="largest score change allowed (default 0)")
    args = parser.parse_args(argv)
    now = json.loads(json.dumps(rankings(args.scale, args.k)))  # as JSON reads it back (lists, floats)
    path = Path(args.file)
    if args.mode == "dump":
        path.write_text(json.dumps(now), encoding="utf-8")
        print(f"Wrote the top {args.k} of {len(now)} questions at {args.scale}x to {path}")
        return 0
    differ, moved = differences(json.loads(path.read_text(encoding="utf-8")), now)
    print(f"{len(now)} questions at {args.scale}x: {len(differ)} differ in hits, rows or terms"
          f"{' (' + ', '.join(differ[:10]) + ')' if differ else ''}; largest score change {moved:.3g}")
    return 1 if differ or moved > args.tolerance else 0


if __name__ == "__main__":
    sys.exit(main())
