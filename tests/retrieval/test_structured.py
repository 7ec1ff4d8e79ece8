"""ddrsearch.retrieval.structured: answers from the typed fields (the depth passed) and when not to give one."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from ddrsearch.reading.names import short_name
from ddrsearch.retrieval.structured import HOLIDAYS, NAMED_DAY_RE, StructuredIndex, parse_date

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


def test_a_date_scores_both_reports_covering_the_day(archive):
    """Before: the report dated 2020-11-26 alone, whose rows from 06:00 are the 25th's. Now the two that cover it."""
    match = StructuredIndex(archive).score("thanksgiving")
    assert match.kind == "date" and match.day == dt.date(2020, 11, 26)
    dated = {r.file_name: r.report_date for r in archive}
    assert [dated[n] for n in match.scores] == [dt.date(2020, 11, 27), dt.date(2020, 11, 26)]


def test_a_holiday_without_a_year_is_the_one_the_reports_cover(archive):
    """Before: "New Year's Day" in reports of 2020-10-21 to 2021-01-06 was 2020-01-01 (the first year tried)."""
    span = (dt.date(2020, 10, 20), dt.date(2021, 1, 6))
    assert parse_date("mud weight on new year's day", [2020, 2021], span=span) == dt.date(2021, 1, 1)
    assert parse_date("what happened on Nov 26", [2020, 2021], span=span) == dt.date(2020, 11, 26)
    assert StructuredIndex(archive).score("new year's day").day == dt.date(2021, 1, 1)


def test_every_day_parse_date_reads_in_words_is_the_day_the_answerer_removes():
    """One list of month and holiday names: each one parse_date reads is what NAMED_DAY_RE matches whole."""
    from ddrsearch.answers import answerer

    assert answerer.NAMED_DAY_RE is NAMED_DAY_RE
    for text in (*HOLIDAYS, "New Year\u2019s Day", "Nov 26", "26th of November", "sept. 3", "Christmas Day 2020"):
        assert parse_date(text, [2020]) is not None, text
        assert NAMED_DAY_RE.fullmatch(text), text


def _md_rows(*mds: float | None) -> StructuredIndex:
    """A structured index of one report a day from 2020-11-01 with these MDs (no PDF read)."""
    return StructuredIndex(rows=[{"report": f"R{i}", "date": dt.date(2020, 11, i), "bit_size": None, "md_ft": md}
                                 for i, md in enumerate(mds, start=1)])


def test_the_highest_md_is_read_from_the_typed_md(archive):
    """Before: "what was the highest MD" had no structured pattern, and ask quoted D026's row "Currently at
    5,113' MD"; the typed MD field's highest is 10,987 ft, first in D066."""
    m = StructuredIndex(archive).score("what was the highest MD")
    deepest = max(r.md_ft for r in archive if r.md_ft is not None)
    assert (m.kind, m.field, m.value) == ("extreme", "md_ft", deepest)
    assert short_name(next(r for r in archive if r.file_name == m.holders[0])) == "D066"


@pytest.mark.parametrize("question", ["what was the highest MD", "maximum measured depth", "max depth",
                                      "deepest point of the well", "what was the total depth reached",
                                      "when did we reach TD", "TD was called on which day"])
def test_a_deepest_question_asks_for_the_highest_md(question):
    m = _md_rows(500.0, 3000.0, None, 9000.0, 9000.0).score(question)
    assert m is not None and (m.field, m.value, m.holders) == ("md_ft", 9000.0, ("R4", "R5"))


@pytest.mark.parametrize("question", ["top drive repair", "longest TD repair", "TD repair", "TD leaking oil",
                                      "mud weight at TD", "the longest trip, at what depth?"])
def test_td_alone_or_another_extreme_is_not_the_deepest_md(question):
    """"TD" is the top drive as often as total depth: alone it does not ask for the deepest report."""
    m = _md_rows(500.0, 9000.0).score(question)
    assert m is None or m.field != "md_ft"


@pytest.mark.parametrize("question", ["what was the maximum depth of the cement plug?",
                                      "highest depth of the casing shoe", "at what depth was casing set at total depth?",
                                      "deepest point of the 7 inch liner"])
def test_the_depth_of_another_object_is_not_the_deepest_md(question):
    """Before (adversarial pass): these got the note "the highest in these reports is 10,987 ft" (the well's
    deepest MD), though they ask where a plug, a shoe or the casing was."""
    m = _md_rows(500.0, 9000.0).score(question)
    assert m is None or m.field != "md_ft"


def _drill_rows() -> StructuredIndex:
    """Five days from 2020-11-01: drill to 6,945 ft, stay there, drill on to 7,294 ft, then 8,391 and 8,391 (no PDF read);
    DFS 1 from the third report, so the well was spudded on 2020-11-02."""
    mds = (6500.0, 6945.0, 6945.0, 7294.0, 8391.0)
    return StructuredIndex(rows=[{"report": f"R{i}", "date": dt.date(2020, 11, i), "bit_size": None, "md_ft": md,
                                  "dfs_days": float(i - 2) if i > 2 else None}
                                 for i, md in enumerate(mds, start=1)])


@pytest.mark.parametrize("question", ["what happened near 8,391?", "drilling to 6945, how sharp was the curve",
                                      "around 7,000 what did we see", "from ~7,100 on"])
def test_a_depth_without_its_unit_is_a_depth_mentioned_when_asked(question):
    """Before: only "at 8,391 ft" was a depth mentioned; "near 8,391" got no structured score (P016, P086)."""
    index = _drill_rows()
    assert index.score(question) is None  # off by default
    m = index.score(question, bare_depths=True)
    assert m is not None and m.kind == "depth_at" and set(m.scores.values()) == {0.5}


@pytest.mark.parametrize("question", ["pump pressure near 8,391 psi", "what happened in 2020", "work at 2020",
                                      "run the 13-3/8 casing", "at 1500 hrs", "at 0600", "at 7,294.5",
                                      "on 11/26/2020", "pumped 1,200 bbl", "at 8,391 gpm", "to 60,000",
                                      "at 7,000 m"])
def test_a_number_of_another_kind_is_no_bare_depth(question):
    """A pressure, a year, a casing size, a clock time, a decimal, a date, a volume, a depth beyond the deepest
    MD or in metres is not a depth without its unit."""
    m = _drill_rows().score(question, bare_depths=True)
    assert m is None or m.kind != "depth_at"


def test_the_bare_depth_reader():
    from ddrsearch.retrieval.structured import bare_depth

    assert bare_depth("near 8,391", 10987.0) == 8391.0
    assert bare_depth("8,391 psi near 8,391 psi", 10987.0) is None
    assert bare_depth("in 2020, at 13-3/8", 10987.0) is None
    assert bare_depth("near 8,391", 8000.0) is None  # deeper than the deepest MD


def test_the_reports_that_stayed_at_a_depth_get_a_lower_score_when_asked():
    """Before: only the report that drilled to 6,945 ft answered; the one that stayed there (md 6,945 to 6,945)
    gets ``depth_still``, the one that drilled on from it ``depth_next``."""
    index = _drill_rows()
    assert index.score("near 6,945", bare_depths=True).scores == {"R2": 0.5}
    assert index.score("near 6,945", bare_depths=True, depth_still=0.25).scores == {"R2": 0.5, "R3": 0.25}
    assert index.score("near 6,945", bare_depths=True, depth_next=0.2).scores == {"R2": 0.5, "R3": 0.2, "R4": 0.2}
    assert index.score("at 6,945 ft", depth_still=0.25).scores == {"R2": 0.5, "R3": 0.25}
    with pytest.raises(ValueError, match="depth_still"):
        index.score("near 6,945", depth_still=1.5)


@pytest.mark.parametrize(("question", "first", "last"), [
    ("came out of the pilot late November", dt.date(2020, 11, 21), dt.date(2020, 11, 30)),
    ("gusty weather mid November", dt.date(2020, 11, 11), dt.date(2020, 11, 20)),
    ("mid-Nov", dt.date(2020, 11, 11), dt.date(2020, 11, 20)),
    ("televiewer pass early December", dt.date(2020, 12, 1), dt.date(2020, 12, 10)),
    ("at the end of December 2020", dt.date(2020, 12, 24), dt.date(2020, 12, 31)),
    ("first week of Dec", dt.date(2020, 12, 1), dt.date(2020, 12, 7)),
    ("last week of november", dt.date(2020, 11, 24), dt.date(2020, 11, 30)),
])
def test_a_loose_date_is_a_period(question, first, last):
    from ddrsearch.retrieval.structured import loose_period

    span = (dt.date(2020, 10, 20), dt.date(2021, 1, 6))
    assert loose_period(question, [2020, 2021], span=span)[:2] == (first, last)


def test_a_loose_date_scores_every_report_covering_the_period_lower_than_a_date():
    """Before: "late November" and "before spud" had no structured score (P017, P026, P048, P097)."""
    index = _drill_rows()
    assert index.score("what broke early November") is None  # off by default
    m = index.score("what broke early November", loose_dates=0.3)
    assert m.kind == "period" and m.scores == {f"R{i}": 0.3 for i in range(1, 6)}
    assert index.score("what broke on November 3", loose_dates=0.3).kind == "date"  # an exact date wins
    assert index.spud == dt.date(2020, 11, 2)
    assert set(index.score("mud before spud", loose_dates=0.3).scores) == {"R1", "R2"}
    assert set(index.score("toolbox talk the day before spud", loose_dates=0.3).scores) == {"R1", "R2"}
    assert index.score("when did we spud", loose_dates=0.3) is None
    with pytest.raises(ValueError, match="loose_dates"):
        index.score("late November", loose_dates=-0.1)


def test_the_archive_spud_day_is_read_from_the_days_from_spud(archive):
    """The header's SPUD DATE is 10/30/2020; the report dated 2020-10-31 gives DFS 1."""
    index = StructuredIndex(archive)
    assert index.spud == dt.date(2020, 10, 30)
    day_before = index.score("the day before spud", loose_dates=0.3)
    assert sorted(short_name(n) for n in day_before.scores) == ["D010", "D011"]


def test_structured_words_are_the_day_loose_date_and_depth_the_path_reads():
    """Issue 23 (b): the answer cards count these stretches as the question's structured part."""
    from ddrsearch.retrieval.structured import structured_words

    assert structured_words("Had to strap down the TD umbilical in gusty weather mid November") == ["mid november"]
    assert structured_words("when did the well get past 5,000 feet on Nov 26") == ["5,000 feet", "nov 26"]
    assert structured_words("What topics came up the day before spud?") == ["the day before spud"]
    assert structured_words("what were we doing on Christmas Day 2020") == ["christmas day 2020"]
    assert structured_words("when did we last get stuck?") == []


@pytest.mark.parametrize("question", ["arriving late may delay the rig move", "leaving early may help the crew",
                                      "the end of may be near", "starting mid may not work"])
def test_may_the_verb_after_early_or_late_is_no_loose_date(question):
    """Before: with reports in May, "arriving late may delay the rig move" was late May 2021 (a 0.3 bonus to the
    12 reports covering it), "leaving early may help" early May."""
    from ddrsearch.retrieval.structured import loose_period

    assert loose_period(question, [2021]) is None


@pytest.mark.parametrize(("question", "first"), [
    ("stuck pipe late may 2021", dt.date(2021, 5, 21)), ("what happened in early May?", dt.date(2021, 5, 1)),
    ("end of may", dt.date(2021, 5, 24)), ("mid-may, when we tripped", dt.date(2021, 5, 11)),
    ("late may we lost returns", dt.date(2021, 5, 21)), ("early may.", dt.date(2021, 5, 1)),
])
def test_may_the_month_is_still_a_loose_date(question, first):
    from ddrsearch.retrieval.structured import loose_period

    assert loose_period(question, [2021])[0] == first


@pytest.mark.parametrize("question", ["pressure tested the casing to 5000", "test BOPs to 5,000",
                                      "pressure up to 7,500 and hold", "gas at 1200 units", "at 5000 kpa",
                                      "pumped to 2000 gallons", "pumped 1,000 barrels to 8,000 psia",
                                      "at 3,000 stks", "lost 2,000 pounds near 7,000 pounds"])
def test_a_test_pressure_or_a_unit_the_list_lacked_is_no_bare_depth(question):
    """Before: each of these was a depth mentioned (a test pressure written without psi, and units missing from
    DEPTH_UNITS_AFTER: units of gas, kPa, gallons, barrels, psia, strokes, pounds)."""
    from ddrsearch.retrieval.structured import bare_depth

    assert bare_depth(question, 10987.0) is None


def test_a_test_earlier_in_the_question_leaves_a_later_depth_alone():
    from ddrsearch.retrieval.structured import bare_depth

    assert bare_depth("after the BOP test, what happened near 6,945?", 10987.0) == 6945.0
    assert bare_depth("did we test anything. what happened near 6,945", 10987.0) == 6945.0


@pytest.mark.parametrize(("question", "day_before"), [
    ("Was the logging unit's display down before the well started?", False),
    ("mud checks before we spudded", False),
    ("prior to spudding in", False),
    ("the day before the well was spudded", True),
])
def test_the_wells_start_is_its_spud(question, day_before):
    """Before: only 'spud' and 'spudding' were read, so 'before the well started' (P022) had no period."""
    from ddrsearch.retrieval.structured import loose_period

    spud, span = dt.date(2020, 10, 30), (dt.date(2020, 10, 20), dt.date(2021, 1, 6))
    first = dt.date(2020, 10, 29) if day_before else span[0]
    assert loose_period(question, spud=spud, span=span)[:2] == (first, dt.date(2020, 10, 29))


def test_a_well_word_after_before_is_no_spud():
    from ddrsearch.retrieval.structured import loose_period

    assert loose_period("before the well control drill", spud=dt.date(2020, 10, 30)) is None


@pytest.mark.parametrize(("question", "spud"), [
    ("what did we do before the well started flowing?", False),
    ("before the well started to flow", False),
    ("mud lost before the well began losing returns", False),
    ("before the well started taking fluid", False),
    ("before the well started drilling", True),
    ("before the well started, was the display down", True),
])
def test_the_well_starting_to_do_something_is_no_spud(question, spud):
    """The adversarial pass: 'before the well started' read as before spud whatever followed, so a kick or
    losses question ('before the well started flowing') gave 0.3 to the ten rig-up reports before spud."""
    from ddrsearch.retrieval.structured import loose_period

    found = loose_period(question, spud=dt.date(2020, 10, 30), span=(dt.date(2020, 10, 20), dt.date(2021, 1, 6)))
    assert (found is not None) is spud


_RECORD = {"report": "R1.pdf", "date": "2020-11-05", "bit_size": 12.25, "bits": [[12.25, 1629.0, 2630.0]],
           "md_ft": 2630.0}


@pytest.mark.parametrize(("records", "message"), [
    ([{**_RECORD, "bits": [[12.25, float("nan"), 2630.0]]}], r"record 0 \('R1.pdf'\): bits .*nan"),
    ([{**_RECORD, "bits": [[12.25, 0.0, float("inf")]]}], r"record 0 \('R1.pdf'\): bits .*inf"),
    ([{**_RECORD, "bits": [[12.25, 2630.0, 1629.0]]}], "bits"),   # IN below OUT
    ([{**_RECORD, "bits": [[12.25, -500.0, 100.0]]}], "bits"),
    ([{**_RECORD, "bits": [["12.25", 0.0, 100.0]]}], "bits"),     # a string where a number belongs
    ([{**_RECORD, "bits": [[12.25, 0.0]]}], "bits"),
    ([{**_RECORD, "bits": 5}], "bits"),
    ([{**_RECORD, "bits": [[[1], 0, 100]]}], "bits"),
    ([{**_RECORD, "md_ft": "2630"}], r"md_ft '2630' is not a number"),
    ([{**_RECORD, "inclination_deg": True}], "inclination_deg"),
    ([{k: v for k, v in _RECORD.items() if k != "date"}], "record 0 is not an object with a report name"),
    ([{**_RECORD, "date": "2020-13-45"}], "not an ISO date"),
    ([None], "record 0 is not an object"),
    ({"report": "R1.pdf"}, "not a list of records"),
])
def test_records_an_index_build_cannot_have_written_are_refused_by_name(records, message):
    """The adversarial pass: a header.json whose structured records were edited reached WellSections.from_rows
    and the typed fields raw: bits [[12.25, 0, inf]] made the 12-1/4 hole reach to infinity, NaN or reversed IN/OUT
    were kept silently, and a string size, a short row or a record without a date stopped the search with a
    TypeError traceback or a bare 'not enough values to unpack'. Each is now a ValueError naming the record."""
    with pytest.raises(ValueError, match=message):
        StructuredIndex.from_records(records)
    assert StructuredIndex.from_records([_RECORD]).sections.spans == {"hole 12.25": (1629.0, 2630.0)}


def test_an_extreme_within_a_named_section_is_read_among_that_sections_reports():
    """Before: 'heaviest mud in the lateral' gave the whole well's 9.3 ppg, from the vertical hole; with sections on,
    the extreme is read among the reports drilled in the tangent (off: as before)."""
    rows = [{"report": f"R{i}", "date": dt.date(2020, 11, i), "bit_size": 8.75, "bits": [[8.75, top, md]],
             "md_ft": md, "survey_md_ft": md - 50.0, "inclination_deg": inc, "mud_weight_max_ppg": mw}
            for i, (top, md, inc, mw) in enumerate([(0.0, 3000.0, 1.0, 9.3), (3000.0, 4000.0, 30.0, 9.0),
                                                    (4000.0, 6000.0, 60.0, 9.2), (6000.0, 8000.0, 61.0, 9.1)], 1)]
    index = StructuredIndex(rows=rows)
    assert index.score("heaviest mud in the lateral").value == 9.3
    m = index.score("heaviest mud in the lateral", sections=0.3)
    assert (m.kind, m.value, m.holders) == ("extreme", 9.2, ("R3",))
    assert m.detail == "highest mud_weight_max_ppg (in the tangent (3,950 to 8,000 ft MD))"
    assert index.score("heaviest mud weight", sections=0.3).value == 9.3  # no section named: the whole well
