"""The retrieval wing: passages, the retrievers, their fusion, and the book's pipelines by name.

Modules: ``passages`` (what is indexed and returned), ``base`` (the
:class:`Retriever` interface), ``chunking``, ``lexical`` (keyword AND, BM25),
``dense``, ``adaptation`` (the linear adapter), ``fusion`` (RRF and convex
formulas), ``legs`` (what the two-leg retrievers share), ``hybrid`` (BM25 + dense, fused), ``levered`` (the hybrid with the
levers of chapter 12), ``structured`` (numeric and date questions from typed
fields), ``rowchoice`` (the row shown for a hit), ``matching`` (which words
matched), ``explain`` (how a ranking was made), ``vectorindex`` (exact and
FAISS nearest neighbours), ``pipeline`` (methods by name; the default pipeline).
Imports the embedding, reading, text and data wings.
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "Hit": "passages",
    "Passage": "passages",
    "Retriever": "base",
    "check_query": "base",
    "BM25Retriever": "lexical",
    "KeywordRetriever": "lexical",
    "DenseRetriever": "dense",
    "HybridRetriever": "hybrid",
    "TunedHybridRetriever": "levered",
    "chunk_reports": "chunking",
    "excerpt": "matching",
    "matched_words": "matching",
    "DEFAULT_LEVERS": "pipeline",
    "DEFAULT_WEIGHT": "pipeline",
    "METHODS": "pipeline",
    "build_retriever": "pipeline",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
