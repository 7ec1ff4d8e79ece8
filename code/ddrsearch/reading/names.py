"""How the package names reports and rows: ``D038`` (drilling report 38) and ``D038-r08`` (its row 8).

:func:`short_name` writes a report's short name the one way the package and
the book write it, and :func:`row_id` an operation row, the id every citation
uses; :func:`resolve_row_id` reads one back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePath

from ddrsearch.data.manifest import FILE_NAME_RE
from ddrsearch.errors import CitationError
from ddrsearch.reading.layout import OperationRow
from ddrsearch.reading.report import Report

__all__ = ["nearest_reports", "resolve_row_id", "row_id", "short_name"]


def nearest_reports(key: str, reports: Sequence[Report], n: int = 3) -> str:
    """A clause naming the reports nearest to ``key`` and the labels searched, for a "not found" message.

    Nearest: by report number when ``key`` holds one (same phase letter first),
    else by similarity of label or file name (rapidfuzz ``WRatio``); then the
    first and last label of each phase searched, e.g. ``"nearest: D076, D075,
    D074; the drilling reports searched are D002 to D076"``. ``""`` for no reports.
    """
    labels = sorted({short_name(r) for r in reports})
    if not labels:
        return ""
    m = re.search(r"([DdCc]?)(\d{1,3})", key)
    if m:
        letter, number = (m[1] or "D").upper(), int(m[2])
        near = sorted(labels, key=lambda lab: (lab[0] != letter, abs(int(lab[1:]) - number), lab))[:n]
    else:
        from rapidfuzz import fuzz, process

        names = {r.file_name: short_name(r) for r in reports} | {lab: lab for lab in labels}
        found = process.extract(key, list(names), scorer=fuzz.WRatio, limit=None)
        near = list(dict.fromkeys(names[f[0]] for f in sorted(found, key=lambda f: (-f[1], f[0]))))[:n]
    phases = {"D": "drilling", "C": "completion"}
    spans = [f"the {phases[c]} reports searched are {ls[0]} to {ls[-1]}" if len(ls) > 1 else
             f"the {phases[c]} report searched is {ls[0]}"
             for c in "DC" for ls in [[lab for lab in labels if lab[0] == c]] if ls]
    return f"nearest: {', '.join(near)}; " + " and ".join(spans)


def short_name(report: Report | str) -> str:
    """A report's short name: phase initial and three-digit number, ``"D038"`` or ``"C003"``.

    Args:
        report: a :class:`~ddrsearch.reading.report.Report`, or a report's file name.
            A file name not in the FORGE pattern gives its stem (``"my_report"``).

    Returns:
        The short name used in tables, the command line and the book.
    """
    if isinstance(report, Report):
        return f"{report.phase[0]}{report.report_number:03d}"
    name = PurePath(str(report)).name
    m = FILE_NAME_RE.match(name)
    if m:
        return f"{m['phase'][0]}{m['number']}"
    return PurePath(name).stem


_ROW_ID_RE = re.compile(r"^([DC])(\d{3})-r(\d{2,})$")


def row_id(report: Report, row: OperationRow | int) -> str:
    """Stable id of an operation row: ``D038-r08`` (report label, row index from 0, two digits at least)."""
    index = row if isinstance(row, int) else row.index
    return f"{short_name(report)}-r{index:02d}"


def resolve_row_id(rid: str, reports: Sequence[Report]) -> tuple[Report, OperationRow]:
    """The report and row a row id names.

    Args:
        rid: a row id such as ``"D038-r08"``.
        reports: the reports the id may refer to.

    Returns:
        ``(report, row)``.

    Raises:
        CitationError: the id is malformed, or names a report not among
            ``reports``, or a row the report does not have (the message
            gives the report's row count).
    """
    m = _ROW_ID_RE.match(str(rid).strip())
    if not m:
        raise CitationError(f"{rid!r} is not a row id; row ids look like D038-r08 (drilling report 38, row 8).")
    label = f"{m[1]}{m[2]}"
    report = next((r for r in reports if short_name(r) == label), None)
    if report is None:
        raise CitationError(f"Row id {rid}: report {label} is not among the {len(reports)} reports searched "
                            f"({nearest_reports(label, reports)}).")
    index = int(m[3])
    if not report.operations:
        raise CitationError(f"Row id {rid}: report {label} ({report.file_name}) has no operation rows (no TIME "
                            "BREAKDOWN table: the completion layout, or a table left empty), so no row to show.")
    if index >= len(report.operations):
        raise CitationError(
            f"Row id {rid}: report {label} ({report.file_name}) has {len(report.operations)} operation rows "
            f"(r00 to r{max(len(report.operations) - 1, 0):02d}); there is no row {index}."
        )
    return report, report.operations[index]

