"""ddrsearch.retrieval.structured: answers from the typed fields (the depth passed) and when not to give one."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from ddrsearch.reading.names import short_name
from ddrsearch.retrieval.structured import StructuredIndex, parse_date

pytestmark = pytest.mark.data


R40 = "FORGE-16A-78-32_Drilling_040_2020-11-28.pdf"


R41 = "FORGE-16A-78-32_Drilling_041_2020-11-29.pdf"


R42 = "FORGE-16A-78-32_Drilling_042_2020-11-30.pdf"


def _with_md(src: Path, dst: Path, new: str) -> None:
    """Copy report ``src`` to ``dst`` with its header's MD/TVD value replaced by ``new``."""
    import pymupdf

    doc = pymupdf.open(src)
    page = doc[0]
    words = page.get_text("words")
    i = next(i for i, w in enumerate(words) if w[4] == "MD/TVD:")
    rect = pymupdf.Rect(words[i + 1][:4])
    page.add_redact_annot(rect)
    page.apply_redactions()
    if new:
        page.insert_text((rect.x0, rect.y1 - 1), new, fontsize=6.2, fontname="helv")
    doc.save(dst)


def test_a_report_without_md_never_passes_a_depth(sample):
    """The structured path counted a missing MD as 0 ft, so a report without one "passed 0 ft"; it never passes a
    depth.
    """
    # `ddrsearch search "which day did we pass 0 ft"` ranks D003 ("No Activity.", no MD field) first with
    # score 1.56: the structured path counts a missing MD as 0 ft.
    from ddrsearch.retrieval.structured import StructuredIndex

    match = StructuredIndex(sample).score("which day did we pass 0 ft")
    by_name = {r.file_name: r for r in sample}
    assert match is None or all(by_name[name].md_ft is not None for name in match.scores)


def test_an_implausible_md_is_not_taken_as_the_depth_passed(tmp_path, archive_folder):
    """An MD flagged as implausible (80240 ft) was taken as the depth passed; it is not used."""
    # An MD typed 80240 (typed_fields flags it: "80240 is outside the plausible range 0-40000 ft; check
    # the unit") is used as is: "which day did we pass 9,000 ft?" names D041 (which drilled 6,945-7,294 ft),
    # and `ddrsearch search ... --dir` ranks D041 first with score 1.52, with no note about the value.
    from ddrsearch.reading.report import load_archive
    from ddrsearch.retrieval.structured import StructuredIndex

    shutil.copy(archive_folder / R40, tmp_path / R40)
    _with_md(archive_folder / R41, tmp_path / R41, "80240")
    shutil.copy(archive_folder / R42, tmp_path / R42)
    match = StructuredIndex(load_archive(tmp_path)).score("which day did we pass 9,000 ft?")
    assert match is None or R41 not in match.scores


def test_the_depth_note_does_not_round_the_depth_asked(archive):
    """The depth note rounded the depth asked (8000.5 ft -> 8,000 ft); it prints it as asked."""
    # "which day did we pass 0.5 ft?" -> note "first MD >= 0 ft"; 8000.5 ft -> "first MD >= 8,000 ft".
    from ddrsearch.retrieval.structured import StructuredIndex

    index = StructuredIndex(archive)
    assert "8,000.5" in index.score("which day did we pass 8000.5 ft?").detail


def test_structured_path_answers_from_typed_fields(archive):
    """The structured path answers a date or a depth passed from the typed fields, and nothing else."""
    si = StructuredIndex(archive)
    assert parse_date("what happened on Thanksgiving 2020") == dt.date(2020, 11, 26)
    m = si.score("which day did the well pass 5,000 ft")
    assert m.kind == "depth_passed" and [short_name(r) for r in m.scores] == ["D022"]
    assert si.score("pipe stuck while sliding") is None
