"""How a ranking was made: the question's terms, each leg's top passages, and their fusion.

:func:`explain_ranking` takes an indexed hybrid retriever (the book's default
pipeline, :class:`ddrsearch.retrieval.hybrid.HybridRetriever` or the tuned one of
:mod:`ddrsearch.retrieval.levered`)
and a question, and returns an :class:`Explanation`: the question's terms
before and after shorthand expansion (and the tuned pipeline's rewrite),
each leg's top ``n`` passages with the scores that were fused, and the top
``n`` after fusion with every term of the sum: each leg's score min-max
scaled over the candidate union (:func:`ddrsearch.retrieval.fusion.minmax_normalize`),
weighted ``1 - w`` and ``w``, plus the structured path's bonus when the
tuned pipeline found a number or a date. The web app's panel "How this
ranking was made" shows it; a test checks that the terms add up to the
pipeline's own fused scores.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from ddrsearch.reading.names import row_id, short_name
from ddrsearch.reading.report import Report
from ddrsearch.retrieval.fusion import minmax_normalize
from ddrsearch.retrieval.hybrid import HybridRetriever
from ddrsearch.retrieval.levered import TunedHybridRetriever
from ddrsearch.text.glossary import default_glossary
from ddrsearch.text.tokenizer import tokenize

__all__ = ["Explanation", "LegRow", "explain_ranking"]

#: The retrievers with two legs whose ranking can be explained.
Hybrid = HybridRetriever | TunedHybridRetriever


def _num(x) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


@dataclass(frozen=True)
class LegRow:
    """One line of a top-10 list in :class:`Explanation` (``bm25``/``dense`` raw, ``*_norm`` min-max scaled)."""

    rank: int
    passage_id: str
    label: str
    where: str
    text: str
    score: float
    bm25: float | None = None
    dense: float | None = None
    bm25_norm: float | None = None
    dense_norm: float | None = None
    bonus: float = 0.0


@dataclass
class Explanation:
    """How one question was ranked by the default pipeline.

    Attributes:
        question: as typed.
        terms: the question's search terms (shared tokenizer, stop words removed).
        expanded_terms: the terms BM25 searched (abbreviations followed by their expansion).
        expansions: ``(abbreviation, expansion)`` for each shorthand in the question.
        rewritten: the question as the legs read it (the asker's shorthand spelled out).
        weight: the dense weight ``w`` of the fusion; ``candidates``: passages
            each leg contributes to the fusion (``None``: every passage).
        feedback: how the BM25 leg's scores were changed by pseudo-relevance
            feedback (``""`` when off); ``structured``: what the structured path
            found (``""``: nothing), its bonus is ``LegRow.bonus``.
        bm25, dense: each leg's top ``n`` passages with their scores as fused.
        fused: the top ``n`` after fusion, with both raw and scaled signals.
        n_passages: passages indexed.
    """

    question: str
    terms: list[str]
    expanded_terms: list[str]
    expansions: list[tuple[str, str]]
    weight: float
    candidates: int | None
    rewritten: str = ""
    feedback: str = ""
    structured: str = ""
    bm25: list[LegRow] = field(default_factory=list)
    dense: list[LegRow] = field(default_factory=list)
    fused: list[LegRow] = field(default_factory=list)
    n_passages: int = 0




def _leg_row(r: Hybrid, reports: Mapping[str, Report], rank: int, i: int, score: float, **extra) -> LegRow:
    p = r.passages[i]
    report = reports[p.report]
    if p.kind == "operation" and p.row is not None:
        where = f"{row_id(report, p.row)} {p.start}-{p.end or '?'}"
    else:
        where = {"header": "header", "window": "page text"}.get(p.kind, p.kind)
    return LegRow(rank=rank, passage_id=p.passage_id, label=short_name(report), where=where,
                  text=p.text, score=float(score), **extra)


def explain_ranking(r: Hybrid, question: str, reports: Mapping[str, Report], *, n: int = 10,
                    rewritten: str | None = None) -> Explanation:
    """How ``r`` ranked ``question``: terms, each leg's top ``n``, and the fusion.

    Args:
        r: an indexed hybrid retriever.
        question: the question as typed (already checked to have searchable words).
        reports: file name -> report, for every report ``r`` indexed.
        n: passages listed per list.
        rewritten: the question as the legs read it (default: as typed).

    Returns:
        An :class:`Explanation`.

    Raises:
        QueryError: the question has no searchable words.
    """
    expanded = r.bm25.tokenize(rewritten if rewritten is not None else question)
    terms = tokenize(question)
    glossary = default_glossary()
    expansions = []
    for t in dict.fromkeys(terms):
        entry = glossary.get(t)
        if entry is not None:
            expansions.append((t, entry.expansion))
    b, v = r.leg_scores(question)
    f = r.passage_scores(question)
    out = Explanation(question=question, terms=terms, expanded_terms=expanded, expansions=expansions,
                      weight=r.weight, candidates=r.candidates, n_passages=len(r.passages),
                      rewritten=rewritten if rewritten is not None else question)
    if getattr(r, "prf", None) in ("rm3", "both"):
        out.feedback = (f"RM3 feedback: the BM25 leg also searched the {r.fb_terms} terms most frequent in its "
                        f"{r.fb_docs} best passages (weight {r.fb_weight:g}); its scores are then scaled to its "
                        "best passage, so they are not raw BM25 scores.")
    match = r.structured_match(question) if hasattr(r, "structured_match") else None
    bonus: dict[str, float] = {}
    if match is not None and match.scores:
        out.structured = f"Structured path ({match.kind}): {match.detail}".strip()
        bonus = {name: r.structured * sc for name, sc in match.scores.items()}
    out.bm25 = [_leg_row(r, reports, j, i, b[i]) for j, i in enumerate(r.top_passages(b, n), start=1)]
    out.dense = [_leg_row(r, reports, j, i, v[i]) for j, i in enumerate(r.top_passages(v, n), start=1)]
    union = []
    if r.weight < 1.0:
        union += [int(i) for i in r.top_passages(b, r.candidates)]
    if r.weight > 0.0:
        union += [int(i) for i in r.top_passages(v, r.candidates) if int(i) not in set(union)]
    bn = minmax_normalize({i: b[i] for i in union}, union)
    vn = minmax_normalize({i: v[i] for i in union}, union)
    out.fused = [
        _leg_row(r, reports, j, i, f[i], bm25=_num(b[i]), dense=_num(v[i]), bm25_norm=_num(bn.get(int(i))),
                      dense_norm=_num(vn.get(int(i))), bonus=bonus.get(r.passages[i].report, 0.0))
        for j, i in enumerate(r.top_passages(f, n), start=1)
    ]
    return out
