"""ddrsearch.reading.layout.row_start: a row's real day (a report dated D covers 06:00 on D-1 to 06:00 on D)."""

from __future__ import annotations

import datetime as dt

import pytest

from ddrsearch.reading.layout import row_start, row_when


@pytest.mark.data
def test_report_38s_evening_rows_are_on_the_day_before_its_date_and_its_early_morning_rows_on_it(archive):
    d038 = next(r for r in archive if r.phase == "Drilling" and r.report_number == 38)
    assert d038.report_date == dt.date(2020, 11, 26)
    rows = {r.index: r for r in d038.operations}
    assert (rows[0].start, rows[8].start, rows[9].start) == ("06:00", "23:30", "04:00")
    assert row_start(d038.report_date, rows[0].start) == dt.datetime(2020, 11, 25, 6, 0)  # the report day opens
    assert row_start(d038.report_date, rows[8].start) == dt.datetime(2020, 11, 25, 23, 30)  # before: shown on 26 Nov
    assert row_start(d038.report_date, rows[9].start) == dt.datetime(2020, 11, 26, 4, 0)  # past midnight: on D
    assert row_when(d038.report_date, rows[8].start, rows[8].end) == "2020-11-25 23:30-04:00"


@pytest.mark.data
def test_every_row_of_the_archive_starts_within_its_reports_24_hours(archive):
    for report in archive:
        opens = dt.datetime.combine(report.report_date - dt.timedelta(days=1), dt.time(6))
        for row in report.operations:
            assert opens <= row_start(report.report_date, row.start) < opens + dt.timedelta(days=1), \
                (report.file_name, row.index, row.start)


def test_midnight_written_24_00_is_on_the_reports_date_and_a_blank_end_is_a_question_mark():
    day = dt.date(2020, 11, 26)
    assert row_start(day, "24:00") == row_start(day, "00:00") == dt.datetime(2020, 11, 26, 0, 0)
    assert row_start(day, "24:30") == dt.datetime(2020, 11, 26, 0, 30)  # the reader takes up to 24:59
    assert row_start(day, "05:59") == dt.datetime(2020, 11, 26, 5, 59)
    assert row_when(day, "22:00", "") == "2020-11-25 22:00-?"


@pytest.mark.parametrize("clock", ["", "25:00", "7:5", "noon", "12:60", "06:00 x"])
def test_a_from_time_that_is_not_a_clock_is_refused_naming_it(clock):
    with pytest.raises(ValueError, match=f"FROM time {clock!r} is not an HH:MM time of 00:00 to 24:59"):
        row_start(dt.date(2020, 11, 26), clock)


def test_a_row_whose_from_is_not_a_clock_is_printed_without_a_day_saying_so():
    assert row_when(dt.date(2020, 11, 26), "06:00 x", "07:00") == "06:00 x-07:00 (no day: FROM is not HH:MM)"
