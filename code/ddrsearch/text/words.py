"""Text normalisation and the word rules of the one tokenizer of ddrsearch.

Every retriever in the package (keyword AND search, BM25) and the glossary
turn text into terms with :func:`ddrsearch.text.tokenizer.tokenize`, so a query and
a report are always cut the same way. This module holds its lower steps
(normalising, cutting into words, the stop words); :mod:`ddrsearch.text.glossary`
the abbreviations; :mod:`ddrsearch.text.tokenizer` puts them together:

1. :func:`normalize` the text: Unicode NFKC, lowercase, one apostrophe, one
   double quote and one hyphen character, control characters out, whitespace
   collapsed.
2. Cut it into word tokens (rules below).
3. Optionally (``expand=True``) add, right after each rig abbreviation, the
   words of its expansion from the :class:`Glossary` (``pooh`` ->
   ``pooh pull out of hole``).
4. Drop stop words (:data:`DEFAULT_STOPWORDS`, a deliberately small list).

Token rules (applied to the normalised text):

* A token is a run of letters and digits. Every other character separates
  tokens: spaces, ``, ; : ( ) # * & + = ? !``, quotes, hyphens and
  underscores. ``pre-job`` is ``pre job``; ``l-80`` is ``l 80``; ``bha #20``
  is ``bha 20``.
* Numbers keep their decimal point: ``32.6`` and ``9.63`` are one token each.
  A unit of :data:`GLUED_UNITS` glued to a number is cut off:
  ``250psi`` -> ``250 psi``, ``6.2hrs`` -> ``6.2 hrs``, ``70fph`` -> ``70
  fph``; other letters glued to a number stay glued (``35k``, ``3x14``,
  ``skc613m``).
* A comma between a digit and exactly three digits is a thousands separator
  and is removed: ``6,360`` -> ``6360``, ``214,000`` -> ``214000``. So the
  depth ``6,360'`` of one report and ``6360`` in another are the same token.
* The feet mark ``'`` and the inch mark ``"`` are separators, so they vanish:
  ``6,360'`` -> ``6360``; ``8 5/8''`` -> ``8 5/8``. The degree sign ``°``
  is kept by :func:`normalize` but is a separator here: ``65°`` -> ``65``.
  A minus sign is a hyphen, so ``-20.8`` -> ``20.8`` (reports write ranges
  as ``150 -223 psi``). A number written without its leading zero gets it:
  ``.5 ppg`` -> ``0.5 ppg``, so it does not match ``5 ppg``.
* A colon between digits stays inside the token, so clock times are one
  token: ``13:30``.
* Single letters joined by dots are one token without the dots:
  ``P.U.`` -> ``pu``, ``S.O.`` -> ``so``, ``B.O.P.`` -> ``bop``,
  ``a.m.`` -> ``am``. Other dots separate (``www.wellez.com`` -> ``www
  wellez com``), except between digits (above).
* Short parts joined by slashes are one token: each part is at most three
  letters/digits, or all digits. That keeps ``n/s``, ``e/w``, ``md/tvd``,
  ``bbl/min``, fractions ``7/8`` and dates ``11/26/2020``
  whole, but splits ``well/job`` and ``up/slack``. Single letters joined by
  slashes lose them, like dotted ones: ``P/U``, ``P.U.`` and ``PU`` are all
  ``pu``; ``L/D`` is ``ld``; ``N/S`` is ``ns``. Letters glued to a fraction
  are cut off, like a unit glued to a number: ``4 1/2IF Box`` is ``4 1/2 if
  box``, as ``4 1/2 IF BOX`` of other reports. A single letter followed
  by a slash and no letter (``w/`` for "with", ``f/`` for "from") is a token
  with its slash.
* A possessive or plural ``'s`` glued to a word is dropped: ``dsm's`` ->
  ``dsm``, ``nmdc's`` -> ``nmdc``.

Stop words: :data:`DEFAULT_STOPWORDS` holds only English function words that
carry no drilling meaning (``the``, ``of``, ``to``, ``from``, ``with``,
``at``, ``and``, ...). It does **not** hold the direction and state words of
rig language, because they decide what an operation was: ``in`` and ``out``
(trip *in* hole vs trip *out* of hole), ``on``/``off`` (on bottom, slack off,
break off), ``up``/``down`` (pick up, lay down, rig up, rig down),
``over``/``under``, ``back`` (back ream), ``above``/``below``, and
``no``/``not`` ("no losses", "not holding"). So ``"trip in hole"`` and
``"trip out of hole"`` stay different: ``[trip, in, hole]`` vs
``[trip, out, hole]``. Only ``of`` disappears, which no DDR search misses.

>>> split_words("Drill From 6,360' to 6,507',  (147') Total")
['drill', 'from', '6360', 'to', '6507', '147', 'total']
>>> split_words("P.U. WT.:270")
['pu', 'wt', '270']
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["DEFAULT_STOPWORDS", "GLUED_UNITS", "normalise", "normalize", "split_words"]

#: English function words dropped by :func:`ddrsearch.text.tokenizer.tokenize` by default (pass
#: ``stopwords=None`` to keep every token). Rig direction/state words such as
#: ``in``, ``out``, ``on``, ``off``, ``up``, ``down``, ``over``, ``under``,
#: ``back``, ``above``, ``below``, ``no`` and ``not`` are deliberately *not*
#: here (see the module docstring). ``s`` and ``t`` are the leftovers of
#: ``it's`` or ``don't`` once the apostrophe has split them.
DEFAULT_STOPWORDS: frozenset[str] = frozenset(
    ["a", "an", "the", "and", "or", "but", "nor", "of", "to", "from", "for", "with", "by", "at", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this", "that", "these", "those", "there", "we", "they", "their", "our", "will", "would", "should", "could", "has", "have", "had", "do", "does", "did", "then", "than", "such", "very", "also", "s", "t"]
)
# Not in the list on purpose, besides the rig direction words: "am" and "so"
# (the tokens of the dotted abbreviations "a.m." and "S.O.", slack off), "i"
# (in-gauge in the IADC dull grade), "may" (a month). A glossary
# abbreviation is never dropped before it is expanded: expansion runs first.

#: Columns of the glossary CSV, in order.

# --- normalisation ---------------------------------------------------------------------

# Applied before NFKC: characters that NFKC would turn into something else
# than a degree sign (U+00BA masculine ordinal -> "o", U+02DA ring above -> a
# space and a combining ring) but that report writers use as degrees.
_PRE_NFKC = str.maketrans({"\u00ba": "\u00b0", "\u02da": "\u00b0"})

# Unicode vulgar fractions, written out with a space before them so that a
# size glued to its fraction reads as the engineer means it: "12\u00bc" ->
# "12 1/4", "9\u215d" -> "9 5/8" (NFKC alone would give "121\u20444", one
# token "121" and one "4"). The fraction slash U+2044 becomes "/".
_FRACTIONS = str.maketrans({
    ch: f" {num}/{den}" for ch, num, den in (
        ("\u00bc", 1, 4), ("\u00bd", 1, 2), ("\u00be", 3, 4), ("\u2153", 1, 3), ("\u2154", 2, 3),
        ("\u2155", 1, 5), ("\u2156", 2, 5), ("\u2157", 3, 5), ("\u2158", 4, 5), ("\u2159", 1, 6),
        ("\u215a", 5, 6), ("\u2150", 1, 7), ("\u215b", 1, 8), ("\u215c", 3, 8), ("\u215d", 5, 8),
        ("\u215e", 7, 8), ("\u2151", 1, 9), ("\u2152", 1, 10))
} | {"\u2044": "/"})

# Applied after NFKC and lowercasing: one apostrophe, one double quote, one hyphen.
_QUOTES_DASHES = str.maketrans(
    {
        **{c: "'" for c in "\u2018\u2019\u201a\u201b\u2032\u2035`\u00b4\u02b9\u02bc\u02c8"},
        **{c: '"' for c in "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\u02ba"},
        **{c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe58\ufe63\uff0d"},
        "\u2044": "/",
    }
)

_WHITESPACE = re.compile(r"\s+")


#: Every control character (Unicode category Cc is exactly U+0000-U+001F and U+007F-U+009F) -> a space.
_CONTROLS = str.maketrans(dict.fromkeys([*range(0x20), *range(0x7F, 0xA0)], " "))


def _drop_controls(text: str) -> str:
    # Control characters (Cc: NUL, tabs, ...) become spaces; format characters
    # (Cf: soft hyphen, zero-width space, BOM, ...) are removed. Some report
    # PDFs have a NUL inside text ("Fixed\x001.25").
    # A printable string holds neither (str.isprintable is False for every Cc and Cf
    # character), so most text needs no loop over its characters.
    if text.isprintable():
        return text
    text = text.translate(_CONTROLS)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Cc":
            out.append(" ")
        elif cat == "Cf":
            continue
        else:
            out.append(ch)
    return "".join(out)


def _normalize_once(text: str) -> str:
    text = text.translate(_PRE_NFKC).translate(_FRACTIONS)
    text = unicodedata.normalize("NFKC", text)
    text = text.lower()
    text = unicodedata.normalize("NFKC", text)
    text = text.translate(_QUOTES_DASHES)
    text = _drop_controls(text)
    return _WHITESPACE.sub(" ", text).strip()


def normalize(text: str) -> str:
    """Return ``text`` in the canonical form the tokenizer works on.

    Steps: U+00BA (``º``) and U+02DA (``˚``), both typed for degrees, become
    the degree sign ``°``; Unicode NFKC (so ``ﬁ`` -> ``fi``, full-width
    ``６`` -> ``6``, no-break space -> space); a Unicode fraction is written
    out after a space (``12¼`` -> ``12 1/4``, ``9⅝`` -> ``9 5/8``); lowercase;
    curly and prime quotes -> ``'`` or ``"``; every dash and the minus sign
    -> ``-``; control characters -> space, invisible format characters
    (soft hyphen, zero-width space) removed; runs of whitespace -> one space;
    leading/trailing space removed. The degree sign ``°`` is kept as it is
    (:func:`tokenize` then treats it as a separator).

    The result is stable: ``normalize(normalize(t)) == normalize(t)``.

    Args:
        text: any string.

    Returns:
        The normalised string (``""`` for blank input).

    >>> normalize("  TRIP  OUT of\\nHOLE ")
    'trip out of hole'
    >>> normalize("Max 118\u00ba \u2013 \u201cslick\u201d assembly, 6,360\u2019")
    'max 118° - "slick" assembly, 6,360\\''
    """
    if not isinstance(text, str):
        raise TypeError(f"normalize() needs a str, not {type(text).__name__}")
    # Lowercasing and NFKC do not commute for a few characters, so repeat the
    # steps until nothing changes (once or twice in practice).
    for _ in range(5):
        new = _normalize_once(text)
        if new == text:
            break
        text = new
    return text


#: The British spelling, kept for code written against earlier versions.
normalise = normalize


# --- tokenizing ------------------------------------------------------------------------

_ALNUM = r"[^\W_]"  # a letter or digit (any script), not the underscore
_LETTER = r"[^\W\d_]"
_THOUSANDS = re.compile(r"(?<=[0-9]),(?=[0-9]{3}(?![0-9]))")
_APOS_S = re.compile(r"(?<=[^\W_])'s(?![^\W_])")
_SLASH_PART = rf"(?:[0-9]+|{_ALNUM}{{1,3}})"
_TOKEN = re.compile(
    "|".join(
        [
            # 1. dotted single letters: p.u. / s.o. / b.o.p / a.m.
            rf"(?P<dotted>(?<![\w.]){_LETTER}(?:\.{_LETTER})+(?![\w])\.?(?![\w]))",
            # 2. a fraction with letters glued to it: 1/2 of 4 1/2IF (the letters are the next token)
            rf"(?P<fraction>(?<![\w/])[0-9]+(?:/[0-9]+)+(?={_LETTER}))",
            # 3. short parts joined by slashes: n/s, md/tvd, 7/8, 11/26/2020
            rf"(?P<slashed>(?<![\w/]){_SLASH_PART}(?:/{_SLASH_PART})+(?![\w/]))",
            # 4. one letter and a slash: w/ (with), f/ (from)
            rf"(?P<letterslash>(?<![\w/]){_LETTER}/(?![\w/]))",
            # 5. a run of letters/digits; '.' or ':' between two digits stays inside
            rf"(?P<word>{_ALNUM}+(?:(?<=[0-9])[.:][0-9]{_ALNUM}*)*)",
        ]
    )
)


def split_words(text: str) -> list[str]:
    """Cut ``text`` into word tokens by the rules of the module docstring (no stop words dropped).

    Args:
        text: any string; it is normalised first (:func:`normalize`).

    Returns:
        The tokens in text order, lowercase, non-empty.

    >>> split_words("P.U. WT.:270, Trip out of hole")
    ['pu', 'wt', '270', 'trip', 'out', 'of', 'hole']
    """
    return _raw_tokens(normalize(text))


#: Units that report writers glue to a number (``250psi``, ``9.0ppg``): the
#: number and the unit become two tokens, so ``250psi`` and ``250 psi`` match.
GLUED_UNITS: frozenset[str] = frozenset(
    ["psi", "ppg", "bbl", "bbls", "ft", "gpm", "spm", "rpm", "fph", "fpm", "hr", "hrs", "lbs", "klbs", "gal", "deg",
     "in", "sks", "ksi", "bpm"]
)
_GLUED = re.compile(r"([0-9]+(?:\.[0-9]+)?)([a-z]+)")
_SINGLE_LETTERS = re.compile(rf"{_LETTER}(?:/{_LETTER})+")



#: What may stand before the point of a number written without its leading zero (``.5``): a space,
#: an opening bracket or quote, or a sign; not another point (``...5,000``), a letter or ``)``.
_BEFORE_POINT = frozenset(" \t\n([{'\"$@~=+-/:,;<>±*#")


def _raw_tokens(normalised: str) -> list[str]:
    text = _THOUSANDS.sub("", normalised)
    text = _APOS_S.sub("", text)
    out: list[str] = []
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if m.lastgroup == "dotted":
            tok = tok.replace(".", "")
        elif m.lastgroup == "slashed" and _SINGLE_LETTERS.fullmatch(tok):
            tok = tok.replace("/", "")  # p/u -> pu, like p.u. and pu

        elif m.lastgroup == "word":
            start = m.start()
            if tok[0] in "0123456789" and start and text[start - 1] == "." and (start < 2 or text[start - 2] in _BEFORE_POINT):
                tok = "0." + tok  # .5 ppg -> 0.5 ppg: the leading zero left out (not after "..." or ")")
            glued = _GLUED.fullmatch(tok)
            if glued and glued.group(2) in GLUED_UNITS:
                out.extend(glued.groups())  # 250psi -> 250 psi
                continue
        out.append(tok)
    return out
