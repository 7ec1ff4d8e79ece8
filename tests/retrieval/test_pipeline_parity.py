"""ddrsearch.retrieval.pipeline: the speed work changes no ranking and no score.

``data/default_dev_runs.json`` holds the default pipeline's top 76 (every report) for each
development question of ``datasets/eval/*.yaml``, as the pipeline ranked them before its
query path was made faster (BM25 scored without bm25s at query time, RM3 and the candidate
pool cheaper): report, passage and score. The pipeline must still give those hits in that
order with those scores, within 1e-6: the passages' float32 vectors, embedded afresh on
another machine (a clean clone has no embedding cache), move a fused score by up to about
3e-7 (measured on a clean clone); a scoring change moves them by far more.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ddrsearch.retrieval.pipeline import build_retriever

RUNS = Path(__file__).parent / "data" / "default_dev_runs.json"
TOLERANCE = 1e-6

pytestmark = [pytest.mark.data, pytest.mark.model]


def expected_runs() -> dict[str, tuple[str, list[tuple[str, str, float]]]]:
    """Question key -> (question, [(short report, passage suffix, score), ...]) as recorded."""
    out = {}
    for key, entry in json.loads(RUNS.read_text(encoding="utf-8")).items():
        hits = [(r, p, float(s)) for r, p, s in (h.split(" ") for h in entry["hits"].split(", "))]
        out[key] = (entry["question"], hits)
    return out


def short_hits(hits) -> list[tuple[str, str, float]]:
    """The hits as the runs file writes them: D038 / C003, the passage id after ``#``, the score."""
    out = []
    for h in hits:
        m = re.search(r"_(Drilling|Completion)_(\d{3})_", h.report)
        out.append((m.group(1)[0] + m.group(2), h.passage_id.split("#", 1)[1], h.score))
    return out


def mismatches(search, runs) -> list[str]:
    """One line per question whose hits or scores differ from the recorded run."""
    bad = []
    for key, (question, want) in runs.items():
        got = short_hits(search(question, 76))
        if [(r, p) for r, p, _ in got] != [(r, p) for r, p, _ in want]:
            first = next(i for i, (g, w) in enumerate(zip(got, want, strict=False)) if g[:2] != w[:2])
            bad.append(f"{key}: rank {first + 1} is {got[first][:2]}, was {want[first][:2]}")
            continue
        worst = max(abs(g[2] - w[2]) for g, w in zip(got, want, strict=True))
        if worst > TOLERANCE:
            bad.append(f"{key}: a score moved by {worst:.2e}")
    return bad


def test_the_runs_file_covers_every_development_question():
    """Every dev question of every shipped set with splits is in the runs file, with 76 hits."""
    from ddrsearch.evaluation.questionfiles import load_questions

    runs = expected_runs()
    keys = set()
    for path in sorted(Path(__file__).parents[2].glob("datasets/eval/*.yaml")):
        qs = load_questions(path, check_evidence=False)
        if any(q.split for q in qs):
            keys |= {f"{qs.name}:{q.id}" for q in qs.split("dev")}
    assert keys == set(runs)
    assert {len(hits) for _, hits in runs.values()} == {76}


def test_the_default_pipeline_ranks_and_scores_as_recorded(archive):
    """The in-memory default pipeline gives every dev question the recorded top 76 and scores (within TOLERANCE)."""
    retriever = build_retriever("hybrid", archive)
    assert mismatches(retriever.search, expected_runs()) == []
