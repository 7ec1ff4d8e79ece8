"""ddrsearch.answers.patterns: patterns across days (jumps, numeric answers, event sequences)."""

from __future__ import annotations

import datetime as dt

import pytest

from ddrsearch.answers.patterns import PatternError, extreme, find_jumps, first_reaching
from ddrsearch.reading.fields import (
    archive_fields,
    fields_frame,
    fields_long,
    operations_table,
)

R = "FORGE-16A-78-32_Drilling_{:03d}_{}.pdf".format


@pytest.fixture(scope="module")
def values(archive):
    return archive_fields(archive)


@pytest.fixture(scope="module")
def frame(archive, values):
    return fields_frame(archive, values)


@pytest.fixture(scope="module")
def long(archive, values):
    return fields_long(archive, values)


@pytest.fixture(scope="module")
def ops(archive):
    return operations_table(archive)


def test_jump_detector_on_a_synthetic_series():
    series = [100, 102, 101, 103, 104, 150, 151, 152, 150, 153]
    res = find_jumps(series, labels=list("abcdefghij"))
    assert list(res.jumps["label"]) == ["f"]
    assert res.median == 1.0 and res.k == 3.5
    assert res.low < 0 < res.high < 49
    # a missing day does not make a jump, and the change spans the gap
    gap = find_jumps([10, None, 11, 12, 13, 12, 40], labels=list("abcdefg"))
    assert list(gap.table["label"])[0] == "c" and list(gap.jumps["label"]) == ["g"]


def test_jump_detector_mad_zero_fallback_and_short_series():
    res = find_jumps([1, 2, 3, 4, 5, 6, 30])
    assert "MAD is 0" in res.note and list(res.jumps["label"]) == [6]
    with pytest.raises(PatternError):
        find_jumps([1, None, 2])


@pytest.mark.data
def test_numeric_answers_on_the_archive_give_the_day_the_depth_was_passed(frame, long, ops):
    md = first_reaching(frame, long, ops, "md_ft", 10000)
    assert md.report == R(60, "2020-12-18") and md.value == 10490 and md.raw == "10490"
    assert md.date == dt.date(2020, 12, 18) and "9,961 ft" in md.detail
    assert [row for row, _, _ in md.rows] == [0, 2]  # 9,961' to 10,097', then 10,097' to 10,490'
    # the rows are of 17 Dec (06:00 on D-1 to 06:00 on D): the day passed, not the report's date
    assert md.rows[0][1] == "06:00" and md.day == dt.date(2020, 12, 17)
    mw = extreme(frame, long, "mud_weight_max_ppg")
    assert [(a.report_number, a.value) for a in mw] == [(33, 9.3)]
    with pytest.raises(PatternError):
        first_reaching(frame, long, ops, "md_ft", 20000)


@pytest.mark.data
def test_event_sequence_orders_the_fishing_rows_by_date(archive, frame, ops):
    """BM25 over operation rows (no model): the rows found for the fishing story come in date and row order."""
    from ddrsearch.answers.patterns import event_sequence
    from ddrsearch.retrieval.pipeline import build_retriever

    bm25 = build_retriever("bm25", archive, unit="operation", expand=True)
    window = set(frame.loc[frame["report_number"].between(38, 51), "report"])
    story = event_sequence(bm25, ["stuck pipe", "fishing", "milled up lost pieces"], ops, k=10, reports=window)
    assert set(story["report_number"]) <= set(range(38, 52))
    assert list(story["date"]) == sorted(story["date"])
    fishing = story[story["code"] == "Fishing"]
    assert list(fishing["report_number"]) == [50] and "Milled up lost pieces of bit" in fishing["text"].iloc[0]
    assert not story["npt"].any()  # the NPT column says nothing about these rows


@pytest.mark.data
def test_a_quantity_on_a_day_is_read_from_both_reports_covering_it(archive):
    """Thanksgiving 2020 (2020-11-26) is covered by D038 (dated that day, to 06:00) and D039 (dated the next day,
    from 06:00): both MDs are read, and the drilling rows that began that day run from one to the other."""
    from ddrsearch.answers.patterns import day_quantity
    from ddrsearch.reading.fields import typed_fields
    from ddrsearch.reading.layout import row_start
    from ddrsearch.retrieval.rowchoice import printed_depths

    day = dt.date(2020, 11, 26)
    on = next(r for r in archive if r.report_date == day)
    after = next(r for r in archive if r.report_date == day + dt.timedelta(days=1))
    answer = day_quantity(archive, day, "md_ft")
    assert [r.report for r in answer.readings] == [on.file_name, after.file_name]  # in time order
    assert [r.value for r in answer.readings] == [typed_fields(on)["md_ft"].value, typed_fields(after)["md_ft"].value]
    assert [r.at for r in answer.readings] == [dt.datetime(2020, 11, 26, 6), dt.datetime(2020, 11, 27, 6)]
    # the day's drilling starts at the MD D038 prints at 06:00 and reaches the one D039 prints next morning,
    # and adds up to D039's 24-hour footage (every row of D039 but none of D038 drilling that day)
    assert answer.drilled == (typed_fields(on)["md_ft"].value, typed_fields(after)["md_ft"].value)
    assert answer.footage == typed_fields(after)["footage_ft"].value
    began = [(rep.file_name, op.index) for rep in (on, after) for op in rep.operations
             if row_start(rep.report_date, op.start).date() == day and printed_depths(op.operations)]
    assert list(answer.rows) == began and began


@pytest.mark.data
def test_a_day_no_report_covers_has_no_reading(archive):
    from ddrsearch.answers.patterns import day_quantity

    assert day_quantity(archive, dt.date(2020, 7, 4), "md_ft").readings == ()
    with pytest.raises(PatternError, match="unknown field"):
        day_quantity(archive, dt.date(2020, 11, 26), "depth")


def test_a_question_about_an_event_on_a_day_asks_no_quantity():
    from ddrsearch.answers.patterns import asked_quantity

    assert asked_quantity("how deep were we on thanksgiving") == "md_ft"
    assert asked_quantity("where was the bit on christmas day") == "md_ft"
    assert asked_quantity("how far did we drill on 11/26/2020?") == "footage_ft"
    assert asked_quantity("What was the TVD on Dec 3?") == "survey_tvd_ft"
    assert asked_quantity("at what depth did we get stuck on nov 25") is None  # the stuck row answers it
    assert asked_quantity("what were we doing on Christmas Day 2020") is None


@pytest.mark.parametrize("question", ["how many feet did we drill on December 13", "how much did we drill on Dec 13?",
                                      "how many ft did we make on 12/13/2020", "how much hole did we make on Dec 13",
                                      "how many feet were drilled on Dec 13"])
def test_footage_asked_with_a_verb_of_drilling_is_a_quantity(question):
    """A new reader's "how many feet did we drill on December 13" was read as an event ("drill" is not a word of
    DAY_QUANTITY_WORDS), so the card searched the rows' words instead of the 24 HR FTG field ("footage on Dec 13"
    answered from it). The verbs of footage are allowed beside it; with another word the question stays an event."""
    from ddrsearch.answers.patterns import asked_quantity

    assert asked_quantity(question) == "footage_ft"
    assert asked_quantity("how many feet did we drill on Dec 13 while sliding") is None
    assert asked_quantity("how much cement did we make on Dec 13") is None
