"""ddrsearch.retrieval.levered: the levers (rig terms, quantity pairs) and their options."""

from __future__ import annotations

from pathlib import Path

import pytest

from ddrsearch.errors import GlossaryError
from ddrsearch.evaluation.leverbench import RIG_TERMS
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.retrieval.pipeline import DEFAULT_LEVERS, build_retriever
from ddrsearch.text.rewriting import load_rig_terms

HEADER = "words,report_words,note\n"


def test_the_default_pipeline_leaves_the_table_off():
    # the held-out questions did not show a gain beyond chance (chapters/12-improving-retrieval.ipynb)
    assert "rig_terms" not in DEFAULT_LEVERS and RIG_TERMS == {"rig_terms": True}


@pytest.mark.data
@pytest.mark.model
def test_the_lever_finds_the_drilling_line_for_the_hoisting_cable(archive):
    """The rig-terms table finds report 29 for an engineer's words about the drilling line; without the table (and
    without the lexicon lever, which now finds it too) the pipeline does not."""
    d029 = "FORGE-16A-78-32_Drilling_029_2020-11-17.pdf"
    query = "rewinding the hoisting cable onto the winch"
    off = build_retriever("hybrid", archive, lexicon=0.0)
    on = build_retriever("hybrid", archive, lexicon=0.0, **RIG_TERMS)
    assert on.rewrite(query) != off.rewrite(query)
    assert d029 not in [h.report for h in off.search(query, 5)]
    top = on.search(query, 3)
    assert d029 in [h.report for h in top]
    assert on.with_weight(0.5).rig_terms is True


def test_your_own_table_by_path(tmp_path):
    from ddrsearch.retrieval.levered import TunedHybridRetriever

    path = tmp_path / "my_rig.csv"
    path.write_text(HEADER + 'hoisting cable | wire rope,drilling line,"our reports say ""drilling line"""\n',
                    encoding="utf-8")
    mine = TunedHybridRetriever(rig_terms=path)
    assert mine.rewrite("wire rope rewound") == "wire rope drilling line rewound"
    assert mine.rewrite("rig blackout") == "rig blackout"  # only the table given is used
    assert TunedHybridRetriever(rig_terms=True).rewrite("rig blackout").startswith("rig blackout lost power")
    assert TunedHybridRetriever().rewrite("rig blackout") == "rig blackout"
    assert mine.with_weight(0.3).rewrite("wire rope") == "wire rope drilling line"


def test_a_bad_rig_terms_value_is_refused(tmp_path):
    from ddrsearch.retrieval.levered import TunedHybridRetriever

    with pytest.raises(ValueError, match="rig_terms must be True, False or the path"):
        TunedHybridRetriever(rig_terms=1.5)
    with pytest.raises(GlossaryError, match="Cannot read the rig-terms table"):
        TunedHybridRetriever(rig_terms=tmp_path / "missing.csv")


def _write(tmp_path, text: str | bytes, name: str = "terms.csv") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_with_weight_keeps_the_table_it_was_built_with(tmp_path):
    """with_weight() read the rig-terms CSV again: an edited or removed file changed or broke the copy; the copy keeps
    the table read at construction.
    """
    # TunedHybridRetriever reads the CSV at construction ("the table itself ... read now"), but
    # with_weight() builds the copy from the path again: after the file is edited the copy silently
    # uses another table (a weight sweep then compares two tables), after it is removed with_weight fails.
    from ddrsearch.retrieval.levered import TunedHybridRetriever

    path = _write(tmp_path, HEADER + "blackout,lost power,n\n")
    r = TunedHybridRetriever(rig_terms=path)
    _write(tmp_path, HEADER + "blackout,generators,n\n")
    assert r.with_weight(0.3).rewrite("rig blackout") == r.rewrite("rig blackout") == "rig blackout lost power"
    path.unlink()
    assert r.with_weight(0.5).rewrite("rig blackout") == "rig blackout lost power"


def test_an_empty_rig_terms_path_is_named(tmp_path):
    """An empty rig_terms path is refused by name, by the retriever and by the loader."""
    from ddrsearch.retrieval.levered import TunedHybridRetriever

    with pytest.raises(ValueError, match="rig_terms must be"):
        TunedHybridRetriever(rig_terms="")
    with pytest.raises(GlossaryError, match="path is empty"):
        load_rig_terms("")


@pytest.mark.data
def test_quantity_pairs_are_those_around_a_number_with_its_unit():
    """The quantity pairs are the word pairs around a number with its unit; depths and sizes give none."""
    from ddrsearch.retrieval.levered import proximity_pairs

    assert proximity_pairs(["diff", "250", "psi"], "units") == [("250", "psi"), ("diff", "250")]
    assert proximity_pairs(["500", "psi", "over"], "units") == [("500", "psi"), ("psi", "over")]
    assert proximity_pairs(["pass", "8000", "ft", "md"], "units") == []  # a depth: the structured path's
    assert proximity_pairs(["run", "9", "5/8", "case"], "units") == []  # a size, not a quantity
    assert proximity_pairs(["diff", "250", "psi"], True) == [("250", "psi"), ("diff", "250")]
    assert proximity_pairs(["stuck", "pipe", "slide"]) == [("pipe", "slide"), ("stuck", "pipe")]
    with pytest.raises(ValueError, match="numbers must be"):
        proximity_pairs(["a"], "yes")


@pytest.mark.data
def test_no_scored_question_holds_a_quantity_pair():
    """The claim of DEFAULT_LEVERS and chapter 12: the quantity lever changes no dev, held-out or fresh figure.

    (It touches the unanswerable A107, "above 9.5 ppg", which is scored by abstention, not by rank.)
    """
    from ddrsearch.retrieval.levered import proximity_pairs
    from ddrsearch.text.rewriting import rewrite_query
    from ddrsearch.text.tokenizer import make_tokenizer

    tok = make_tokenizer(stem=True)
    touched = [q.id for name in ("starter", "archive", "fresh") for q in load_questions(name)
               if proximity_pairs(tok(rewrite_query(q.question, asker=True)), "units")]
    assert touched == ["A107"]


@pytest.mark.data
@pytest.mark.model
def test_a_long_row_is_scored_by_its_best_stretch_as_well(archive):
    """"mud losses" leaves D019 out of the default's top 10 (rank 40), although its row 4 is the archive's one
    "Mud fluids seepage losses" and BM25 over rows ranks D019 first: the dense leg embeds that 110-word drilling
    row whole, and its cosine (rank 98 of the passages) falls below short rows that say "mud". With the lever
    ``segments`` (off in the default: its dev gains held 0 in their intervals) its best stretch of 24 words is
    scored too, and D019 is in the top 3."""
    import numpy as np

    d019 = "FORGE-16A-78-32_Drilling_019_2020-11-07.pdf"
    off = build_retriever("hybrid", archive)
    on = off.with_weight(off.weight)
    on.segments = 24
    assert "segments" not in DEFAULT_LEVERS and off.segments == 0 and on.with_weight(0.5).segments == 24
    assert d019 not in [h.report for h in off.search("mud losses", 10)]
    assert d019 in [h.report for h in on.search("mud losses", 3)]
    seg = on.segment_scores(on.rewrite("mud losses"))
    short = np.array([len(p.text.split()) <= 36 for p in on.passages])
    assert (seg[short] == -1).all() and (seg[~short] > -1).all()  # only long rows have stretches


def test_a_stretch_of_fewer_than_four_words_is_refused():
    from ddrsearch.retrieval.levered import TunedHybridRetriever

    with pytest.raises(ValueError, match="segments must be 0"):
        TunedHybridRetriever(segments=2)


def test_the_structured_path_options_reach_the_index_and_survive_with_weight():
    """The structured path's options (a depth without its unit, reports that stayed at it, loose dates, well
    sections) are retriever options, off by default, passed to StructuredIndex.score and kept by with_weight()."""
    import datetime as dt

    from ddrsearch.retrieval.levered import TunedHybridRetriever
    from ddrsearch.retrieval.structured import StructuredIndex

    index = StructuredIndex(rows=[{"report": f"R{i}", "date": dt.date(2020, 11, i), "bit_size": None, "md_ft": md,
                                   "bits": [[8.75, 6000.0, 6500.0]] if i == 1 else []}
                                  for i, md in enumerate((6500.0, 6945.0, 6945.0), start=1)])
    off = TunedHybridRetriever(structured=1.0, structured_index=index)
    assert off.structured_match("near 6,945") is None and off.structured_match("late November") is None
    assert off.structured_match("in the 8-3/4") is None
    on = TunedHybridRetriever(structured=1.0, structured_index=index, bare_depths=True, depth_still=0.25,
                              loose_dates=0.3, sections=0.3)
    assert on.structured_match("near 6,945").scores == {"R2": 0.5, "R3": 0.25}
    assert on.structured_match("early November").kind == "period"
    assert on.structured_match("in the 8-3/4").scores == {"R1": 0.3}
    copy = on.with_weight(0.3)
    assert (copy.bare_depths, copy.depth_still, copy.depth_next, copy.loose_dates, copy.sections) == \
        (True, 0.25, 0.0, 0.3, 0.3)
    for bad in ({"depth_still": 2.0}, {"depth_next": -1.0}, {"loose_dates": 1.5}, {"sections": -0.5}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            TunedHybridRetriever(**bad)


class _CountingEmbedder:
    """Deterministic unit vectors; keeps every query text it is asked to embed (as the real one, a repeat is free)."""

    dim = 8
    cache_dir = None

    def __init__(self):
        import hashlib
        from types import SimpleNamespace

        import numpy as np

        self._np, self._sha = np, hashlib.sha256
        self.source = SimpleNamespace(key="counting-fake@1")
        self.queries: list[str] = []

    def encode(self, texts):
        np = self._np
        rows = [np.random.default_rng(int(self._sha(t.encode()).hexdigest()[:8], 16)).normal(size=self.dim)
                for t in texts]
        m = np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim)
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    def encode_query(self, query):
        self.queries.append(query)
        return self.encode([query])[0]


def test_the_lexicon_matches_the_question_rewritten_once_and_embeds_it_once(monkeypatch):
    """Before: the scores handed the lexicon lever the question already rewritten, and lexicon_terms rewrote it
    again: "POOH for washout" reached the lexicon as "pooh pull out of hole pull out of hole for washout", and a
    question with the asker's shorthand was embedded twice (the dense leg's text and the doubled one). Now the
    lexicon sees the text the dense leg embeds, each expansion once, and a search embeds one text."""
    from ddrsearch.retrieval.levered import TunedHybridRetriever
    from ddrsearch.retrieval.passages import Passage

    rows = ["Pull out of hole, found washout in drill pipe", "Circulate bottoms up, lay down 5in drill pipe",
            "Trip in hole with BHA #3 to 4,500 ft", "Drill 8.5in hole from 4,500 ft to 4,620 ft"]
    passages = [Passage(f"R{i}.pdf#row{i}", f"R{i}.pdf", t, row=i, kind="operation") for i, t in enumerate(rows)]
    fake = _CountingEmbedder()
    r = TunedHybridRetriever(asker=True, lexicon=0.6, lexicon_k=5, lexicon_min=-1.0, candidates=None,
                             dense_options={"embedder": fake}).index(passages)
    matcher, seen = r._lexicon_matcher(), []
    real = matcher.match
    monkeypatch.setattr(matcher, "match", lambda text, *a, **k: seen.append(text) or real(text, *a, **k))
    for question in ("POOH for washout", "CBU and L/D 5in DP"):
        rewritten = r.rewrite(question)
        assert rewritten != question
        seen.clear()
        fake.queries.clear()
        r.search(question, 3)
        assert seen == [rewritten], seen  # each expansion once: "pull out of hole", "circulate bottoms up"
        assert set(fake.queries) == {rewritten}  # one text embedded for the question
        assert r.lexicon_terms(question) == r._lexicon_terms(rewritten)  # what the lever adds is what it shows
