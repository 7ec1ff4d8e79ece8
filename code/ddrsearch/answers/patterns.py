"""Patterns across days: jumps in a daily series, event sequences, numeric answers.

Three tools for the questions text search handles badly (chapter
chapters/13-patterns-across-days.ipynb):

* :func:`find_jumps` flags day-over-day changes that stand out from the
  series' own spread, by the modified z-score of Iglewicz and Hoaglin (1993):
  ``z = 0.6745 * (d - median(d)) / MAD`` with ``MAD = median(|d - median(d)|)``;
  a change is a jump when ``|z| > k``, and ``k = 3.5`` is their recommended
  cut-off. No threshold is typed in feet or pounds: it comes from the data.
* :func:`event_sequence` puts the operation rows that several searches find
  in date and row order, with their hours, code and NPT cell.
* :func:`first_reaching` and :func:`extreme` answer numeric questions ("which
  day did MD pass 10,000 ft?", "the highest mud weight and when") from the
  typed fields of :mod:`ddrsearch.reading.fields`, citing the report, the field as
  printed and the operation row that shows it.
* :func:`day_quantity` answers a quantity asked about one day ("how deep were
  we on Thanksgiving?", :func:`asked_quantity`) from what the reports covering
  that day print: a report dated D covers 06:00 on D-1 to 06:00 on D, so a day
  is covered by two reports, and the rows that began on it say the rest.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ddrsearch.errors import PatternError

__all__ = [
    "DAY_LOG_WORDS",
    "DAY_QUANTITIES",
    "DAY_QUANTITY_WORDS",
    "DEFAULT_K",
    "Answer",
    "DayAnswer",
    "DayReading",
    "JumpResult",
    "asked_quantity",
    "asks_day_log",
    "day_quantity",
    "event_sequence",
    "extreme",
    "find_jumps",
    "first_reaching",
    "rows_mentioning_depth",
]

#: Cut-off on the modified z-score (Iglewicz and Hoaglin, 1993, "How to detect and handle outliers").
DEFAULT_K = 3.5

#: 0.6745 is the 0.75 quantile of the standard normal: with it, MAD estimates one standard deviation.
_NORMAL_MAD = 0.6745


@dataclass
class JumpResult:
    """Day-over-day changes of a series and the ones flagged as jumps.

    Attributes:
        table: pandas DataFrame, one row per change: ``label`` (the later
            day's label, e.g. report name), ``previous``, ``value``,
            ``change`` (value - previous), ``z`` (modified z-score) and
            ``jump`` (``|z| > k``).
        median: median change, in the series' unit.
        mad: median absolute deviation of the changes.
        k: the cut-off used.
        low, high: changes below ``low`` or above ``high`` are jumps
            (``median -/+ k * MAD / 0.6745``).
        note: how the spread was measured (the fallback when MAD is 0).
    """

    table: object
    median: float
    mad: float
    k: float
    low: float
    high: float
    note: str = ""

    @property
    def jumps(self):
        """The rows of :attr:`table` flagged as jumps."""
        return self.table[self.table["jump"]]


def find_jumps(values: Sequence[float | None], labels: Sequence[object] | None = None, *,
               k: float = DEFAULT_K) -> JumpResult:
    """Flag day-over-day changes of a series larger than its own spread allows.

    Missing values (``None``/NaN) are skipped: a change is taken between
    consecutive *printed* values, so a blank day does not make a jump.

    Args:
        values: the daily series, in date order (e.g. torque in ft-lbf).
        labels: one label per value (report names or dates); positions when ``None``.
        k: cut-off on the modified z-score; :data:`DEFAULT_K` = 3.5.

    Returns:
        A :class:`JumpResult`. When MAD is 0 (more than half the changes are
        equal) the spread is the mean absolute deviation times 1.2533
        (Iglewicz and Hoaglin's fallback) and ``note`` says so.

    Raises:
        PatternError: fewer than 3 printed values (fewer than 2 changes), or
            ``labels`` of another length.
    """
    import numpy as np
    import pandas as pd

    values = list(values)
    labels = list(range(len(values))) if labels is None else list(labels)
    if len(labels) != len(values):
        raise PatternError(f"{len(values)} values but {len(labels)} labels; give one label per value.")
    kept = [(lab, float(v)) for lab, v in zip(labels, values) if v is not None and not np.isnan(float(v))]
    if len(kept) < 3:
        raise PatternError(f"only {len(kept)} printed value(s); a jump needs at least 3 values (2 changes).")
    prev = np.array([v for _, v in kept[:-1]])
    cur = np.array([v for _, v in kept[1:]])
    d = cur - prev
    med = float(np.median(d))
    mad = float(np.median(np.abs(d - med)))
    note = "spread: median absolute deviation (MAD) of the changes"
    if mad > 0:
        scale = mad / _NORMAL_MAD
    else:
        scale = float(np.mean(np.abs(d - med))) * 1.2533
        note = "MAD is 0 (most changes are equal); spread: mean absolute deviation x 1.2533"
    z = (d - med) / scale if scale > 0 else np.zeros_like(d)
    table = pd.DataFrame({"label": [lab for lab, _ in kept[1:]], "previous": prev, "value": cur, "change": d,
                          "z": np.round(z, 2), "jump": np.abs(z) > k})
    return JumpResult(table, med, mad, k, med - k * scale, med + k * scale, note)


def event_sequence(retriever, queries: Sequence[str], operations, *, k: int = 10, reports: Sequence[str] | None = None):
    """Operation rows found by several searches, in the order they happened.

    Args:
        retriever: an indexed retriever whose hits carry an operation ``row``
            (the default hybrid pipeline, or BM25 over operation chunks).
        queries: the searches, e.g. ``["stuck pipe", "fishing", "milling"]``.
        operations: :func:`ddrsearch.reading.fields.operations_table` of the same reports.
        k: hits per query.
        reports: keep only these report file names (a window of days); all when ``None``.

    Returns:
        pandas DataFrame: the operation rows (columns of ``operations``) hit by
        at least one query, one row each, sorted by date then row, with
        ``queries`` (which searches found it, ``"; "``-joined) and ``best_rank``.
        Hits without a row (whole-report hits) are left out and counted in
        ``frame.attrs["without_row"]``.
    """
    import pandas as pd

    found: dict[tuple[str, int], dict] = {}
    without_row = 0
    for q in queries:
        for hit in retriever.search(q, k=k):
            if reports is not None and hit.report not in reports:
                continue
            if hit.row is None:
                without_row += 1
                continue
            entry = found.setdefault((hit.report, hit.row), {"queries": [], "best_rank": hit.rank})
            entry["queries"].append(q)
            entry["best_rank"] = min(entry["best_rank"], hit.rank)
    keys = pd.DataFrame([{"report": r, "row": row, "queries": "; ".join(v["queries"]), "best_rank": v["best_rank"]}
                         for (r, row), v in found.items()], columns=["report", "row", "queries", "best_rank"])
    out = operations.merge(keys, on=["report", "row"], how="inner")
    out = out.sort_values(["date", "report_number", "row"]).reset_index(drop=True)
    out.attrs["without_row"] = without_row
    return out


@dataclass(frozen=True)
class Answer:
    """A numeric answer with its evidence.

    Attributes:
        question: the question answered.
        value: the number, in ``unit``.
        unit: its unit.
        report: the report's file name; ``report_number``, ``date`` its identity.
        field: the typed field used (a column of :func:`ddrsearch.reading.fields.fields_frame`).
        raw: the field as printed in the report.
        rows: TIME BREAKDOWN rows of that report that show it (row index, FROM, text).
        detail: how the answer was found (e.g. the previous report's value).
        day: the real day (datetime.date) of the first row in ``rows``, by
            :func:`ddrsearch.reading.layout.row_start` (a report dated D covers
            06:00 on D-1 to 06:00 on D, so this is often the day before ``date``);
            ``None`` when no row is cited or its FROM is not a clock time.
    """

    question: str
    value: float
    unit: str
    report: str
    report_number: int
    date: object
    field: str
    raw: str
    rows: tuple[tuple[int, str, str], ...] = ()
    detail: str = ""
    day: object = None


_DEPTH_RE = re.compile(r"(\d{1,2},\d{3}|\d{3,5})\s*'?")


def rows_mentioning_depth(operations, report: str, low: float, high: float) -> list[tuple[int, str, str]]:
    """Rows of one report whose text prints a depth in ``[low, high]`` feet.

    Args:
        operations: :func:`ddrsearch.reading.fields.operations_table`.
        report: the report's file name.
        low, high: the depth range, feet.

    Returns:
        ``(row, FROM, text)`` of each matching row, in table order.
    """
    out = []
    for _, r in operations[operations["report"] == report].iterrows():
        depths = [float(m.replace(",", "")) for m in _DEPTH_RE.findall(r["text"])]
        if any(low <= d <= high for d in depths):
            out.append((int(r["row"]), r["from"], r["text"]))
    return out


def _raw(long, report: str, field: str) -> str:
    sel = long[(long["report"] == report) & (long["field"] == field)]
    return str(sel["raw"].iloc[0]) if len(sel) else ""


def first_reaching(frame, long, operations, field: str, threshold: float, *, question: str = "") -> Answer:
    """The first report (by date) whose ``field`` is at least ``threshold``.

    Args:
        frame: :func:`ddrsearch.reading.fields.fields_frame` (one row per report).
        long: :func:`ddrsearch.reading.fields.fields_long` (for the raw strings).
        operations: :func:`ddrsearch.reading.fields.operations_table` (for the rows cited).
        field: e.g. ``"md_ft"``.
        threshold: in the field's unit.

    Returns:
        An :class:`Answer`; ``rows`` are that report's rows printing a depth
        between the previous report's value and the answer's (for depth fields),
        and ``day`` the real day of the first of them: the day the depth was
        passed, not the report's date.

    Raises:
        PatternError: no report reaches the threshold, or unknown field.
    """
    from ddrsearch.reading.fields import FIELDS

    spec = {s.name: s for s in FIELDS}.get(field)
    if spec is None:
        raise PatternError(f"unknown field {field!r}; choose one of {', '.join(s.name for s in FIELDS)}.")
    ordered = frame.sort_values(["date", "report_number"])
    hit = ordered[ordered[field] >= threshold]
    if hit.empty:
        raise PatternError(f"no report has {field} >= {threshold:g} {spec.unit} "
                           f"(highest: {ordered[field].max():g}).")
    first = hit.iloc[0]
    before = ordered[(ordered["date"] < first["date"]) & ordered[field].notna()]
    prev_value = float(before[field].iloc[-1]) if len(before) else None
    rows: list = []
    if spec.unit == "ft":
        rows = rows_mentioning_depth(operations, first["report"], max(threshold, prev_value or 0), first[field])
    detail = (f"previous printed value {prev_value:,.0f} {spec.unit} in {before['report'].iloc[-1]}"
              if prev_value is not None else "first printed value")
    day = None
    if rows:
        from ddrsearch.reading.layout import row_start

        try:
            day = row_start(first["date"], rows[0][1]).date()
        except ValueError:  # a FROM that is not a clock time gives no day
            day = None
    return Answer(question or f"first report with {field} >= {threshold:g}", float(first[field]), spec.unit,
                  first["report"], int(first["report_number"]), first["date"], field,
                  _raw(long, first["report"], field), tuple(rows), detail, day)


def extreme(frame, long, field: str, *, how: str = "max", question: str = "") -> list[Answer]:
    """The highest (or lowest) value of a field and every report that prints it.

    Args:
        frame, long: as in :func:`first_reaching`.
        field: e.g. ``"mud_weight_max_ppg"``.
        how: ``"max"`` or ``"min"``.

    Returns:
        One :class:`Answer` per report holding the extreme value (ties kept,
        in date order); ``detail`` gives the field's flag, if any.

    Raises:
        PatternError: unknown field or ``how``, or no report prints the field.
    """
    from ddrsearch.reading.fields import FIELDS

    spec = {s.name: s for s in FIELDS}.get(field)
    if spec is None or how not in ("max", "min"):
        raise PatternError(f"unknown field {field!r} or how={how!r} (max or min).")
    col = frame[field].dropna()
    if col.empty:
        raise PatternError(f"no report prints {field}.")
    best = col.max() if how == "max" else col.min()
    tied = frame[frame[field] == best].sort_values(["date", "report_number"])
    out = []
    for _, r in tied.iterrows():
        flags = long[(long["report"] == r["report"]) & (long["field"] == field)]["flag"]
        out.append(Answer(question or f"{how} of {field}", float(best), spec.unit, r["report"],
                          int(r["report_number"]), r["date"], field, _raw(long, r["report"], field),
                          detail=str(flags.iloc[0]) if len(flags) else ""))
    return out


#: The quantities a question about one day can ask for: a pattern of its words (lower case) -> the typed
#: field read (a name of :data:`ddrsearch.reading.fields.FIELDS`); the first pattern that matches wins.
DAY_QUANTITIES: tuple[tuple[str, str], ...] = (
    (r"\btvd\b|true vertical", "survey_tvd_ft"),
    (r"\bhow deep\b|\bdepths?\b|\bmd\b|measured depth|where (?:was|were) (?:the|our) (?:bit|bha|string|drill ?string)"
     r"|\bbit depth\b|how far down", "md_ft"),
    (r"\bfootage\b|how (?:many|much) (?:feet|ft|hole)|(?:feet|ft) (?:of hole )?(?:drilled|made)|how far did we drill"
     r"|how much (?:did|have|had) we (?:drill|make)", "footage_ft"),
    (r"mud weight|\bmw\b|how heavy", "mud_weight_ppg"),
    (r"inclination|\binc\b|hole angle", "inclination_deg"),
    (r"azimuth", "azimuth_deg"),
    (r"\brop\b|rate of penetration|penetration rate", "bit_rop_ft_per_hr"),
    (r"pump pressure|standpipe pressure|\bspp\b", "pump_pressure_psi"),
    (r"\btorque\b", "torque_ftlbf"),
)

#: The depth fields: for them the rows that began on the day and print a depth are cited.
_DEPTH_FIELDS = ("md_ft", "survey_tvd_ft")


#: Words a question about a day's quantity may hold besides the quantity and the day: how it asks
#: (``what``, ``were``, ``we``), when in the day (``morning``, ``midnight``) and what is measured
#: (``well``, ``hole``, ``bit``). Any other word makes it a question about an event on that day
#: ("at what depth did we get stuck on Nov 25?"), which the rows' words answer.
DAY_QUANTITY_WORDS = frozenset(
    ["when", "what", "which", "where", "how", "did", "do", "does", "we", "us", "our", "i", "you", "was", "were", "is", "are", "be", "been", "there", "it", "its", "get", "got", "on", "at", "by", "in", "of", "for", "during", "over", "about", "around", "the", "a", "an", "day", "date", "today", "time", "then", "so", "far", "yet", "total", "current", "currently", "reach", "reached", "reaching", "morning", "afternoon", "evening", "night", "midnight", "noon", "start", "end", "beginning", "well", "hole", "bit", "bha", "string", "wellbore"])


#: Words a question about a day's quantity may hold besides :data:`DAY_QUANTITY_WORDS` when it asks for one
#: field: the verbs of footage ("how many feet did we drill on Dec 13?", "how much hole did we make?").
_FIELD_WORDS = {"footage_ft": frozenset(["drill", "drilled", "drilling", "make", "made", "cut", "new"])}


#: Words that ask what was done on a day ("what were we doing on Christmas Day?", "what happened on
#: Nov 26?"), besides :data:`DAY_QUANTITY_WORDS`.
DAY_LOG_WORDS = frozenset(["doing", "do", "done", "happen", "happens", "happened", "happening", "going", "activity", "activities", "operation", "operations", "work", "worked", "working", "rig", "crew", "up", "to", "status"])


def _without_day(text: str) -> str:
    """``text`` (normalised) without the day it names: a date, or a day in words."""
    from ddrsearch.retrieval.structured import NAMED_DAY_RE

    text = NAMED_DAY_RE.sub(" ", text)
    return re.sub(r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b", " ", text)


def asks_day_log(question: str) -> bool:
    """Whether ``question`` asks only what was done on the day it names: besides the day, it holds a word of
    :data:`DAY_LOG_WORDS` and no word outside them and :data:`DAY_QUANTITY_WORDS`.

    >>> asks_day_log("what were we doing on Christmas Day 2020")
    True
    >>> asks_day_log("did we drill on nov 26")
    False
    """
    from ddrsearch.text.tokenizer import tokenize
    from ddrsearch.text.words import normalize

    words = tokenize(_without_day(normalize(question)))
    return any(t in DAY_LOG_WORDS for t in words) and all(t in DAY_LOG_WORDS or t in DAY_QUANTITY_WORDS
                                                          for t in words)


def asked_quantity(question: str) -> str | None:
    """The typed field a question about one day's quantity asks for, or ``None`` (:data:`DAY_QUANTITIES`).

    Besides the quantity's words and the day (a date, or in words:
    :data:`ddrsearch.retrieval.structured.NAMED_DAY_RE`), the question may hold only
    :data:`DAY_QUANTITY_WORDS` (and, for footage, the verbs of drilling: ``drill``,
    ``drilled``, ``make``, ``made``, ...); with any other word it asks about an event
    and ``None`` is returned.

    >>> asked_quantity("how deep were we on thanksgiving")
    'md_ft'
    >>> asked_quantity("what was the mud weight on Nov 26?")
    'mud_weight_ppg'
    >>> asked_quantity("how many feet did we drill on December 13")
    'footage_ft'
    >>> asked_quantity("were we stuck on nov 26") is None
    True
    >>> asked_quantity("at what depth did we get stuck on nov 25") is None
    True
    """
    from ddrsearch.text.tokenizer import tokenize
    from ddrsearch.text.words import normalize

    text = normalize(question)
    for pattern, field in DAY_QUANTITIES:
        m = re.search(pattern, text)
        if m:
            rest = _without_day(f"{text[:m.start()]} {text[m.end():]}")
            allowed = _FIELD_WORDS.get(field, frozenset())
            return None if any(t not in DAY_QUANTITY_WORDS and t not in allowed for t in tokenize(rest)) else field
    return None


@dataclass(frozen=True)
class DayReading:
    """What one report covering a day prints for a field.

    Attributes:
        report: the report's file name; ``report_number`` and ``date`` (RPT DATE) its identity.
        start, end: the part of the day the report covers (naive datetimes, the rig's
            time): 00:00 to 06:00 of the day for the report dated that day, 06:00 to
            midnight for the one dated the next day.
        at: when the printed value holds: the report time, 06:00 on ``date``
            (:data:`ddrsearch.reading.layout.REPORT_DAY_START_HOUR`).
        value: the field's value in ``unit``, ``None`` when blank or unreadable.
        raw: the field as printed (``""`` when blank).
        flag: a reason not to trust the value (:class:`ddrsearch.reading.fields.TypedValue`), ``""`` if none.
    """

    report: str
    report_number: int
    date: dt.date
    start: dt.datetime
    end: dt.datetime
    at: dt.datetime
    value: float | None
    unit: str
    raw: str
    flag: str = ""


@dataclass(frozen=True)
class DayAnswer:
    """A quantity on one day, from the reports covering it.

    Attributes:
        day: the calendar day asked about.
        field: the typed field read (a name of :data:`ddrsearch.reading.fields.FIELDS`).
        readings: one :class:`DayReading` per covering report, in time order (the
            report dated ``day`` first, then the one dated the next day); empty
            when no report covers the day.
        rows: ``(report file name, row index)`` of the operation rows that began on
            ``day`` (:func:`ddrsearch.reading.layout.row_start`) and print the answer,
            in time order: for a depth field every such row printing a depth in feet,
            for footage, every such row printing a drilled interval; for another field those
            printing one of the readings' values.
        drilled: ``(from, to)`` feet: the shallowest start and deepest end of the drilled
            intervals (``drill from 6,526' to 6,724'``) the rows that began on ``day`` print,
            for a depth or footage; ``None`` otherwise or when none does.
        footage: the lengths of those intervals added up, feet (``None`` with ``drilled``).
    """

    day: dt.date
    field: str
    readings: tuple[DayReading, ...]
    rows: tuple[tuple[str, int], ...] = ()
    drilled: tuple[float, float] | None = None
    footage: float | None = None


def day_quantity(reports, day: dt.date, field: str) -> DayAnswer:
    """The value of ``field`` on ``day`` as the reports covering it print it.

    A report dated D covers 06:00 on D-1 to 06:00 on D
    (:func:`ddrsearch.reading.layout.row_start`), so ``day`` is covered by the report
    dated ``day`` (midnight to 06:00; its header value holds at 06:00 on ``day``) and
    by the one dated the next day (06:00 to midnight; its value holds at 06:00 the
    next morning). Both are read; the rows of either that began on ``day`` are
    searched for the rows that print the answer.

    Args:
        reports: :class:`ddrsearch.reading.report.Report` objects (any order).
        day: the calendar day.
        field: a name of :data:`ddrsearch.reading.fields.FIELDS` (``"md_ft"``).

    Returns:
        A :class:`DayAnswer`; its ``readings`` are empty when no report covers ``day``.

    Raises:
        PatternError: unknown field.
    """
    from ddrsearch.reading.fields import FIELDS, typed_fields
    from ddrsearch.reading.layout import REPORT_DAY_START_HOUR, row_start
    from ddrsearch.retrieval.rowchoice import drilled_intervals, printed_depths
    from ddrsearch.retrieval.structured import covering_reports

    spec = {s.name: s for s in FIELDS}.get(field)
    if spec is None:
        raise PatternError(f"unknown field {field!r}; choose one of {', '.join(s.name for s in FIELDS)}.")
    by_name = {r.file_name: r for r in reports}
    names = covering_reports(day, {n: r.report_date for n, r in by_name.items()})
    ordered = sorted((by_name[n] for n in names), key=lambda r: (r.report_date, r.file_name))
    midnight = dt.datetime.combine(day, dt.time())
    six = dt.time(REPORT_DAY_START_HOUR)
    readings = []
    for r in ordered:
        tv = typed_fields(r)[field]
        start, end = ((midnight, dt.datetime.combine(day, six)) if r.report_date == day
                      else (dt.datetime.combine(day, six), midnight + dt.timedelta(days=1)))
        readings.append(DayReading(r.file_name, r.report_number, r.report_date, start, end,
                                   dt.datetime.combine(r.report_date, six), tv.value, spec.unit, tv.raw, tv.flag))
    values = {v.value for v in readings if v.value is not None}
    rows, ends, starts = [], [], []
    began = []
    for r in ordered:
        for op in r.operations:
            try:
                when = row_start(r.report_date, op.start)
            except ValueError:  # a FROM that is not a clock time gives no day
                continue
            if when.date() == day:
                began.append((when, r, op))
    for _, r, op in sorted(began, key=lambda t: (t[0], t[1].file_name, t[2].index)):
        text = op.operations
        intervals = drilled_intervals(text)
        if field in _DEPTH_FIELDS:
            prints = bool(printed_depths(text))
        elif field == "footage_ft":
            prints = bool(intervals)
        else:
            plain = re.sub(r"(?<=\d),(?=\d{3})", "", text)
            prints = any(re.search(rf"(?<![\d.]){re.escape(f'{v:g}')}(?![\d]|\.\d)", plain) for v in values)
        if prints:
            rows.append((r.file_name, op.index))
        for a, b in intervals:
            starts.append(a)
            ends.append(b)
    drilled = (min(starts), max(ends)) if ends and field in (*_DEPTH_FIELDS, "footage_ft") else None
    footage = sum(b - a for a, b in zip(starts, ends)) if drilled is not None else None
    return DayAnswer(day, field, tuple(readings), tuple(rows), drilled, footage)
