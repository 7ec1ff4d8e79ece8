"""Typed numeric fields of a daily drilling report: numbers with units, never a silent 0.

A :class:`ddrsearch.reading.report.Report` keeps its header as printed strings
(``MD/TVD: 6507``, ``24 HR FTG: 147``). The WellEz page also prints numbers
outside the header: the MUD table (mud weight, viscosities), DRILL BITS (bit
hours, WOB, RPM, ROP), PUMPS (pressure, flow, ECD), the BHA summary (rotating,
pick-up and slack-off weights, torque) and SURVEY DATA. This module reads each
of them as a :class:`TypedValue`: the number, its unit, the raw string as
printed, and a note or flag when something is wrong.

Rules (issue 13):

* a blank or unreadable cell gives ``value=None`` and a ``note`` saying why,
  never 0;
* a unit printed next to the number that differs from the field's expected
  unit, or a value outside the field's plausible range (a mud weight of 1.1 is
  specific gravity, not ppg), keeps the value but sets ``flag`` with the
  reason;
* a measured depth smaller than the previous report's is flagged by
  :func:`check_sequence` (hole depth cannot decrease; "while drilling" is
  added when the day logs drilling hours).

Units are those of the WellEz form, which prints none in its cells: feet for
depths and lengths, ppg for mud weight and ECD, psi for pressure, gpm for flow,
klbf (thousands of pounds) for hook loads and WOB, ft-lbf for torque as
printed, hours, degrees.

The tables' cells are read by :mod:`ddrsearch.reading.tables` from the word positions
the report kept when it was read (its PDF is not opened again); this module
turns them into typed values. ``read_tables``, ``TABLE_COLUMNS`` and
``BHA_LABELS`` are re-exported here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ddrsearch.reading.report import Report
from ddrsearch.reading.tables import BHA_LABELS, TABLE_COLUMNS, read_tables

__all__ = [
    "BHA_LABELS",
    "FIELDS",
    "TABLE_COLUMNS",
    "FieldSpec",
    "TypedValue",
    "archive_fields",
    "check_sequence",
    "fields_frame",
    "fields_long",
    "flag_kind",
    "operations_table",
    "parse_quantity",
    "read_tables",
    "typed_fields",
]


@dataclass(frozen=True)
class TypedValue:
    """One numeric field of one report.

    Attributes:
        field: the field's name in :data:`FIELDS` (e.g. ``"md_ft"``).
        value: the number, in ``unit``; ``None`` when blank or unreadable.
        unit: the field's unit (``"ft"``, ``"ppg"``, ...).
        raw: the string as printed (``""`` when the cell is blank).
        note: why ``value`` is ``None``, or how it was derived; ``""`` otherwise.
        flag: a reason not to trust the value (unit mismatch, implausible
            value, contradiction with the previous day); ``""`` when none.
    """

    field: str
    value: float | None
    unit: str
    raw: str
    note: str = ""
    flag: str = ""


@dataclass(frozen=True)
class FieldSpec:
    """Where a field is printed and what it means.

    Attributes:
        name: column name in :func:`fields_frame`.
        source: ``"header"``, ``"bha"`` (a ``LABEL: value`` line under BHA) or a
            table title (``"MUD"``, ``"DRILL BITS"``, ``"PUMPS"``, ``"SURVEY DATA"``).
        label: header label, BHA label or table column as printed.
        unit: expected unit.
        low, high: plausible range in ``unit``; a value outside is flagged.
        how: for a table with several rows, which row gives the report's value:
            ``"last"`` (the last row printed: the latest mud check or deepest
            survey), ``"first"`` (the bit in the hole, listed first), ``"max"``
            or ``"sum"`` (the pumps' flow rates add up).
        description: what the field is.
    """

    name: str
    source: str
    label: str
    unit: str
    low: float
    high: float
    how: str = "last"
    description: str = ""


#: Every typed field, in column order. Plausible ranges are wide bounds for a
#: land geothermal well of this size (16A(78)-32: 10,987 ft MD, 8.3-10 ppg water
#: based mud); they catch unit slips, not unusual days.
FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("md_ft", "header", "MD/TVD", "ft", 0, 40000, description="measured depth at report time"),
    FieldSpec("footage_ft", "header", "24 HR FTG", "ft", 0, 5000, description="feet drilled in the 24 hours"),
    FieldSpec("drilling_hours", "header", "HRS DRLG", "hours", 0, 24, description="hours drilling in the day"),
    FieldSpec("dfs_days", "header", "DFS", "days", 0, 1000, description="days from spud"),
    FieldSpec("dol_days", "header", "DOL", "days", 0, 1000, description="days on location"),
    FieldSpec("elevation_ft", "header", "ELEVATION", "ft", -1000, 15000, description="ground elevation"),
    FieldSpec("mud_weight_ppg", "MUD", "MW", "ppg", 6.5, 22, description="mud weight of the last mud check"),
    FieldSpec("mud_weight_max_ppg", "MUD", "MW", "ppg", 6.5, 22, how="max",
              description="highest mud weight among the day's mud checks"),
    FieldSpec("funnel_viscosity_s", "MUD", "FV", "s/qt", 20, 300, description="funnel viscosity"),
    FieldSpec("plastic_viscosity_cp", "MUD", "PV", "cP", 0, 100, description="plastic viscosity"),
    FieldSpec("yield_point", "MUD", "YP", "lbf/100ft2", 0, 100, description="yield point"),
    FieldSpec("bit_number", "DRILL BITS", "NO.", "", 0, 1000, how="first", description="bit in the hole (first row)"),
    FieldSpec("bit_depth_in_ft", "DRILL BITS", "IN", "ft", 0, 40000, how="first", description="depth the bit went in"),
    FieldSpec("bit_footage_ft", "DRILL BITS", "FEET", "ft", 0, 10000, how="first", description="feet drilled by the bit"),
    FieldSpec("bit_hours", "DRILL BITS", "HRS", "hours", 0, 500, how="first",
              description="rotating hours on the bit"),
    FieldSpec("wob_klbf", "DRILL BITS", "WOB", "klbf", 0, 100, how="first", description="weight on bit"),
    FieldSpec("rpm", "DRILL BITS", "RPM", "rpm", 0, 400, how="first", description="rotary speed"),
    FieldSpec("bit_rop_ft_per_hr", "DRILL BITS", "ROP", "ft/hr", 0, 500, how="first",
              description="bit run's rate of penetration"),
    FieldSpec("pump_pressure_psi", "PUMPS", "PSI", "psi", 0, 7500, how="max", description="pump (standpipe) pressure"),
    FieldSpec("flow_rate_gpm", "PUMPS", "GPM", "gpm", 0, 2000, how="sum", description="total flow of the pumps"),
    FieldSpec("ecd_ppg", "PUMPS", "ECD", "ppg", 6.5, 22, how="max", description="equivalent circulating density"),
    FieldSpec("bha_length_ft", "bha", "LENGTH", "ft", 0, 20000, description="BHA length"),
    FieldSpec("rotating_weight_klbf", "bha", "ROT. WT.", "klbf", 0, 1000, description="rotating string weight"),
    FieldSpec("pickup_weight_klbf", "bha", "P.U. WT.", "klbf", 0, 1000, description="pick-up weight"),
    FieldSpec("slackoff_weight_klbf", "bha", "S.O. WT.", "klbf", 0, 1000, description="slack-off weight"),
    FieldSpec("torque_ftlbf", "bha", "TORQUE", "ft-lbf", 0, 60000, description="rotating torque as printed"),
    FieldSpec("jar_hours", "bha", "HRS. ON JARS", "hours", 0, 2000, description="hours on the jars"),
    FieldSpec("survey_md_ft", "SURVEY DATA", "MD", "ft", 0, 40000, description="deepest survey's MD"),
    FieldSpec("survey_tvd_ft", "SURVEY DATA", "TVD", "ft", 0, 40000, description="deepest survey's TVD"),
    FieldSpec("inclination_deg", "SURVEY DATA", "INCLINATION", "deg", 0, 180, description="deepest survey's inclination"),
    FieldSpec("azimuth_deg", "SURVEY DATA", "AZIMUTH", "deg", 0, 360, description="deepest survey's azimuth"),
)

#: Unit spellings accepted for each expected unit (lower case). Any other unit printed is a mismatch.
UNIT_ALIASES = {
    "ft": {"ft", "'", "feet", "ft."},
    "ppg": {"ppg", "lb/gal", "#/gal"},
    "psi": {"psi"},
    "gpm": {"gpm"},
    "klbf": {"k", "klbs", "klb", "kips", "klbf"},
    "ft-lbf": {"ft-lbs", "ft-lb", "ft-lbf", "ftlbs", "ft/lbs", "lb-ft"},
    "hours": {"hr", "hrs", "h", "hours"},
    "days": {"d", "days"},
    "deg": {"deg", "°"},
}

#: A unit the reports also print a field in, without saying so: expected unit -> (other unit, factor).
#: Hook loads and WOB are printed in klbf in some reports (``ROT. WT.: 230``) and in lbf in others
#: (``ROT. WT.: 215,000``); a number of lbf in the klbf field's range times 1000 is converted and flagged.
SCALED_UNITS = {"klbf": ("lbf", 1000.0)}

_QUANTITY_RE = re.compile(
    r"^(?P<num>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|[-+]?\.\d+)\s*(?P<unit>[^\d\s].*)?$"
)


def parse_quantity(raw: str, unit: str, *, name: str = "", low: float | None = None,
                   high: float | None = None) -> TypedValue:
    """Read one printed value as a number in ``unit``.

    Args:
        raw: the value as printed (``"1,714.08"``, ``"6507'"``, ``"9.2 ppg"``, ``""``).
        unit: the expected unit (a key of :data:`UNIT_ALIASES`, or any label).
        name: the field name to record.
        low, high: plausible range in ``unit``; outside it the value is kept and flagged.

    Returns:
        A :class:`TypedValue`. Blank -> ``value=None``, note ``"blank in the
        report"``; not a number (``"TMD TVD"``, ``"20 TO 35"``) -> ``None`` with
        a note quoting it; a unit other than ``unit`` printed after the number
        -> the value with a ``flag`` naming both units.
    """
    text = (raw or "").strip()
    if not text:
        return TypedValue(name, None, unit, raw or "", note="blank in the report")
    m = _QUANTITY_RE.match(text)
    if not m:
        return TypedValue(name, None, unit, raw, note=f"not a number: {text!r}")
    value = float(m["num"].replace(",", ""))
    printed = (m["unit"] or "").strip()
    flags = []
    if printed:
        ok = UNIT_ALIASES.get(unit, {unit.lower()})
        if printed.lower() not in ok:
            if re.search(r"\d", printed) or printed.lower() in ("to", "-"):
                return TypedValue(name, None, unit, raw, note=f"not one number: {text!r}")
            flags.append(f"unit {printed!r} printed, expected {unit}")
    if low is not None and high is not None and not (low <= value <= high):
        alt = SCALED_UNITS.get(unit)
        if not printed and alt and low <= value / alt[1] <= high and value >= alt[1]:
            value = value / alt[1]
            flags.append(f"printed in {alt[0]}, not {unit}: {text} {alt[0]} read as {value:g} {unit}")
        else:
            flags.append(f"{value:g} is outside the plausible range {low:g}-{high:g} {unit}; check the unit")
    return TypedValue(name, value, unit, raw, flag="; ".join(flags))


# the kinds of flag this module writes, by the words each flag's text holds
_FLAG_KINDS = (
    ("unit printed", re.compile(r"\bunit '.*' printed, expected ")),
    ("converted from a smaller unit", re.compile(r"\bprinted in \S+, not \S+: ")),
    ("outside the plausible range", re.compile(r" is outside the plausible range ")),
    ("footage against MD", re.compile(r"\b24 HR FTG .* but MD rose ")),
    ("MD decreasing", re.compile(r"\bMD .* is less than .* printed in ")),
)


def flag_kind(flag: str) -> str:
    """The kind of a :attr:`TypedValue.flag`, for counting flags by kind.

    Args:
        flag: a flag as :func:`parse_quantity`, :func:`typed_fields` or
            :func:`check_sequence` write it (several reasons joined by ``"; "``).

    Returns:
        ``""`` for no flag; otherwise the names of the kinds the text holds, in
        the order ``unit printed``, ``converted from a smaller unit``, ``outside
        the plausible range``, ``footage against MD``, ``MD decreasing``, joined
        by ``"; "``; ``"other"`` for a flag of none of these kinds. The kind
        depends on the flag's words, not on the number it starts with.
    """
    if not flag:
        return ""
    kinds = [name for name, pattern in _FLAG_KINDS if pattern.search(flag)]
    return "; ".join(kinds) or "other"


# --- one report's typed fields ---------------------------------------------------------------------

def _header_raw(report: Report, spec: FieldSpec) -> tuple[str | None, str]:
    """The printed header string for a field (None when the label is absent) and the label found."""
    if spec.label == "MD/TVD":
        for label in ("MD/TVD", "MD"):
            if label in report.header:
                raw = report.header[label]
                return raw.split("/")[0].strip() if "/" in raw else raw, label
        return None, "MD/TVD"
    return report.header.get(spec.label), spec.label


def _from_rows(spec: FieldSpec, rows: list[dict[str, str]]) -> TypedValue:
    """Combine a table column over its rows as ``spec.how`` says."""
    what = {"MUD": "mud check", "DRILL BITS": "bit row", "PUMPS": "pump", "SURVEY DATA": "survey"}[spec.source]
    parsed = [parse_quantity(r.get(spec.label, ""), spec.unit, name=spec.name, low=spec.low, high=spec.high)
              for r in rows]
    if not parsed:
        return TypedValue(spec.name, None, spec.unit, "", note=f"the {spec.source} table has no rows")
    if spec.how in ("first", "last"):
        tv = parsed[0] if spec.how == "first" else parsed[-1]
        if len(parsed) > 1 and tv.value is not None and not tv.note:
            tv = TypedValue(tv.field, tv.value, tv.unit, tv.raw,
                            note=f"{spec.how} of {len(parsed)} {what}s", flag=tv.flag)
        elif tv.value is None:
            tv = TypedValue(tv.field, None, tv.unit, tv.raw,
                            note=f"{tv.note} ({spec.how} of {len(parsed)} {what}s)", flag=tv.flag)
        return tv
    got = [p for p in parsed if p.value is not None and "outside the plausible range" not in p.flag]
    dropped = [p for p in parsed if p.value is not None and p not in got]
    if not got and dropped:
        return TypedValue(spec.name, None, spec.unit, " | ".join(p.raw for p in parsed),
                          note=f"no plausible value in any {what}",
                          flag="; ".join(sorted({p.flag for p in dropped})))
    if not got:
        return TypedValue(spec.name, None, spec.unit, "",
                          note=f"blank in every {what} ({len(parsed)})"
                          + ("" if all(p.note == "blank in the report" for p in parsed) else
                             ": " + ", ".join(repr(p.raw) for p in parsed if p.raw)))
    raw = " | ".join(p.raw for p in parsed)
    flag = "; ".join(sorted({p.flag for p in got if p.flag}
                            | {f"{p.flag}; not used in the {spec.how}" for p in dropped}))
    if spec.how == "max":
        value = max(p.value for p in got)
        note = f"highest of {len(got)} {what}s" if len(parsed) > 1 else ""
    else:  # sum
        value = round(sum(p.value for p in got), 6)
        note = f"sum of {len(got)} {what}s" if len(parsed) > 1 else ""
    return TypedValue(spec.name, value, spec.unit, raw, note=note, flag=flag)


def typed_fields(report: Report, tables: dict[str, list[dict[str, str]]] | None = None) -> dict[str, TypedValue]:
    """Every field of :data:`FIELDS` for one report.

    Args:
        report: the report.
        tables: its tables from :func:`read_tables` (read when ``None``).

    Returns:
        Field name -> :class:`TypedValue`, in :data:`FIELDS` order. A field the
        report's layout does not print (the completion report has no MUD
        table) is ``None`` with a note saying so.
    """
    if tables is None:
        tables = read_tables(report)
    out: dict[str, TypedValue] = {}
    for spec in FIELDS:
        if spec.source == "header":
            raw, label = _header_raw(report, spec)
            if raw is None:
                tv = TypedValue(spec.name, None, spec.unit, "", note=f"no {label} field in the header")
            else:
                tv = parse_quantity(raw, spec.unit, name=spec.name, low=spec.low, high=spec.high)
        elif spec.source == "bha":
            if "bha" not in tables:
                tv = TypedValue(spec.name, None, spec.unit, "", note="no BHA section in the report")
            elif spec.label not in tables["bha"][0]:
                tv = TypedValue(spec.name, None, spec.unit, "", note=f"no {spec.label} line under BHA")
            else:
                tv = parse_quantity(tables["bha"][0][spec.label], spec.unit, name=spec.name,
                                    low=spec.low, high=spec.high)
        elif spec.source not in tables:
            tv = TypedValue(spec.name, None, spec.unit, "", note=f"no {spec.source} table in the report")
        else:
            tv = _from_rows(spec, tables[spec.source])
        out[spec.name] = tv
    return out


def _drilled(report: Report) -> bool:
    """True when the day's TIME BREAKDOWN logs hours under the code Drilling."""
    return any(r.code == "Drilling" and (r.hours or 0) > 0 for r in report.operations)


def check_sequence(reports: Sequence[Report], values: Sequence[dict[str, TypedValue]]) -> list[dict[str, TypedValue]]:
    """Flag values that contradict the previous report (reports in date order).

    A measured depth below the deepest MD printed so far is flagged: hole
    depth cannot decrease (a sidetrack would be named in the report); the flag
    adds "while drilling" when the day logs Drilling hours. A 24 HR FTG that
    differs by more than 1 ft from the rise in MD since the report just before
    is flagged too. A report with no MD is skipped (its field already carries
    a note) and breaks the footage check for the next one.

    Args:
        reports: the reports, sorted by date (as :func:`ddrsearch.reading.report.load_archive`
            returns them).
        values: their :func:`typed_fields`, same order.

    Returns:
        New dicts, with ``flag`` set on contradicting values.
    """
    out = [dict(v) for v in values]
    deepest, deepest_name = None, ""
    previous = None  # (MD, file name) of the report just before, when it printed an MD
    for report, vals in zip(reports, out):
        md = vals.get("md_ft")
        if md is None or md.value is None:
            previous = None
            continue
        ftg = vals.get("footage_ft")
        if previous is not None and ftg is not None and ftg.value is not None \
                and abs((md.value - previous[0]) - ftg.value) > 1:
            reason = (f"24 HR FTG {ftg.value:,.0f} ft, but MD rose {md.value - previous[0]:,.0f} ft "
                      f"since {previous[1]}")
            vals["footage_ft"] = TypedValue(ftg.field, ftg.value, ftg.unit, ftg.raw, ftg.note,
                                            "; ".join(f for f in (ftg.flag, reason) if f))
        previous = (md.value, report.file_name)
        if deepest is not None and md.value < deepest:
            reason = (f"MD {md.value:,.0f} ft is less than {deepest:,.0f} ft printed in {deepest_name}"
                      + (" while drilling" if _drilled(report) else ""))
            vals["md_ft"] = TypedValue(md.field, md.value, md.unit, md.raw, md.note,
                                       "; ".join(f for f in (md.flag, reason) if f))
        else:
            deepest, deepest_name = md.value, report.file_name
    return out


# --- tidy tables -------------------------------------------------------------------------------------

def archive_fields(reports: Sequence[Report]) -> list[dict[str, TypedValue]]:
    """:func:`typed_fields` of every report, then :func:`check_sequence` over them (reports in date order)."""
    ordered = sorted(reports, key=lambda r: (r.report_date, r.report_number, r.file_name))
    checked = dict(zip((r.file_name for r in ordered),
                       check_sequence(ordered, [typed_fields(r) for r in ordered])))
    return [checked[r.file_name] for r in reports]


def fields_long(reports: Sequence[Report], values: Sequence[dict[str, TypedValue]] | None = None):
    """One row per (report, field): the long form of the typed fields.

    Returns:
        pandas DataFrame with columns ``report, report_number, date, field,
        value, unit, raw, note, flag`` (``value`` is NaN where ``None``).
    """
    import pandas as pd

    if values is None:
        values = archive_fields(reports)
    rows = [
        {"report": r.file_name, "report_number": r.report_number, "date": r.report_date, "field": t.field,
         "value": t.value, "unit": t.unit, "raw": t.raw, "note": t.note, "flag": t.flag}
        for r, vals in zip(reports, values) for t in vals.values()
    ]
    return pd.DataFrame(rows, columns=["report", "report_number", "date", "field", "value", "unit", "raw",
                                       "note", "flag"])


def fields_frame(reports: Sequence[Report], values: Sequence[dict[str, TypedValue]] | None = None):
    """One row per report, one column per field of :data:`FIELDS`.

    Args:
        reports: the reports (any order; the rows keep it).
        values: their typed fields (computed with :func:`archive_fields` when ``None``).

    Returns:
        pandas DataFrame: ``report, report_number, date, phase`` (report
        phase, Drilling or Completion), one float column per field (NaN where
        the field is ``None``), ``hours`` (sum of the HRS column), ``npt_hours``
        (hours of rows with an NPT entry), then ``notes`` and ``flags``: each
        ``"field: text"`` joined by ``"; "``, empty when none. Units are in
        :data:`FIELDS` (the column names end in them).
    """
    import pandas as pd

    if values is None:
        values = archive_fields(reports)
    rows = []
    for r, vals in zip(reports, values):
        row = {"report": r.file_name, "report_number": r.report_number, "date": r.report_date, "phase": r.phase}
        row.update({name: t.value for name, t in vals.items()})
        row["hours"] = r.hours_total
        row["npt_hours"] = round(sum(o.hours or 0 for o in r.operations if o.npt.strip()), 4)
        row["notes"] = "; ".join(f"{n}: {t.note}" for n, t in vals.items() if t.note)
        row["flags"] = "; ".join(f"{n}: {t.flag}" for n, t in vals.items() if t.flag)
        rows.append(row)
    cols = ["report", "report_number", "date", "phase", *(s.name for s in FIELDS), "hours", "npt_hours",
            "notes", "flags"]
    frame = pd.DataFrame(rows, columns=cols)
    for s in FIELDS:
        frame[s.name] = frame[s.name].astype(float)
    return frame


def operations_table(reports: Iterable[Report]):
    """One row per TIME BREAKDOWN row of every report.

    Returns:
        pandas DataFrame with columns ``report, report_number, date, row,
        from, to, hours, phase, code, npt, npt_text, text``: ``row`` is the
        row's index in its table (from 0), ``hours`` the HRS cell (NaN when
        blank), ``npt`` True when the NPT cell is filled, ``npt_text`` that
        cell as printed, ``text`` the OPERATIONS text. The completion report
        has no rows.
    """
    import pandas as pd

    rows = [
        {"report": r.file_name, "report_number": r.report_number, "date": r.report_date, "row": o.index,
         "from": o.start, "to": o.end, "hours": o.hours, "phase": o.phase, "code": o.code,
         "npt": bool(o.npt.strip()), "npt_text": o.npt, "text": o.operations}
        for r in reports for o in r.operations
    ]
    cols = ["report", "report_number", "date", "row", "from", "to", "hours", "phase", "code", "npt", "npt_text",
            "text"]
    frame = pd.DataFrame(rows, columns=cols)
    frame["hours"] = frame["hours"].astype(float)
    return frame
