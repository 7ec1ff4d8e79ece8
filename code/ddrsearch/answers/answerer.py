"""Extractive answers: the report rows that answer a question, quoted verbatim with their sources.

An *answer card* (:class:`AnswerCard`) is what an engineer reads instead of a
ranked list of reports: the TIME BREAKDOWN rows that support the answer, each
quoted exactly as printed, with its report number, date, FROM-TO times, page
and a stable row id such as ``D038-r08`` (drilling report 38, row 8, rows
counted from 0). Nothing is paraphrased, so nothing can be invented
(chapters/10-traceable-answers.ipynb; chapter 5 builds a first card over the
ten-report sample with :mod:`ddrsearch.answers.rowsearch`).

Why one module: the card, the evidence and support of a row, the threshold
calibrated on them and the question's date order are one decision (which
rows answer, and whether any does); split, each part would need the others'
constants and the calibration could drift from the rule it calibrates.

How a card is made (:class:`Answerer`):

1. The question words that only say *how* to answer (``when``, ``did``,
   ``we``, ``last``, ``first``, ...; :data:`QUESTION_WORDS`) are removed; what
   is left is searched with the book's default pipeline (hybrid BM25 + dense
   over operation-row chunks, :func:`ddrsearch.retrieval.pipeline.build_retriever`).
2. The ``k`` best operation rows by fused score are scored for *evidence*
   (:meth:`Answerer.evidence`): the mean of the row's cosine similarity to the
   question and the IDF-weighted share of the question's search terms that
   the row holds. A row's *support* adds its *margin* over the other
   candidates (:func:`with_margins`): its evidence minus their mean evidence,
   so a row that stands out counts for more than the best of a flat field of
   partial matches, which is what a question about an event that never
   happened retrieves.
   Rows whose support is at or above :data:`ANSWER_THRESHOLD` support the
   answer; when no row does, the card says "not found in these reports".
3. Supporting rows are grouped by report. A "when" question is ordered by
   date: the latest first for "last" (or "latest", "most recent"), the
   earliest first for "first" (or "earliest") and for a "when" that asks
   for neither (events over days read in the order they happened); other
   questions by score.
4. A question naming a day looks only at the rows that began on it; a
   quantity asked about the day ("how deep were we on Thanksgiving?") is
   answered from the typed fields of the two reports covering it
   (:meth:`Answerer.day_answer`), and "what were we doing on Christmas?"
   quotes the day's rows (:meth:`Answerer.day_log`).
5. A "which day did we pass N ft?" question, which no row's words answer,
   is answered from the reports' MD field instead (:meth:`Answerer.depth_answer`):
   the card quotes the first report reaching N ft, its rows that print the
   depth passed, and says so in its note. A "highest/lowest" question gets
   the value and the reports holding it from the typed fields in its note
   (:meth:`Answerer.extreme_answer`); its rows are found as in steps 1-3.

Row ids: :func:`row_id` and :func:`resolve_row_id`; a citation of a report
or row that does not exist raises :class:`CitationError` naming it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ddrsearch.errors import CitationError, QueryError
from ddrsearch.reading.names import resolve_row_id, row_id, short_name
from ddrsearch.reading.report import Report
from ddrsearch.retrieval.base import check_query, cut_query
from ddrsearch.retrieval.structured import MONTH_RE, MONTHS, NAMED_DAY_RE, asked_depths, safe_date

__all__ = [
    "ANSWER_THRESHOLD",
    "NEAREST_ROWS",
    "QUESTION_WORDS",
    "AnswerCard",
    "Answerer",
    "CitationError",
    "SupportRow",
    "calibrate_threshold",
    "impossible_day",
    "question_order",
    "resolve_row_id",
    "row_id",
    "search_words",
    "with_margins",
]

#: Support (evidence + margin, :func:`with_margins`) a row needs to support an
#: answer, for the default ``k = 5`` candidates. Calibrated in
#: chapters/10-traceable-answers.ipynb on the *development* questions of
#: ``datasets/eval/archive.yaml`` only (``load_questions("archive").split("dev")``:
#: its answerable ones and its ``unanswerable()`` ones) with
#: :func:`calibrate_threshold` (best balanced accuracy: half the share of
#: answerable questions answered plus half the share of unanswerable ones
#: refused); a test re-runs the calibration and checks it still gives this value.
ANSWER_THRESHOLD = 0.431

#: What :class:`Answerer` measures a row's evidence against (its ``support_words``): the searched words as
#: asked, or as the retriever's rewrites leave them.
SUPPORT_WORDS = ("asked", "rewritten")

#: How :class:`Answerer` counts the question's structured part in a row's coverage (its ``structured_credit``).
STRUCTURED_CREDITS = ("off", "score", "full")

#: Operation rows a "last"/"first" question looks through for more events once
#: its ``k`` best rows have answered it (:meth:`Answerer.ask`); the archive
#: has 610 rows, so 50 is the best 8 percent of them.
WHEN_POOL = 50

#: Words that say how to answer, not what to look for; removed before searching.
QUESTION_WORDS = frozenset(
    ["when", "what", "which", "where", "who", "whom", "why", "how", "did", "do", "does", "done", "we", "us", "our", "you", "i", "last", "first", "latest", "earliest", "most", "recent", "recently", "ever", "time", "times", "day", "date", "get", "got", "getting", "have", "has", "had", "was", "were", "is", "are", "there", "any"]
)

_LAST_RE = re.compile(r"\b(last|latest|most recent(ly)?|recently)\b", re.I)
_FIRST_RE = re.compile(r"\b(first|earliest)\b", re.I)
#: A question asking for a time: "when" opening it (after "and", "so", "but", "then" or "ok" too), ending it,
#: before a verb that asks ("when did", "when was"), after a verb of asking or knowing ("tell me when", "do you
#: know when", "the time when"), or "what/which day(s)/date(s)/time", "date of". A "when" joining two
#: clauses ("found when we laid down the BHA") asks for no time.
_WHEN_RE = re.compile(
    r"^\W*(?:(?:and|so|but|then|ok|okay)\W+)?when\b"
    r"|\bwhen\s+(?:did|was|were|is|are|do|does|had|has|have|will|would|could|can|should|might)\b|\bwhen\W*$"
    r"|\b(?:tell|remind|show|ask)\s+(?:me|us|you)\s+when\b"
    r"|\b(?:know|knew|recall|remember|find out|found out|wonder|sure|idea|time|day|date|see)\s+when\b"
    r"|\b(?:what|which)\s+(?:days?|dates?|time)\b|\bdate of\b", re.I)
_ISO_RE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_US_RE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})\b")


#: Words that limit a "highest/lowest" question to part of the reports (a month, a depth or date
#: range); the typed-field note is left out for such a question rather than stated for all reports.
_LIMIT_RE = re.compile(rf"\b(?:{MONTH_RE}|before|after|below|above|under|over|between|since|until|during|while|"
                       r"first|last|week|\d{4}-\d\d)(?!\w)", re.I)


def question_order(question: str) -> str:
    """How a card for ``question`` is ordered: ``"latest"``, ``"earliest"`` or ``"score"``.

    A question with "last", "latest" or "most recent" is ordered latest first;
    with "first" or "earliest", earliest first; a "when" question without
    either ("when did we core?") earliest first too, so events over several
    days read in the order they happened; anything else by evidence score.
    A "when" that joins two clauses ("motor seal failed, found when we laid
    down the BHA") does not ask when.

    >>> question_order("when did we core?"), question_order("we cored when?")
    ('earliest', 'earliest')
    >>> question_order("motor seal failed, found when we laid down the BHA")
    'score'
    """
    if _LAST_RE.search(question):
        return "latest"
    if _FIRST_RE.search(question) or _WHEN_RE.search(question):
        return "earliest"
    return "score"


def search_words(question: str) -> str:
    """``question`` without its :data:`QUESTION_WORDS` and dates: what is searched."""
    text = _US_RE.sub(" ", _ISO_RE.sub(" ", question))
    words = re.findall(r"\S+", text)
    kept = [w for w in words if re.sub(r"[^\w]", "", w).lower() not in QUESTION_WORDS]
    return " ".join(kept)


#: How a card's rows are ordered, as its header says it, by :attr:`AnswerCard.order`.
ORDER_WORDS = {
    "latest": "reports latest first, each report's rows in table order",
    "earliest": "reports earliest first, each report's rows in table order",
    "score": "reports best supported first, each report's rows best supported first",
    "bm25": "in the order BM25 ranked the rows (not by support)",
    "time": "in the order the rows began on the day (not by support)",
}


_TRAILING_PUNCT_RE = re.compile(r"(?<=\w)[?!.,;:]+$")


def shown_words(words: str) -> str:
    """``words`` (from :func:`search_words`) as a card shows them: each word without trailing ``?!.,;:``.

    ``"stuck?"`` is shown ``"stuck"``; a mark inside a word stays (``10,000``,
    ``D038-r08``, ``7.5``), and a word that is only punctuation is kept as it is.
    What is searched is unchanged: the tokenizer drops the marks anyway.
    """
    return " ".join(_TRAILING_PUNCT_RE.sub("", w) for w in words.split())


def question_date(question: str) -> dt.date | None:
    """A date written in the question (``2020-12-25`` or ``12/25/2020``), or ``None``.

    Raises:
        QueryError: the question holds something shaped like a date that is not one (``2020-02-31``).
    """
    for rx, order in ((_ISO_RE, "ymd"), (_US_RE, "mdy")):
        m = rx.search(question)
        if m:
            a, b, c = (int(x) for x in m.groups())
            y, mo, d = (a, b, c) if order == "ymd" else (c + (2000 if c < 100 else 0), a, b)
            try:
                return dt.date(y, mo, d)
            except ValueError:
                raise QueryError(f"{m.group(0)!r} in the question is not a real date.") from None
    return None


def impossible_day(query: str, years: Sequence[int] = ()) -> str | None:
    """A month and day the query names in words that is no calendar date (``Feb 30``, ``31st of November``,
    ``Feb 29 2021``), as normalised, or ``None``.

    The year is the query's, else any of ``years`` (without them a leap year, so ``Feb 29`` is a date). Only
    a day from 1 to 31 counts (``may 50`` is not shaped like a date); :func:`parse_date` returns ``None`` for
    such a day; :meth:`Answerer.ask` refuses it, as :func:`question_date` refuses ``2/30/2020``.

    >>> impossible_day("stuck on Feb 30"), impossible_day("feb 29", [2020]), impossible_day("feb 29 2021")
    ('feb 30', None, 'feb 29 2021')
    """
    from ddrsearch.text.words import normalize

    text = normalize(query)
    year_m = re.search(r"\b(19|20)\d{2}\b", text)
    year_list = [int(year_m.group(0))] if year_m else list(years) or [2000]
    names = "|".join(sorted(MONTHS, key=len, reverse=True))
    for rx, order in ((rf"\b({names})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?:19|20)\d{{2}}\b)?", "md"),
                      (rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({names})\b(?:,?\s+(?:19|20)\d{{2}}\b)?", "dm")):
        for m in re.finditer(rx, text):
            month, day = (m[1], m[2]) if order == "md" else (m[2], m[1])
            if 1 <= int(day) <= 31 and all(safe_date(y, MONTHS[month], int(day)) is None for y in year_list):
                return m.group(0)
    return None


@dataclass(frozen=True)
class SupportRow:
    """One operation row quoted on an answer card.

    Attributes:
        row_id: ``D038-r08``.
        report: the report's file name.
        label: ``D038``.
        report_number: RPT NUM.
        date: RPT DATE.
        start, end: FROM and TO times as printed (``end`` ``""`` when blank).
        page: page number from 1.
        row: row index from 0.
        text: the row's OPERATIONS text, verbatim.
        score: fused retrieval score of the row's best chunk.
        cosine: cosine similarity of that chunk to the searched words.
        coverage: IDF-weighted share of the searched terms the row's text holds, 0 to 1.
        evidence: ``(cosine + coverage) / 2``.
        margin: ``evidence`` minus the mean evidence of the other candidate
            rows of the same question (0 when it is the only one).
        support: ``evidence + margin``, compared with the threshold.
    """

    row_id: str
    report: str
    label: str
    report_number: int
    date: dt.date
    start: str
    end: str
    page: int
    row: int
    text: str
    score: float
    cosine: float
    coverage: float
    evidence: float
    margin: float = 0.0
    support: float = 0.0

    @property
    def day(self) -> dt.date:
        """The day the row began (:func:`ddrsearch.reading.layout.row_start`): the day before
        ``date`` for a FROM of 06:00 to 23:59, ``date`` itself for 00:00 to 05:59."""
        from ddrsearch.reading.layout import row_start

        return row_start(self.date, self.start).date()

    @property
    def when(self) -> str:
        """The row's real day and its FROM-TO as printed: ``2020-11-25 23:30-04:00`` for the
        23:30 row of the report dated 2020-11-26 (:func:`ddrsearch.reading.layout.row_when`)."""
        from ddrsearch.reading.layout import row_when

        return row_when(self.date, self.start, self.end)


#: The most characters of the question a card echoes (a longer one ends with " [...]").
QUESTION_ECHO_CHARS = 300

#: The most rows a refusal shows as the closest ones, one per report (:meth:`AnswerCard.nearest`).
NEAREST_ROWS = 3


@dataclass
class AnswerCard:
    """The extractive answer to one question.

    Attributes:
        question: as asked.
        searched: the words searched (:func:`search_words`), as shown (:func:`shown_words`).
        order: ``"latest"``, ``"earliest"`` or ``"score"`` (:func:`question_order`), or
            ``"bm25"`` (rows in the order BM25 ranked them); :data:`ORDER_WORDS` says each.
        rows: supporting rows, in card order (empty when not found).
        candidates: the ``k`` best rows looked at, supporting or not, best first (for a question naming a
            day, among the rows that began on it); the support compared with the threshold is theirs.
        threshold: the support threshold used.
        note: a sentence about the question's date when it names one (for
            example that the day has no report); ``""`` otherwise.
        typed: the note answers the question from the reports' typed fields (a
            quantity asked about a day, :meth:`Answerer.day_answer`, or the highest or
            lowest value, :meth:`Answerer.extreme_answer`), though no row may be quoted
            for it: a card without rows then says so (:attr:`refusal`), not "Not found".
    """

    question: str
    searched: str
    order: str
    rows: list[SupportRow]
    candidates: list[SupportRow]
    threshold: float
    note: str = ""
    typed: bool = False

    @property
    def refusal(self) -> str:
        """The line a card without rows prints: "Not found in these reports" with the best support and the
        threshold, or, when the note answers from the typed fields, that no row shows it: a card never both
        answers (in its note) and refuses. A card of a day's rows (``order`` ``"time"``), whose rows are chosen by
        what they print and not by support, compares no support."""
        # a day's rows (order "time") are chosen by what they print, whatever their support: no comparison of it
        if self.typed and self.order == "time":
            return "No operation row that began on that day prints it: the answer is the typed-field note above."
        if self.order == "time":
            return ("Not found in these reports: neither the typed fields of the reports covering that day nor an "
                    "operation row that began on it gives the value (the note above).")
        if self.typed:
            return (f"No operation row found for the question's words is quoted (best support {self.support:.2f} "
                    f"< {self.threshold:.3f}): the answer is the typed-field note above.")
        return f"Not found in these reports (best support {self.support:.2f} < {self.threshold:.3f})."

    @property
    def kind_of_rows(self) -> str:
        """What the card's rows are, as its count line says it: ``"supporting row(s)"``, or ``"row(s) of the
        day"`` for the rows of a day quoted whatever their support (``order`` ``"time"``)."""
        return "row(s) of the day" if self.order == "time" else "supporting row(s)"

    @property
    def found(self) -> bool:
        """Whether at least one row supports an answer."""
        return bool(self.rows)

    @property
    def evidence(self) -> float:
        """The best evidence among the candidates (0 when there are none)."""
        return max((r.evidence for r in self.candidates), default=0.0)

    @property
    def support(self) -> float:
        """The best support among the candidates (0 when there are none): what is compared with the threshold."""
        return max((r.support for r in self.candidates), default=0.0)

    def nearest(self, n: int = NEAREST_ROWS) -> list[SupportRow]:
        """On a card without rows, the first ``n`` candidates in the row search's order, one per report (the
        report's first), the row of the best support (the one the refusal names) always among them, last
        when it would not be: what a refusal shows to read, marked as no answer. ``[]`` on a card with rows, or
        of a day's rows (``order`` ``"time"``), or answered by the typed fields' note.

        Raises:
            ValueError: ``n`` is below 1.
        """
        if n < 1:
            raise ValueError(f"nearest needs n >= 1, got {n}")
        if self.found or self.typed or self.order == "time":
            return []
        out: dict[str, SupportRow] = {}
        for r in self.candidates:
            out.setdefault(r.report, r)
        rows = list(out.values())[:n]
        best = max(self.candidates, key=lambda r: r.support, default=None)
        if best is not None and best not in rows:  # the refusal's "best support" row is shown, in its report's place
            rows = [*[r for r in rows if r.report != best.report][:n - 1], best]
        return rows

    @property
    def top(self) -> SupportRow | None:
        """The first supporting row, or ``None``."""
        return self.rows[0] if self.rows else None

    def groups(self) -> list[tuple[str, list[SupportRow]]]:
        """Supporting rows grouped by report, reports in card order: ``[(label, rows), ...]``."""
        out: dict[str, list[SupportRow]] = {}
        for r in self.rows:
            out.setdefault(r.label, []).append(r)
        return list(out.items())

    def to_text(self, width: int = 79) -> str:
        """The card as plain text, lines at most ``width`` characters (quotes wrap, never cut).

        The question and the rows are data: control characters (ESC sequences, C0, C1, bidi
        overrides) are removed and line breaks shown as spaces, so a terminal shows them as text.
        """
        import textwrap

        from ddrsearch.answers.generation import strip_controls

        def plain(text: str) -> str:
            return " ".join(strip_controls(text).split())

        from ddrsearch.retrieval.base import cut_query

        asked, cut = cut_query(plain(self.question))  # echoed as searched: a 20,000-word question is not
        if cut or len(asked) > QUESTION_ECHO_CHARS:  # printed whole
            asked = asked[:QUESTION_ECHO_CHARS] + " [...]"
        lines = [f"Q: {asked}"]
        if self.note:
            lines += textwrap.wrap(plain(self.note), width)
        if not self.found:
            lines += textwrap.wrap(self.refusal, width)
            nearest = self.nearest()
            if nearest:
                lines += textwrap.wrap("The closest rows, in the row search's order, not an answer (their support "
                                       "is below the threshold); read them before you conclude the reports are "
                                       "silent:", width)
            for r in nearest:
                lines.append(f"  [{r.row_id}] {r.when} (support {r.support:.2f})")
                lines += textwrap.wrap(f'"{plain(r.text)}"', width, initial_indent="    ", subsequent_indent="    ")
            return "\n".join(lines)
        how = ORDER_WORDS[self.order]
        lines += textwrap.wrap(f"{len(self.rows)} {self.kind_of_rows} in {len(self.groups())} report(s), {how}:", width)
        for label, rows in self.groups():
            r0 = rows[0]
            lines.append(f"{label}  report {r0.report_number} dated {r0.date.isoformat()}, page {r0.page}")
            for r in rows:
                lines.append(f"  [{r.row_id}] {r.when} (evidence {r.evidence:.2f}, "
                             f"support {r.support:.2f})")
                lines += textwrap.wrap(f'"{plain(r.text)}"', width, initial_indent="    ", subsequent_indent="    ")
        return "\n".join(lines)


def with_margins(rows: Sequence[SupportRow]) -> list[SupportRow]:
    """``rows`` (the candidates of one question) with ``margin`` and ``support`` filled in.

    margin = the row's evidence minus the mean evidence of the other rows (0
    for a single row); support = evidence + margin, between -1 and 2. A
    question the reports answer usually has one or a few rows that stand out;
    one about an event that never happened retrieves a flat field of partial
    matches, whose best row has a small margin. The margin was chosen over the
    best row's lead on the second one on the development questions only
    (chapters/10-traceable-answers.ipynb).
    """
    rows = list(rows)
    total = sum(r.evidence for r in rows)
    out = []
    for r in rows:
        margin = r.evidence - (total - r.evidence) / (len(rows) - 1) if len(rows) > 1 else 0.0
        out.append(dataclasses.replace(r, margin=margin, support=r.evidence + margin))
    return out


def calibrate_threshold(answerable: Sequence[float], unanswerable: Sequence[float]) -> float:
    """The threshold on a score (here each question's best support) with the best balanced accuracy.

    Balanced accuracy = (share of ``answerable`` at or above the threshold +
    share of ``unanswerable`` below it) / 2. Candidates are the midpoints
    between consecutive distinct values (and one below the lowest);
    ties go to the lowest threshold. The result is rounded to 3 decimals.

    Raises:
        ValueError: either list is empty.
    """
    if not len(answerable) or not len(unanswerable):
        raise ValueError("calibrate_threshold needs at least one answerable and one unanswerable evidence value")
    values = sorted(set(float(v) for v in (*answerable, *unanswerable)))
    candidates = [values[0] - 1e-3] + [(a + b) / 2 for a, b in zip(values, values[1:])] + [values[-1] + 1e-3]
    ans, una = np.asarray(answerable, float), np.asarray(unanswerable, float)
    best_t, best = None, -1.0
    for t in candidates:
        ba = ((ans >= t).mean() + (una < t).mean()) / 2
        if ba > best + 1e-12:
            best_t, best = t, ba
    return round(best_t, 3)


class Answerer:
    """Builds answer cards over a set of reports with the default hybrid pipeline.

    Args:
        reports: the reports to answer from (the sample or the archive).
        retriever: an indexed :class:`ddrsearch.retrieval.hybrid.HybridRetriever` (or the tuned one, :class:`ddrsearch.retrieval.levered.TunedHybridRetriever`) over
            those reports' operation chunks (default: built with
            :func:`ddrsearch.retrieval.pipeline.build_retriever`).
        threshold: support a row needs (default :data:`ANSWER_THRESHOLD`).
        support_words: what a row's evidence is measured against, one of :data:`SUPPORT_WORDS`:
            ``"asked"`` the searched words as typed; ``"rewritten"`` the words as the
            retriever's rewrites leave them (``retriever.rewrite``: the asker's shorthand spelled
            out, "POOH" -> "pooh pull out of hole"), in both the coverage and the cosine.
        structured_credit: how a row counts the question's *structured part* (the day, loose date or
            depth the retriever's structured path reads, :meth:`structured_part`), one of
            :data:`STRUCTURED_CREDITS`: ``"off"`` as any other words (a row rarely prints "mid
            November"); ``"score"`` as held, to the structured path's score of the row's report
            (1 for a day or a depth passed, 0.5 for a drilled interval holding the depth, the
            ``loose_dates`` score for a loose date), by a row of a report it matched that began on
            the day (in the period); ``"full"`` the same, as held whole.

    Raises:
        TypeError: ``retriever`` is not a hybrid retriever (evidence needs both legs).
        ValueError: ``support_words`` is not one of :data:`SUPPORT_WORDS`, or ``structured_credit`` not one
            of :data:`STRUCTURED_CREDITS`.
    """

    def __init__(self, reports: Sequence[Report], retriever=None, threshold: float = ANSWER_THRESHOLD,
                 support_words: str = "asked", structured_credit: str = "off"):
        from ddrsearch.retrieval.legs import TwoLegRetriever

        self.reports = list(reports)
        self.by_name = {r.file_name: r for r in self.reports}
        if retriever is None:
            from ddrsearch.retrieval.pipeline import build_retriever

            retriever = build_retriever("hybrid", self.reports)
        if not isinstance(retriever, TwoLegRetriever):
            raise TypeError(f"Answerer needs a HybridRetriever (BM25 and dense legs), not {type(retriever).__name__}")
        self.retriever = retriever
        self.threshold = threshold
        if support_words not in SUPPORT_WORDS:
            raise ValueError(f"support_words must be one of {', '.join(map(repr, SUPPORT_WORDS))}, "
                             f"not {support_words!r}")
        self.support_words = support_words
        if structured_credit not in STRUCTURED_CREDITS:
            raise ValueError(f"structured_credit must be one of {', '.join(map(repr, STRUCTURED_CREDITS))}, "
                             f"not {structured_credit!r}")
        self.structured_credit = structured_credit
        self._df: dict[str, int] | None = None

    def support_query(self, words: str) -> str:
        """What a row's evidence is measured against for the searched ``words``: ``words`` themselves, or
        (``support_words="rewritten"``) ``words`` after the retriever's rewrites (unchanged for a retriever
        without them)."""
        if self.support_words == "asked":
            return words
        rewrite = getattr(self.retriever, "rewrite", None)
        return rewrite(words) if rewrite is not None else words

    def _cosines(self, words: str) -> np.ndarray:
        """Each passage's cosine to :meth:`support_query` of ``words``; shape ``(n,)``."""
        return self.retriever.dense.passage_scores(self.support_query(words))

    def _row_passages(self) -> dict[tuple[str, int], int]:
        """``(report file name, row index)`` -> position of that operation row's first passage, in passage order."""
        if "_row_passages_map" not in self.__dict__:
            positions: dict[tuple[str, int], int] = {}
            for i, p in enumerate(self.retriever.passages):
                if p.kind == "operation":
                    positions.setdefault((p.report, p.row), i)
            self._row_passages_map = positions
        return self._row_passages_map

    def _terms(self, words: str) -> set[str]:
        # cut once per text: each question asks again for the terms of the rows it scores
        cache = self.__dict__.setdefault("_terms_cache", {})
        if words not in cache:
            if len(cache) >= 8192:
                cache.clear()
            cache[words] = frozenset(self.retriever.bm25.tokenize(words))
        return set(cache[words])

    def idf(self, term: str) -> float:
        """Lucene IDF of ``term`` over the indexed passages: ln(1 + (N - df + 0.5) / (df + 0.5)).

        A term no passage holds gets the largest IDF: the question asks for
        something the reports never write, and that weighs against an answer.
        """
        if self._df is None:  # the BM25 leg's own counts: the passages' terms as it tokenized them
            self._df = self.retriever.bm25.document_frequencies()
        n, d = len(self.retriever.passages), self._df.get(term, 0)
        return math.log(1 + (n - d + 0.5) / (d + 0.5))

    def evidence(self, words: str, text: str, cosine: float, part: frozenset[str] = frozenset(),
                 credit: float = 0.0) -> tuple[float, float]:
        """``(coverage, evidence)`` of a row's ``text`` for the searched ``words``.

        coverage = the IDF-weighted share of the words' search terms (the BM25
        leg's tokenizer, abbreviations expanded) that ``text`` holds: rare
        words count more, words absent from every report count most;
        evidence = (cosine + coverage) / 2, between 0 and 1 for a cosine in [0, 1].
        The terms of the question's structured part (``part``, :meth:`structured_part`) are
        among the search terms, and a row not holding one holds it to ``credit`` (0 to 1).
        """
        terms = self._terms(words) | part
        if not terms:
            return 0.0, cosine / 2
        held = self._terms(text)
        weights = {t: self.idf(t) for t in terms}
        got = sum(w * (1.0 if t in held else credit if t in part else 0.0) for t, w in weights.items())
        coverage = got / sum(weights.values())
        return coverage, (cosine + coverage) / 2

    def structured_part(self, question: str) -> tuple[frozenset[str], Callable[[SupportRow], float]] | None:
        """The question's structured part and how much of it a row holds, or ``None`` (``structured_credit``
        ``"off"``, or no day, loose date or depth read).

        The part is the day the question names (:func:`question_date`, or in words), or else the loose date
        (kind ``"period"``) or depth (``"depth_passed"``, ``"depth_at"``) the retriever's structured path reads
        in the searched words: its search terms (of :func:`ddrsearch.retrieval.structured.structured_words`),
        and, for a row, its credit: the match's score of the row's report (``"full"``: 1) when the row began
        on the day or in the period (any row of the report for a depth), 0 otherwise.
        """
        from ddrsearch.retrieval.structured import structured_words

        if self.structured_credit == "off":
            return None
        full = self.structured_credit == "full"
        day = question_date(question) or self._named_day(question)
        if day is not None:
            said = [m.group(0) for rx in (_ISO_RE, _US_RE) for m in rx.finditer(question)]
            terms = self._terms(" ".join(said + structured_words(question)))
            return (frozenset(terms), lambda row: float(_began_on(row, day))) if terms else None
        words = search_words(question)
        match = self._structured_match(words)
        if match is None or match.kind not in ("period", "depth_passed", "depth_at") or not match.scores:
            return None
        terms = frozenset(self._terms(" ".join(structured_words(words))) & self._terms(words))
        scores = {name: 1.0 if full else float(score or 0.0) for name, score in match.scores.items()}
        if not terms:
            return None
        if match.kind != "period":
            return terms, lambda row: scores.get(row.report, 0.0)
        first, last = match.period  # the days the structured path read, not read again
        return terms, lambda row: scores.get(row.report, 0.0) if first <= _day_of(row) <= last else 0.0

    def candidates(self, words: str, k: int = 5, *, part=None, within=None) -> list[SupportRow]:
        """The ``k`` best operation rows for ``words`` by fused score, each scored for evidence and margin
        (``part``: the question's :meth:`structured_part`, counted in the evidence; ``within``: the file names
        of the only reports to take rows from, e.g. those of a period or well section the question names)."""
        fused = self.retriever.passage_scores(words)
        cosine = self._cosines(words)
        out: list[SupportRow] = []
        seen: set[tuple[str, int]] = set()
        for i in self.retriever.top_passages(fused, None):
            p = self.retriever.passages[i]
            if p.kind != "operation" or (p.report, p.row) in seen or (within is not None and p.report not in within):
                continue
            seen.add((p.report, p.row))
            out.append(self._support_row(i, words, fused, cosine, part))
            if len(out) == k:
                break
        return with_margins(out)

    def _support_row(self, i: int, words: str, fused: np.ndarray, cosine: np.ndarray, part=None) -> SupportRow:
        p = self.retriever.passages[i]
        report = self.by_name[p.report]
        row = report.operations[p.row]
        cos = float(cosine[i])
        out = SupportRow(
            row_id=row_id(report, row), report=report.file_name, label=short_name(report),
            report_number=report.report_number, date=report.report_date, start=row.start, end=row.end,
            page=row.page, row=row.index, text=row.operations, score=float(fused[i]), cosine=cos,
            coverage=0.0, evidence=0.0,
        )
        terms, credit = part if part is not None else (frozenset(), None)
        coverage, ev = self.evidence(self.support_query(words), row.operations, cos, terms,
                                     credit(out) if credit is not None else 0.0)
        return dataclasses.replace(out, coverage=coverage, evidence=ev)

    def _structured_match(self, question: str):
        """The retriever's structured-path match for ``question``; ``None`` for a retriever without one."""
        structured = getattr(self.retriever, "structured_match", None)
        return structured(question) if structured is not None else None

    def depth_answer(self, question: str) -> tuple[str, list[SupportRow]] | None:
        """The typed-field answer to a "which day did we pass N ft?" question, or ``None``.

        Words cannot answer it (no row says "passed 8,000 ft"); the MD field of
        each report can: the retriever's structured path
        (:class:`ddrsearch.retrieval.structured.StructuredIndex`, kind ``"depth_passed"``)
        names the first report whose MD is at least N ft. The rows quoted are
        that report's operation rows printing a depth from N to that MD
        (:func:`ddrsearch.retrieval.rowchoice.prints_depth`): where the bit passed N;
        failing those, the rows printing a depth of that day's drilled
        interval near N (the structured path's range). When no earlier report
        gives a plausible MD, or the latest that does is more than a day
        older, the depth may have been passed on a day these reports do not
        show: the note says so (and between which two reports), and no row
        is quoted; unless a drilling row of the report prints an interval
        across N (:func:`ddrsearch.retrieval.rowchoice.drills_across`, as ``drill from
        7,990' to 8,024'``), which shows the day: those rows are quoted.

        When no report reaches N, or N is given in metres, the note says so
        (with the deepest MD) and no row is quoted. A question naming several
        depths is answered for the first, and the note says so.

        Returns:
            ``(note, rows)``: a sentence naming the report(s), dates and MD,
            and the rows (none when no row prints such a depth or the day is
            not known); ``None`` when the retriever has no structured path or
            the question asks no depth passed.
        """
        typed = self._depth_answer(question)
        depths = asked_depths(question)[0]
        if typed is not None and len(depths) > 1:  # one depth per question: say which one is answered
            typed = (typed[0] + f" The question names {len(depths)} depths; this answers the first, "
                     f"{depths[0]:,g} ft: ask about each in turn.", typed[1])
        return typed

    def _depth_answer(self, question: str) -> tuple[str, list[SupportRow]] | None:
        """:meth:`depth_answer` for the first depth the question names."""
        from ddrsearch.retrieval.rowchoice import drills_across, prints_depth
        from ddrsearch.retrieval.structured import plausible

        match = self._structured_match(question)
        depths, metres = asked_depths(question)
        if match is None and (depths or metres) and getattr(self.retriever, "structured", 0) > 0:
            if metres and not depths:
                return "Depths are read in feet here: ask, e.g., 'which day did we pass 8,000 ft?'.", []
            deepest = max((r for r in self.reports if plausible("md_ft", r.md_ft) is not None),
                          key=lambda r: (r.md_ft, r.report_date), default=None)
            if deepest is not None and depths and depths[0] > 0:
                return (f"No report here gives an MD of {depths[0]:,g} ft or more: the deepest is "
                        f"{deepest.md_ft:,.0f} ft, in {short_name(deepest)} ({deepest.report_date.isoformat()})."), []
        if match is None or match.kind != "depth_passed" or match.depth is None or match.value is None:
            return None
        (name,) = match.scores
        report = self.by_name[name]
        said = f"From the typed fields ({match.detail}): "
        earlier = [r for r in self.reports if r.report_date < report.report_date
                   and plausible("md_ft", r.md_ft) is not None]
        before = max(earlier, key=lambda r: (r.report_date, r.file_name)) if earlier else None
        depth, md = match.value, match.depth[1]

        def rows_where(test) -> list[int]:
            """Positions of the report's operation rows whose OPERATIONS text passes ``test``."""
            out, seen = [], set()
            for i, p in enumerate(self.retriever.passages):
                if p.report == name and p.kind == "operation" and p.row not in seen \
                        and test(report.operations[p.row].operations):
                    seen.add(p.row)
                    out.append(i)
            return out

        found = f"{short_name(report)}, {report.report_date.isoformat()}, MD {md:,.0f} ft; "
        if before is None or (report.report_date - before.report_date).days > 1:
            # a drilling row across the depth ("drill from 7,990' to 8,024'") shows the day, though no report
            # just before gives an MD
            crossing = rows_where(lambda text: drills_across(text, depth))
            if not crossing:
                if before is None:
                    return (said + f"{short_name(report)} ({report.report_date.isoformat()}, MD {md:,.0f} ft) is the "
                            "first of these reports to give an MD, and none of its drilling rows crosses "
                            f"{depth:,.0f} ft, so the day the depth was passed is not known."), []
                return (said + f"passed between {short_name(before)} ({before.report_date.isoformat()}, MD "
                        f"{before.md_ft:,.0f} ft) and {short_name(report)} ({report.report_date.isoformat()}, MD "
                        f"{md:,.0f} ft); no report between them gives an MD, so the day is not known."), []
            spans = [crossing]
            lead = (f"the last earlier report here with an MD is {short_name(before)} "
                    f"({before.report_date.isoformat()}), but " if before is not None
                    else "it is the first of these reports to give an MD, but ")
            found += lead + f"a drilling row of {short_name(report)} crosses {depth:,.0f} ft; "
        else:
            spans = [rows_where(lambda text: prints_depth(text, (depth, md))),
                     rows_where(lambda text: prints_depth(text, match.depth))]
        note = said + found + "its rows printing the depth are quoted whatever their support."
        words = search_words(question)
        fused = self.retriever.passage_scores(words)
        cosine = self._cosines(words)
        for positions in spans:
            if positions:
                part = self.structured_part(question)
                return note, with_margins([self._support_row(i, words, fused, cosine, part) for i in positions])
        return said + found + "no row of it prints a depth near the one asked.", []

    def day_answer(self, question: str) -> tuple[str, list[SupportRow]] | None:
        """The typed-field answer to a quantity asked about one day ("how deep were we on Thanksgiving?"), or ``None``.

        The question must name a day (:func:`question_date`, or in words,
        :func:`ddrsearch.retrieval.structured.parse_date`) and a quantity
        (:func:`ddrsearch.answers.patterns.asked_quantity`: depth, TVD, footage, mud
        weight, inclination, azimuth, ROP, pump pressure, torque). A report dated D
        covers 06:00 on D-1 to 06:00 on D, so the day is covered by the report dated
        that day (to 06:00) and the one dated the next day (from 06:00): the note
        names both, with the value each prints and when it holds (the report time,
        06:00 on its date), and, for a depth, the interval the drilling rows that
        began on the day drill (:func:`ddrsearch.answers.patterns.day_quantity`). The
        rows quoted are the rows that began on the day printing the answer (for a
        depth, every one printing a depth in feet), whatever their support. A day
        no report covers gets :func:`ddrsearch.answers.sources.day_status`'s sentence
        and no row.

        Returns:
            ``(note, rows)``; ``None`` when the question names no day or no quantity, or no
            report covers the day (:meth:`ask` then says so, from
            :func:`ddrsearch.answers.sources.day_status`).
        """
        answer = self._day_answer(question)
        return None if answer is None else answer[:2]

    def _day_answer(self, question: str) -> tuple[str, list[SupportRow], bool] | None:
        """:meth:`day_answer`, and whether a covering report prints a value (the note then answers)."""
        from ddrsearch.answers.patterns import asked_quantity, day_quantity
        from ddrsearch.answers.sources import day_status
        from ddrsearch.reading.fields import FIELDS

        field = asked_quantity(question)
        day = question_date(question) or self._named_day(question)
        if field is None or day is None:
            return None
        spec = next(f for f in FIELDS if f.name == field)
        status = day_status(day, self.reports)
        answer = day_quantity(self.reports, day, field)
        if not answer.readings:
            return None
        printed = any(r.value is not None for r in answer.readings)
        table = "the header" if spec.source == "header" else f"the {spec.source} table"
        said = [f"From the typed fields ({spec.label} in {table}: {spec.description}): {status.sentence}"]
        for r in answer.readings:
            label = short_name(self.by_name[r.report])
            if r.value is None:
                said.append(f"{label} prints no {spec.label}" + (f" ({r.raw!r})." if r.raw else "."))
                continue
            flag = f" (flagged: {r.flag})" if r.flag else ""
            places = re.search(r"\.(\d+)", r.raw)  # as many decimals as printed: MW 9.0, not 9
            shown = f"{r.value:,.{len(places[1]) if places else 0}f}"
            if float(shown.replace(",", "")) != r.value:  # the value is not the printed number as such
                shown = f"{r.value:,g}"
            when = (f"over the 24 hours to {r.at:%H:%M} on {r.at.date().isoformat()}"
                    if field in ("footage_ft", "drilling_hours") else
                    f"at its report time, {r.at:%H:%M} on {r.at.date().isoformat()}")
            said.append(f"{label} prints {spec.label} {shown} {spec.unit}{flag}, {when}.")
        if answer.drilled is not None:
            said.append(f"The drilling rows that began on {day.isoformat()} drill from {answer.drilled[0]:,.0f} ft "
                        f"to {answer.drilled[1]:,.0f} ft ({_footage_words(answer.drilled, answer.footage)}).")
        what = {"md_ft": "a depth", "survey_tvd_ft": "a depth", "footage_ft": "a drilled interval"}.get(field,
                                                                                                     "the value")
        positions = self._row_passages()
        found = [positions[key] for key in answer.rows if key in positions]
        if not found:
            said.append(f"No operation row that began on {day.isoformat()} prints {what}.")
            return " ".join(said), [], printed
        said.append(f"The rows that began on {day.isoformat()} and print {what} are quoted, in time order, "
                    "whatever their support.")
        words = _without_named_day(search_words(question))
        fused = self.retriever.passage_scores(words)
        cosine = self._cosines(words)
        part = self.structured_part(question)
        return " ".join(said), with_margins([self._support_row(i, words, fused, cosine, part)
                                             for i in found]), printed

    def day_log(self, question: str) -> tuple[str, list[SupportRow]] | None:
        """The rows of a day, for a question that asks only what was done on it ("what were we doing on Christmas
        Day?", :func:`ddrsearch.answers.patterns.asks_day_log`), or ``None``.

        No row's words answer such a question; the day does. Every operation row that began on the day
        (:attr:`SupportRow.day`: the report dated the day to 06:00, the one dated the next day from 06:00) is
        quoted in time order, whatever its support; the note names the reports covering the day
        (:func:`ddrsearch.answers.sources.day_status`).

        Returns:
            ``(note, rows)``; ``None`` when the question asks something else, names no day, or no row began on it.
        """
        from ddrsearch.answers.patterns import asks_day_log
        from ddrsearch.answers.sources import day_status

        day = question_date(question) or self._named_day(question)
        if day is None or not asks_day_log(question):
            return None
        words = _without_named_day(search_words(question))
        fused = self.retriever.passage_scores(words)
        cosine = self._cosines(words)
        part = self.structured_part(question)
        rows = []
        near = {r.file_name for r in self.reports if r.report_date in (day, day + dt.timedelta(days=1))}
        for (report, _), i in self._row_passages().items():
            if report in near:
                row = self._support_row(i, words, fused, cosine, part)
                if _began_on(row, day):
                    rows.append(row)
        if not rows:
            return None
        rows.sort(key=lambda r: (_start_of(r), r.report, r.row))
        note = (f"{day_status(day, self.reports).sentence} The question asks what was done that day: every row "
                f"that began on {day.isoformat()} is quoted, in time order, whatever its support.")
        return note, with_margins(rows)

    def extreme_answer(self, question: str) -> str | None:
        """The typed-field answer to a "highest mud weight" question, as a sentence, or ``None``.

        The structured path (kind ``"extreme"``) reads the field's value in
        every report; the highest (lowest) and the report(s) holding it are
        named. Rows are not quoted from it: the value is printed in a table
        (MUD, PUMPS, DRILL BITS, header), not in an operation row, so the card
        goes on to search the words and this sentence is its note; it ends by
        saying that the rows below are what that search finds. (:meth:`ask`
        ends it instead by saying that the search quotes no row when none
        reaches the threshold: the note is then the answer, and the card
        does not refuse.)
        """
        from ddrsearch.reading.fields import FIELDS

        match = self._structured_match(question)
        if match is None or match.kind != "extreme" or match.value is None or not match.field:
            return None
        if _LIMIT_RE.search(question):  # "in December", "below 5000 ft": a limit the typed path does not apply
            return None
        spec = next(f for f in FIELDS if f.name == match.field)
        best = sorted((self.by_name[n] for n in match.holders or match.scores if n in self.by_name),
                      key=lambda r: (r.report_date, r.file_name))
        where = ", ".join(f"{short_name(r)} ({r.report_date.isoformat()})" for r in best)
        table = "the header" if spec.source == "header" else f"the {spec.source} table"
        most, _, within = match.detail.partition(f" {match.field}")
        number = re.compile(rf"(?<![\d.]){re.escape(f'{match.value:g}')}(?![\d]|\.\d)")
        printed = [row_id(r, op) for r in best for op in r.operations
                   if number.search(re.sub(r"(?<=\d),(?=\d{3})", "", op.operations))]
        if len(printed) > 1:
            rows_say = f"The operation rows {', '.join(printed)} print the number too; "
        elif printed:
            rows_say = f"The operation row {printed[0]} prints the number too; "
        else:
            rows_say = f"No operation row of {'these reports' if len(best) > 1 else short_name(best[0])} prints it; "
        return (f"From the typed fields ({spec.label} in {table}: {spec.description}): the {most} in these "
                f"reports{within} is {match.value:,g} {spec.unit}, in {where}. " + rows_say + _ROWS_BELOW)

    def place(self, words: str) -> tuple[set[str] | None, str]:
        """The reports of the period or well section ``words`` names, and the card's note saying so.

        "cores at the toe" must not be answered by the November cores: the card's rows then come from the
        reports the structured path gives the period (``late November``, ``before spud``) or the section
        (``in the 12-1/4``, ``at the toe``) alone.

        Returns:
            ``(file names, note)``, or ``(None, "")`` when the question names neither.
        """
        match = self._structured_match(words)
        if match is None or match.kind not in ("period", "section") or not match.scores:
            return None, ""
        return set(match.scores), (f"Rows of the {len(match.scores)} report(s) the question's {match.kind} names "
                                   f"only: {match.detail}.")

    def _more_of_the_same(self, words: str, cands: Sequence[SupportRow], part=None, within=None) -> list[SupportRow]:
        """Rows beyond the ``k`` candidates that a "last"/"first" question must see.

        The ``k`` best rows decide whether the question is answered; they
        are the best by score, not the latest, so the latest such event can
        rank below them (a new reader's "when did we last trip out?" got a
        trip nine days before the last one). Rows among the
        :data:`WHEN_POOL` best are added when they reach the same threshold
        with their margin taken over the same ``k`` candidates:
        ``support = evidence + (evidence - mean evidence of the candidates)``.
        """
        mean = sum(c.evidence for c in cands) / len(cands)
        have = {c.row_id for c in cands}
        more = []
        for r in self.candidates(words, k=WHEN_POOL, part=part, within=within):
            support = 2 * r.evidence - mean
            if r.row_id not in have and support >= self.threshold:
                more.append(dataclasses.replace(r, margin=r.evidence - mean, support=support))
        return more

    def ask(self, question: str, k: int = 5) -> AnswerCard:
        """Answer ``question`` with a card of supporting rows.

        Args:
            question: the engineer's question, e.g. ``"when did we last get stuck?"``.
            k: operation rows looked at (the card quotes those of them that
                reach the threshold). Margins are taken over these ``k`` rows;
                :data:`ANSWER_THRESHOLD` was calibrated with ``k = 5``. A
                "last"/"first" question that is answered also quotes the rows
                among the :data:`WHEN_POOL` best that reach the threshold
                against the same ``k`` rows, so the latest (earliest) event
                is not missed for ranking sixth.

        Returns:
            An :class:`AnswerCard`; ``found`` is false when no row reaches
            the threshold. A "which day did we pass N ft?" question that the
            reports' MD fields answer (:meth:`depth_answer`) quotes that
            report's rows printing the depth, whatever their support, and
            says so in ``note``. A question naming a date (``2020-12-25`` or
            ``12/25/2020``, or in words: ``Nov 26``, ``Thanksgiving``, ``Christmas Day 2020``,
            :func:`ddrsearch.retrieval.structured.parse_date`) looks only at the rows that began on that day (a
            report dated D covers 06:00 on D-1 to 06:00 on D: the rows of the
            next day's report from 06:00 and those of the day's own report
            before 06:00) and, when no report covers the day, says so in
            ``note`` and is not found. A quantity asked about that day ("how
            deep were we on Thanksgiving?") is answered from the typed fields of
            both covering reports (:meth:`day_answer`, ``typed`` true), and a
            question asking only what was done that day quotes all its rows
            (:meth:`day_log`), both in time order (``order`` ``"time"``). A question
            longer than ``DDRSEARCH_MAX_QUESTION_WORDS`` words (100) is cut to
            that many and ``note`` says so (:func:`ddrsearch.retrieval.base.cut_query`). A question
            naming more than one day is answered for the first, and ``note`` says so
            (:meth:`named_days`).

        Raises:
            QueryError: the question is empty, or has nothing to search once
                question words and stop words are removed (the message of
                ``ddrsearch search``), or names a day that is no date
                (``2/30/2020``, ``Feb 30``).
            ValueError: ``k < 1``.
        """
        check_query(question)
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        question, cut = cut_query(question)  # a question over DDRSEARCH_MAX_QUESTION_WORDS words is cut
        card = self._ask(question, k)
        days = self.named_days(question)
        if len(days) > 1:  # the card reads the first day only: said, not dropped in silence
            card = dataclasses.replace(card, note=(
                f"The question names {len(days)} days ({', '.join(d.isoformat() for d in days)}); this card "
                f"reads the first only: ask about each day on its own. {card.note}").strip())
        if cut:
            card = dataclasses.replace(card, note=f"{cut[0].upper()}{cut[1:]}. {card.note}".strip())
        return card

    def named_days(self, question: str) -> list[dt.date]:
        """Every distinct day ``question`` names (``2020-12-13``, ``12/13/2020``, ``Dec 13``, ``Christmas``), in
        the order written; :meth:`ask` answers for the first and says so when there are more."""
        from ddrsearch.retrieval.structured import parse_date

        years, span = self._calendar()
        found = sorted((m.start(), m.group(0)) for rx in (_ISO_RE, _US_RE, NAMED_DAY_RE) for m in rx.finditer(question))
        days: list[dt.date] = []
        for _, said in found:
            day = parse_date(said, years=years, span=span)
            if day is not None and day not in days:
                days.append(day)
        return days

    def _calendar(self) -> tuple[list[int], tuple[dt.date, dt.date] | None]:
        """The reports' years and the days they cover (from 06:00 the day before the first report's date)."""
        dates = sorted(r.report_date for r in self.reports)
        return sorted({d.year for d in dates}), (dates[0] - dt.timedelta(days=1), dates[-1]) if dates else None

    def _named_day(self, question: str) -> dt.date | None:
        """A day the question names in words ("on Thanksgiving", "Nov 26", "Christmas Day 2020"), in the
        reports' years when it gives none (:func:`ddrsearch.retrieval.structured.parse_date`).

        Raises:
            QueryError: the month and day named are no date in those years ("Feb 30", "Feb 29 2021":
                :func:`impossible_day`), as :func:`question_date` for ``2/30/2020``."""
        from ddrsearch.retrieval.structured import parse_date

        years, span = self._calendar()
        day = parse_date(question, years=years, span=span)
        if day is None and (bad := impossible_day(question, years)) is not None:  # as question_date does for 2/30
            raise QueryError(f"{bad!r} in the question is not a real date.")
        return day

    def _day_candidates(self, words: str, day: dt.date, k: int, part=None) -> list[SupportRow]:
        """The ``k`` best operation rows for ``words`` among those that began on ``day``, with their margins."""
        cands = self.candidates(words, k=len(self.retriever.passages), part=part)
        return with_margins([c for c in cands if _began_on(c, day)][:k])

    def _ask(self, question: str, k: int) -> AnswerCard:
        words = search_words(question)
        if not self._terms(words):
            if question_date(question) is not None:
                raise QueryError(f"The question {question!r} names a day but nothing to look for on it; say what, "
                                 "e.g. 'stuck on 2020-11-26' or 'what was drilled on 11/26/2020'.")
            raise QueryError(f"The query {question!r} has no searchable words (only stop words or punctuation).")
        order = question_order(question)
        part = self.structured_part(question)  # None unless structured_credit is on
        day = question_date(question)
        if day is None and (day := self._named_day(question)) is not None:
            words = _without_named_day(words)  # "Nov 26", "Thanksgiving": the day, not words
        note = ""
        if day is not None and (on_day := self._day_answer(question)) is not None:
            note, rows, printed = on_day  # a quantity on a day: the covering reports' typed fields, the day's rows
            return AnswerCard(question=question, searched=shown_words(words), order="time", rows=rows,
                              candidates=self._day_candidates(words, day, k, part), threshold=self.threshold,
                              note=note, typed=printed)
        if day is not None and (log := self.day_log(question)) is not None:
            note, rows = log  # "what were we doing on Christmas Day?": the day's rows, in time order
            return AnswerCard(question=question, searched=shown_words(words), order="time", rows=rows,
                              candidates=self._day_candidates(words, day, k, part), threshold=self.threshold, note=note)
        typed = self.depth_answer(question) if day is None else None
        extreme = None
        if typed is not None:  # the note stays on the card; without a row to quote, the words are searched
            note, rows = typed
            if rows:
                return AnswerCard(question=question, searched=shown_words(words), order="earliest", rows=rows,
                                  candidates=self.candidates(words, k=k, part=part), threshold=self.threshold,
                                  note=note)
        elif day is None:
            extreme = self.extreme_answer(question)  # the highest/lowest value: the note answers
        within = None
        if day is not None:
            from ddrsearch.answers.sources import day_status

            note = day_status(day, self.reports).sentence
            cands = self._day_candidates(words, day, k, part)
        else:
            if extreme is None and typed is None:  # a period or a part of the well: its reports' rows only
                within, note = self.place(words)
            cands = self.candidates(words, k=k, part=part, within=within)
        rows = [c for c in cands if c.support >= self.threshold]
        if rows and day is None and order in ("latest", "earliest"):
            rows += self._more_of_the_same(words, cands, part, within)
        rows = _ordered(rows, order)
        if extreme is not None:  # the rows below are the words' search, or there are none: the note says which
            note = extreme if rows or not extreme.endswith(_ROWS_BELOW) else extreme[:-len(_ROWS_BELOW)] + _NO_ROWS
        return AnswerCard(question=question, searched=shown_words(words), order=order, rows=rows, candidates=cands,
                          threshold=self.threshold, note=note, typed=extreme is not None)


#: How a highest/lowest note (:meth:`Answerer.extreme_answer`) ends: with the rows a search for the question's
#: words quotes below it, or without any (none reaches the threshold; the note is the answer).
_ROWS_BELOW = "the rows below are what a search for the question's words finds."
_NO_ROWS = "a search for the question's words finds no row with the support to be quoted."


def _ordered(rows: list[SupportRow], order: str) -> list[SupportRow]:
    """The card's rows in the question's order (``"latest"``, ``"earliest"`` or ``"score"``), grouped by report in
    that order; within a report, the table's order for a "when" question, the best supported first otherwise."""
    if order == "latest":
        rows = sorted(rows, key=lambda r: (-r.date.toordinal(), -r.support, r.row))
    elif order == "earliest":
        rows = sorted(rows, key=lambda r: (r.date.toordinal(), -r.support, r.row))
    else:
        rows = sorted(rows, key=lambda r: (-r.support, -r.score, r.report, r.row))
    first: dict[str, int] = {}
    for i, r in enumerate(rows):
        first.setdefault(r.label, i)
    return sorted(rows, key=lambda r: (first[r.label], r.row if order != "score" else -r.support))


def _began_on(row: SupportRow, day: dt.date) -> bool:
    """Whether ``row`` began on ``day`` (its real day, :attr:`SupportRow.day`); a FROM that is not a clock
    time counts by its report's date."""
    try:
        return row.day == day
    except ValueError:
        return row.date == day


def _day_of(row: SupportRow) -> dt.date:
    """The day ``row`` began (:attr:`SupportRow.day`); its report's date when its FROM is not a clock time."""
    try:
        return row.day
    except ValueError:
        return row.date


def _footage_words(drilled: tuple[float, float], footage: float) -> str:
    """The drilled span in words: its length, and the intervals the rows print when they add up to less (a row
    whose intervals are not all read as "from X' to Y'" leaves a gap), so a sentence never gives a total that its
    own from/to contradicts. Feet."""
    span = drilled[1] - drilled[0]
    if abs(span - footage) < 0.5:
        return f"{span:,.0f} ft in all"
    return f"{span:,.0f} ft from the shallowest to the deepest; the intervals the rows print add up to {footage:,.0f} ft"


def _without_named_day(words: str) -> str:
    """``words`` without the day they name in words ("Nov 26", "Thanksgiving"), or ``words`` if nothing is left."""
    return NAMED_DAY_RE.sub(" ", words).strip() or words


def _start_of(row: SupportRow) -> dt.datetime:
    """When ``row`` began (:func:`ddrsearch.reading.layout.row_start`); its report's date at midnight when its FROM
    is not a clock time."""
    from ddrsearch.reading.layout import row_start

    try:
        return row_start(row.date, row.start)
    except ValueError:
        return dt.datetime.combine(row.date, dt.time())


def is_correct(card: AnswerCard, relevant: Sequence[str]) -> bool:
    """Whether the card answers and its top row comes from one of the ``relevant`` report file names."""
    return card.found and card.top.report in set(relevant)

