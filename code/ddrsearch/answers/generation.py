"""Optional generated answers through an OpenAI-compatible chat endpoint, and a citation checker.

Generation is optional: the extractive answer card (:mod:`ddrsearch.answers.answerer`)
is always the answer of record. When an endpoint is configured, the rows of
the card are listed in a prompt, numbered by their row ids (``[D038-r08]``),
and the model is asked to answer citing them. :func:`check_citations` then
flags every sentence without a citation and every cited id that was not in
the prompt, so an unsupported sentence is never shown as supported
(chapters/10-traceable-answers.ipynb). Given the rows' text
(:func:`evidence_lines`), it also scores how well the cited rows support each
cited sentence (:func:`overlap`: the share of the sentence's words they hold)
and flags a sentence under :data:`MIN_OVERLAP`, one whose rows say a term the
other way (:func:`negation_differs`) and one holding a number its rows do not
(:func:`numbers_missing`), so a claim citing a row that does not say it is visible.

Configuration (environment variables):

``DDRSEARCH_LLM_URL``
    Base URL of an OpenAI-compatible API, e.g. ``http://127.0.0.1:11434/v1``
    (Ollama) or ``http://127.0.0.1:8080/v1`` (llama.cpp server). Unset: no
    generation.
``DDRSEARCH_LLM_MODEL``
    Model name the server knows (e.g. ``llama3.2``); default ``"default"``.
``DDRSEARCH_LLM_TIMEOUT``
    Seconds to wait for the answer; default 30.

The client is the standard library's ``urllib``: one POST to
``{URL}/chat/completions`` with ``{"model", "messages", "temperature": 0}``;
the answer is ``choices[0].message.content`` (the OpenAI chat completions
format, which Ollama and llama.cpp serve too).
"""

from __future__ import annotations

import functools
import json
import re
import socket
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ddrsearch import settings
from ddrsearch.errors import GenerationError

__all__ = [
    "CITATION_RE",
    "MIN_OVERLAP",
    "CitationCheck",
    "GenerationError",
    "LLMConfig",
    "build_prompt",
    "chat",
    "check_citations",
    "evidence_lines",
    "llm_config",
    "negation_differs",
    "numbers_missing",
    "overlap",
    "split_sentences",
    "strip_controls",
]

#: A citation: one or more row ids in square brackets, ``[D038-r08]`` or ``[D038-r08, D039-r02]``.
CITATION_RE = re.compile(r"\[((?:[A-Z]\d{3}-r\d{2,})(?:\s*[,;]\s*[A-Z]\d{3}-r\d{2,})*)\]")
_ID_RE = re.compile(r"[A-Z]\d{3}-r\d{2,}")

SYSTEM_PROMPT = (
    "You answer questions about daily drilling reports using ONLY the numbered report rows given. "
    "End every sentence with the id(s) of the row(s) that support it in square brackets, e.g. [D038-r08]. "
    "If the rows do not answer the question, say: Not found in these reports."
)


@dataclass(frozen=True)
class LLMConfig:
    """Where the chat endpoint is: ``url`` (base, ending before ``/chat/completions``), ``model``, ``timeout`` (seconds)."""

    url: str
    model: str = "default"
    timeout: float = 30.0


def llm_config(environ: dict | None = None) -> LLMConfig | None:
    """The endpoint configured by ``DDRSEARCH_LLM_URL``/``_MODEL``/``_TIMEOUT``, or ``None`` when no URL is set.

    Raises:
        GenerationError: the URL is not http(s), or the timeout is not a positive number.
    """
    def get(name: str) -> str | None:
        if environ is None:
            return settings.get(name)
        return str(environ.get(name, "")).strip() or None

    url = get("DDRSEARCH_LLM_URL") or ""
    if not url:
        return None
    if not re.match(r"^https?://[^/\s]", url):
        raise GenerationError(f"DDRSEARCH_LLM_URL={url!r} is not an http(s) address (e.g. http://127.0.0.1:11434/v1).")
    raw = get("DDRSEARCH_LLM_TIMEOUT") or "30"
    try:
        timeout = float(raw)
    except ValueError:
        timeout = -1.0
    if not timeout > 0:
        raise GenerationError(f"DDRSEARCH_LLM_TIMEOUT={raw!r} must be a positive number of seconds.")
    return LLMConfig(url=url.rstrip("/"), model=get("DDRSEARCH_LLM_MODEL") or "default", timeout=timeout)


def build_prompt(question: str, rows: Sequence) -> list[dict]:
    """Chat messages for ``question`` with the card's ``rows`` listed and numbered by row id.

    Args:
        question: the question.
        rows: :class:`ddrsearch.answers.answerer.SupportRow` objects (anything with
            ``row_id``, ``date``, ``start``, ``end``, ``text``).

    Returns:
        ``[{"role": "system", ...}, {"role": "user", ...}]``; the user message
        lists one row per line: ``[D038-r08] 2020-11-25 23:30-04:00 (report dated 2020-11-26): <text>``
        (the row's real day, :attr:`~ddrsearch.answers.answerer.SupportRow.when`).
    """
    listed = "\n".join(f"[{r.row_id}] {line}" for r, line in zip(rows, evidence_lines(rows).values(), strict=True))
    user = f"Report rows:\n{listed or '(none)'}\n\nQuestion: {question}\nAnswer, citing row ids:"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def evidence_lines(rows: Sequence) -> dict[str, str]:
    """What the prompt says of each row, by row id: ``{"D038-r08": "2020-11-25 23:30-04:00 (report dated 2020-11-26): <text>"}``.

    Args:
        rows: as for :func:`build_prompt`.
    """
    from ddrsearch.reading.layout import row_when

    return {r.row_id: f"{row_when(r.date, r.start, r.end)} (report dated {r.date.isoformat()}): {r.text}"
            for r in rows}


#: A cited sentence whose cited rows hold less than this share of its words is flagged LOW OVERLAP.
MIN_OVERLAP = 0.5


def _overlap_terms(text: str) -> set[str]:
    from ddrsearch.text.tokenizer import tokenize

    return set(tokenize(CITATION_RE.sub(" ", text), expand=True, stem=True))


def overlap(sentence: str, evidence: str) -> float:
    """How much of ``sentence`` ``evidence`` holds: the share of the sentence's terms found in it, 0 to 1.

    Terms are BM25's (:func:`ddrsearch.text.tokenizer.tokenize` with the
    glossary's expansions, stop words removed, Snowball stems; citations
    removed), counted once each: ``|terms(sentence) & terms(evidence)| /
    |terms(sentence)|``. A word overlap, not an entailment test: it shows a
    sentence whose words the cited row does not hold (the row does not say
    it), not a row that says the opposite with the same words. A sentence
    without any term (only stop words, emoji, a citation) scores 0: it
    states nothing the row can be checked against.

    >>> overlap("The pipe became stuck [D038-r08].",
    ...         "2020-11-25 23:30-04:00 (report dated 2020-11-26): became stuck while sliding")
    0.6666666666666666
    """
    terms = _overlap_terms(sentence)
    if not terms:
        return 0.0
    return len(terms & _overlap_terms(evidence)) / len(terms)


#: Words that negate what follows (``n't`` ends a word: didn't, wasn't); "failed to" negates its verb.
_NEGATIONS = frozenset({"not", "no", "never", "without", "none", "nor", "cannot", "unable", "failed to",
                        "fails to", "fail to", "n't"})
_NEGATION_WINDOW = 3
#: Words that end a negation's reach as punctuation does ("did not fail and was replaced": replaced is said).
_CLAUSE_WORDS = frozenset({"and", "but", "then", "while", "after", "before", "so"})
#: Words that end a negation's reach too: what follows them says where or when, not what did not happen
#: ("did not set on 2020-12-07": the date is not negated).
_PLACE_WORDS = frozenset({"on", "at", "in", "from", "for", "with", "by", "during", "until", "since", "of"})
_WORD_OR_STOP = re.compile(r"[A-Za-z0-9]+(?:['’]t)?|[.,;:!?()]")


@functools.lru_cache(maxsize=4096)  # an evidence line is looked at once per sentence citing it
def _negated_terms(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """``(negated, affirmed)``: the terms (as :func:`overlap` counts them) within :data:`_NEGATION_WINDOW` terms
    after a negation word of :data:`_NEGATIONS` (up to the clause's punctuation), and those said outside one."""
    negated: set[str] = set()
    affirmed: set[str] = set()
    words = _WORD_OR_STOP.findall(CITATION_RE.sub(" ", text).lower())
    window = 0
    for i, word in enumerate(words):
        pair = f"{word} {words[i + 1]}" if i + 1 < len(words) else ""
        if word in _NEGATIONS or pair in _NEGATIONS or word.endswith(("n't", "n\u2019t")):
            window = _NEGATION_WINDOW
            continue
        if not word[0].isalnum() or word in _CLAUSE_WORDS or word in _PLACE_WORDS:
            window = 0
            continue
        terms = _overlap_terms(word)
        if terms and window and not any(c.isdigit() for c in word):  # a number or date is a value, not a claim
            negated |= terms
            window -= 1
        elif terms:
            affirmed |= terms
    return frozenset(negated), frozenset(affirmed)


def negation_differs(sentence: str, evidence: str) -> list[str]:
    """The terms ``sentence`` and ``evidence`` both hold that one negates and the other does not, sorted.

    A term is negated within three terms after ``not``, ``no``, ``never``,
    ``without``, ``none``, ``nor``, ``cannot``, ``unable``, ``failed to`` or a
    word ending in ``n't`` (up to punctuation, ``and``, ``but``, ``then``... or a word of place or time such as
    ``on``, ``at``, ``during``; a number or date is never negated), and affirmed anywhere
    else; a term negated in one text and affirmed (not negated) in the other
    is listed. A word-window test, not a parser: it sees "did not fail"
    against "failed", not a negation carried by other words.

    >>> negation_differs("The hydraulic line did not fail [D011-r06].", "Hydraulic line failed on grabber box.")
    ['fail']
    """
    s_neg, s_aff = _negated_terms(sentence)
    e_neg, e_aff = _negated_terms(evidence)
    return sorted(((s_neg - s_aff) & (e_aff - e_neg)) | ((e_neg - e_aff) & (s_aff - s_neg)))


_DIGIT_RUN = re.compile(r"(\d+(?:\.\d+)?)(k?)")
_CLOCK = re.compile(r"(\d{1,2}):(\d{2})")
_FRACTION = re.compile(r"(\d+)/(\d+)")
_INTEGER = re.compile(r"\d+")
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_US_DATE = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{2}|\d{4})(?![\d/])")
#: Numbers a row may write in words (``thirteen trucks``); read on the rows' side only.
_NUMBER_WORDS = {w: i for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
     "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"])} | {
    "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100}
#: Words before a number that make it a report's or a row's number (``report 38``, ``row 8``).
_ID_WORDS = frozenset({"report", "rpt", "ddr", "row"})
_HOUR_WORDS = frozenset({"hr", "hrs", "hour", "hours", "h"})
_LEADING_ZERO = re.compile(r"0\d{2,3}")
#: Units after a number that make it a measurement, not a year (``2,020 ft``).
_UNIT_WORDS = frozenset({"ft", "feet", "foot", "m", "psi", "bbl", "bbls", "gpm", "spm", "lb", "lbs", "klbs", "k",
                         "rpm", "ppg", "gal", "in", "inch", "inches", "deg", "fph", "kft", "md", "tvd"})


def _date_keys(year: int, month: int, day: int) -> set:
    return {("date", year % 100, month, day), ("day", day), ("month", month), ("year", year % 100)}


def _numbers(text: str, *, rows: bool) -> list[tuple[str, set]]:
    """The numbers of ``text``: ``(term as the tokenizer gives it, the values it may stand for)``, in order.

    A value is a float (thousands separators removed, ``35k`` = 35000), a clock time ``(hour, minute)`` (``4:00 pm``
    = (16, 0); ``0715 hrs`` = (7, 15)), or a date or one of its parts (``("day", 25)``) for an ISO or m/d/y date and
    a day or year beside a month's name. A mixed number is one value (``12 1/4`` = 12.25). On the rows' side
    (``rows=True``) a mixed number also holds its whole part and a number written in words its value.
    """
    from ddrsearch.text.tokenizer import tokenize

    found: list[tuple[str, set]] = []

    def date(m: re.Match, year: int, month: int, day: int) -> str:
        if 1 <= month <= 12 and 1 <= day <= 31:
            found.append((m[0], _date_keys(year, month, day) if rows else {("date", year % 100, month, day)}))
            return " "
        return m[0]

    text = CITATION_RE.sub(" ", text)
    text = _ISO_DATE.sub(lambda m: date(m, int(m[1]), int(m[2]), int(m[3])), text)
    text = _US_DATE.sub(lambda m: date(m, int(m[3]), int(m[1]), int(m[2])), text)
    terms = tokenize(text, expand=False, stem=False)
    i = 0
    while i < len(terms):
        term, before = terms[i], terms[i - 1] if i else ""
        after = terms[i + 1] if i + 1 < len(terms) else ""
        i += 1
        clock = _CLOCK.fullmatch(term)
        if clock or (_INTEGER.fullmatch(term) and after in ("am", "pm") and 1 <= int(term) <= 12):
            hour, minute = (int(clock[1]), int(clock[2])) if clock else (int(term), 0)
            if after == "pm" and hour < 12:
                hour += 12
            elif after == "am" and hour == 12:
                hour = 0
            found.append((term, {(hour, minute)}))
            continue
        fraction = _FRACTION.fullmatch(term)
        if fraction:
            found.append((term, {int(fraction[1]) / int(fraction[2])} if int(fraction[2]) else {term}))
            continue
        if _INTEGER.fullmatch(term):
            found.append(_integer(term, before, after, rows))
            i += " " in found[-1][0]  # a mixed number took the fraction after it
            continue
        if rows and term in _NUMBER_WORDS:
            found.append((term, {float(_NUMBER_WORDS[term])}))
            continue
        for run, k in _DIGIT_RUN.findall(term):  # any other term holding digits: 35k (= 35,000), 35k/40k, 4th
            found.append((term, {float(run) * 1000, float(run)} if k and rows else
                         {float(run) * (1000 if k else 1)}))
    return found


def _integer(term: str, before: str, after: str, rows: bool) -> tuple[str, set]:
    """A whole number's term and values (:func:`_numbers`), given the terms before and after it."""
    from ddrsearch.retrieval.structured import MONTHS

    value = int(term)
    keys: set = {float(value)}
    mixed = _FRACTION.fullmatch(after)
    if mixed and int(mixed[2]):
        whole = value + int(mixed[1]) / int(mixed[2])
        keys = {float(value), whole} if rows else {whole}
        term = f"{term} {after}"
    elif (len(term) in (3, 4) and value % 100 < 60 and value // 100 <= 24
          and (term[0] == "0" or after in _HOUR_WORDS or _LEADING_ZERO.fullmatch(after or before))):
        keys.add((value // 100, value % 100))  # 0715, 2330 hrs, 2330 to 0400
    if before in MONTHS or after in MONTHS:
        keys |= {("day", value)} if value <= 31 else {("year", value % 100)}
    elif 1900 <= value <= 2100 and after not in _UNIT_WORDS:  # in 2020, not 2,020 ft
        keys.add(("year", value % 100))
    if before in _ID_WORDS:
        keys.add(("id", value))
    return term, keys


def numbers_missing(sentence: str, evidence: str, cited: Sequence[str] = ()) -> list[str]:
    """The numbers of ``sentence`` that ``evidence`` does not hold, as the sentence's terms print them, in order.

    Numbers are compared by value after the tokenizer has removed thousands
    separators: ``9,000`` and ``9000`` are one number, ``0.50`` and ``0.5``,
    ``35k`` and ``35,000``, ``12 1/4`` and ``12.25`` too (a fraction is compared
    whole: ``12 1/2`` is not held by ``12 1/4``). A clock time is compared
    as hour and minute (``4:00`` is held by ``04:00``; ``4:00 pm`` is 16:00;
    ``0715 hrs`` is 07:15). A date (ISO or month/day/year) is compared whole,
    and a day or year written beside a month's name with the rows' dates'
    days and years (``25 November 2020`` is held by ``2020-11-25``); a date's
    parts are not numbers of any other kind (``25 ft`` is not held by
    ``2020-11-25``). A number after ``report`` or ``row`` is also held by the
    cited ids' numbers (``report 38`` of ``D038-r08``). A row's numbers in
    words (``thirteen``) are read; the sentence's are not, and values worked
    out or converted (a duration, metres for feet) are listed for the reader
    to check against the row. A number the rows print anywhere (another
    field of the same row) holds: the check compares numbers, not what they
    measure.

    Args:
        sentence: a cited sentence of the answer.
        evidence: its cited rows' text, joined (:func:`evidence_lines`).
        cited: the ids the sentence cites.

    Returns:
        The sentence's numbers ``evidence`` lacks, each once, as its terms print them (``["9000"]``).

    >>> numbers_missing("Stuck at 9,000 ft on 2020-11-25 [D038-r08].",
    ...                 "2020-11-25 23:30-04:00 (report dated 2020-11-26): became stuck at 6,507'", ["D038-r08"])
    ['9000']
    """
    held = set().union(*(keys for _, keys in _numbers(evidence, rows=True)))
    for row in cited:
        held.update(("id", int(run)) for run in re.findall(r"\d+", row))
    missing: list[str] = []
    for term, keys in _numbers(sentence, rows=False):
        if not keys & held and term not in missing:
            missing.append(term)
    return missing


#: The most bytes of an endpoint's reply read (a reply of a few cited sentences is a few kilobytes).
MAX_REPLY_BYTES = 200_000


def chat(messages: list[dict], config: LLMConfig) -> str:
    """Send ``messages`` to the endpoint and return the answer text.

    Raises:
        GenerationError: one line saying what went wrong: no answer within
            ``config.timeout`` seconds, the server could not be reached, an
            HTTP error status, a reply over :data:`MAX_REPLY_BYTES`, or a reply not in the chat
            completions format.
    """
    body = json.dumps({"model": config.model, "messages": messages, "temperature": 0}).encode("utf-8")
    request = urllib.request.Request(
        f"{config.url}/chat/completions", data=body, method="POST",
        headers={"Content-Type": "application/json", "Accept": "application/json"},
    )
    where = f"{config.url}/chat/completions"
    try:
        with urllib.request.urlopen(request, timeout=config.timeout) as response:
            payload = response.read(MAX_REPLY_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise GenerationError(f"LLM endpoint {where} answered HTTP {exc.code} ({exc.reason}).") from None
    except TimeoutError:
        raise GenerationError(f"LLM endpoint {where} did not answer within {config.timeout:g} s.") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, (socket.timeout, TimeoutError)):
            raise GenerationError(f"LLM endpoint {where} did not answer within {config.timeout:g} s.") from None
        raise GenerationError(f"LLM endpoint {where} could not be reached ({exc.reason}).") from None
    except OSError as exc:
        raise GenerationError(f"LLM endpoint {where} failed ({exc}).") from None
    if len(payload) > MAX_REPLY_BYTES:
        raise GenerationError(f"LLM endpoint {where} answered more than {MAX_REPLY_BYTES:,} bytes, the most a reply "
                              "may have (an answer of a few sentences is under 10,000); not read further.")
    try:
        content = json.loads(payload)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise GenerationError(f"LLM endpoint {where} answered, but not in the chat completions format.") from None
    if not isinstance(content, str):
        raise GenerationError(f"LLM endpoint {where} answered a non-text message.")
    return strip_controls(content).strip()  # model text is data: no escape sequence reaches a terminal or the check


#: Terminal escape sequences (CSI, OSC, other two-character ESC, 8-bit CSI), C0 controls but tab and newline,
#: DEL, C1 controls, and the bidirectional embedding/override/isolate characters that reorder shown text.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?|\x9b[0-?]*[ -/]*[@-~]")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
                       # the other invisible (format and default-ignorable) characters: soft hyphen, Arabic
                       # letter mark, Mongolian vowel separator and selectors, variation selectors, fillers
                       "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0"
                       "\U000e0000-\U000e007f\U000e0100-\U000e01ef]")


#: Characters that break a line (as ``str.splitlines`` has them) but are controls: each becomes a newline first,
#: so a sentence ending there still ends (``blew out\x0bHydraulic`` is two lines, not ``blew outHydraulic``).
_LINE_BREAKS = str.maketrans({"\r": "\n", "\x0b": "\n", "\x0c": "\n", "\x1c": "\n", "\x1d": "\n",
                              "\x1e": "\n", "\x85": "\n"})


def strip_controls(text: str) -> str:
    """``text`` without terminal escape sequences and control characters, to check or print model text safely.

    Removed: ESC sequences (``\\x1b[2K``, ``\\x1b]...\\x07``, ...), C0 controls except
    tab and newline, DEL, C1 controls (U+0080-U+009F), the bidirectional
    override/isolate and mark characters (U+200E-U+200F, U+202A-U+202E, U+2066-U+2069),
    the invisible zero-width and joiner characters (U+200B-U+200D, U+2060-U+2064,
    U+FEFF), the other invisible characters (soft hyphen, variation selectors, fillers ...) and the tag
    characters (U+E0000-U+E007F). A carriage return, vertical tab, form feed, the separators U+001C-U+001E
    and U+0085 become a newline (a carriage return would otherwise overwrite the line shown).

    >>> strip_controls("ok [D041-r00].\\x1b[2K\\x1b[GAll clear")
    'ok [D041-r00].All clear'
    """
    text = text.replace("\r\n", "\n").translate(_LINE_BREAKS)
    return _CONTROLS.sub("", _ESCAPES.sub("", text))


#: Spans whose full stops do not end a sentence: numbers (``12.25``, ``6,507.5``, ``1.2.3``, ``.5`` after a
#: space or sign) and dotted abbreviations (``P.U.``, ``S.O.``, ``e.g.``, ``a.m.``: letters and dots, two dots or more).
_NUMBER = r"\d+(?:\.\d+)+|(?<![^\s(<>=±~+\-/@#])\.\d+"
_DOTTED = r"(?<![^\W_])(?:[^\W\d_]{1,4}\.){2,}"
#: One-word abbreviations an answer writes before a number or a lower-case word (``Nov. 25``, ``approx. 6,507 ft``,
#: ``12 1/4 in. bit``): like a dotted one, their full stop ends a sentence only before a capital, quote or bracket.
_WORD_ABBREVIATIONS = ("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "approx",
                       "est", "no", "nos", "vs", "ca", "in", "ft", "hr", "hrs", "min", "max", "avg", "incl", "abt")
_WORD_ABBREVIATION = r"(?<![^\W_])(?i:" + "|".join(_WORD_ABBREVIATIONS) + r")\."
_PROTECTED = re.compile(f"{_NUMBER}|(?P<abbr>{_DOTTED}|{_WORD_ABBREVIATION})")
#: After the end mark: closing quotes and brackets, and citations (``stuck. [D038-r08]`` keeps its citation).
_TAIL = re.compile(r"(?:[\"'\u201d\u2019)\u300d]|\s*" + CITATION_RE.pattern + ")*")
_ONLY_CITATIONS = re.compile(r"(?:\s*" + CITATION_RE.pattern + r")+\s*[.!?]?\s*")
#: What ends a sentence: ASCII ``.!?``, the ellipsis, the full-width and ideographic stops and marks, and the
#: other scripts' stops and question marks (Greek ``;`` U+037E, Armenian U+0589, Arabic U+061F and U+06D4,
#: Devanagari U+0964-U+0965, ``‼ ⁇ ⁈ ⁉``, the small and halfwidth forms U+FE52, U+FE56, U+FE57, U+FF61;
#: Syriac, NKo, Sinhala, Thai, Tibetan, Myanmar, Ethiopic, Canadian syllabics, Mongolian, Khmer, Limbu,
#: Bengali, Balinese, Vai, Lisu, Bamum stops, ``‽``, ``⸮`` and ``⸼``).
_END_MARKS = (".!?\u2026\u3002\uff0e\uff01\uff1f\u037e\u0589\u061f\u06d4\u0964\u0965\u203c\u2047\u2048\u2049"
              "\ufe52\ufe56\ufe57\uff61\u0700\u0701\u0702\u07f9\u0df4\u0e5a\u0e5b\u0f0d\u0f0e\u104a\u104b"
              "\u1362\u1367\u1368\u166e\u1803\u1809\u17d4\u17d5\u1944\u1945\u203d\u2e2e\u2e3c\ua4ff\ua60e"
              "\ua60f\ua6f3\ua6f7\u09f7\u1b5a\u1b5b")
#: A clause joined to a cited one by ``;`` or ``:`` (``... [D011-r06]; the well blew out``) is a sentence of its own.
_ENDS_CITED = re.compile(r"(?:" + CITATION_RE.pattern + r")\s*$")


def _cuts(line: str) -> list[int]:
    """Offsets in ``line`` after which a sentence ends (after its end mark, closing quotes and citations)."""
    protected: dict[int, bool] = {}  # offset of a protected full stop -> may still end a sentence (an abbreviation's last)
    for m in _PROTECTED.finditer(line):
        for i in range(m.start(), m.end()):
            if line[i] == ".":
                protected[i] = False
        if m.group("abbr"):
            protected[m.end() - 1] = True
    cuts, i = [], 0
    while i < len(line):
        if line[i] in _END_MARKS:
            j = i
            while j < len(line) and line[j] in _END_MARKS:
                j += 1
            last = j - 1
            if last in protected and not (protected[last] and re.match(r"\s+[A-Z\"'(\[\u201c\u2018]", line[j:])):
                i = j
                continue
            j = _TAIL.match(line, j).end()
            cuts.append(j)
            i = j
        elif line[i] in ";:\uff1b\u061b\uff1a" and _ENDS_CITED.search(line, 0, i):
            cuts.append(i + 1)
            i += 1
        else:
            i += 1
    return cuts


def split_sentences(text: str) -> list[str]:
    """Split an answer into sentences: at every newline and after every ``.``, ``!`` or ``?``, whatever follows.

    Control characters are removed first (:func:`strip_controls`). A full
    stop inside a number (``12.25``, ``.5``) or a dotted abbreviation
    (``P.U.``, ``S.O.``, ``e.g.``) does not end a sentence; the last stop of
    an abbreviation does when a capital letter, quote or bracket follows
    after a space. Closing quotes, brackets and citations right after the
    end mark (``... stuck. [D038-r08]``) stay with their sentence, and a line
    holding only citations belongs to the sentence before it. So ``... [D041-r00].
    the BOP failed``, ``... [D041-r00]. 3 crew were injured`` and
    ``... [D041-r00]\\nThe well blew out`` are two sentences each.

    Args:
        text: the answer.

    Returns:
        The sentences, stripped, in order (white space inside each collapsed to single spaces).
    """
    out: list[str] = []
    for line in strip_controls(text).splitlines():  # \n, \r, U+2028, U+2029, ... each end a line
        line = " ".join(line.split())
        if not line:
            continue
        if out and _ONLY_CITATIONS.fullmatch(line):
            out[-1] = f"{out[-1]} {line}"
            continue
        start = 0
        for cut in [*_cuts(line), len(line)]:
            piece = line[start:cut].strip()
            if piece:
                out.append(piece)
            start = cut
    return out


@dataclass
class CitationCheck:
    """Result of :func:`check_citations`.

    Attributes:
        sentences: ``(sentence, cited ids)`` in order.
        uncited: sentences without any citation.
        unknown: cited ids that were not in the prompt, in order of first use.
        scores: ``(sentence, cited ids, overlap)`` for each cited sentence, when
            the rows' text was given (:func:`overlap` with its cited rows
            that were in the prompt, joined; 0 when none was).
        weak: the ``scores`` under :data:`MIN_OVERLAP`.
        negated: ``(sentence, cited ids, overlap, terms)`` for each cited sentence whose rows say a term it
            holds the other way (:func:`negation_differs`: "did not fail" against a row saying it failed).
        numbers: ``(sentence, cited ids, overlap, terms)`` for each cited sentence holding a number its rows
            do not (:func:`numbers_missing`: "stuck at 9,000 ft" against a row saying 6,507').
    """

    sentences: list[tuple[str, list[str]]] = field(default_factory=list)
    uncited: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    scores: list[tuple[str, list[str], float]] = field(default_factory=list)
    weak: list[tuple[str, list[str], float]] = field(default_factory=list)
    negated: list[tuple[str, list[str], float, list[str]]] = field(default_factory=list)
    numbers: list[tuple[str, list[str], float, list[str]]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every sentence cites, every citation was in the prompt and every cited sentence's rows hold
        enough of its words, negate none of them the other way and hold each of its numbers."""
        return (bool(self.sentences) and not self.uncited and not self.unknown and not self.weak
                and not self.negated and not self.numbers)

    def report(self) -> str:
        """One line per flag (or one line saying all is supported), then each cited sentence's overlap with its rows.

        The score lines (when scored) read ``overlap 0.67 with D038-r08: <sentence>``; a
        sentence under :data:`MIN_OVERLAP` reads ``LOW OVERLAP 0.20 with ...`` among the flags.
        """
        differs = {s: terms for s, _, _, terms in self.negated}
        numbers = {s: terms for s, _, _, terms in self.numbers}
        scored = [f"overlap {x:.2f} with {', '.join(ids)}"
                  + (f" (NEGATION DIFFERS: {', '.join(differs[s])})" if s in differs else "")
                  + (f" (NUMBER NOT IN ITS ROWS: {', '.join(numbers[s])})" if s in numbers else "") + f": {s}"
                  for s, ids, x in self.scores if x >= MIN_OVERLAP]
        if self.ok:
            head = f"All {len(self.sentences)} sentence(s) cite rows that were in the prompt."
            if self.scores:
                head += (f" Overlap (share of each sentence's words in its cited rows; under {MIN_OVERLAP:.2f} "
                         "is flagged):")
            return "\n".join([head, *scored])
        lines = [f"NO CITATION: {s}" for s in self.uncited]
        lines += [f"NOT IN THE PROMPT: {i}" for i in self.unknown]
        lines += [f"LOW OVERLAP {x:.2f} with {', '.join(ids)} (the row does not say most of it): {s}"
                  for s, ids, x in self.weak]
        lines += [f"NEGATION DIFFERS with {', '.join(ids)} (one negates what the other says: {', '.join(t)}): {s}"
                  for s, ids, _, t in self.negated]
        lines += [f"NUMBER NOT IN ITS ROWS with {', '.join(ids)} (the rows do not hold {', '.join(t)}): {s}"
                  for s, ids, _, t in self.numbers]
        if not self.sentences:
            lines.append("The answer is empty.")
        return "\n".join(lines + scored)


def check_citations(answer: str, allowed: Sequence[str], evidence: Mapping[str, str] | None = None) -> CitationCheck:
    """Flag sentences of ``answer`` without a citation, cited ids not in ``allowed`` and claims their rows do not hold.

    Args:
        answer: the generated (or hand-written) answer.
        allowed: the row ids listed in the prompt.
        evidence: each row's text as the prompt gave it (:func:`evidence_lines`);
            given, every cited sentence is scored (:func:`overlap`) and one
            under :data:`MIN_OVERLAP` is flagged, as is one whose rows negate
            a term the other way (:func:`negation_differs`) or lack one of its
            numbers (:func:`numbers_missing`).

    Returns:
        A :class:`CitationCheck` over :func:`split_sentences` of the answer
        (control characters removed first). A sentence that is only "Not
        found in these reports." needs no citation.
    """
    allowed_set = set(allowed)
    check = CitationCheck()
    answer = strip_controls(answer)
    for sentence in split_sentences(answer):
        ids = [i for m in CITATION_RE.finditer(sentence) for i in _ID_RE.findall(m.group(1))]
        check.sentences.append((sentence, ids))
        if not ids and not re.fullmatch(r"not found in these reports\.?", sentence.strip(), re.I):
            check.uncited.append(sentence)
        for i in ids:
            if i not in allowed_set and i not in check.unknown:
                check.unknown.append(i)
        if ids and evidence is not None:
            rows = [evidence[i] for i in dict.fromkeys(ids) if i in allowed_set and i in evidence]
            score = (sentence, list(dict.fromkeys(ids)), overlap(sentence, " ".join(rows)) if rows else 0.0)
            check.scores.append(score)
            if score[2] < MIN_OVERLAP:
                check.weak.append(score)
            differs = negation_differs(sentence, " ".join(rows)) if rows else []
            if differs:
                check.negated.append((*score, differs))
            missing = numbers_missing(sentence, " ".join(rows), score[1]) if rows else []
            if missing:
                check.numbers.append((*score, missing))
    return check
