"""The book's retrieval pipelines, by name, over a list of reports.

:func:`build_retriever` is what the command line, the evaluation harness and
the later chapters call. The **default pipeline** is ``"hybrid"``, taught in
chapters/09-hybrid-retrieval.ipynb and configured in
chapters/12-improving-retrieval.ipynb, where its weight and levers were chosen
on the development questions: operation-row chunks (:func:`ddrsearch.retrieval.chunking.operation_chunks`)
searched by BM25 (with the glossary's abbreviation expansion) and by dense
retrieval, fused by a convex combination of min-max normalised scores with
dense weight :data:`DEFAULT_WEIGHT`, and rolled up to reports by their best
chunk, with the levers of :data:`DEFAULT_LEVERS`
(:class:`ddrsearch.retrieval.levered.TunedHybridRetriever`).

Units per method when ``unit="auto"``: ``keyword``, ``bm25`` and ``dense`` index
whole reports (as Chapters 2 to 4 do); ``hybrid`` indexes operation chunks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ddrsearch.reading.report import Report
from ddrsearch.retrieval.base import Retriever
from ddrsearch.retrieval.chunking import chunk_reports
from ddrsearch.retrieval.dense import DenseRetriever
from ddrsearch.retrieval.levered import TunedHybridRetriever
from ddrsearch.retrieval.lexical import BM25Retriever, KeywordRetriever

__all__ = [
    "DEFAULT_LEVERS",
    "DEFAULT_PIPELINE",
    "DEFAULT_WEIGHT",
    "METHODS",
    "PLAIN_WEIGHT",
    "UNITS",
    "build_retriever",
    "make_retriever",
    "passages_for",
]

#: Dense weight of the default hybrid pipeline (0 = pure BM25, 1 = pure dense).
#: Chosen in chapters/12-improving-retrieval.ipynb by sweeping the weight of the
#: pipeline with its levers on the *development* questions of
#: ``datasets/eval/archive.yaml`` (never the held-out ones).
DEFAULT_WEIGHT = 0.6

#: Dense weight of the *plain* hybrid (BM25 with expansion + dense, none of the
#: levers below), as chapters/09-hybrid-retrieval.ipynb sweeps it on the
#: development questions; the default pipeline's own weight is DEFAULT_WEIGHT.
PLAIN_WEIGHT = 0.5

#: The levers of chapters/12-improving-retrieval.ipynb kept on the development
#: questions (each measured one at a time; the chapter shows the table):
#: a candidate pool of every passage, Snowball stemming and abbreviation
#: expansion in BM25, *while* dropped by BM25 as a stop word (a conjunction
#: that chapters/03-keyword-search.ipynb caught outweighing "stuck"; no
#: development metric changes), the asker's shorthand spelled out, RM3
#: feedback for BM25, the structured path for numeric and date questions,
#: term proximity for a quantity typed with its unit and label ("DIFF 250
#: psi" finds the row printing ``DIFF 250psi``; no development, held-out or
#: fresh question holds such a quantity, so no measured figure changes),
#: the row that answers the question shown for each hit: its question
#: words weighed by their rarity among the report's own rows (``"local"``,
#: :mod:`ddrsearch.retrieval.rowchoice`; it chose that rule over ``"answer"`` on dev),
#: and the printed terms of the five lexicon entries whose definitions or plain
#: phrasings are nearest the question by meaning (similarity at least 0.5),
#: added to the BM25 query with weight 0.6 times their similarity, unless the
#: question's best BM25 passage already holds 70% of its IDF weight (the gate
#: keeps "stuck pipe" on the row that says it)
#: (:mod:`ddrsearch.retrieval.lexicon_match`; chosen on the development
#: questions of the archive and zero-overlap sets pooled, ``benchmarks/plain_levers.py``),
#: and, in the structured path, a loose date ("late November", "mid Nov", "before spud",
#: :func:`ddrsearch.retrieval.structured.loose_period`) giving every report covering the
#: period a score of 0.3 (an exact date's is 1; chosen the same way, variant "loose dates 0.3"
#: of :data:`ddrsearch.evaluation.leverbench.PLAIN_VARIANTS`), and a well section ("in the
#: 12-1/4", "in the curve", "at the toe": :class:`ddrsearch.retrieval.sections.WellSections`,
#: from the bit sizes and survey inclinations the reports print) giving every report drilled
#: in it 0.3 when the question has no other structured pattern (variant "sections 0.3", the
#: value of the loose dates, fixed before measuring). A depth written without its
#: unit (``bare_depths``) stays off: two questions moved, its interval reaches zero.
DEFAULT_LEVERS: dict = {
    "candidates": None,
    "bm25_options": {"expand": True, "stem": True, "stop_extra": ["while"]},
    "asker": True,
    "prf": "rm3",
    "structured": 1.0,
    "proximity": 1.0,
    "numbers": "units",
    "row": "local",
    "lexicon": 0.6,
    "lexicon_k": 5,
    "lexicon_gate": 0.7,
    "loose_dates": 0.3,
    "sections": 0.3,
}

#: One-line description of the default pipeline, for tables and help texts.
DEFAULT_PIPELINE = (
    f"hybrid: BM25 (abbreviations expanded, stemmed, 'while' dropped, RM3) + dense over operation-row chunks, "
    f"convex fusion with dense weight {DEFAULT_WEIGHT} over every passage, asker's shorthand spelled out, "
    f"typed fields for numeric and date questions (a loose date: the period's reports; a well section: its reports), a quantity typed with its unit matched beside its label, "
    f"the lexicon's terms nearest the question by meaning added to BM25 when its own words find no row"
)

UNITS = ("auto", "report", "operation", "window")

#: Method name -> retriever class, for :func:`make_retriever` and the command line.
METHODS: dict[str, Callable[..., Retriever]] = {
    "keyword": KeywordRetriever,
    "bm25": BM25Retriever,
    "dense": DenseRetriever,
    "hybrid": TunedHybridRetriever,
}


def make_retriever(method: str, **options) -> Retriever:
    """Create a retriever by method name (not yet indexed).

    Args:
        method: one of :data:`METHODS`: ``"keyword"``, ``"bm25"``, ``"dense"``,
            ``"hybrid"`` (:class:`ddrsearch.retrieval.hybrid.HybridRetriever`).
        **options: passed to the retriever's constructor.

    Raises:
        ValueError: unknown method (the message lists the known ones), or an
            option the method does not take (e.g. ``rig_terms`` for ``"bm25"``).
    """
    try:
        factory = METHODS[method]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown retrieval method {method!r}; choose one of: {', '.join(METHODS)}.") from None
    try:
        return factory(**options)
    except TypeError as exc:
        if "unexpected keyword argument" not in str(exc):
            raise
        raise ValueError(f"The {method!r} method takes no such option ({exc}). The levers of the default "
                         "pipeline (rig_terms, asker, prf, structured, row, ...) belong to 'hybrid'.") from None


def passages_for(reports: Sequence[Report], unit: str):
    """The passages to index for a unit: ``"report"`` (the reports themselves), ``"operation"`` or ``"window"`` chunks.

    Raises:
        ValueError: unknown unit.
    """
    if unit == "report":
        return list(reports)
    if unit in ("operation", "window"):
        return chunk_reports(reports, unit)
    raise ValueError(f"Unknown unit {unit!r}; choose one of {', '.join(UNITS)}.")


def build_retriever(method: str, reports: Sequence[Report], *, unit: str = "auto", **options) -> Retriever:
    """Build and index a retriever by method name over ``reports``.

    Args:
        method: ``"keyword"``, ``"bm25"``, ``"dense"`` or ``"hybrid"``.
        reports: the reports to search.
        unit: ``"auto"`` (see the module docstring), ``"report"``,
            ``"operation"`` or ``"window"``.
        **options: passed to the retriever (e.g. ``expand=True`` for BM25,
            ``weight=0.5`` or ``fusion="rrf"`` for hybrid). For ``"hybrid"``
            the weight defaults to :data:`DEFAULT_WEIGHT` and the levers to
            :data:`DEFAULT_LEVERS` (pass ``prf=None``, ``structured=0`` ... to
            switch one off; ``dense_options={"model_path": ...}`` to use
            another embedding model, such as a domain-adapted one;
            ``rig_terms=True`` or ``rig_terms="my_rig_terms.csv"`` to add a
            rig-terms table, :func:`ddrsearch.text.rewriting.add_rig_terms`).

    Returns:
        The indexed retriever; whole-report hits show their best matching
        line (the reports are attached).

    Raises:
        ValueError: unknown method or unit.
    """
    if method not in METHODS:
        raise ValueError(f"Unknown retrieval method {method!r}; choose one of: {', '.join(METHODS)}.")
    if unit == "auto":
        unit = "operation" if method == "hybrid" else "report"
    if method == "hybrid":
        options.setdefault("weight", DEFAULT_WEIGHT)
        for key, value in DEFAULT_LEVERS.items():
            options.setdefault(key, dict(value) if isinstance(value, dict) else value)
    retriever = make_retriever(method, **options)
    retriever.index(passages_for(reports, unit))
    retriever.attach_reports(reports)
    return retriever
