"""The answers wing: report rows that answer a question, quoted with their sources, and what checks them.

Modules: ``answerer`` (the answer card, evidence and support, the refusal
threshold), ``sources`` (crops of cited rows, verbatim quote checks),
``generation`` (an optional generated answer and its citation check),
``patterns`` (jumps and sequences across days), ``cards`` (a card as a table at the page width, the crop
of its first row), ``rowsearch`` (chapter 5's first answerer over a few reports),
``refusals`` (refusal rules compared by balanced accuracy). Imports the stores and retrieval wings and those before.
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "ANSWER_THRESHOLD": "answerer",
    "AnswerCard": "answerer",
    "Answerer": "answerer",
    "row_crop": "sources",
    "verify_row": "sources",
    "check_citations": "generation",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
