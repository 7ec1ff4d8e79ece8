"""ddrsearch.evaluation.leverbench: the lever table pairs the questions."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.data


def test_lever_table_pairs_the_questions():
    """The lever table compares each lever with the baseline question by question (gain, questions changed)."""
    import pandas as pd

    from ddrsearch.evaluation.leverbench import lever_table

    idx = pd.Index(["Q1", "Q2", "Q3", "Q4"], name="id")
    base = pd.DataFrame({"hit@5": [1, 0, 1, 0], "RR": [1, 0, 0.5, 0], "NDCG@5": [1, 0, 0.6, 0]}, index=idx, dtype=float)
    better = base.assign(**{"hit@5": [1, 1, 1, 0], "RR": [1, 0.5, 0.5, 0], "NDCG@5": [1, 0.6, 0.6, 0]})
    t = lever_table({"plain": base, "lever": better}, baseline="plain")
    assert t.loc["plain", "gain"] == 0 and t.loc["plain", "changed"] == 0
    assert t.loc["lever", "gain"] == pytest.approx(0.15) and t.loc["lever", "changed"] == 1
    assert t.loc["lever", "gain low"] <= 0.15 <= t.loc["lever", "gain high"]
    assert t.loc["lever", "MRR"] == pytest.approx(0.5)
    with pytest.raises(ValueError):
        lever_table({"plain": base, "other": better.iloc[:3]}, baseline="plain")


def test_every_plain_variant_names_an_option_the_bench_knows():
    """Each plain-English variant is a TunedHybridRetriever option, a chunk option or an adapter recipe."""
    import inspect

    from ddrsearch.evaluation.leverbench import ADAPTER_RECIPES, PLAIN_VARIANTS
    from ddrsearch.retrieval.levered import TunedHybridRetriever

    retriever_options = set(inspect.signature(TunedHybridRetriever.__init__).parameters) - {"self"}
    for name, options in PLAIN_VARIANTS.items():
        for key, value in options.items():
            if key == "chunks":
                assert set(value) <= {"context", "depth", "concepts", "concepts_legs"}, name
            elif key == "embedder":
                assert value in ADAPTER_RECIPES, name
            else:
                assert key in retriever_options, (name, key)
    # the lexicon variants of the day before the gate are ungated, and the gate kept is one of those tried
    assert all(PLAIN_VARIANTS[n]["lexicon_gate"] is None for n in PLAIN_VARIANTS if n.startswith("lexicon 0"))
    from ddrsearch.retrieval.pipeline import DEFAULT_LEVERS

    assert {"lexicon_gate": DEFAULT_LEVERS["lexicon_gate"]} in PLAIN_VARIANTS.values()


def test_adapted_embedder_refuses_an_unknown_recipe_naming_the_known_ones():
    from ddrsearch.evaluation.leverbench import adapted_embedder

    with pytest.raises(ValueError, match="'lexicon', 'lexicon\\+rows'.*not 'rows'"):
        adapted_embedder("rows", [], None)
