"""The chapters' exercises: ``check("4.1", answer)`` says "right" or "not yet" without showing the answer.

Each exercise is registered here with one small function that computes its
expected value from the real reports through the package's public API, so
the chapter cell holds only the reader's answer and the call to
:func:`check`. The reports and the retrievers the functions need are built
once per process (``functools.lru_cache``) and each expected value is
computed once.

:func:`answer_forms` gives the strings an expected value would show as in a
notebook's output, and :func:`answer_leaks` searches an executed chapter for
them: the book check (``tests/book/test_chapters.py``) fails when a chapter
prints an answer or when a committed check cell does not say "not yet".
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["EXERCISES", "Exercise", "answer_forms", "answer_leaks", "check", "expected", "is_right"]

#: What a reader's answer cell holds before it is answered.
PLACEHOLDERS = (None, Ellipsis)


@dataclass(frozen=True)
class Exercise:
    """One exercise of the book.

    Attributes:
        label: ``"N.M"``, chapter N, exercise M.
        asks: what the exercise asks, in one line (the audit's column).
        kind: how answers compare: ``"number"`` (within ``tolerance``),
            ``"text"`` (without case and surrounding spaces), ``"set"``
            (a list or set of texts, any order), ``"list"`` (item by item, in
            order; numbers within ``tolerance``, ``None`` only with ``None``).
        tolerance: allowed absolute difference for numbers.
        decimals: the decimals the exercise asks for (how the value would be printed).
        hint: what to look at when the answer is not yet right; never the value.
        compute: returns the expected value (no arguments).
        needs: what computing it reads: ``"data"`` (the report PDFs),
            ``"model"`` (the PDFs and the embedding model) or ``""`` (nothing).
    """

    label: str
    asks: str
    kind: str
    hint: str
    compute: Callable[[], Any]
    tolerance: float = 0.0
    decimals: int | None = None
    needs: str = "data"

    @property
    def chapter(self) -> int:
        return int(self.label.split(".")[0])


#: The registered exercises by label, in book order.
EXERCISES: dict[str, Exercise] = {}

_KINDS = ("number", "text", "set", "list")


def _exercise(label: str, asks: str, kind: str, hint: str, *, tolerance: float = 0.0, decimals: int | None = None,
              needs: str = "data"):
    """Register the decorated function as the expected value of exercise ``label``."""
    if kind not in _KINDS:
        raise ValueError(f"exercise {label}: kind {kind!r} is not one of {_KINDS}")
    if needs not in ("", "data", "model"):
        raise ValueError(f"exercise {label}: needs {needs!r} is not '', 'data' or 'model'")

    def register(fn):
        if label in EXERCISES:
            raise ValueError(f"exercise {label} is registered twice")
        EXERCISES[label] = Exercise(label, asks, kind, hint, fn, tolerance, decimals, needs)
        return fn

    return register


def _get(label: str) -> Exercise:
    try:
        return EXERCISES[str(label)]
    except KeyError:
        raise KeyError(f"no exercise {label!r}; the known exercises are: {', '.join(EXERCISES)}") from None


@functools.cache
def _expected(label: str):
    return _get(label).compute()


def expected(label: str):
    """The expected answer of exercise ``label`` (``"4.1"``), computed once per process.

    Raises:
        KeyError: for an unknown label; the message lists the known ones.
    """
    _get(label)
    return _expected(str(label))


def _norm(value) -> str:
    return str(value).strip().lower()


def _same_number(answer, value, tolerance: float) -> bool:
    if isinstance(answer, bool) or answer is None:
        return False
    try:
        return abs(float(answer) - float(value)) <= tolerance + 1e-12
    except (TypeError, ValueError):
        return False


def is_right(label: str, answer) -> bool:
    """Whether ``answer`` is a right answer to exercise ``label``; a placeholder (``...``, ``None``) never is.

    Raises:
        KeyError: for an unknown label.
    """
    ex = _get(label)
    if any(answer is p for p in PLACEHOLDERS):
        return False
    value = expected(label)
    if ex.kind == "number":
        return _same_number(answer, value, ex.tolerance)
    if ex.kind == "text":
        return isinstance(answer, str) and _norm(answer) == _norm(value)
    if ex.kind == "set":
        return isinstance(answer, (list, tuple, set, frozenset)) and not isinstance(answer, str) and (
            {_norm(a) for a in answer} == {_norm(v) for v in value})

    def same(a, v):
        if a is None or v is None:
            return a is None and v is None
        if isinstance(v, (int, float)):
            return _same_number(a, v, ex.tolerance)
        return _norm(a) == _norm(v)

    return isinstance(answer, (list, tuple)) and len(answer) == len(value) and all(
        same(a, v) for a, v in zip(answer, value, strict=True))


def check(label: str, answer) -> None:
    """Print ``Exercise N.M: right`` or ``Exercise N.M: not yet, hint: ...`` for a reader's answer.

    The expected value is computed here from the reports (never shown);
    a placeholder answer (``...`` or ``None``) gets "not yet" and the hint.

    Args:
        label: the exercise, ``"N.M"`` as the chapter numbers it (``"4.1"``).
        answer: the reader's answer, of the type the exercise asks for.

    Raises:
        KeyError: for an unknown label; the message lists the known ones.
    """
    ex = _get(label)
    if is_right(label, answer):
        print(f"Exercise {ex.label}: right")
    else:
        print(f"Exercise {ex.label}: not yet, hint: {ex.hint}")


# --- what would give an answer away ---------------------------------------------------------------

def _number_forms(value: float, decimals: int | None) -> list[str]:
    if isinstance(value, int) and not isinstance(value, bool):
        return [str(value)]
    forms = {f"{value:.{decimals}f}"} if decimals is not None else set()
    forms.add(repr(round(value, decimals if decimals is not None else 12)))
    return sorted(forms)


def answer_forms(label: str) -> list[str]:
    """The strings exercise ``label``'s expected value would show as in a notebook output.

    A number: formatted with the decimals the exercise asks for, and as
    Python prints it rounded so; text: itself; a list or set: its items
    as a Python list prints them, in the expected order (a list is a leak only
    whole). Integers below 100 and single short names are too common in any
    output to search for: they give no forms, and the audit proves by reading
    that they are not printed.
    """
    ex = _get(label)
    value = expected(label)
    if ex.kind == "number":
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 100:
            return []
        return _number_forms(value, ex.decimals)
    if ex.kind == "text":
        return [str(value)] if len(str(value)) > 8 else []
    orders = [list(value)] + ([sorted(value, key=str)] if ex.kind == "set" else [])
    forms = []
    for items in orders:
        forms += [repr(items)] + ([", ".join(str(i) for i in items)] if len(items) > 1 else [])
    return sorted(set(forms))


def _outputs(cell) -> str:
    texts = []
    for out in cell.get("outputs", []):
        text = out.get("text", "")
        texts.append("".join(text) if isinstance(text, list) else text)
        for mime, data in out.get("data", {}).items():
            if mime.startswith("text/"):
                texts.append("".join(data) if isinstance(data, list) else data)
    return "\n".join(texts)


CHECK_CALL = re.compile(r"""^check\(\s*["'](\d+\.\d+)["']\s*,\s*\w+\s*\)\s*$""")


def answer_leaks(nb, chapter: int) -> list[str]:
    """What gives chapter ``chapter``'s exercises away in its executed notebook ``nb``, one line per problem.

    A problem is: an output holding one of :func:`answer_forms` of an exercise of
    the chapter; a registered exercise with no check cell (a cell that is
    exactly ``check("N.M", name)``); or a check cell whose output, run as
    committed, is not ``Exercise N.M: not yet, hint: ...``.

    Args:
        nb: an executed notebook (``nbformat`` node or its dict).
        chapter: the chapter's number.
    """
    problems = []
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    checked = {}
    for cell in cells:
        source = "".join(cell["source"]).strip()
        m = CHECK_CALL.match(source)
        if m:
            checked[m.group(1)] = _outputs(cell)
    ours = [ex for ex in EXERCISES.values() if ex.chapter == chapter]
    for ex in ours:
        if ex.label not in checked:
            problems.append(f"Exercise {ex.label} has no check cell (a cell that is exactly check(\"{ex.label}\", name))")
        elif not checked[ex.label].startswith(f"Exercise {ex.label}: not yet, hint: "):
            problems.append(f"Exercise {ex.label}'s check cell, as committed, printed {checked[ex.label][:80]!r}")
        patterns = [(form, re.compile(r"(?<![\w.])" + re.escape(form) + r"(?![\w]|\.\d)"))
                    for form in sorted(answer_forms(ex.label), key=len, reverse=True)]
        for n, cell in enumerate(cells):
            text = _outputs(cell)
            form = next((form for form, pattern in patterns if pattern.search(text)), None)
            if form is not None:
                problems.append(f"Exercise {ex.label}'s answer {form!r} is printed by code cell {n}")
    for label in checked:
        if label not in EXERCISES:
            problems.append(f"check cell for exercise {label}, which is not registered")
    return problems


# --- the reports and retrievers the exercises share, built once per process ---------------------

@functools.cache
def _sample_report(number: int):
    from ddrsearch.book.notebook import sample

    return next(r for r in sample() if r.report_number == number)


@functools.cache
def _keyword(expand: bool):
    from ddrsearch.book.notebook import sample
    from ddrsearch.retrieval.lexical import KeywordRetriever

    return KeywordRetriever(expand=expand).index(sample())


@functools.cache
def _sample_bm25(unit: str = "report"):
    from ddrsearch.book.notebook import sample
    from ddrsearch.retrieval.chunking import chunk_reports
    from ddrsearch.retrieval.lexical import BM25Retriever

    reports = sample()
    return BM25Retriever().index(chunk_reports(reports) if unit == "chunk" else reports)


def _short_names(file_names) -> list[str]:
    from ddrsearch.reading.names import short_name

    return [short_name(n) for n in file_names]


# --- chapter 1 ----------------------------------------------------------------------------------

@_exercise("1.1", "FROM and TO times of report 49's row saying the packers did not set", "list",
           "read report 49's rows (operations_frame()) and find the one with 'packers did not set'; "
           "give both times as the report writes them, e.g. [\"06:00\", \"07:30\"]")
def _ex_1_1():
    row = next(row for row in _sample_report(49).operations
               if "packers did not set" in " ".join(row.operations.split()))
    return [row.start, row.end]


@_exercise("1.2", "hours of report 38 coded Trips", "number",
           "add the hours of the rows whose code is Trips in the table of report 38's rows",
           tolerance=0.01, decimals=2)
def _ex_1_2():
    return float(sum(row.hours for row in _sample_report(38).operations if row.code == "Trips"))


# --- chapter 2 ----------------------------------------------------------------------------------

@_exercise("2.1", "words the expansion adds to 'PJSM, TOOH to casing shoe'", "set",
           "compare tokenize(line) with tokenize(line, expand=True): the words only the second has")
def _ex_2_1():
    from ddrsearch.text import tokenize

    line = "PJSM, TOOH to casing shoe"
    plain = tokenize(line)
    return [t for t in tokenize(line, expand=True) if t not in plain]


EX_2_2_QUESTION = "pump out of hole"


@_exercise("2.2", f"sample reports expansion adds for '{EX_2_2_QUESTION}'", "set",
           "report_scores(question) of keyword_on and keyword_off: the reports only keyword_on finds, "
           "as short names")
def _ex_2_2():
    off = _keyword(False).report_scores(EX_2_2_QUESTION)
    return _short_names(n for n in _keyword(True).report_scores(EX_2_2_QUESTION) if n not in off)


# --- chapter 3 ----------------------------------------------------------------------------------

EX_3_1_WORD = "cement"


@_exercise("3.1", f"Lucene IDF of '{EX_3_1_WORD}' on the sample, two decimals", "number",
           "count the sample reports containing the word (len(index[word])) and put N and n into "
           "the Lucene IDF formula, natural logarithm", tolerance=0.006, decimals=2)
def _ex_3_1():
    from ddrsearch.book.notebook import sample
    from ddrsearch.text.tokenizer import tokenize

    reports = sample()
    n = sum(EX_3_1_WORD in set(tokenize(r.text)) for r in reports)
    return math.log(1 + (len(reports) - n + 0.5) / (n + 0.5))


@_exercise("3.2", "sample reports AND search returns for 'trip out of hole'", "set",
           "keyword.search(question, k=10) and the short names of the hits' reports")
def _ex_3_2():
    from ddrsearch.book.notebook import sample

    return _short_names(h.report for h in _keyword(False).search("trip out of hole", k=len(sample())))


# --- chapter 7 ----------------------------------------------------------------------------------

STUCK = "pipe became stuck during the slide"


def _chunk_scores_by_report(question: str) -> dict[str, list[float]]:
    from ddrsearch.book.notebook import sample
    from ddrsearch.retrieval.chunking import chunk_reports

    per_report: dict[str, list[float]] = {}
    for chunk, score in zip(chunk_reports(sample()), _sample_bm25("chunk").passage_scores(question), strict=True):
        if not math.isnan(score):
            per_report.setdefault(chunk.report, []).append(float(score))
    return per_report


@_exercise("7.1", "D038's score under a sum2 roll-up (two best chunk scores) in the roll-up table, two decimals",
           "number", "add the two best chunk scores of D038 in the roll-up table", tolerance=0.015, decimals=2)
def _ex_7_1():
    from ddrsearch.reading.names import short_name

    scores = next(s for name, s in _chunk_scores_by_report(STUCK).items() if short_name(name) == "D038")
    return sum(sorted(scores, reverse=True)[:2])


EX_7_2_QUESTION = "tripped in hole with new bit"


@_exercise("7.2", f"first report under max and under sum3 for '{EX_7_2_QUESTION}'", "list",
           "score the chunks with bm25_chunks.passage_scores(question), roll them up per report both ways "
           "(ties by report file name) and give [first under max, first under sum3] as short names")
def _ex_7_2():
    per_report = _chunk_scores_by_report(EX_7_2_QUESTION)
    firsts = []
    for roll in (max, lambda s: sum(sorted(s, reverse=True)[:3])):
        firsts.append(min(per_report, key=lambda name: (-roll(per_report[name]), name)))
    return _short_names(firsts)


# --- chapter 8 ----------------------------------------------------------------------------------

EX_8_1_APPROX = ["a", "b", "c", "x", "y", "d", "z", "w"]
EX_8_1_EXACT = ["a", "c", "d", "e", "b", "f", "g", "x"]


@_exercise("8.1", "overlap@8 of two given chunk lists", "number",
           "count the chunks in both first-8 lists and divide by 8", tolerance=0.001, decimals=3, needs="")
def _ex_8_1():
    return len(set(EX_8_1_APPROX[:8]) & set(EX_8_1_EXACT[:8])) / 8


@_exercise("8.2", "mean number of chunks per archive report, two decimals", "number",
           "chunk_reports(archive) gives every chunk; divide their number by the number of reports",
           tolerance=0.006, decimals=2)
def _ex_8_2():
    from ddrsearch.book.notebook import archive
    from ddrsearch.retrieval.chunking import chunk_reports

    reports = archive()
    return len(chunk_reports(reports)) / len(reports)


# --- chapter 9 ----------------------------------------------------------------------------------

@_exercise("9.1", "RRF score (k = 60) of a report ranked 3rd by BM25 and 7th by dense search, four decimals",
           "number", "one term 1 / (k + rank) per leg, added", tolerance=0.00005, decimals=4, needs="")
def _ex_9_1():
    from ddrsearch.retrieval.fusion import rrf_scores

    return rrf_scores([["p", "q", "report"], ["s", "t", "u", "v", "w", "x", "report"]], k=60)["report"]


EX_9_2_BM25 = {"a": 10, "b": 4, "c": 2}
EX_9_2_DENSE = {"a": 0.5, "b": 0.7, "c": 0.3}


@_exercise("9.2", "convex fusion (dense weight 0.3) of b from given leg scores, three decimals", "number",
           "min-max normalise each leg over a, b and c, then (1 - w) * BM25 + w * dense",
           tolerance=0.0005, decimals=3, needs="")
def _ex_9_2():
    from ddrsearch.retrieval.fusion import convex_scores

    return convex_scores(EX_9_2_BM25, EX_9_2_DENSE, weight=0.3, candidates=None)["b"]


# --- chapter 5 ----------------------------------------------------------------------------------

EX_5_1_QUESTION = "when were the packers set?"


@functools.cache
def _toy_answerer():
    from ddrsearch.answers.rowsearch import toy_answerer
    from ddrsearch.book.notebook import sample

    return toy_answerer(sample())


@_exercise("5.1", f"row id to cite, from the toy card for '{EX_5_1_QUESTION}', for the packers not setting",
           "text", "read the quoted rows: which says they failed?", needs="model")
def _ex_5_1():
    card = _toy_answerer().ask(EX_5_1_QUESTION)
    return next(r.row_id for r in card.rows if re.search(r"\bdid not set\b", r.text))


@_exercise("5.2", "answerable toy questions still answered with a threshold just above the hurricane's evidence",
           "number", "count best evidences above the hurricane's", needs="model")
def _ex_5_2():
    from ddrsearch.answers.rowsearch import TOY_QUESTIONS

    toy = _toy_answerer()
    storm = toy.best_evidence("hurricane shut down")
    return sum(toy.best_evidence(q) > storm for q in TOY_QUESTIONS)


# --- chapter 10 ---------------------------------------------------------------------------------

EX_10_1_QUESTION = "when did we last trip out of the hole?"


@functools.cache
def _archive_answerer():
    from ddrsearch.answers.answerer import Answerer
    from ddrsearch.book.notebook import archive

    return Answerer(archive())


@_exercise("10.1", f"row id of the first row of the archive card for '{EX_10_1_QUESTION}'", "text",
           "ask the question, then read card.top.row_id",
           needs="model")
def _ex_10_1():
    return _archive_answerer().ask(EX_10_1_QUESTION).top.row_id


EX_10_2_ROW = "D024-r06"


@_exercise("10.2", f"text lines in the crop of row {EX_10_2_ROW} (a row of the casing card)", "number",
           "resolve_row_id, then count its row_clip_lines")
def _ex_10_2():
    from ddrsearch.answers.sources import row_clip_lines
    from ddrsearch.book.notebook import archive
    from ddrsearch.reading.names import resolve_row_id

    return len(row_clip_lines(*resolve_row_id(EX_10_2_ROW, archive())))
