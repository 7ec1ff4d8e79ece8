"""Well sections: the part of the well a question points at ("in the 12-1/4", "in the curve", "at the toe").

An engineer places an event by where the well was: "the blackout in the
12-1/4", "stuck while orienting in the curve", "the core at the toe". The
operation rows rarely print those words, but the typed fields of every report
say where the bit was (:mod:`ddrsearch.reading.fields`), and two of them give
the sections:

* a **hole section** is the depth drilled by bits of one size: the DRILL BITS
  table prints each bit's SIZE and the depths it went IN and came OUT, so the
  section of a size runs from the shallowest IN to the deepest OUT of its bits
  that drilled (OUT deeper than IN). With three sizes or more, the largest is
  the *surface* hole, the smallest the *production* hole and those between the
  *intermediate* hole; with two, surface and production.
* the **trajectory** comes from the SURVEY DATA table's inclination at depth:
  a well whose highest inclination reaches :data:`DEVIATED` degrees has a
  *vertical* part (inclination below :data:`VERTICAL`), a *curve* (build
  section) where the inclination builds, and a *tangent* (what this
  archive's engineers also call the lateral or the horizontal) where it holds
  within :data:`HOLD` degrees of its highest. The *pilot* is the vertical part
  of the hole section in which the well kicks off, and the *toe* the deepest
  tenth of the tangent.

A boundary of the trajectory lies somewhere between two surveys (the reports
print a few stations a day), so each section reaches to the far survey of
its boundary: a report drilled between the last vertical station and the
first built one is in both the pilot and the curve. The shape is the
"build and hold" profile of directional drilling: vertical to the kick-off
point, a build section where the inclination (0 degrees down, 90 horizontal:
SLB Energy Glossary, "borehole orientation") increases, then a tangent or hold
section (the API glossary of directional drilling terms names the parts). The
thresholds are this module's own choice, not a standard.

:class:`WellSections` holds the sections of one set of reports as measured-depth
spans, and reads the sections a question names; the structured path
(:meth:`ddrsearch.retrieval.structured.StructuredIndex.score`, option
``sections``) scores the reports whose drilled interval meets them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ddrsearch.reading.fields import FIELDS
from ddrsearch.text.words import normalize

__all__ = ["DEVIATED", "HOLD", "SECTION_WORDS", "VERTICAL", "WellSections", "bit_rows", "drilled", "in_span"]

#: Inclination (degrees) below which the hole counts as vertical.
VERTICAL = 5.0
#: Degrees within the well's highest inclination at which the curve has landed and the tangent begins.
HOLD = 5.0
#: Highest inclination (degrees) a well needs for it to have a curve and a tangent at all.
DEVIATED = 30.0

#: What a question writes for each section (regular expressions on :func:`ddrsearch.text.words.normalize`'s
#: lower-case text) -> the section's name. A hole size (``12-1/4``, ``12 1/4"``, ``12.25 in``) is read
#: apart, by :meth:`WellSections.named`. The same words in their other senses name no section: a pilot bit
#: or mill, the vertical section (VS, the displacement SURVEY DATA prints), a learning curve, lateral
#: vibration or shocks, toe boards and a stubbed toe.
SECTION_WORDS: tuple[tuple[str, str], ...] = (
    (r"\bpilot(?:\s+hole)?\b(?!\s+(?:bits?|mills?|reamers?|tubes?|lights?|assembl\w*)\b)", "pilot"),
    (r"\bvertical\s+(?:hole|part|interval)\b", "vertical"),
    (r"(?<!learning )\b(?:curve|build(?:-?up|ing)?\s+(?:section|interval))\b", "curve"),
    (r"\b(?:tangent|horizontal|lateral(?!\s+(?:vibrations?|shocks?|motion|movement|loads?|forces?|"
     r"displacement|stress(?:es)?)\b))\b", "tangent"),
    (r"(?<!stubbed )(?<!steel )\btoe\b(?!\s*-?\s*(?:boards?|caps?|injury|injuries)\b)", "toe"),
    (r"\bsurface\s+(?:hole|section|interval)\b", "surface"),
    (r"\bintermediate\s+(?:hole|section|interval)\b", "intermediate"),
    (r"\bproduction\s+(?:hole|section|interval)\b", "production"),
)
#: The deepest OUT a bit row can give (feet): the plausible range of the ``md_ft`` field.
_MD_MAX = next(spec.high for spec in FIELDS if spec.name == "md_ft")
_WORDS = tuple((re.compile(rx), name) for rx, name in SECTION_WORDS)

#: A size as a question writes it: a whole number and a fraction in eighths, quarters or halves
#: (``12-1/4``, ``12 1/4``, ``17 1/2"``), or a decimal followed by an inch mark or a hole word (``12.25 in``,
#: ``8.75" hole``; a bare ``8.75`` may be a mud weight). Not inside a date (``11/26``) or a longer number.
_SIZE = re.compile(
    r"(?<![\d/.,-])(\d{1,2})(?:[\s-]+([1357])/([248])(?![\d/])"
    r"|(\.\d{1,3})(?=\s*(?:\"|''|in\b|inch|hole|section|bit)))")


def _number(raw) -> float | None:
    try:
        return float(str(raw).replace(",", ""))
    except ValueError:
        return None


def drilled(size, top, bottom) -> bool:
    """Whether ``[size, top, bottom]`` is a bit row that drilled, as :func:`bit_rows` keeps them: numbers, a size
    over 1 and under 60 in, ``0 <= top < bottom`` and ``bottom`` a plausible MD (at most the ``md_ft`` field's
    40,000 ft: an OUT printed ``inf`` or ``1e9`` is no depth).

    >>> drilled(12.25, 1629.0, 5113.0), drilled(12.25, 0.0, float("inf")), drilled(True, 0, 100)
    (True, False, False)
    """
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (size, top, bottom))
    return numbers and 1 < size < 60 and 0 <= top < bottom <= _MD_MAX


def bit_rows(tables: Mapping[str, Sequence[Mapping[str, str]]]) -> list[list[float]]:
    """The DRILL BITS rows of one report that drilled: ``[[size in inches, IN ft, OUT ft], ...]``.

    A row without a readable size, IN or OUT, or whose OUT is not deeper than
    its IN (a bit not yet pulled, or one that made no hole), or not a plausible
    depth (:func:`drilled`), is left out.

    Args:
        tables: a report's tables (:func:`ddrsearch.reading.fields.read_tables`).
    """
    out = []
    for row in tables.get("DRILL BITS", []):
        size, top, bottom = (_number(row.get(k, "")) for k in ("SIZE", "IN", "OUT"))
        if drilled(size, top, bottom):
            out.append([size, top, bottom])
    return out


def in_span(row: Mapping, span: tuple[float, float]) -> bool:
    """Whether a report's drilled interval meets the span ``(top, bottom]`` (feet of MD).

    The interval is ``(md_from, md_ft]`` (the previous report's MD to this one's); a day
    that drilled nothing (or printed no MD) is at its depth ``md_from``, and meets the span
    when that depth lies in it. A report before any depth (rig-up) meets none.

    >>> in_span({"md_from": 5113.0, "md_ft": 5200.0}, (1629.0, 5113.0))
    False
    >>> in_span({"md_from": 5113.0, "md_ft": 5113.0}, (1629.0, 5113.0))
    True
    """
    top, bottom = span
    start, md = row.get("md_from") or 0.0, row.get("md_ft")
    if md is None or md <= start:
        return start > 0 and top < start <= bottom
    return start < bottom and md > top


@dataclass(frozen=True)
class WellSections:
    """The sections of one well, as spans of measured depth ``(top, bottom]`` in feet.

    Attributes:
        spans: section name -> span: ``"hole 12.25"`` (one per bit size), ``"surface"``,
            ``"intermediate"``, ``"production"``, ``"vertical"``, ``"curve"``, ``"tangent"``,
            ``"pilot"``, ``"toe"``; a section the reports do not show is absent.
    """

    spans: dict[str, tuple[float, float]] = field(default_factory=dict)

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping]) -> WellSections:
        """The sections of the structured path's records (:meth:`~ddrsearch.retrieval.structured.StructuredIndex.records_of`).

        Reads each record's ``bits`` (:func:`bit_rows`), ``md_ft``, ``survey_md_ft``
        and ``inclination_deg``; a record without them adds nothing.
        """
        spans: dict[str, tuple[float, float]] = {}
        sizes: dict[float, tuple[float, float]] = {}
        for row in rows:
            for size, top, bottom in row.get("bits") or ():
                low, high = sizes.get(size, (top, bottom))
                sizes[size] = (min(low, top), max(high, bottom))
        for size, span in sorted(sizes.items(), reverse=True):
            spans[f"hole {size:g}"] = span
        order = sorted(sizes, reverse=True)
        if len(order) >= 2:
            spans["surface"] = sizes[order[0]]
            if len(order) >= 3:
                spans["intermediate"] = (sizes[order[1]][0], sizes[order[-2]][1])
            spans["production"] = sizes[order[-1]]
        stations = sorted({(r["survey_md_ft"], r["inclination_deg"]) for r in rows
                           if r.get("survey_md_ft") is not None and r.get("inclination_deg") is not None})
        # the deepest point known: a report's MD, or a survey station below it (the last reports' MD unreadable)
        deepest = max([r["md_ft"] for r in rows if r.get("md_ft") is not None] + [md for md, _ in stations],
                      default=None)
        if deepest is not None and stations and max(i for _, i in stations) >= DEVIATED:
            spans.update(cls._trajectory(stations, deepest, list(sizes.values())))
        return cls(spans)

    @staticmethod
    def _trajectory(stations: list[tuple[float, float]], deepest: float,
                    holes: list[tuple[float, float]]) -> dict[str, tuple[float, float]]:
        """Vertical, curve, tangent, pilot and toe from the survey stations ``(MD, inclination)``, by MD."""
        held = max(i for _, i in stations) - HOLD

        def crossing(angle: float) -> tuple[float, float] | None:
            """The two stations between which the inclination first reaches ``angle``: (last below, first at)."""
            for (md0, inc0), (md1, inc1) in zip(stations, stations[1:]):
                if inc0 < angle <= inc1:
                    return md0, md1
            return None

        kickoff, landing = crossing(VERTICAL), crossing(held)
        if kickoff is None or landing is None:
            return {}
        tangent = (landing[0], deepest)
        out = {"vertical": (0.0, kickoff[1]), "curve": (kickoff[0], landing[1]), "tangent": tangent,
               "toe": (deepest - 0.1 * (deepest - tangent[0]), deepest)}
        hole = next((span for span in holes if span[0] < kickoff[0] <= span[1]), None)
        if hole is not None:
            out["pilot"] = (hole[0], kickoff[1])
        return out

    def meets(self, row: Mapping, names: Sequence[str]) -> bool:
        """Whether a report's drilled interval (:func:`in_span`) meets any of the sections ``names``."""
        return any(in_span(row, self.spans[n]) for n in names)

    def named(self, query: str) -> list[str]:
        """The sections ``query`` names and these reports show, in the order of :data:`SECTION_WORDS`, then sizes.

        A size counts when it is the size of a hole section (``12-1/4`` with 12.25-in
        bits); a casing size (``9-5/8``) names none.

        >>> WellSections({"curve": (5764.0, 7320.0), "hole 12.25": (1629.0, 5113.0)}).named(
        ...     "stuck while orienting in the curve, or in the 12-1/4?")
        ['curve', 'hole 12.25']
        """
        text = normalize(query)
        found = [name for rx, name in _WORDS if name in self.spans and rx.search(text)]
        for m in _SIZE.finditer(text):
            size = int(m[1]) + (int(m[2]) / int(m[3]) if m[2] else float(m[4]))
            name = f"hole {size:g}"
            if name in self.spans and name not in found:
                found.append(name)
        return found

    def describe(self, name: str) -> str:
        """``'curve (5,764 to 7,320 ft MD)'``, ``'12.25-in hole (1,629 to 5,113 ft MD)'``: a section and its span."""
        top, bottom = self.spans[name]
        label = f"{name[5:]}-in hole" if name.startswith("hole ") else name
        return f"{label} ({top:,.0f} to {bottom:,.0f} ft MD)"
