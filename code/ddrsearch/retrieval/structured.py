"""The structured path: numeric and date questions answered from the reports' typed fields.

Text search reads words; "which day did the well pass 5,000 ft?" asks for a
number that only the header's MD field holds, and "what were we doing on
Christmas Day 2020?" for a date that only the report date holds. This
module reads such a question and scores the reports that answer it from the
typed fields of :mod:`ddrsearch.reading.fields`:

* a **date** (``2020-12-25``, ``12/25/2020``, ``December 25 2020``,
  ``Dec 25``, or a holiday: Christmas, Christmas Eve, New Year's Day and
  Eve, Thanksgiving, Halloween, Veterans Day) -> the two reports covering that
  day (:func:`covering_reports`: a report dated D covers 06:00 on D-1 to 06:00
  on D), whose rows that began on it the tuned pipeline scores;
* a **depth passed** (``past``/``pass``/``reach``/``cross``/``beyond`` N
  ``ft``/``feet``/``'``) -> the first report whose MD is at least N
  (:func:`ddrsearch.answers.patterns.first_reaching`'s rule);
* **more/less than** N ft drilled (``footage``, ``drilled``, ``made``)
  -> every report whose 24-hour footage is above (below) N;
* the **best/most/highest** (``worst``/``least``/``lowest``) footage, ROP,
  mud weight, pump pressure or torque -> the report(s) holding the extreme,
  optionally within one hole size (``8 3/4 hole``, read from the DRILL BITS
  table's SIZE column);
* the **deepest** point (``highest MD``, ``max depth``, ``total depth reached``,
  ``reached TD``) -> the report(s) with the highest MD; ``TD`` alone (often the
  top drive) does not ask for it;
* a **depth mentioned** (``at 6,400 ft``) -> the reports whose drilled
  interval (previous MD to this MD) holds it, with a lower score; with
  ``bare_depths`` also a depth written without its unit (``near 6,945``,
  ``to 4,964``: :func:`bare_depth`), and with ``depth_still`` / ``depth_next``
  the reports that stayed at that depth or went on from it, lower still;
* with ``loose_dates``, a **loose date** (``late November``, ``mid Nov``,
  ``end of December``, ``first week of December``, ``before spud``, ``the day
  before spud``: :func:`loose_period`) -> every report covering a day of that
  period, with a lower score than a date's;
* with ``sections``, and only when none of the above matched, a **well section**
  (``in the 12-1/4``, ``in the curve``, ``at the toe``, ``the pilot``:
  :class:`ddrsearch.retrieval.sections.WellSections`, from the bit sizes and
  depths of the DRILL BITS table and the survey inclinations) -> every report
  whose drilled interval meets it, with a lower score.

These options of :meth:`StructuredIndex.score` are off by default (tried on
the development questions, ``benchmarks/plain_levers.py``).

:meth:`StructuredIndex.score` gives each matching report a score in (0, 1]
and the depth range its rows should print; the tuned pipeline
(:mod:`ddrsearch.retrieval.levered`) adds it to the text search's fused score. A question
with none of these patterns gets no structured scores at all.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ddrsearch.reading.fields import FIELDS, read_tables, typed_fields
from ddrsearch.reading.report import Report
from ddrsearch.retrieval.sections import WellSections, bit_rows, drilled
from ddrsearch.text.words import normalize

__all__ = ["DEPTH_UNITS_AFTER", "HOLIDAYS", "MONTHS", "MONTH_RE", "NAMED_DAY_RE", "StructuredIndex", "StructuredMatch",
           "bare_depth", "check_scores", "covering_reports", "loose_period", "parse_date", "plausible", "safe_date",
           "structured_words"]

#: Month names and their abbreviations (lower case) -> month number: the one list of them in the package.
MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], start=1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9

#: A month name or abbreviation, with an optional full stop (case-insensitive).
MONTH_RE = "(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"


_NUM = r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
_FEET = r"\s*(?:ft|feet|foot|')"
#: The verbs of a "which day did we pass N ft?" question, up to the number.
_PASS = r"\b(?:past|pass(?:ed|ing)?|reach(?:ed|ing)?|cross(?:ed|ing)?|beyond|hit|got to|get to|deeper than)\s+(?:the\s+)?"


def asked_depths(query: str) -> tuple[list[float], bool]:
    """The depths a "which day did we pass N ft?" question names, in feet, and whether it gives one in metres.

    >>> asked_depths("when did we pass 6,000 ft and 8,000 ft?")
    ([6000.0, 8000.0], False)
    >>> asked_depths("when did we reach 2,440 m?")
    ([], True)
    """
    text = normalize(query)
    first = re.search(_PASS + rf"{_NUM}{_FEET}", text)
    feet = [_number(n) for n in re.findall(rf"{_NUM}{_FEET}", text[first.start():])] if first else []
    metres = bool(re.search(_PASS + rf"{_NUM}\s*(?:m|metres|meters)\b", text))
    return feet, metres
_HOLE = re.compile(r"(\d{1,2}(?:\.\d+)?)(?:[\s-]+(\d)/(\d))?\s*\"?\s*(?:in(?:ch)?\s+)?"
                   r"(?:production |surface |intermediate )?hole")


def _holidays(year: int) -> dict[str, dt.date]:
    nov1 = dt.date(year, 11, 1)
    thanksgiving = nov1 + dt.timedelta(days=(3 - nov1.weekday()) % 7 + 21)  # 4th Thursday of November
    return {"christmas eve": dt.date(year, 12, 24), "christmas": dt.date(year, 12, 25),
            "new year's eve": dt.date(year, 12, 31), "new years eve": dt.date(year, 12, 31),
            "new year's day": dt.date(year, 1, 1), "new years day": dt.date(year, 1, 1),
            "new year": dt.date(year, 1, 1), "thanksgiving": thanksgiving, "halloween": dt.date(year, 10, 31),
            "veterans day": dt.date(year, 11, 11)}


#: The holidays :func:`parse_date` reads, as a question writes them (lower case, after
#: :func:`ddrsearch.text.words.normalize`); their dates in a year come from :func:`_holidays`.
HOLIDAYS = tuple(_holidays(2000))


def _holiday_pattern(name: str) -> str:
    return r"\s+".join(re.escape(w).replace("'", "['\u2019]?") for w in name.split())


#: A day named in words, as :func:`parse_date` reads it besides the numeric forms: ``Nov 26``,
#: ``26th of November``, ``Thanksgiving``, ``Christmas Day 2020`` (case-insensitive; with its year, if given).
NAMED_DAY_RE = re.compile(
    rf"\b(?:{MONTH_RE}\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH_RE}"
    rf"|{'|'.join(_holiday_pattern(h) for h in sorted(HOLIDAYS, key=len, reverse=True))})(?:\s+day)?"
    r"(?:,?\s+(?:19|20)\d{2})?\b", re.IGNORECASE)


def covering_reports(day: dt.date, dates: Mapping[str, dt.date]) -> list[str]:
    """The reports that cover ``day``: the one dated the next day (06:00 to midnight), then the one dated ``day``.

    A report dated D covers 06:00 on D-1 to 06:00 on D
    (:data:`ddrsearch.reading.layout.REPORT_DAY_START_HOUR`); two reports of one date are both listed,
    by name.

    Args:
        day: the calendar day.
        dates: report file name -> its RPT DATE.
    """
    after, on = day + dt.timedelta(days=1), day
    return sorted(n for n, d in dates.items() if d == after) + sorted(n for n, d in dates.items() if d == on)


def parse_date(query: str, years: Sequence[int] = (), *, span: tuple[dt.date, dt.date] | None = None
               ) -> dt.date | None:
    """The calendar date a query names, or ``None``.

    Args:
        query: the question.
        years: years to try when the query gives none (the archive's years,
            earliest first). Without them a date without a year is ``None``.
        span: the first and last day the reports cover; given, the first year
            of ``years`` whose date falls within it wins ("New Year's Day" in
            reports of 2020-10-21 to 2021-01-06 is 2021-01-01), failing that
            the first year that makes a date. Without it the first year wins.

    >>> parse_date("what were we doing on Christmas Day 2020")
    datetime.date(2020, 12, 25)
    >>> parse_date("report of 11/26/2020")
    datetime.date(2020, 11, 26)
    >>> parse_date("new year's day", [2020, 2021], span=(dt.date(2020, 10, 20), dt.date(2021, 1, 6)))
    datetime.date(2021, 1, 1)
    """
    text = normalize(query)
    year_m = re.search(r"\b(19|20)\d{2}\b", text)
    year_list = [int(year_m.group(0))] if year_m else list(years)
    m = re.search(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b", text)
    if m:
        return safe_date(int(m[1]), int(m[2]), int(m[3]))
    m = re.search(r"\b(\d{1,2})/(\d{1,2})/(\d{2,4})\b", text)
    if m:
        y = int(m[3]) + (2000 if len(m[3]) == 2 else 0)
        return safe_date(y, int(m[1]), int(m[2]))
    names = "|".join(sorted(MONTHS, key=len, reverse=True))
    m = re.search(rf"\b({names})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b", text) or \
        re.search(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({names})\b", text)
    found = []
    for y in year_list:
        if m:
            month, day = (m[1], m[2]) if not m[1].isdigit() else (m[2], m[1])
            d = safe_date(y, MONTHS[month], int(day))
            if d:
                found.append(d)
                continue
        for name, d in sorted(_holidays(y).items(), key=lambda t: -len(t[0])):
            if re.search(rf"\b{re.escape(name)}\b", text):
                found.append(d)
                break
    inside = [d for d in found if span is not None and span[0] <= d <= span[1]]
    return (inside or found or [None])[0]


def safe_date(y: int, m: int, d: int) -> dt.date | None:
    """The date ``y-m-d``, or ``None`` when it is no calendar date (``2021-02-29``, ``2020-11-31``).

    >>> safe_date(2020, 2, 29), safe_date(2021, 2, 29)
    (datetime.date(2020, 2, 29), None)
    """
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def _number(raw: str) -> float:
    return float(raw.replace(",", ""))


#: What may follow a number that is not a depth (after optional space, as
#: :func:`ddrsearch.text.words.normalize` writes it): a unit of pressure, rate,
#: volume, weight, mud weight, time, angle, length other than feet, a share, a
#: size; :func:`bare_depth` refuses a number followed by one.
DEPTH_UNITS_AFTER = ("psi", "psig", "kpsi", "gpm", "spm", "rpm", "bbl", "bbls", "bpm", "ppg", "sg", "klb", "klbs",
                     "kips", "k", "lb", "lbs", "lbf", "hr", "hrs", "hour", "hours", "h", "min", "mins", "minutes",
                     "sec", "s", "deg", "degs", "degree", "degrees", "%", "°", '"', "inch", "inches", "mm",
                     "cm", "m", "metres", "meters", "gal", "gals", "sx", "sacks", "days", "day", "jts", "joints",
                     "fph", "ft-lbs", "ft-lb", "amps", "am", "pm", "usd", "$", "psia", "ksi", "kpa", "mpa", "bar",
                     "bars", "barrels", "gallons", "pounds", "units", "stands", "stds", "ppm", "mg/l", "cp", "tons",
                     "strokes", "stks", "seconds", "secs")

_BARE = re.compile(
    r"\b(?:at|to|near|around|about|from|by|past|until|till|through|thru|toward|towards|approx(?:imately)?)"
    r"\s+(?:~\s*|roughly\s+|approximately\s+|about\s+)?"
    r"([1-9]\d?,\d{3}|[1-9]\d{3,4})(?!\d|,\d|\.\d|/|:\d)")
_AFTER_UNIT = re.compile(r"\s*(?:" + "|".join(re.escape(u) for u in sorted(DEPTH_UNITS_AFTER, key=len, reverse=True))
                         + r")(?![a-z])")


#: What makes the number after it a pressure: a test or a pressure a few words before ("tested the BOPs to
#: 5000", "pressure up to 1500"), in the same sentence.
_PRESSURE_BEFORE = re.compile(r"\b(?:test(?:ed|ing|s)?|pressured?|pressuring)\b(?:\s+[^\s.?!;]+){0,5}\s*$")


def bare_depth(query: str, deepest: float) -> float | None:
    """The depth in feet a question names without its unit (``near 6,945``, ``to 4,964``), or ``None``.

    A number counts when it follows a word of place (at, to, near, around,
    about, from, by, past, until, through, toward), is comma-grouped or has
    four or five digits, lies from 1 ft to ``deepest``, and is not
    followed by another unit (:data:`DEPTH_UNITS_AFTER`: ``8,391 psi``,
    ``1500 hrs``, ``2000 gallons``), by ``ft`` (that is the unit branch's), nor
    after a test or a pressure a few words before (``tested the BOPs to 5000``), nor part of a date
    (``11/26/2020``), a size (``13-3/8``) or a decimal. A four-digit number
    from 1900 to 2099 without a comma is taken for a year. The first such
    number wins.

    Args:
        query: the question (any case).
        deepest: the deepest MD of the reports, in feet (no depth beyond it is plausible).

    Returns:
        The depth in feet, or ``None``.

    >>> bare_depth("how sharp was it bending near 6,945?", 10987)
    6945.0
    >>> bare_depth("pressure near 8,391 psi", 10987), bare_depth("what happened in 2020", 10987)
    (None, None)
    """
    text = normalize(query)
    for m in _BARE.finditer(text):
        raw, rest = m[1], text[m.end():]
        if _AFTER_UNIT.match(rest) or re.match(_FEET, rest):
            continue
        if _PRESSURE_BEFORE.search(text[:m.start()]):  # "pressure tested the casing to 5000": a pressure
            continue
        if "," not in raw and 1900 <= int(raw) <= 2099:
            continue
        n = _number(raw)
        if 1 <= n <= deepest:
            return n
    return None


_PART = {"early": (1, 10), "beginning of": (1, 10), "start of": (1, 10), "mid": (11, 20), "middle of": (11, 20),
         "late": (21, 31), "end of": (24, 31), "first week of": (1, 7), "last week of": (25, 31)}
#: A month of a loose date: "may" only when what follows can follow a month (the end, a mark, a number, or a
#: word such as in, of, when, did, the), not a verb ("arriving late may delay the move", "the end of may be near":
#: the modal, no period).
_LOOSE_MONTH = ("(?:" + "|".join(m for m in sorted(MONTHS, key=len, reverse=True) if m != "may") + r")\.?"
                r"|may(?=\.|\s*(?:$|[^\w\s]|\d|(?:in|on|of|at|and|or|but|to|when|while|before|after|during|"
                r"through|until|till|did|do|does|was|were|we|the|is|are|had|has|with|for|from|this|that)\b))")
_LOOSE = re.compile(
    r"\b(early|beginning of|start of|mid|middle of|late|end of|first week of|last week of)[\s-]+(?:the\s+)?"
    rf"({_LOOSE_MONTH})(?!\w)(?:\s*,?\s*((?:19|20)\d{{2}}))?")
#: Before spud, as a question says it: ``before spud``, ``prior to spudding``, ``before we spudded``, ``before the
#: well started`` / ``was spudded`` (the well's start is its spud), with ``the day`` (night, morning, evening) before.
#: The well starting or beginning *to do* something (``started flowing``, ``began to lose returns``) is no spud;
#: ``started drilling`` is.
_SPUD = re.compile(r"\b(?:(?:the\s+)?(day|night|morning|evening)\s+)?(before|prior to)\s+(?:the\s+)?"
                   r"(?:spud(?:ding|ded)?|we\s+spud(?:ded)?|(?:the\s+)?well\s+(?:was\s+)?"
                   r"(?:(?:started|began)(?!\s+(?:to\b|(?!drilling\b)\w+ing\b))|spud(?:ded)?))\b")


def structured_words(query: str) -> list[str]:
    """The stretches of ``query`` the structured path reads as a day, a loose date or a depth, in order.

    A day in words (:data:`NAMED_DAY_RE`), a loose date (``mid November``, ``before spud``,
    :func:`loose_period`) and a number of feet (``5,000 feet``), as :func:`~ddrsearch.text.words.normalize`
    writes them (lower case); stretches that overlap an earlier one are left out.
    What the answer cards count as the question's structured part
    (:class:`ddrsearch.answers.answerer.Answerer`, ``structured_credit``).

    >>> structured_words("Had to strap down the TD umbilical in gusty weather mid November")
    ['mid november']
    >>> structured_words("when did the well get past 5,000 feet on Nov 26")
    ['5,000 feet', 'nov 26']
    """
    text = normalize(query)
    found: list[tuple[int, int]] = []
    for rx in (NAMED_DAY_RE, _LOOSE, _SPUD, re.compile(rf"{_NUM}{_FEET}")):
        for m in rx.finditer(text):
            if not any(m.start() < b and a < m.end() for a, b in found):
                found.append((m.start(), m.end()))
    return [text[a:b] for a, b in sorted(found)]


def loose_period(query: str, years: Sequence[int] = (), *, span: tuple[dt.date, dt.date] | None = None,
                 spud: dt.date | None = None) -> tuple[dt.date, dt.date, str] | None:
    """The days a loose date names: ``(first, last, how it was read)``, or ``None``.

    * ``early`` / ``beginning of`` / ``start of`` a month: days 1-10;
      ``mid`` / ``middle of``: 11-20; ``late``: 21 to the month's end;
      ``end of``: 24 to the end; ``first week of``: 1-7; ``last week of``:
      the last seven days; "may" only as a month (not the verb of "arriving
      late may delay the move"). The year is the question's, else the first of
      ``years`` whose period meets ``span`` (else the first of ``years``);
      without either, ``None``.
    * ``before spud`` / ``prior to spud``: from the first day of ``span`` to
      the day before ``spud``; ``the day (night, morning, evening) before
      spud``: that one day. Without ``spud``, ``None``.

    Args:
        query: the question (any case).
        years: years to try when the question gives none (earliest first).
        span: the first and last day the reports cover.
        spud: the day the well was spudded (:attr:`StructuredIndex.spud`).

    >>> loose_period("late November", [2020])
    (datetime.date(2020, 11, 21), datetime.date(2020, 11, 30), 'late November 2020')
    >>> loose_period("toolbox talk the day before spud", spud=dt.date(2020, 10, 30))[:2]
    (datetime.date(2020, 10, 29), datetime.date(2020, 10, 29))
    """
    text = normalize(query)
    m = _SPUD.search(text)
    if m:
        if spud is None:
            return None
        before = spud - dt.timedelta(days=1)
        if m[1]:
            return before, before, f"the day before spud ({before.isoformat()})"
        first = span[0] if span is not None else before
        return (first, before, f"before spud ({spud.isoformat()})") if first <= before else None
    m = _LOOSE.search(text)
    if not m:
        return None
    month = MONTHS[m[2].rstrip(".")]
    low, high = _PART[m[1]]
    found = []
    for y in [int(m[3])] if m[3] else list(years):
        end = calendar.monthrange(y, month)[1]
        first = dt.date(y, month, low if m[1] != "last week of" else end - 6)
        last = dt.date(y, month, min(high, end) if m[1] not in ("late", "end of", "last week of") else end)
        found.append((first, last))
    inside = [f for f in found if span is not None and f[0] <= span[1] and f[1] >= span[0]]
    if not found:
        return None
    first, last = (inside or found)[0]
    return first, last, f"{m[1]} {calendar.month_name[month]} {first.year}"


def check_scores(**scores: float) -> None:
    """Refuse an option score of :meth:`StructuredIndex.score` outside 0 to 1 (``depth_still=0.25``, ...).

    Raises:
        ValueError: naming the option and its value.
    """
    for name, value in scores.items():
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"{name} must be a score from 0 to 1, got {value!r}")


_RANGES = {spec.name: (spec.low, spec.high) for spec in FIELDS}


def plausible(name: str, value: float | None) -> float | None:
    """``value``, or ``None`` when it lies outside the field ``name``'s plausible range (:data:`ddrsearch.reading.fields.FIELDS`).

    :func:`ddrsearch.reading.fields.typed_fields` keeps such a value and flags it ("check the unit"); an MD
    printed 80240 must not answer "which day did we pass 9,000 ft?".
    """
    low, high = _RANGES.get(name, (None, None))
    if value is None or low is None or low <= value <= high:
        return value
    return None


def _feet(n: float) -> str:
    """``8,000`` or ``8,000.5``: a depth as asked, never rounded."""
    return f"{n:,.0f}" if n == int(n) else f"{n:,}"


@dataclass(frozen=True)
class StructuredMatch:
    """What the structured path found for a query.

    Attributes:
        kind: ``"date"``, ``"period"`` (a loose date), ``"depth_passed"``, ``"footage_above"``,
            ``"footage_below"``, ``"extreme"``, ``"depth_at"`` or ``"section"`` (a well section).
        scores: report file name -> score in (0, 1].
        depth: ``(low, high)`` feet that the answering row should print, when known.
        detail: how the answer was found, in words.
        depths: report file name -> its own depth range, when the reports differ.
        value: the number the question gave (feet for ``"depth_passed"``), or the extreme value found
            (``"extreme"``, in the field's unit), when one decides the answer.
        field: the typed field an ``"extreme"`` was read from (a name of :data:`ddrsearch.reading.fields.FIELDS`).
        holders: every report holding that extreme (``scores`` gives at most three reports a score).
        day: the calendar day a ``"date"`` match names; its ``scores`` are the reports covering it
            (:func:`covering_reports`), and only their rows that began on it answer (the tuned
            pipeline gives the bonus to those rows alone).
        period: the first and last day a ``"period"`` match names (:func:`loose_period`).
    """

    kind: str
    scores: dict[str, float]
    depth: tuple[float, float] | None = None
    detail: str = ""
    depths: dict[str, tuple[float, float]] = field(default_factory=dict)
    value: float | None = None
    field: str = ""
    holders: tuple[str, ...] = ()
    day: dt.date | None = None
    period: tuple[dt.date, dt.date] | None = None


_EXTREMES = (
    (r"foot(?:age)?|feet drilled|ft drilled|most (?:hole|feet|ft)", "footage_ft"),
    (r"\brop\b|rate of penetration|penetration rate|drilling rate", "bit_rop_ft_per_hr"),
    (r"mud weight|\bmw\b|heaviest mud|lightest mud", "mud_weight_max_ppg"),
    (r"pump pressure|standpipe pressure|\bspp\b", "pump_pressure_psi"),
    (r"torque", "torque_ftlbf"),
)

#: The measured depth, as a "highest MD" / "maximum depth" question names it. "TD" alone is not here: in these
#: reports and in questions it is the top drive ("longest TD repair") as often as total depth.
_DEPTH = r"\bmd\b|measured depth|\bdepth\b|\bdeep\b"
#: The extreme words that make a depth question ask for the deepest report ("longest", "fastest", "best" do not:
#: "the longest trip, at what depth?" asks for a trip).
_HIGHEST_DEPTH = ("highest", "max", "maximum", "biggest", "record")
#: A question asking for the deepest point without such a word ("what was the total depth reached?", "when did
#: we reach TD?", "deepest MD"): the highest ``md_ft``. "TD" counts only after a verb of reaching (or "called",
#: or before "reached"/"called"), never alone.
_DEEPEST = re.compile(r"\b(?:deepest|total depth|final depth|(?:reach(?:ed|ing)?|hit|got to|get to|call(?:ed)?)"
                      r"\s+(?:the\s+)?td|td\s+(?:was\s+)?(?:reached|called))\b")

#: What else a depth question can be about: the depth of a plug, a shoe, the casing or a fish is not the well's
#: deepest point ("maximum depth of the cement plug", "at what depth was casing set at total depth?").
_OTHER_DEPTH_OBJECT = re.compile(r"\b(?:plugs?|shoes?|casing|liners?|cement\w*|packers?|fish|float|collars?|"
                                 r"window|perf\w*|whipstock|bridge)\b")


def _row_of_record(i: int, rec) -> dict:
    """Record ``i`` of :meth:`StructuredIndex.to_records`, its date read back, or ``ValueError`` saying what is wrong."""
    if not isinstance(rec, dict) or not isinstance(rec.get("report"), str) or not isinstance(rec.get("date"), str):
        raise ValueError(f"structured record {i} is not an object with a report name and an ISO date")
    where = f"structured record {i} ({rec['report'][:80]!r})"
    try:
        date = dt.date.fromisoformat(rec["date"])
    except ValueError:
        raise ValueError(f"{where}: date {rec['date'][:40]!r} is not an ISO date") from None
    for key in ("bit_size", *_RANGES):
        value = rec.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ValueError(f"{where}: {key} {str(value)[:40]!r} is not a number")
    bits = rec.get("bits") or []
    if not isinstance(bits, list) or not all(isinstance(b, list) and len(b) == 3 and drilled(*b) for b in bits):
        raise ValueError(f"{where}: bits {str(bits)[:80]!r} are not [size in, IN ft, OUT ft] rows of a bit that "
                         "drilled (0 <= IN < OUT <= 40,000)")
    return {**rec, "date": date}


class StructuredIndex:
    """The typed fields of a set of reports, ready to answer numeric and date questions.

    Args:
        reports: the reports (any order).
    """

    def __init__(self, reports: Sequence[Report] = (), *, rows: Sequence[dict] | None = None):
        self._set_rows(self.records_of(reports) if rows is None else sorted(rows, key=lambda r: (r["date"], r["report"])))

    @staticmethod
    def records_of(reports: Sequence[Report]) -> list[dict]:
        """One record per report: file name, date, bit size, the bit rows that drilled
        (``bits``: :func:`ddrsearch.retrieval.sections.bit_rows`) and every typed field's value
        (JSON-ready after :meth:`to_records`)."""
        rows = []
        for r in sorted(reports, key=lambda r: (r.report_date, r.file_name)):
            tables = read_tables(r)
            vals = typed_fields(r, tables)
            bits = tables.get("DRILL BITS", [])
            size = next((b.get("SIZE", "") for b in bits if b.get("SIZE", "").strip()), "")
            try:
                bit_size = float(size)
            except ValueError:
                bit_size = None
            rows.append({"report": r.file_name, "date": r.report_date, "bit_size": bit_size, "bits": bit_rows(tables),
                         **{k: v.value for k, v in vals.items()}})
        return rows

    def to_records(self) -> list[dict]:
        """The index as JSON-ready records (dates as ISO strings), for an index on disk."""
        keep = [{k: v for k, v in row.items() if k != "md_from"} for row in self.rows]
        return [{**row, "date": row["date"].isoformat()} for row in keep]

    @classmethod
    def from_records(cls, records: Sequence[dict]) -> StructuredIndex:
        """Rebuild the index from :meth:`to_records` output (no PDF is read).

        Raises:
            ValueError: records :meth:`to_records` cannot have written (an index header damaged or edited):
                not a list of objects, a record without a report name or ISO date, a typed field that is not
                a number, ``bits`` that are not rows :func:`ddrsearch.retrieval.sections.bit_rows` keeps;
                the message names the record and the value.
        """
        if not isinstance(records, list):
            raise ValueError(f"the structured records are {type(records).__name__}, not a list of records")
        return cls(rows=[_row_of_record(i, r) for i, r in enumerate(records)])

    def _set_rows(self, rows: list[dict]) -> None:
        for row in rows:  # an implausible value (kept and flagged by typed_fields) answers nothing here
            row.update({k: plausible(k, row[k]) for k in _RANGES if k in row})
        self.rows = rows
        prev = 0.0
        for row in rows:  # drilled interval of each day: previous MD -> this MD
            md = row.get("md_ft")
            row["md_from"] = prev
            if md is not None:
                prev = max(prev, md)
        self.years = sorted({row["date"].year for row in rows})
        # the spud day: a report's date less its days from spud (DFS), as most reports giving one say
        spuds = [row["date"] - dt.timedelta(days=row["dfs_days"]) for row in rows
                 if row.get("dfs_days") is not None and row["dfs_days"] == int(row["dfs_days"])]
        self.spud = max(set(spuds), key=lambda d: (spuds.count(d), -d.toordinal())) if spuds else None
        # the days the reports cover: from 06:00 the day before the first report's date to its last date
        self.span = (rows[0]["date"] - dt.timedelta(days=1), rows[-1]["date"]) if rows else None
        self.sections = WellSections.from_rows(rows)

    def score(self, query: str, *, bare_depths: bool = False, depth_still: float = 0.0, depth_next: float = 0.0,
              loose_dates: float = 0.0, sections: float = 0.0) -> StructuredMatch | None:
        """The reports answering ``query`` from typed fields, or ``None`` when it has no numeric/date pattern.

        Args:
            query: the question.
            bare_depths: also read a depth written without its unit (:func:`bare_depth`) as a depth mentioned.
            depth_still: score (0 to 1; 0 = none) of the reports of a depth mentioned that stayed at it (interval
                starting at the depth, MD still the depth: tripping, reaming, logging there), besides the 0.5 of
                the reports whose drilled interval holds it.
            depth_next: score (0 to 1; 0 = none) of every report whose interval starts at a depth mentioned
                (the days after it was reached, drilling on or not); ``depth_still`` wins for the ones that stayed.
            loose_dates: score (0 to 1; 0 = off) of each report covering a day of a loose date
                (:func:`loose_period`, kind ``"period"``), read after an exact date and before the depths.
            sections: score (0 to 1; 0 = off) of each report whose drilled interval meets a well section
                the question names (:meth:`ddrsearch.retrieval.sections.WellSections.named`, kind
                ``"section"``), read last: only a question with no other pattern gets it.

        Raises:
            ValueError: a score outside 0 to 1.
        """
        check_scores(depth_still=depth_still, depth_next=depth_next, loose_dates=loose_dates, sections=sections)
        text = normalize(query)
        date = parse_date(text, self.years, span=self.span)
        if date is not None:
            hits = {name: 1.0 for name in covering_reports(date, {r["report"]: r["date"] for r in self.rows})}
            return StructuredMatch("date", hits, detail=f"rows that began on {date.isoformat()}",
                                   day=date) if hits else None
        period = self._period(text, loose_dates) if loose_dates > 0 else None
        if period is not None:
            return period
        m = re.search(_PASS + rf"{_NUM}{_FEET}", text)
        if m:
            n = _number(m[1])
            # a report without an MD (a rig-up day, an unreadable or implausible value) passes no depth
            first = next((r for r in self.rows if r.get("md_ft") is not None and r["md_ft"] >= n), None) \
                if n > 0 else None
            if first is None:
                return None
            depth = (max(n - 100.0, first["md_from"]), first["md_ft"])
            return StructuredMatch("depth_passed", {first["report"]: 1.0}, depth,
                                   f"first MD >= {_feet(n)} ft", {first["report"]: depth}, value=n)
        m = re.search(rf"\b(more|over|above|greater|at least|less|under|below|fewer)\s+(?:than\s+)?{_NUM}{_FEET}", text)
        if m and re.search(r"drill|footage|made|hole", text):
            n, above = _number(m[2]), m[1] not in ("less", "under", "below", "fewer")
            hits = {r["report"]: 1.0 for r in self.rows if r.get("footage_ft") is not None
                    and (r["footage_ft"] > n if above else r["footage_ft"] < n)}
            return StructuredMatch("footage_above" if above else "footage_below", hits,
                                   detail=f"24 HR FTG {'>' if above else '<'} {n:,.0f} ft") if hits else None
        # "most recent", "at least 9.2 ppg" and "at most" ask for no extreme
        m = re.search(r"\b(best|most(?! recent)|highest|max(?:imum)?|biggest|longest|fastest|heaviest|record|"
                      r"worst|(?<!at )least|lowest|min(?:imum)?|smallest|slowest|lightest)\b", text)
        if m and m[1] == "most" and re.search(r"\bat most\b", text):
            m = None
        if m:
            for pattern, fld in _EXTREMES:
                if re.search(pattern, text):
                    return self._extreme(text, fld, m[1] in ("worst", "least", "lowest", "minimum", "min",
                                                              "smallest", "slowest", "lightest"), sections > 0)
        # the deepest point: after the other fields, so "mud weight at total depth" is not a depth question
        if ((m and m[1] in _HIGHEST_DEPTH and re.search(_DEPTH, text)) or
                (_DEEPEST.search(text) and not any(re.search(p, text) for p, _ in _EXTREMES))) and \
                not _OTHER_DEPTH_OBJECT.search(text):
            return self._extreme(text, "md_ft", False, sections > 0)
        m = re.search(rf"\b(?:at|to|from|near|around)\s+{_NUM}{_FEET}", text)
        n = _number(m[1]) if m else None
        if n is None and bare_depths:
            n = bare_depth(text, max((r["md_ft"] for r in self.rows if r.get("md_ft") is not None), default=0.0))
        if n is not None:
            return self._depth_at(n, depth_still, depth_next)
        return self._section(text, sections) if sections > 0 else None

    def _section(self, text: str, score: float) -> StructuredMatch | None:
        """Every report whose drilled interval meets a well section ``text`` names, scored ``score``."""
        names = self.sections.named(text)
        hits = {r["report"]: score for r in self.rows if self.sections.meets(r, names)}
        detail = "reports in the " + " or the ".join(self.sections.describe(n) for n in names)
        return StructuredMatch("section", hits, detail=detail) if hits else None

    def _period(self, text: str, score: float) -> StructuredMatch | None:
        """Every report covering a day of the loose date ``text`` names, scored ``score`` (kind ``"period"``)."""
        period = loose_period(text, self.years, span=self.span, spud=self.spud)
        if period is None:
            return None
        first, last, how = period
        dates = {r["report"]: r["date"] for r in self.rows}
        hits = {name: score for i in range((last - first).days + 1)
                for name in covering_reports(first + dt.timedelta(days=i), dates)}
        return StructuredMatch("period", hits, detail=f"reports covering {how}: {first.isoformat()} to "
                                                      f"{last.isoformat()}", period=(first, last)) if hits else None

    def _depth_at(self, n: float, still: float, after: float) -> StructuredMatch | None:
        """The reports whose drilled interval holds ``n`` ft (0.5), then those starting at it: ``still`` for the
        ones that stayed there, ``after`` for the others (a score of 0 gives none)."""
        hits = {}
        for r in self.rows:
            md = r.get("md_ft")
            if md is not None and r["md_from"] < n <= md:
                hits[r["report"]] = 0.5
            elif r["md_from"] == n:
                score = still if (md is None or md == n) and still > 0 else after
                if score > 0:
                    hits[r["report"]] = score
        return StructuredMatch("depth_at", hits, (n, n), f"drilled interval holds {n:,.0f} ft",
                               {rep: (n, n) for rep in hits}) if hits else None

    def _extreme(self, text: str, fld: str, lowest: bool, sections: bool = False) -> StructuredMatch | None:
        """The report(s) holding the highest (``lowest``: lowest) ``fld``, within the hole size ``text`` names
        (``8 3/4 hole``: the DRILL BITS size) or, with ``sections``, within the well sections it names
        (``heaviest mud in the lateral``: the reports drilled in the tangent)."""
        rows = [r for r in self.rows if r.get(fld) is not None and (fld not in ("footage_ft", "md_ft") or r[fld] > 0)]
        hole = _HOLE.search(text)
        names = self.sections.named(text) if sections and not hole else []
        if hole:
            size = float(hole[1]) + (int(hole[2]) / int(hole[3]) if hole[2] else 0.0)
            rows = [r for r in rows if r["bit_size"] is not None and abs(r["bit_size"] - size) < 0.01]
        elif names:
            rows = [r for r in rows if self.sections.meets(r, names)]
        if not rows:
            return None
        ordered = sorted(rows, key=lambda r: r[fld], reverse=not lowest)
        best = ordered[0][fld]
        # the extreme scores 1; the next two get a little, as near-misses of a noisy field
        scores = {r["report"]: 1.0 if r[fld] == best else 0.3 for r in ordered[:3]}
        within = f" ({size:g} in hole)" if hole else \
            f" (in the {' or the '.join(self.sections.describe(n) for n in names)})" if names else ""
        return StructuredMatch("extreme", scores, detail=f"{'lowest' if lowest else 'highest'} {fld}{within}",
                               value=best, field=fld, holders=tuple(r["report"] for r in ordered if r[fld] == best))
