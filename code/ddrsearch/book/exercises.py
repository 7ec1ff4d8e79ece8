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
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["EXERCISES", "Exercise", "answer_forms", "answer_leaks", "check", "exercise_layout", "expected", "is_right"]

#: Characters per printed line of feedback: the PDF page's code width (``checks.CODE_WIDTH``).
LINE_WIDTH = 79

#: What a reader's answer cell holds before it is answered.
PLACEHOLDERS = (None, Ellipsis)


@dataclass(frozen=True)
class Exercise:
    """One exercise of the book.

    Attributes:
        label: ``"N.M"``, chapter N (or appendix N, a capital letter: ``"D.1"``), exercise M.
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
    def chapter(self) -> int | str:
        """The chapter's number (``4``), or the appendix's letter (``"D"``)."""
        head = self.label.split(".")[0]
        return int(head) if head.isdigit() else head


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
    The line is wrapped at :data:`LINE_WIDTH` characters (the PDF's code width).

    Args:
        label: the exercise, ``"N.M"`` as the chapter numbers it (``"4.1"``; ``"D.1"`` in appendix D).
        answer: the reader's answer, of the type the exercise asks for.

    Raises:
        KeyError: for an unknown label; the message lists the known ones.
    """
    ex = _get(label)
    if is_right(label, answer):
        print(f"Exercise {ex.label}: right")
    else:
        print(textwrap.fill(f"Exercise {ex.label}: not yet, hint: {ex.hint}", LINE_WIDTH,
                            subsequent_indent="    ", break_long_words=False, break_on_hyphens=False))


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
    as a Python list prints them and joined by commas, in the expected order
    (and sorted, for a set): a list is a leak only whole, but a one-item list
    of a long text (a row id) is a leak alone. Integers below 100 and texts
    of 8 characters or fewer are too common in any output to search for: they
    give no forms.
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
    if len(orders[0]) == 1 and len(str(orders[0][0])) >= 8:  # one long item (a row id) is a leak alone
        forms.append(str(orders[0][0]))
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


CHECK_CALL = re.compile(r"""^check\(\s*["']((?:\d+|[A-Z])\.\d+)["']\s*,\s*\w+\s*\)\s*$""")


def exercise_layout(nb, chapter: int | str) -> list[str]:
    """How chapter ``chapter``'s notebook ``nb`` departs from the exercise layout, one line per problem.

    ``chapter`` is a chapter's number or an appendix's letter (``"D"``).

    Each registered exercise N.M of the chapter needs a Markdown cell with
    ``**Exercise N.M.**``, then a code cell whose first line binds the answer
    to the placeholder (``my_x = ...``), then a check cell that is exactly
    ``check("N.M", my_x)``. A check cell for an exercise not registered is a
    problem too. Works on a committed (unexecuted) notebook.
    """
    problems = []
    cells = nb["cells"]
    checks = {}
    for n, cell in enumerate(cells):
        m = CHECK_CALL.match("".join(cell["source"]).strip()) if cell["cell_type"] == "code" else None
        if m:
            checks[m.group(1)] = n
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for ex in (ex for ex in EXERCISES.values() if str(ex.chapter) == str(chapter)):
        if f"**Exercise {ex.label}.**" not in text:
            problems.append(f"Exercise {ex.label} has no Markdown cell with **Exercise {ex.label}.**")
        n = checks.get(ex.label)
        if n is None:
            problems.append(f"Exercise {ex.label} has no check cell (a cell that is exactly check(\"{ex.label}\", name))")
            continue
        name = re.search(r",\s*(\w+)\s*\)", "".join(cells[n]["source"])).group(1)
        answer = "".join(cells[n - 1]["source"]).lstrip() if n and cells[n - 1]["cell_type"] == "code" else ""
        if not re.match(rf"{name}\s*=\s*\.\.\.(\s|#|$)", answer):
            problems.append(f"Exercise {ex.label}: the cell before its check does not start with {name} = ...")
    for label in checks:
        if label not in EXERCISES:
            problems.append(f"check cell for exercise {label}, which is not registered")
    return problems


def answer_leaks(nb, chapter: int | str) -> list[str]:
    """What gives chapter ``chapter``'s exercises away in its executed notebook ``nb``, one line per problem.

    A problem is: an output holding one of :func:`answer_forms` of an exercise of
    the chapter; a registered exercise with no check cell (a cell that is
    exactly ``check("N.M", name)``); or a check cell whose output, run as
    committed, is not ``Exercise N.M: not yet, hint: ...``.

    Args:
        nb: an executed notebook (``nbformat`` node or its dict).
        chapter: the chapter's number, or the appendix's letter (``"D"``).
    """
    problems = []
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    checked = {}
    for cell in cells:
        source = "".join(cell["source"]).strip()
        m = CHECK_CALL.match(source)
        if m:
            checked[m.group(1)] = _outputs(cell)
    ours = [ex for ex in EXERCISES.values() if str(ex.chapter) == str(chapter)]
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

EX_3_1_WORD = "circulate"


@_exercise("3.1", f"Lucene IDF of '{EX_3_1_WORD}' on the sample, two decimals", "number",
           "count the sample reports containing the word (len(index[word])) and put N and n into "
           "the Lucene IDF formula, natural logarithm", tolerance=0.006, decimals=2)
def _ex_3_1():
    from ddrsearch.book.notebook import sample
    from ddrsearch.text.tokenizer import tokenize

    reports = sample()
    n = sum(EX_3_1_WORD in set(tokenize(r.text)) for r in reports)
    return math.log(1 + (len(reports) - n + 0.5) / (n + 0.5))


EX_3_2_QUESTION = "lay down drill pipe"


@_exercise("3.2", f"sample reports AND search returns for '{EX_3_2_QUESTION}'", "set",
           "keyword.search(question, k=10) and the short names of the hits' reports")
def _ex_3_2():
    from ddrsearch.book.notebook import sample

    return _short_names(h.report for h in _keyword(False).search(EX_3_2_QUESTION, k=len(sample())))


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


# --- chapter 4 ----------------------------------------------------------------------------------

EX_4_1_QUESTION = "drill out the shoe track"
REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"


@functools.cache
def _dense_operations():
    """Chapter 4's *dense, TIME BREAKDOWN*: one passage per sample report, its rows' OPERATIONS text."""
    from ddrsearch.book.notebook import sample
    from ddrsearch.retrieval.dense import DenseRetriever
    from ddrsearch.retrieval.passages import Passage

    reports = sample()
    passages = [Passage(f"{r.file_name}#operations", r.file_name,
                        "\n".join(row.operations for row in r.operations) if r.operations else r.text)
                for r in reports]
    return DenseRetriever().index(passages).attach_reports(reports)


@_exercise("4.1", f"cosine of '{EX_4_1_QUESTION}' and report 38 under dense, TIME BREAKDOWN, three decimals",
           "number", "dense_ops.report_scores(question) maps each report's file name to its cosine",
           tolerance=0.0005, decimals=3, needs="model")
def _ex_4_1():
    return float(_dense_operations().report_scores(EX_4_1_QUESTION)[REPORT_38])


EX_4_2_QUESTION = "wiper trip to the shoe"


@_exercise("4.2", f"BM25 score of report 38 for '{EX_4_2_QUESTION}', three decimals", "number",
           "methods[\"BM25\"].report_scores(question), keyed by file name", tolerance=0.0005, decimals=3)
def _ex_4_2():
    return float(_sample_bm25().report_scores(EX_4_2_QUESTION)[REPORT_38])


# --- chapter 6 ----------------------------------------------------------------------------------

EX_6_1_LAYER = "POOH from 8,021 ft to the casing shoe, flow check"
EX_6_1_OCR = "P00H from 8.021 ft to the casinq shoe, flow check"


@_exercise("6.1", "order-free WER of a given OCR line against its text layer, in percent, one decimal", "number",
           "ocr.error_rates(layer, read) gives (CER, WER) as fractions", tolerance=0.05, decimals=1, needs="")
def _ex_6_1():
    from ddrsearch.reading import ocr

    return 100 * ocr.error_rates(EX_6_1_LAYER, EX_6_1_OCR)[1]


@_exercise("6.2", "FROM times of the rows read from page 2 of a synthetic report split after its first row", "list",
           "write_report(path, split_after=1), read_report(path), and the start of each row whose page is 2 "
           "(pages count from 1)", needs="")
def _ex_6_2():
    import tempfile
    from pathlib import Path

    from ddrsearch.reading.report import read_report
    from ddrsearch.reading.synthetic import write_report

    with tempfile.TemporaryDirectory(prefix="ddr-exercise-") as folder:
        report = read_report(write_report(Path(folder) / "split.pdf", split_after=1))
    return [row.start for row in report.operations if row.page == 2]


# --- chapter 11 ---------------------------------------------------------------------------------

@functools.cache
def _archive_questions():
    from ddrsearch.book.notebook import archive
    from ddrsearch.evaluation.questionfiles import load_questions

    return load_questions("archive", reports=archive()).answerable()


@functools.cache
def _hybrid(what: str = "archive"):
    """The default pipeline over the archive (``"archive"``) or over chapter 14's first 44 days (``"days"``)."""
    from ddrsearch.book.notebook import archive
    from ddrsearch.retrieval.pipeline import build_retriever

    reports = archive() if what == "archive" else _chapter_14_reports()
    return build_retriever("hybrid", reports)


@_exercise("11.1", "NDCG@100 (gain = grade) of the default pipeline on A01, from its ranks, three decimals", "number",
           "DCG over the ranks of A01's two relevant reports (grade over log2(rank + 1)), divided by the DCG "
           "of the two in the best order", tolerance=0.0005, decimals=3, needs="model")
def _ex_11_1():
    from ddrsearch.evaluation import metrics

    a01 = _archive_questions()["A01"]
    ranking = metrics.rank_by_score(_hybrid().report_scores(a01.question))
    return metrics.ndcg_at_k(ranking, a01.qrels(), 100)


EX_11_2_LIST = (37, 40, 39, 41, 38)


@_exercise("11.2", "NDCG@5 (gain = grade) of the list 37, 40, 39, 41, 38 for A01, three decimals", "number",
           "report 39 (grade 1) at rank 3 and report 38 (grade 3) at rank 5; IDCG puts 38 first and 39 second",
           tolerance=0.0005, decimals=3, needs="data")
def _ex_11_2():
    from ddrsearch.data.manifest import load_manifest
    from ddrsearch.evaluation import metrics

    name_of = {e.report_number: e.file_name for e in load_manifest() if e.phase == "Drilling"}
    return metrics.ndcg_at_k([name_of[n] for n in EX_11_2_LIST], _archive_questions()["A01"].qrels(), 5)


# --- chapter 12 ---------------------------------------------------------------------------------

@functools.cache
def _bench():
    from ddrsearch.book.notebook import archive
    from ddrsearch.evaluation.leverbench import LeverBench

    return LeverBench(archive())


@functools.cache
def _dev_ndcg5(what: str) -> float:
    from ddrsearch.evaluation.evaluate import evaluate_retriever
    from ddrsearch.evaluation.leverbench import LEVERS, PLAIN
    from ddrsearch.retrieval.pipeline import DEFAULT_LEVERS, DEFAULT_WEIGHT

    bench, dev = _bench(), _archive_questions().split("dev")
    retriever = {
        "plain": lambda: bench.retriever(PLAIN),
        "window 3": lambda: bench.retriever(PLAIN, {"proximity": 1.0, "window": 3}),
        "default": bench.default,
        "default + shorthand added": lambda: bench.retriever(DEFAULT_LEVERS, {"weight": DEFAULT_WEIGHT},
                                                             LEVERS["shorthand added"]),
    }[what]()
    return float(evaluate_retriever(retriever, dev)["NDCG@5"].mean())


@_exercise("12.1", "gain in dev NDCG@5 of proximity with a 3-word window over the plain hybrid, three decimals",
           "number", "the mean NDCG@5 on dev of bench.retriever(PLAIN, {\"proximity\": 1.0, \"window\": 3}) minus "
           "that of plain", tolerance=0.0005, decimals=3, needs="model")
def _ex_12_1():
    return _dev_ndcg5("window 3") - _dev_ndcg5("plain")


@_exercise("12.2", "evidence agreement of the plain hybrid on dev, three decimals", "number",
           "evidence_agreement(bench.retriever(PLAIN), dev).attrs[\"agreement\"]", tolerance=0.0005,
           decimals=3, needs="model")
def _ex_12_2():
    from ddrsearch.evaluation.evaluate import evidence_agreement
    from ddrsearch.evaluation.leverbench import PLAIN

    return float(evidence_agreement(_bench().retriever(PLAIN), _archive_questions().split("dev")).attrs["agreement"])


@_exercise("12.3", "paired gain in dev NDCG@5 of 'shorthand added' on top of the default, four decimals", "number",
           "build bench.retriever(DEFAULT_LEVERS, {\"weight\": DEFAULT_WEIGHT}, LEVERS[name]), score it on dev, "
           "and subtract the default's mean NDCG@5", tolerance=0.00005, decimals=4, needs="model")
def _ex_12_3():
    return _dev_ndcg5("default + shorthand added") - _dev_ndcg5("default")


# --- chapter 13 ---------------------------------------------------------------------------------

@functools.cache
def _fields():
    from ddrsearch.book.notebook import archive
    from ddrsearch.reading import fields as F

    reports = archive()
    values = F.archive_fields(reports)
    return F.fields_frame(reports, values), F.fields_long(reports, values), F.operations_table(reports)


@_exercise("13.1", "report number and MD of the first report with MD at least 8,000 ft", "list",
           "sort frame by date and take the first row whose md_ft is at least 8000; give "
           "[report_number, md_ft]", tolerance=0.5)
def _ex_13_1():
    frame, _, _ = _fields()
    ordered = frame.sort_values(["date", "report_number"])
    first = ordered[ordered["md_ft"] >= 8000].iloc[0]
    return [int(first["report_number"]), float(first["md_ft"])]


@_exercise("13.2", "report numbers of the jumps find_jumps flags in the raw printed pick-up weights", "list",
           "the raw strings of pickup_weight_klbf in long, as numbers, for the drilling reports in date order "
           "(None where none is printed), labelled by report number; then .jumps[\"label\"]")
def _ex_13_2():
    from ddrsearch.answers.patterns import find_jumps

    frame, long, _ = _fields()
    drilling = frame[frame["phase"] == "Drilling"].sort_values(["date", "report_number"])
    raw = long[long["field"] == "pickup_weight_klbf"].set_index("report")["raw"]
    values = [float(raw[r].replace(",", "")) if r in raw.index and raw[r] else None for r in drilling["report"]]
    jumps = find_jumps(values, drilling["report_number"].tolist()).jumps
    return [int(n) for n in jumps["label"]]


STORY_SEARCHES = ("stuck pipe", "fishing", "milled up lost pieces", "jars", "lost packer elements",
                  "washout in drill string")
EX_13_3_SEARCH = "pipe stuck, work pipe free"


@_exercise("13.3", f"rows the search '{EX_13_3_SEARCH}' adds to the story, as row ids", "list",
           "rebuild story with the seventh search, merge it with the first on report and row, and name the rows "
           "only the new one has as row ids (D041-r05: report and row from 0), in story order",
           needs="model")
def _ex_13_3():
    from ddrsearch.answers.patterns import event_sequence
    from ddrsearch.book.notebook import by_name
    from ddrsearch.reading.names import row_id

    frame, _, ops = _fields()
    reports = by_name()
    window = set(frame.loc[frame["report_number"].between(38, 51), "report"])
    hybrid = _hybrid()
    before = event_sequence(hybrid, list(STORY_SEARCHES), ops, k=15, reports=window)
    after = event_sequence(hybrid, [*STORY_SEARCHES, EX_13_3_SEARCH], ops, k=15, reports=window)
    old = set(zip(before["report"], before["row"], strict=True))
    return [row_id(reports[r], int(row)) for r, row in zip(after["report"], after["row"], strict=True)
            if (r, row) not in old]


# --- chapter 14 ---------------------------------------------------------------------------------

CHAPTER_14_CUTOFF = "2020-11-25"


def _chapter_14_days():
    """Chapter 14's manifest entries in arrival order: (the first days, the eight later ones, the next one)."""
    import datetime

    from ddrsearch.data.manifest import load_manifest

    days = sorted(load_manifest(), key=lambda e: (e.report_date, e.file_name))
    cutoff = datetime.date.fromisoformat(CHAPTER_14_CUTOFF)
    first = [e for e in days if e.report_date <= cutoff]
    rest = [e for e in days if e.report_date > cutoff]
    return first, rest[:8], rest[8]


def _chapter_14_reports():
    from ddrsearch.book.notebook import by_name

    first, later, _ = _chapter_14_days()
    reports = by_name()
    return [reports[e.file_name] for e in first + later]


@_exercise("14.1", "passages of the index after the eight later days have arrived", "number",
           "the header of the current generation (grown.header or current_generation(index_dir).header) "
           "counts them", needs="model")
def _ex_14_1():
    return len(_hybrid("days").passages)


@_exercise("14.2", "short name and passages added of the report after the last of later", "list",
           "nxt = days[days.index(later[-1]) + 1]; add_reports([arrive(nxt)], ...) returns a result whose "
           ".passages counts them; give [short name, passages]")
def _ex_14_2():
    from ddrsearch.book.notebook import by_name
    from ddrsearch.reading.names import short_name
    from ddrsearch.retrieval.chunking import chunk_reports

    _, _, nxt = _chapter_14_days()
    return [short_name(nxt.file_name), len(chunk_reports([by_name()[nxt.file_name]]))]


EX_14_3_QUESTION = "reaming tight hole"


@_exercise("14.3", f"first five reports of an index rebuilt over first + later for '{EX_14_3_QUESTION}'", "list",
           "build_index over the rig folder's copies of first + later into work / \"again\", open it, "
           "search(question, 5) and give the short names, best first", needs="model")
def _ex_14_3():
    from ddrsearch.reading.names import short_name

    return [short_name(h.report) for h in _hybrid("days").search(EX_14_3_QUESTION, k=5)]


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


# --- appendix D (PostgreSQL) ---------------------------------------------------------------------

@_exercise("D.1", "development questions whose top 10 reports are the same with RRF in PostgreSQL and in memory",
           "number", "build mem_rrf like twin (its BM25 leg expands abbreviations, as PostgresRetriever's does), "
           "with fusion=\"rrf\", index it over chunks, and count the questions of dev "
           "for which top10 gives the same list for pg_rrf and mem_rrf")
def _ex_d_1():
    # parity is what the appendix shows (and tests/stores/test_postgres.py pins): built alike, the
    # two give the same top 10 for every development question, so the count expected is all of them
    from ddrsearch.evaluation.questionfiles import load_questions

    return len(load_questions("archive", check_evidence=False).split("dev"))


def _order(label: str) -> tuple:
    head, number = label.split(".")
    return (0, int(head), int(number)) if head.isdigit() else (1, head, int(number))


# book order: chapters, then appendices; in each, by exercise
_in_order = sorted(EXERCISES.items(), key=lambda item: _order(item[0]))
EXERCISES.clear()
EXERCISES.update(_in_order)
