"""benchmarks/finetune_dev.py: the pairs of each recipe, the epoch's batches and the pooled tables."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import finetune_dev

from ddrsearch.retrieval.adaptation import Pair, lexicon_pairs


def test_lexicon_recipe_is_the_lexicons_own_pairs_and_needs_no_report():
    assert finetune_dev.recipe_pairs("lexicon", []) == lexicon_pairs()


def test_lexicon_and_rows_recipe_numbers_the_lexicon_groups_after_the_rows(monkeypatch):
    rows = [Pair("POOH", "pull out of hole", 0, "shorthand"), Pair("q", "row text", 3, "query")]
    monkeypatch.setattr(finetune_dev, "training_pairs", lambda passages, seed: list(rows))
    pairs = finetune_dev.recipe_pairs("lexicon+rows", [])
    lexicon = [p for p in pairs if p.kind == "lexicon"]
    assert pairs[:2] == rows
    assert lexicon and min(p.group for p in lexicon) == 4
    assert [(p.anchor, p.positive) for p in lexicon] == [(p.anchor, p.positive) for p in lexicon_pairs()]


def test_unknown_recipe_is_refused_naming_the_recipes():
    with pytest.raises(ValueError, match="unlabeled, lexicon, lexicon\\+rows.*'questions'"):
        finetune_dev.recipe_pairs("questions", [])


def test_batches_never_hold_two_pairs_of_one_group_and_count_the_skipped():
    pairs = [Pair(f"a{i}", f"p{i}", i // 2, "lexicon") for i in range(10)]  # five groups of two
    batches, skipped = finetune_dev.batches_of(pairs, 3, epoch=0)
    for batch in batches:
        assert len({pairs[i].group for i in batch}) == len(batch) <= 3
    used = [i for batch in batches for i in batch]
    assert len(used) == len(set(used)) and len(used) + skipped == len(pairs)


def test_batches_are_the_same_for_one_epoch_and_reshuffled_for_the_next():
    pairs = [Pair(f"a{i}", f"p{i}", i, "lexicon") for i in range(40)]
    first, _ = finetune_dev.batches_of(pairs, 8, epoch=0)
    assert finetune_dev.batches_of(pairs, 8, epoch=0)[0] == first
    assert finetune_dev.batches_of(pairs, 8, epoch=1)[0] != first
    assert [len(b) for b in finetune_dev.batches_of(pairs[:20], 8, epoch=0)[0]] == [8, 8, 4]


def _table(ids, value):
    return pd.DataFrame({"NDCG@5": [value] * len(ids)}, index=pd.Index(ids, name="id"))


def test_pooled_tables_give_each_set_then_the_sets_concatenated_in_set_order():
    by_model = {"book model": {"archive": _table(["a1", "a2"], 0.5), "plain": _table(["p1"], 0.1)},
                "fine-tuned": {"archive": _table(["a1", "a2"], 0.6), "plain": _table(["p1"], 0.0)}}
    out = finetune_dev.pooled_tables(by_model)
    assert list(out) == ["archive", "plain", "pooled"]
    assert list(out["plain"]) == ["book model", "fine-tuned"]
    assert list(out["pooled"]["fine-tuned"].index) == ["a1", "a2", "p1"]
    assert out["pooled"]["fine-tuned"]["NDCG@5"].tolist() == [0.6, 0.6, 0.0]


def test_one_set_has_no_pooled_table():
    assert list(finetune_dev.pooled_tables({"book model": {"archive": _table(["a1"], 1.0)}})) == ["archive"]
