"""A search session for the web app: the reports and the default pipeline loaded once, and one search explained.

:func:`load_search` reads a set of reports (the ten-report sample, the
76-report archive, or a folder of the user's own PDFs) and indexes them once
with the book's default pipeline (:func:`ddrsearch.retrieval.pipeline.build_retriever`
with method ``"hybrid"``: BM25 with abbreviation expansion plus dense
retrieval over operation-row chunks, convex fusion), or takes that
pipeline from the index on disk (``ddrsearch index build``, Chapter 14)
when there is one and it is current. A stale or damaged index is not used:
the session's ``index_note`` says why and how to rebuild it, and the page
shows that sentence.

A :class:`SearchSession` then answers, for one question:

* :meth:`~SearchSession.search`: the ``k`` best reports by one method
  (``"pipeline"``, ``"bm25"`` or ``"dense"``; the last two are the
  pipeline's own legs, over the same operation rows), each as a
  :class:`ResultRow` carrying the row quoted verbatim, its row id, the words
  that matched and the three per-passage signals: the BM25 score (a sum of
  term weights, unbounded), the dense score (cosine similarity, -1 to 1) and
  the fused score (0 to 1, see :mod:`ddrsearch.retrieval.fusion`);
* :meth:`~SearchSession.explain`: how the ranking was made
  (:class:`Explanation`): the question's terms before and after shorthand
  expansion, each leg's top 10 and the fusion of the two;
* :meth:`~SearchSession.ask`: the answer card (:class:`ddrsearch.answers.answerer.Answerer`);
* :meth:`~SearchSession.stale_reasons`: PDFs added, removed or rewritten since indexing.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import os
import re
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ddrsearch.answers.answerer import AnswerCard, Answerer
from ddrsearch.answers.sources import RowCrops
from ddrsearch.data.folders import corpus_paths
from ddrsearch.embedding.encoder import (
    QUERY_THREADS,
    query_threads,
)  # re-exported: the app and tests import them from here
from ddrsearch.errors import DataNotFoundError, FolderWarning, QueryError, SearchIndexError
from ddrsearch.reading.names import row_id, short_name
from ddrsearch.reading.report import Report, load_archive, read_reports
from ddrsearch.retrieval.base import check_query
from ddrsearch.retrieval.explain import Explanation, LegRow, explain_ranking
from ddrsearch.retrieval.hybrid import HybridRetriever
from ddrsearch.retrieval.levered import TunedHybridRetriever
from ddrsearch.retrieval.matching import matched_words
from ddrsearch.retrieval.pipeline import build_retriever

__all__ = [
    "METHODS",
    "QUERY_THREADS",
    "Explanation",
    "LegRow",
    "ResultRow",
    "SearchSession",
    "inert",
    "load_search",
    "query_threads",
    "read_folder",
]

#: What could start Markdown, HTML or Streamlit markup inside a line: links and images (``[ ]``), raw HTML and
#: entities (``< > &``), code (`````), emphasis and strikethrough (``*``, ``~``, an ``_`` at a word's edge), math
#: (``$``), tables (``|``), escapes (``\\``), Streamlit's ``:red[...]``, ``:material/...:`` and emoji (a ``:`` before a
#: letter), and autolinks (``http://``: a ``:`` before ``/``; ``www.``; ``name@host``).
_MARKUP = re.compile(r"[\\`*\[\]<>&|~$]|:(?=[A-Za-z/])|:(?=[0-9+\-][\w+]*:)|(?<![^\W_])_|_(?![^\W_])"
                     r"|(?<=[Ww]{3})\.|(?<=[A-Za-z0-9._+\-])@(?=[A-Za-z0-9_\-])|(?<=_)@")
#: What opens a block at the start of a line: lists, quotes, headings, rules, ordered lists (``1.``), tables.
_LINE_START = re.compile(r"^([ \t]*)([-+=>#.)_]|\d+[.)])", re.MULTILINE)


def _reference(match: re.Match) -> str:
    """One markup character as a numeric character reference (``[`` -> ``&#91;``)."""
    return f"&#{ord(match.group(0))};"


#: Where GFM's autolink literals would start once Streamlit has decoded the references (its remark-gfm links
#: ``http://``, ``www.`` and ``a@b.c`` in the decoded text of each text node): the first ``/`` of ``://``, the
#: third ``w`` of ``www.`` (an e-mail address: :data:`_EMAIL_SPLIT`); and, for an emoji
#: shortcode (``:100:``, ``:+1:``, which Streamlit replaces in the decoded text too), the first letter or
#: digit after its opening colon. Each is put in emphasis (``*/*``), which ends the text
#: node there, so no node holds a whole autolink; the characters themselves are unchanged (copying gives them).
_AUTOLINK_START = re.compile(r"(?<=&#58;)/(?=/)|(?<=[Ww]{2})[Ww](?=&#46;)"
                             r"|(?<=&#58;)[0-9A-Za-z](?=[\w+\-]*:)|(?<=&#58;[+\-])[0-9A-Za-z](?=[\w+\-]*:)")
#: An e-mail address's split: the first letter or digit of its domain (after any ``-`` or ``_``, which
#: emphasis cannot hold), so no text node holds both the ``@`` and a domain.
_EMAIL_SPLIT = re.compile(r"(&#64;(?:-|&#95;)*)([A-Za-z0-9])")


def inert(text: str, *, in_html: bool = False) -> str:
    """``text`` made inert for Streamlit's Markdown (``st.markdown``, ``st.caption``, ``st.info``, ...): shown as is.

    Text from reports, models, file names and questions is data: every
    character that could start markup (an image ``![p](url)``, a link, raw
    HTML ``<img src=...>``, an autolink ``http://...`` or ``www.``, emphasis,
    Streamlit's ``:red[...]``) becomes a numeric HTML character reference
    (``[`` -> ``&#91;``), which Markdown shows as the character itself, in
    text and inside HTML alike. Streamlit's Markdown decodes references before
    it finds autolink literals, so one character of each (``http://``,
    ``www.``, ``a@b``) is also put in emphasis (``http&#58;*/*/``), which splits
    the text where the link would start: what is shown and copied is the text's
    own characters. Control characters are removed
    (:func:`ddrsearch.answers.generation.strip_controls`); newlines are kept.

    Args:
        text: the data.
        in_html: the result goes inside an HTML block (``<blockquote>...``), where Markdown finds no
            autolink and emphasis would show its ``*``: no emphasis is added.

    >>> inert("![p](http://127.0.0.1:1/x.png) <img src=x>")
    '!&#91;p&#93;(http&#58;*/*/127.0.0.1:1/x.png) &#60;img src=x&#62;'
    """
    from ddrsearch.answers.generation import strip_controls

    text = _MARKUP.sub(_reference, strip_controls(text))
    text = _LINE_START.sub(lambda m: m.group(1) + "".join(f"&#{ord(c)};" for c in m.group(2)), text)
    if in_html:
        return text
    return _EMAIL_SPLIT.sub(r"\1*\2*", _AUTOLINK_START.sub(lambda m: f"*{m.group(0)}*", text))


#: Method key -> what the page calls it.
METHODS: dict[str, str] = {
    "pipeline": "Default pipeline (BM25 + dense, fused)",
    "bm25": "BM25 (words, abbreviations expanded)",
    "dense": "Dense (meaning, all-MiniLM-L6-v2)",
}

#: What each signal is, for labels and help texts (never a percentage or a confidence).
SIGNALS: dict[str, str] = {
    "bm25": "BM25 score: sum over the question's terms of IDF x saturated term frequency; "
            "unbounded, comparable only within one question; blank when the row shares no term",
    "dense": "dense score: cosine similarity of the row's and the question's embeddings, -1 to 1",
    "fused": "fused score: (1 - w) x BM25 leg + w x dense leg, each min-max scaled to 0-1 over both legs' "
             "candidates (0 to 1), plus the structured path's bonus for numeric and date questions",
}


def _num(x: float) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def _fingerprint(paths: Sequence[Path]) -> dict[str, tuple[int, int]]:
    out = {}
    for p in paths:
        st = p.stat()
        out[str(p)] = (st.st_size, st.st_mtime_ns)
    return out


def _pdfs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower() == ".pdf" and p.is_file())


@dataclass(frozen=True)
class ResultRow:
    """One hit of :meth:`SearchSession.search`: a report and the passage that earned its rank.

    Attributes:
        rank: from 1.
        report: the report's file name; ``path`` its PDF.
        label: ``D049``; ``report_number`` and ``date`` from its header.
        kind: ``"operation"`` (a TIME BREAKDOWN row), ``"header"`` (PRESENT
            OPERATIONS or ACTIVITY PLANNED) or ``"window"`` (page text of a
            report without rows).
        page: page number from 1 (``None`` when unknown).
        row: row index from 0 and ``row_id`` (``D049-r05``) for an operation
            row, else ``None``; ``start`` and ``end``: its FROM and TO times.
        text: the row's whole OPERATIONS text as printed (a long row indexed
            in parts is quoted whole), or the passage's text otherwise.
        terms: the question's search terms (as BM25 writes them: expanded, stemmed) found in ``text``.
        marked: the words of ``text``, as printed, that hold one of ``terms`` (highlighted).
        bm25, dense, fused: the shown passage's three signals (see
            :data:`SIGNALS`); ``None`` where the leg did not retrieve it.
        rank_score: the score the report was ranked by (its best passage's
            fused score, plus any bonus of the pipeline's levers). The shown
            row is the one that answers the question (``row`` option of the
            pipeline), not always the best-scored passage, so its ``fused``
            can be lower than a report ranked below it.
    """

    rank: int
    report: str
    path: Path
    label: str
    report_number: int
    date: dt.date
    kind: str
    page: int | None
    row: int | None
    row_id: str | None
    start: str | None
    end: str | None
    text: str
    terms: tuple[str, ...]
    marked: tuple[str, ...]
    bm25: float | None
    dense: float | None
    fused: float | None
    rank_score: float | None = None

    @property
    def where(self) -> str:
        """``row 5, 2020-12-06 14:00-19:00`` (the row's real day,
        :func:`ddrsearch.reading.layout.row_when`) or the passage kind."""
        if self.row is not None:
            from ddrsearch.reading.layout import row_when

            return f"row {self.row}, {row_when(self.date, self.start, self.end)}"
        return {"header": "report header", "window": "page text"}.get(self.kind, self.kind)

    @property
    def citation(self) -> str:
        """One line to paste: row id (or label), report number and date, the row's real day and
        FROM-TO, page, file, and the quote: ``[D049-r05] report 49 dated 2020-12-07, 2020-12-06
        14:00-19:00, page 1 (<file>): "<text>"``."""
        from ddrsearch.reading.layout import row_when

        ident = self.row_id or self.label
        times = f", {row_when(self.date, self.start, self.end)}" if self.start else ""
        page = f", page {self.page}" if self.page else ""
        return (f'[{ident}] report {self.report_number} dated {self.date.isoformat()}{times}{page} '
                f'({self.report}): "{self.text}"')

    def segments(self) -> list[tuple[str, bool]]:
        """``text`` cut into ``(piece, matched)`` pieces: each word that holds a search term is its own piece."""
        wanted = set(self.marked)
        out: list[tuple[str, bool]] = []
        pos = 0
        for m in re.finditer(r"\S+", self.text):
            if m.group(0) in wanted:
                if m.start() > pos:
                    out.append((self.text[pos:m.start()], False))
                out.append((m.group(0), True))
                pos = m.end()
        if pos < len(self.text):
            out.append((self.text[pos:], False))
        return out

    @property
    def marked_words(self) -> tuple[str, ...]:
        """The words of ``text`` that hold a search term (``TIH`` for a question about tripping in), as printed."""
        return self.marked


class SearchSession:
    """The reports and their indexed default pipeline, ready to answer many questions.

    Build one with :func:`load_search`. Attributes: ``source`` (what is
    searched, in words), ``paths`` (the PDFs indexed), ``folder`` (the folder
    they are in), ``reports``, ``retriever`` (the
    :class:`~ddrsearch.retrieval.hybrid.HybridRetriever`), ``answerer`` and
    ``load_seconds`` (wall time to read and index) and ``skipped`` (one line per
    PDF of the folder that could not be read: its name and why).
    """

    def __init__(self, reports: Sequence[Report], retriever: HybridRetriever | TunedHybridRetriever, *, source: str,
                 paths: Sequence[Path], folder: Path | None = None, load_seconds: float = 0.0):
        self.reports = list(reports)
        self.by_name = {r.file_name: r for r in self.reports}
        self.retriever = retriever
        self.answerer = Answerer(self.reports, retriever)
        self.source = source
        self.paths = [Path(p) for p in paths]
        self.folder = folder
        self.load_seconds = load_seconds
        self.index_note = ""  # set by load_search when the index on disk is stale or damaged
        self.skipped: list[str] = []  # set by load_search: the folder's PDFs left out, each with why
        self._fingerprint = _fingerprint(self.paths)
        self._position = {p.passage_id: i for i, p in enumerate(retriever.passages)}
        self._crops = RowCrops()  # crop_row's: each PDF opened once, each row rendered once
        # BM25's terms of a row's text or of one of its words, cut once per session (the rows shown and marked)
        self._tokens = functools.lru_cache(maxsize=65536)(lambda text: tuple(retriever.bm25.tokenize(text)))

    # --- freshness ----------------------------------------------------------------------
    def stale_reasons(self) -> list[str]:
        """What changed on disk since the reports were indexed; empty when nothing did.

        For a folder: PDFs added to it, removed from it, or rewritten (size or
        modification time differ). For the sample or archive: listed PDFs
        removed or rewritten.
        """
        reasons: list[str] = []
        now = self.paths if self.folder is None or not self.folder.is_dir() else _pdfs(self.folder)
        added = sorted(p.name for p in now if str(p) not in self._fingerprint)
        if self.folder is not None and added:
            reasons.append(f"{len(added)} PDF(s) added: {', '.join(added[:3])}{' ...' if len(added) > 3 else ''}")
        removed, changed = [], []
        for name, (size, mtime) in self._fingerprint.items():
            try:
                st = os.stat(name)
            except OSError:
                removed.append(Path(name).name)
                continue
            if (st.st_size, st.st_mtime_ns) != (size, mtime):
                changed.append(Path(name).name)
        if removed:
            reasons.append(f"{len(removed)} PDF(s) removed: {', '.join(removed[:3])}{' ...' if len(removed) > 3 else ''}")
        if changed:
            reasons.append(f"{len(changed)} PDF(s) changed: {', '.join(changed[:3])}{' ...' if len(changed) > 3 else ''}")
        return reasons

    # --- one question -------------------------------------------------------------------
    def _leg(self, method: str):
        legs = {"pipeline": self.retriever, "bm25": self.retriever.bm25, "dense": self.retriever.dense}
        if method not in legs:
            raise ValueError(f"Unknown method {method!r}; choose one of: {', '.join(METHODS)}.")
        return legs[method]

    def rewrite(self, question: str) -> str:
        """The question as the pipeline's legs read it (the tuned pipeline spells out the asker's shorthand)."""
        rewrite = getattr(self.retriever, "rewrite", None)
        return rewrite(question) if rewrite is not None else question

    def terms(self, question: str) -> list[str]:
        """The question's search terms as BM25 matches them (shorthand expanded; stemmed when BM25 stems).

        Raises:
            QueryError: empty, or no searchable words (punctuation or stop words only).
        """
        check_query(question)
        terms = self.retriever.bm25.tokenize(self.rewrite(question))
        if not terms:
            raise QueryError(f"The question {question!r} has no searchable words (only stop words or punctuation): "
                             "type the words a report would use, e.g. 'packers failed to set'.")
        return terms

    def signals(self, question: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(bm25, dense, fused)`` passage scores for ``question``, each of shape ``(n_passages,)``; nan = not retrieved.

        ``bm25`` is the BM25 score of the rewritten question (sum of term
        weights, before any feedback), ``dense`` its cosine similarity, and
        ``fused`` the pipeline's own fused score.
        """
        q = self.rewrite(question)
        with query_threads():
            return (self.retriever.bm25.passage_scores(q), self.retriever.dense.passage_scores(q),
                    self.retriever.passage_scores(question))

    def marks(self, text: str, terms: set[str]) -> tuple[str, ...]:
        """The words of ``text`` (as printed) that BM25's tokenizer turns into one of ``terms``."""
        words = matched_words(text, terms, self._tokens)
        return tuple(dict.fromkeys(text[start:end] for start, end, held in words if held))

    def search(self, question: str, method: str = "pipeline", k: int = 5) -> list[ResultRow]:
        """The ``k`` best reports for ``question`` by ``method``, each with its best passage and three signals.

        Args:
            question: the question or words to search for.
            method: ``"pipeline"`` (default), ``"bm25"`` or ``"dense"`` (:data:`METHODS`).
            k: reports to return, at least 1.

        Raises:
            QueryError: empty question, or nothing searchable in it.
            ValueError: unknown method or ``k < 1``.
        """
        terms = set(self.terms(question))
        with query_threads():
            hits = self._leg(method).search(question, k=k)
        b, v, f = self.signals(question)
        out = []
        for h in hits:
            i = self._position[h.passage_id]
            p = self.retriever.passages[i]
            report = self.by_name[h.report]
            op = report.operations[p.row] if p.kind == "operation" and p.row is not None else None
            text = op.operations if op is not None else p.text
            held = set(self._tokens(text))
            out.append(ResultRow(
                rank=h.rank, report=report.file_name, path=Path(report.path), label=short_name(report),
                report_number=report.report_number, date=report.report_date, kind=p.kind, page=p.page,
                row=op.index if op is not None else None, row_id=row_id(report, op) if op is not None else None,
                start=op.start if op is not None else None, end=op.end if op is not None else None,
                text=text, terms=tuple(sorted(terms & held)), marked=self.marks(text, terms),
                bm25=_num(b[i]), dense=_num(v[i]), fused=_num(f[i]), rank_score=_num(h.score),
            ))
        return out

    def explain(self, question: str, n: int = 10) -> Explanation:
        """How the default pipeline ranked ``question`` (:func:`ddrsearch.retrieval.explain.explain_ranking`).

        Raises:
            QueryError: as :meth:`search`.
        """
        self.terms(question)
        with query_threads():
            return explain_ranking(self.retriever, question, self.by_name, n=n, rewritten=self.rewrite(question))

    def ask(self, question: str, k: int = 5) -> AnswerCard:
        """The answer card for ``question`` (:meth:`ddrsearch.answers.answerer.Answerer.ask`)."""
        with query_threads():
            return self.answerer.ask(question, k=k)

    def crop(self, hit: ResultRow, zoom: float = 2.0) -> bytes | None:
        """PNG of ``hit``'s row as printed, matched words highlighted; ``None`` for a hit that is not a row."""
        if hit.row is None:
            return None
        return self.crop_row(hit.report, hit.row, hit.marked_words, zoom=zoom)

    def crop_row(self, report: str, row: int, words: Sequence[str] = (), zoom: float = 2.0) -> bytes:
        """PNG of row ``row`` of the report named ``report`` (:func:`ddrsearch.answers.sources.row_crop`), ``words`` highlighted.

        Drawn by one :class:`ddrsearch.answers.sources.RowCrops` per session: each PDF
        opened once and each row rendered once, the highlights painted per call.
        """
        return self._crops.png(self.by_name[report], row, words, zoom=zoom)


def _disk_index(corpus, folder, paths, archive=None):
    """The index on disk (``ddrsearch index build``) when it is current, else ``None``, with a note.

    Returns ``(index, note)``: the opened :class:`~ddrsearch.stores.disk_index.SearchIndex`
    and ``""``; or ``None`` (build in memory) and ``""`` when there is no index; or ``None``
    and a sentence saying why the index is stale or damaged and how to rebuild it
    (:func:`ddrsearch.stores.disk_index.check_index` decides, as for the command line).
    """
    from ddrsearch.stores.disk_index import check_index, default_index_dir

    where = default_index_dir(None if folder is not None else corpus, folder, archive)
    rebuild = f"ddrsearch index build {f'--dir {folder}' if folder is not None else f'--corpus {corpus}'}"
    check = check_index(where, paths)
    if check.error is not None:
        return None, f"The index on disk was not used: {check.error}"
    if check.reasons:
        return None, (f"The index on disk ({where}) is stale: {'; '.join(check.reasons[:3])}. Rebuild it with: "
                      f"{rebuild} (this page searches the PDFs without it meanwhile).")
    return check.index, ""


def read_folder(folder: Path) -> tuple[list[Report], list[str]]:
    """The readable reports of a folder and one line per file left out, as ``ddrsearch search --dir`` reads it.

    :func:`ddrsearch.reading.report.load_archive` with ``on_error="skip"``; its
    :class:`~ddrsearch.errors.FolderWarning` per refused file (``"<name> skipped,
    not searched: <why>"``) is returned instead of printed; other warnings pass on.

    Raises:
        DataNotFoundError: no PDF in the folder. ReportError: no file could be read (every one named).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", FolderWarning)
        reports = load_archive(folder, on_error="skip")
    skipped = []
    for w in caught:
        if issubclass(w.category, FolderWarning):
            skipped.append(str(w.message))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return reports, skipped


def load_search(corpus: str = "sample", folder: str | os.PathLike | None = None, *,
                archive: str | os.PathLike | None = None) -> SearchSession:
    """Read the reports and index them with the default pipeline, once.

    Args:
        corpus: ``"sample"`` (ten reports) or ``"archive"`` (all 76), from
            ``archive`` (default ``DDRSEARCH_ARCHIVE_DIR`` or ``datasets/forge_archive``).
        folder: a folder of the user's own report PDFs instead of ``corpus``.

    Returns:
        A :class:`SearchSession`.

    Raises:
        DataNotFoundError: the folder does not exist, cannot be listed or
            holds no PDF; the sample or archive is not fetched.
        ReportError: a PDF of the sample or archive cannot be read, or no PDF of
            ``folder`` can (the message names them); a folder's unreadable PDFs are
            left out and named in the session's ``skipped``.
        ValueError: unknown corpus.
    """
    start = time.perf_counter()
    skipped: list[str] = []
    if folder is not None:
        where = Path(folder).expanduser()
        try:
            paths = _pdfs(where) if where.is_dir() else []
        except OSError as exc:
            raise DataNotFoundError(f"The folder {where} cannot be read ({exc.strerror or exc}); "
                                    "check its permissions or give another folder.") from None
        base = where
    else:
        paths = corpus_paths(corpus, archive)
        base = None
    index, index_note = _disk_index(corpus, folder, paths, archive if folder is None else None) \
        if paths else (None, "")
    reports = None
    if index is not None:
        try:
            reports = index.load_reports()
        except SearchIndexError as exc:  # damaged records: the page says so, then reads the PDFs
            index_note = f"The index on disk was not used: {exc}"
    if reports is not None:  # a current index with the reports' records: no PDF is read
        retriever = index.retriever.attach_reports(reports)
    else:
        if folder is not None:  # one bad file is left out and named, as ddrsearch search --dir does
            reports, skipped = read_folder(base)
        else:
            reports = read_reports(paths)
        retriever = build_retriever("hybrid", reports)
    n = len(reports)
    if folder is not None:
        source = f"folder {base} ({n} reports)"
    else:
        source = f"the ten-report sample ({n} reports)" if corpus == "sample" else f"the archive ({n} reports)"
    with query_threads():
        # one search now loads the embedding model and builds what the pipeline builds at its first
        # question (the tuned pipeline's structured index and IDF table), so no question waits for them
        retriever.search("trip in hole to bottom", k=1)
        prepare = getattr(retriever, "prepare_rows", None)
        if prepare is not None:  # the row choice's terms of every report, so no question tokenizes them
            prepare()
    session = SearchSession(reports, retriever, source=source, paths=paths, folder=base)
    session.index_note = index_note
    session.skipped = skipped
    session.answerer.idf("warm")  # the answer card's document frequencies, counted once here
    session.load_seconds = time.perf_counter() - start
    return session
