"""ddrsearch.answers.answerer: a quantity asked about one day, or what was done on it, from the reports covering it."""

from __future__ import annotations

import datetime as dt

import pytest

from ddrsearch.answers.answerer import Answerer
from ddrsearch.answers.generation import check_citations, evidence_lines
from ddrsearch.reading.fields import typed_fields
from ddrsearch.reading.layout import row_start
from ddrsearch.reading.names import short_name
from ddrsearch.retrieval.rowchoice import drilled_intervals, printed_depths

pytestmark = [pytest.mark.data, pytest.mark.model]

THANKSGIVING = dt.date(2020, 11, 26)


@pytest.fixture(scope="module")
def answerer(archive):
    return Answerer(archive)


def _dated(archive, day):
    return next(r for r in archive if r.report_date == day)


def test_how_deep_on_thanksgiving_names_both_covering_reports_and_quotes_the_days_rows(answerer, archive):
    """Before: 'Not found in these reports (best support 0.11 < 0.431)': no row's words are the question's.
    After: the MD each covering report prints (D038 at 06:00 that day, D039 at 06:00 the next), and the rows that
    began on the day printing a depth, as the PDFs print them."""
    on, after = _dated(archive, THANKSGIVING), _dated(archive, THANKSGIVING + dt.timedelta(days=1))
    md_on, md_after = typed_fields(on)["md_ft"].value, typed_fields(after)["md_ft"].value
    card = answerer.ask("how deep were we on thanksgiving")
    assert card.found and card.typed and card.order == "time"
    assert f"{short_name(on)} prints MD/TVD {md_on:,.0f} ft, at its report time, 06:00 on 2020-11-26" in card.note
    assert f"{short_name(after)} prints MD/TVD {md_after:,.0f} ft, at its report time, 06:00 on 2020-11-27" in card.note
    assert card.note.count("D039") >= 2 and "D038 (to 06:00, dated 2020-11-26)" in card.note
    expected = [f"{short_name(rep)}-r{op.index:02d}" for rep in (on, after) for op in rep.operations
                if row_start(rep.report_date, op.start).date() == THANKSGIVING and printed_depths(op.operations)]
    assert [r.row_id for r in card.rows] == expected
    assert all(r.day == THANKSGIVING for r in card.rows)
    deepest = max(b for r in card.rows for _, b in drilled_intervals(r.text))
    assert deepest == md_after  # the day's last drilling row reaches the MD the next report prints
    # an answer citing the quoted row passes the citation check
    row = next(r for r in card.rows if drilled_intervals(r.text) and max(b for _, b in drilled_intervals(r.text))
               == deepest)
    first = row.text.split(". ")[0]  # the row's first sentence, as printed
    check = check_citations(f"{first} [{row.row_id}].", [r.row_id for r in card.rows], evidence_lines(card.rows))
    assert check.ok, check.report()


def test_christmas_names_the_report_whose_rows_all_began_the_day_before(answerer, archive):
    """D067 (dated 2020-12-25) covers Christmas to 06:00 but its last row began on the 24th: its MD is named, and
    only D068's rows are quoted."""
    d067 = _dated(archive, dt.date(2020, 12, 25))
    card = answerer.ask("where was the bit on christmas day")
    assert f"D067 prints MD/TVD {typed_fields(d067)['md_ft'].value:,.0f} ft" in card.note
    assert card.found and {r.label for r in card.rows} == {"D068"} and {r.day for r in card.rows} == {
        dt.date(2020, 12, 25)}


def test_a_day_outside_the_archive_is_said_and_refused(answerer, archive):
    card = answerer.ask("how deep were we on July 4")
    first, last = min(r.report_date for r in archive), max(r.report_date for r in archive)
    assert not card.found and not card.typed
    assert card.note == f"No report for 2020-07-04: the reports run from {first.isoformat()} to {last.isoformat()}."


def test_new_years_day_is_the_one_the_reports_cover(answerer, archive):
    """Before: "New Year's Day" was 2020-01-01 (the first of the reports' years), outside the archive."""
    d074 = _dated(archive, dt.date(2021, 1, 1))
    card = answerer.ask("what was the mud weight on new year's day")
    assert card.typed and "2021-01-01 is covered by" in card.note
    assert f"D074 prints MW {typed_fields(d074)['mud_weight_ppg'].raw} ppg" in card.note


def test_an_event_on_a_day_is_still_searched_by_its_words(answerer):
    card = answerer.ask("at what depth did we get stuck on nov 25")
    assert not card.typed and card.found and "stuck" in card.top.text


def test_what_were_we_doing_on_a_day_quotes_every_row_that_began_on_it(answerer, archive):
    """Before: "what were we doing on Christmas Day 2020" was "Not found" (the archive question A99): only "doing"
    was searched. After: every row that began on 2020-12-25, in time order, from both reports covering it."""
    day = dt.date(2020, 12, 25)
    covering = [_dated(archive, day), _dated(archive, day + dt.timedelta(days=1))]
    began = sorted((row_start(rep.report_date, op.start), f"{short_name(rep)}-r{op.index:02d}")
                   for rep in covering for op in rep.operations if row_start(rep.report_date, op.start).date() == day)
    card = answerer.ask("what were we doing on Christmas Day 2020")
    assert card.found and card.order == "time" and [r.row_id for r in card.rows] == [rid for _, rid in began]
    assert card.note.startswith("2020-12-25 is covered by report(s) D068 (from 06:00, dated 2020-12-26) and D067")
    assert answerer.ask("did we drill on nov 26").order != "time"  # a word to look for: searched as before


def test_footage_drilled_on_a_day_is_answered_from_the_24_hr_ftg_field(answerer, archive):
    """Before: "how many feet did we drill on December 13" quoted two drilling rows by their words and never read
    the 24 HR FTG field of the reports covering the day. After: both covering reports' footage, cited by report."""
    day = dt.date(2020, 12, 13)
    on, after = _dated(archive, day), _dated(archive, day + dt.timedelta(days=1))
    card = answerer.ask("how many feet did we drill on December 13")
    assert card.typed and card.order == "time"
    for rep in (on, after):
        ftg = typed_fields(rep)["footage_ft"].value
        assert f"{short_name(rep)} prints 24 HR FTG {ftg:,.0f} ft, over the 24 hours to 06:00" in card.note, card.note
    assert all(r.day == day and drilled_intervals(r.text) for r in card.rows)


def test_footage_on_a_day_no_report_prints_it_is_not_refused_with_a_false_comparison(answerer):
    """Before: "how many feet did we drill on Christmas" (D067 and D068 print no 24 HR FTG, no row of the day
    prints a drilled interval) ended "Not found in these reports (best support 0.52 < 0.431)": the day's rows are
    chosen by what they print, not by support, and 0.52 is not below 0.431. After: the refusal says why."""
    card = answerer.ask("how many feet did we drill on Christmas")
    assert not card.found and card.order == "time" and "prints no 24 HR FTG" in card.note
    assert card.support >= card.threshold  # the case: a support above the threshold, yet no row to quote
    assert "<" not in card.refusal and "Not found in these reports" in card.refusal
    assert "reports covering that day" in card.refusal


@pytest.mark.parametrize("question, said", [("how many feet did we drill on Feb 30", "feb 30"),
                                            ("stuck on 31st of november", "31st of november"),
                                            ("how deep were we on feb 29 2021", "feb 29 2021")])
def test_a_day_in_words_that_is_no_date_is_refused_as_a_numeric_one_is(answerer, question, said):
    """Before: '2/30/2020' was "not a real date", but 'Feb 30' was searched as words and "Not found (best
    support 0.43 < 0.431)": the asker never learnt the day was mistyped."""
    from ddrsearch.errors import QueryError

    with pytest.raises(QueryError, match=f"'{said}' in the question is not a real date"):
        answerer.ask(question)
    assert answerer.ask("how deep were we on feb 29").note.startswith("No report for 2020-02-29")


@pytest.mark.parametrize("question", ["how many feet did we drill on December 13 and December 14",
                                      "how many feet did we drill between December 13 and December 20",
                                      "stuck on 2020-12-13 or 12/14/2020"])
def test_a_second_day_is_not_dropped_in_silence(answerer, question):
    """Before: the card answered for December 13 alone and never said that the question named another day."""
    card = answerer.ask(question)
    assert "The question names 2 days (2020-12-13, 2020-12-" in card.note and "reads the first only" in card.note
    assert "names 2 days" not in answerer.ask("how many feet did we drill on December 13").note
