"""The reader on reports from other templates: synthetic PDFs written with PyMuPDF at test time.

A TIME BREAKDOWN that continues on page 2 with or without its heading,
headings and labels in another letter case or spacing, and a layout the
reader does not know.
"""

from __future__ import annotations

import pytest

from ddrsearch.errors import ReportLayoutError
from ddrsearch.reading.names import short_name
from ddrsearch.reading.report import read_report
from ddrsearch.reading.synthetic import STUCK_PIPE_DAY, write_report
from ddrsearch.retrieval.lexical import BM25Retriever
from ddrsearch.retrieval.passages import report_lines

CODES = [r.code for r in STUCK_PIPE_DAY]


@pytest.mark.parametrize("repeat", ["none", "columns", "title"])
def test_table_continuing_on_page_2_is_read_whole(tmp_path, repeat):
    """A TIME BREAKDOWN that continues on page 2 (with or without its heading) was cut at page 1; it is read whole."""
    path = write_report(tmp_path / "ddr.pdf", split_after=2, repeat=repeat)
    r = read_report(path)
    assert [o.code for o in r.operations] == CODES
    assert [o.page for o in r.operations] == [1, 1, 2, 2]
    assert [o.index for o in r.operations] == [0, 1, 2, 3]
    assert r.hours_total == 24.0 and r.total_hours_printed == 24.0
    last = r.operations[-1]
    assert (last.start, last.end, last.hours, last.npt) == ("22:00", "06:00", 8.0, "Y")
    assert last.operations == "Jarring stuck pipe, jarred free at 4,975'."
    if repeat == "title":
        assert r.notes == []
    else:  # the reader says that it joined a continuation, and how it found it
        how = "no heading" if repeat == "none" else "its column headings repeated"
        assert r.notes == [f"page 2: the TIME BREAKDOWN continues (2 rows, {how})"]


def test_bm25_over_rows_finds_the_row_on_page_2(tmp_path):
    """BM25 over operation rows finds a row printed on page 2, with its page and row number."""
    r = read_report(write_report(tmp_path / "ddr.pdf", split_after=2))
    search = BM25Retriever().index(report_lines(r))
    hit = search.search("jarring stuck pipe", k=1)[0]
    assert (hit.page, hit.row, hit.start) == (2, 3, "22:00")


def test_page_subtotals_add_up_and_a_grand_total_is_not_counted_twice(tmp_path):
    """Page subtotals add up to the printed total, and a grand total line is not counted twice."""
    r = read_report(write_report(tmp_path / "sub.pdf", split_after=2, repeat="columns", subtotals=True))
    assert [o.code for o in r.operations] == CODES
    assert r.total_hours_printed == 24.0 and r.notes[-1:] != ["the rows add up"]
    r = read_report(write_report(tmp_path / "grand.pdf", split_after=3, total="sum"))
    assert r.total_hours_printed == 24.0 and r.hours_total == 24.0


def test_printed_total_that_disagrees_is_kept_and_noted(tmp_path):
    """A printed TOTAL HRS that disagrees with the rows is kept, and the report carries a note."""
    r = read_report(write_report(tmp_path / "ddr.pdf", split_after=2, total=20.0))
    assert r.total_hours_printed == 20.0 and r.hours_total == 24.0
    assert "the rows add up to 24 hours but the printed TOTAL HRS is 20" in r.notes


def test_no_total_line_reads_every_row(tmp_path):
    """A table without a TOTAL line reads every row."""
    r = read_report(write_report(tmp_path / "ddr.pdf", split_after=2, total=None))
    assert len(r.operations) == 4 and r.total_hours_printed is None and r.hours_total == 24.0


@pytest.mark.parametrize("case", ["title", "lower", "upper"])
@pytest.mark.parametrize("spacing", [" ", "  "])
def test_headings_and_labels_in_any_case_and_spacing(tmp_path, case, spacing):
    """Headings and labels in another letter case or spacing read the same (a drilling report not taken for a
    completion report).
    """
    path = write_report(tmp_path / "ddr 39.pdf", case=case, spacing=spacing, number=39)
    r = read_report(path)
    assert r.phase == "Drilling" and short_name(r) == "D039"  # not a completion report "C039"
    assert (r.report_number, r.report_date.isoformat()) == (39, "2020-11-27")
    assert r.header["RPT DATE"] == "11/27/2020" and r.header["WELL NAME"] == "Example 1-23"
    assert r.present_operations == "Trip out of hole"
    assert r.md_ft == 5330.0
    assert [o.code for o in r.operations] == CODES and r.hours_total == 24.0


def test_mixed_case_continuation(tmp_path):
    """A table in title case continued on page 2 is read whole."""
    r = read_report(write_report(tmp_path / "ddr.pdf", case="title", spacing="  ", split_after=1, repeat="columns"))
    assert [o.page for o in r.operations] == [1, 2, 2, 2] and r.total_hours_printed == 24.0


def test_unknown_table_layout_is_an_error_naming_what_is_missing(tmp_path):
    """A table layout the reader does not know is an error naming the file, what was looked for and what was found."""
    path = write_report(tmp_path / "ddr.pdf", title="", columns=("Begin", "Finish", "Dur", "Stage", "Class", "Lost",
                                                                  "Remarks"))
    with pytest.raises(ReportLayoutError) as exc:
        read_report(path)
    msg = str(exc.value)
    assert "ddr.pdf" in msg and "does not know" in msg and "TIME BREAKDOWN" in msg and "TIME LOG" in msg
    assert "RPT NUM='39'" in msg  # what it did find


def test_title_without_its_columns_names_the_missing_ones(tmp_path):
    """A TIME BREAKDOWN title without its columns names the missing columns and the page."""
    path = write_report(tmp_path / "ddr.pdf", columns=("Start", "Finish", "Dur", "Phase", "Code", "NPT", "Remarks"))
    with pytest.raises(ReportLayoutError, match=r"page 1: a TIME BREAKDOWN title without .*missing TO, OPERATIONS"):
        read_report(path)


def test_forge_name_with_unknown_layout_is_refused_not_relabelled(tmp_path):
    """A FORGE file name on a report of unknown layout is refused, not read under the name's identity."""
    path = write_report(tmp_path / "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf", title="Activity Log")
    with pytest.raises(ReportLayoutError, match="without a TIME BREAKDOWN"):
        read_report(path)
