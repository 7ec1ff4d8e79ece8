"""Cut reports into chunks that the embedding model reads whole, each with its citation.

A whole report is a poor unit of retrieval: its tables of numbers drown the
one line that matters, and all-MiniLM-L6-v2 reads only its first 254 word
pieces (:data:`ddrsearch.embedding.encoder.CONTENT_PIECES`). Two chunkers:

* :func:`operation_chunks`: one chunk per TIME BREAKDOWN row, plus the
  header's PRESENT OPERATIONS and ACTIVITY PLANNED as chunks of their own.
  Each chunk carries the report's date, number and phase (and the row's
  times and code) as *context*, prepended when it is embedded or indexed.
* :func:`window_chunks`: fixed windows of the report's page text with
  overlap, for comparison (and for the completion report, which has no
  TIME BREAKDOWN rows).

Sizes are counted in the embedding model's own word pieces
(:class:`WordPieces`). No chunk's indexed text (context + text) exceeds the
limit: a long operation row is split at word boundaries into several chunks
(``part`` 1, 2, ...), never truncated.

Every chunk is a :class:`ddrsearch.retrieval.base.Passage` and carries its
citation: report file name, page, and operation row (index, FROM and TO
times) or character span ``(start, end)`` in ``Report.text``.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Sequence

from ddrsearch.embedding.model import CONTENT_PIECES, resolve_model
from ddrsearch.imports import import_quietly
from ddrsearch.reading.report import Report
from ddrsearch.retrieval.concepts import CONCEPT_MODES, default_tagger
from ddrsearch.retrieval.passages import Passage

__all__ = ["DEFAULT_LIMIT", "WordPieces", "chunk_reports", "operation_chunks", "window_chunks", "word_pieces"]

#: Word pieces of text (context included) that one chunk may hold: the
#: model's 256 minus [CLS] and [SEP].
DEFAULT_LIMIT = CONTENT_PIECES


class WordPieces:
    """Counts and cuts text in the embedding model's word pieces (its tokenizer, no special tokens).

    Only the tokenizer is loaded, not the model, from the folder
    :func:`ddrsearch.embedding.model.resolve_model` finds: its ``tokenizer.json``
    read by the ``tokenizers`` library, without truncation or padding (the
    same normaliser, pre-tokenizer and vocabulary as the fast tokenizer that
    transformers' ``AutoTokenizer`` wraps around that file, without importing
    transformers and PyTorch); for a model without that file, ``AutoTokenizer``.

    Args:
        model_path: explicit model folder; default as in resolve_model.
    """

    def __init__(self, model_path: str | os.PathLike | None = None):
        self.source = resolve_model(model_path)
        path = os.path.join(str(self.source.location), "tokenizer.json")
        if os.path.isfile(path):
            import tokenizers

            self._fast = tokenizers.Tokenizer.from_file(path)
            self._fast.no_truncation()
            self._fast.no_padding()
            self.tokenizer = None
        else:
            AutoTokenizer = import_quietly("transformers").AutoTokenizer  # no tqdm warning on stderr in Jupyter

            self._fast = None
            self.tokenizer = AutoTokenizer.from_pretrained(self.source.location)

    def _pieces(self, texts: list[str]) -> list[tuple[list[int], list[tuple[int, int]]]]:
        """Each text's piece ids and character offsets (no special tokens, no truncation)."""
        if self._fast is not None:
            return [(e.ids, e.offsets) for e in self._fast.encode_batch(texts, add_special_tokens=False)]
        enc = self.tokenizer(texts, add_special_tokens=False, truncation=False, verbose=False,
                             return_offsets_mapping=True)
        return list(zip(enc["input_ids"], enc["offset_mapping"], strict=True))

    def count(self, text: str) -> int:
        """Number of word pieces of ``text`` (no special tokens, no truncation)."""
        return len(self._pieces([text])[0][0])

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """:meth:`count` for many texts at once (faster), in input order."""
        if not texts:
            return []
        return [len(ids) for ids, _ in self._pieces(list(texts))]

    def split(self, text: str, limit: int, overlap: int = 0) -> list[tuple[int, int]]:
        """Cut ``text`` into character spans of at most ``limit`` word pieces each.

        Cuts fall on whitespace (a word is never split unless it alone is
        longer than ``limit`` pieces). Consecutive spans share about
        ``overlap`` pieces.

        Returns:
            ``[(start, end), ...]`` character offsets into ``text`` covering all
            of its non-space characters; ``[]`` for blank text.

        Raises:
            ValueError: ``limit < 1`` or ``overlap`` not in ``[0, limit)``.
        """
        if limit < 1 or not 0 <= overlap < limit:
            raise ValueError(f"need limit >= 1 and 0 <= overlap < limit, got limit={limit}, overlap={overlap}")
        offsets = [tuple(o) for o in self._pieces([text])[0][1]]
        if not offsets:
            return []
        # word boundaries: piece i starts a new word when a gap (whitespace) precedes it
        starts_word = [i == 0 or offsets[i][0] > offsets[i - 1][1] for i in range(len(offsets))]
        spans: list[tuple[int, int]] = []
        i, n = 0, len(offsets)
        while i < n:
            j = min(i + limit, n)
            if j < n:
                # back off to the last word start after i, so that no word is cut
                k = j
                while k > i and not starts_word[k]:
                    k -= 1
                if k > i:
                    j = k
            spans.append((offsets[i][0], offsets[j - 1][1]))
            if j >= n:
                break
            nxt = max(j - overlap, i + 1)
            while nxt > i + 1 and not starts_word[nxt]:
                nxt -= 1
            if nxt <= i:
                nxt = j
            i = nxt
        return spans


@functools.lru_cache(maxsize=4)
def word_pieces(model_path: str | None = None) -> WordPieces:
    """A shared :class:`WordPieces` (the tokenizer loads once per process)."""
    return WordPieces(model_path)


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _context(report: Report, extra: str = "", depth: bool = False) -> str:
    head = f"{report.phase} report {report.report_number}, {report.report_date.isoformat()}"
    md = report.md_ft if depth else None
    tail = f" MD {md:,.0f} ft." if md else ""
    return f"{head}{', ' + extra if extra else ''}.{tail}"


def operation_chunks(report: Report, *, pieces: WordPieces | None = None, limit: int = DEFAULT_LIMIT,
                     context: bool = True, depth: bool = False, concepts: str = "") -> list[Passage]:
    """One chunk per TIME BREAKDOWN row, plus PRESENT OPERATIONS and ACTIVITY PLANNED.

    Args:
        report: a parsed report.
        pieces: the word-piece counter (default :func:`word_pieces`).
        limit: most word pieces in a chunk's indexed text (context + text).
        context: prepend ``"Drilling report 38, 2020-11-26, 23:30-04:00, Trips."``
            (report phase, number, date, the row's times and code) so the
            chunk is understood on its own.
        depth: also end the context with the header's measured depth at
            report time (``" MD 6,507 ft."``, :attr:`Report.md_ft`), when the
            header gives one (chapters/12-improving-retrieval.ipynb measures it).
        concepts: also end the context with the plain words of the lexicon
            terms the chunk's text uses (document-side expansion,
            :mod:`ddrsearch.retrieval.concepts`): ``"plain"`` their plain
            phrasings, ``"definition"`` their definitions' heads, ``""`` none.
            Only with ``context``.

    Returns:
        Passages with ``kind`` ``"header"`` or ``"operation"``, ``page``,
        ``row``, ``start`` and ``end`` set, ids like
        ``"<file>#row8"`` (``"<file>#row8.2"`` for the second part of a long
        row). A report with no rows (the completion layout) gives
        :func:`window_chunks` instead.

    Raises:
        ValueError: a context alone leaves fewer than 16 word pieces for text;
            an unknown ``concepts``.
    """
    if concepts not in CONCEPT_MODES:
        raise ValueError(f"concepts must be one of {', '.join(map(repr, CONCEPT_MODES))}, not {concepts!r}")
    if not report.operations:
        return window_chunks(report, pieces=pieces, size=min(limit, 128), overlap=32, context=context)
    pieces = pieces or word_pieces()
    items: list[tuple[str, str, dict]] = []
    for label, value in (("PRESENT OPERATIONS", report.present_operations), ("ACTIVITY PLANNED", report.activity_planned)):
        if value.strip():
            items.append((f"{report.file_name}#{label.lower().replace(' ', '-')}", value,
                          dict(kind="header", page=1, ocr=1 in report.ocr_pages,
                               ctx=_context(report, label.lower(), depth) if context else "")))
    for row in report.operations:
        if not row.operations.strip():
            continue
        extra = f"{row.start}-{row.end or '?'}" + (f", {row.code}" if row.code else "")
        items.append((f"{report.file_name}#row{row.index}", row.operations,
                      dict(kind="operation", page=row.page, row=row.index, start=row.start, end=row.end or None,
                           ocr=row.page in report.ocr_pages, ctx=_context(report, extra, depth) if context else "")))
    out: list[Passage] = []
    tagger = default_tagger() if concepts and context else None
    for pid, text, meta in items:
        ctx = meta.pop("ctx")
        plain = tagger.plain_words(text, concepts) if tagger is not None else ""
        ctx = f"{ctx} {plain}." if plain else ctx
        budget = limit - (pieces.count(ctx) + 1 if ctx else 0)  # +1: the newline joins nothing, but be safe
        if budget < 16:
            raise ValueError(f"{report.file_name}: the chunk context {ctx!r} leaves only {budget} word pieces for text.")
        spans = pieces.split(text, budget)
        for part, (a, b) in enumerate(spans, start=1):
            out.append(Passage(
                passage_id=pid if len(spans) == 1 else f"{pid}.{part}", report=report.file_name,
                text=text[a:b], context=ctx, **meta,
            ))
    return out


def window_chunks(report: Report, *, pieces: WordPieces | None = None, size: int = 128, overlap: int = 32,
                  context: bool = True) -> list[Passage]:
    """Fixed windows of ``size`` word pieces over the report's text, overlapping by ``overlap``.

    The text is the report's :attr:`~ddrsearch.reading.report.Report.text` with
    whitespace collapsed; ``span`` gives each window's character offsets in
    that collapsed text (``" ".join(report.text.split())``).

    Args:
        size: word pieces per window, context included; at most
            :data:`DEFAULT_LIMIT`.
        overlap: word pieces shared by consecutive windows.
        context: prepend the report's phase, number and date.

    Returns:
        Passages with ``kind="window"``, ids ``"<file>#w0"``, ``"#w1"``, ...

    Raises:
        ValueError: ``size`` above the model's limit, or overlap not below size.
    """
    if size > DEFAULT_LIMIT:
        raise ValueError(f"size {size} exceeds the model's {DEFAULT_LIMIT} word pieces; the rest would be cut off")
    pieces = pieces or word_pieces()
    text = _collapse(report.text)
    ctx = _context(report, "text window") if context else ""
    budget = size - (pieces.count(ctx) + 1 if ctx else 0)
    if overlap >= budget:
        raise ValueError(f"overlap {overlap} must be below the {budget} word pieces left after the context")
    return [
        Passage(passage_id=f"{report.file_name}#w{i}", report=report.file_name, text=text[a:b],
                page=1 if len(report.pages) == 1 else None, kind="window", span=(a, b), context=ctx,
                ocr=bool(report.ocr_pages))
        for i, (a, b) in enumerate(pieces.split(text, budget, overlap))
    ]


def chunk_reports(reports: Iterable[Report], method: str = "operation", **options) -> list[Passage]:
    """Chunk many reports: ``method`` ``"operation"`` (:func:`operation_chunks`) or ``"window"``.

    Raises:
        ValueError: unknown method.
    """
    if method == "operation":
        fn = operation_chunks
    elif method == "window":
        fn = window_chunks
    else:
        raise ValueError(f"Unknown chunking method {method!r}: use 'operation' or 'window'.")
    out: list[Passage] = []
    for r in reports:
        out.extend(fn(r, **options))
    return out
