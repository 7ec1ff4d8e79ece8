"""ddrsearch: search daily drilling reports (DDRs) and measure how well the search works.

The package behind the book *Searching daily drilling reports*. It reads the
Utah FORGE well 16A(78)-32 reports (PDF, WellEz layout) with PyMuPDF, builds
keyword, BM25, dense and hybrid retrievers over them, scores retrieval with
recall@k, MRR and NDCG@k, and answers questions with the report rows that
support them.

The wings, in the order the data travels (each imports only the ones before it):
``data`` (where the reports live, fetching them), ``text`` (words, rig
shorthand, spelling, query rewriting), ``reading`` (a PDF into a
:class:`Report`), ``embedding`` (the model and its vectors), ``retrieval``
(passages, retrievers, fusion, the pipelines by name), ``stores`` (the index
on disk, PostgreSQL), ``evaluation`` (question sets, metrics, intervals),
``answers`` (answer cards with their sources), ``app`` (the web page),
``book`` (what the chapters use) and ``cli`` (the ``ddrsearch`` command).
Below them all: :mod:`ddrsearch.errors`, :mod:`ddrsearch.settings`,
:mod:`ddrsearch.hashing`, :mod:`ddrsearch.imports`, :mod:`ddrsearch.checks`,
:mod:`ddrsearch.resident` (a resident process on a Unix socket, for ``ddrsearch serve``).

The public API is :data:`__all__`; each name is imported on first use, so
``import ddrsearch`` is cheap.
"""

__version__ = "0.1.0"

_EXPORTS = {
    "Report": "reading", "read_report": "reading", "read_reports": "reading", "load_archive": "reading",
    "short_name": "reading", "row_id": "reading",
    "archive_dir": "data", "corpus_paths": "data", "sample_paths": "data", "load_manifest": "data",
    "tokenize": "text",
    "Hit": "retrieval", "Passage": "retrieval", "Retriever": "retrieval", "build_retriever": "retrieval",
    "DEFAULT_LEVERS": "retrieval", "DEFAULT_WEIGHT": "retrieval",
    "build_index": "stores", "open_index": "stores", "add_reports": "stores",
    "load_questions": "evaluation", "evaluate_retriever": "evaluation", "compare": "evaluation",
    "Answerer": "answers", "AnswerCard": "answers",
    "DDRSearchError": "errors",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def _export(name: str):
    import importlib

    wing = _EXPORTS.get(name)
    if wing is None:
        raise AttributeError(f"module 'ddrsearch' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"ddrsearch.{wing}"), name)
    globals()[name] = value
    return value


def __getattr__(name: str):
    return _export(name)


def __dir__() -> list[str]:
    return sorted(set(__all__) | set(globals()))
