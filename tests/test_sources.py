"""Back to the PDF: every row's crop holds its text, quotes are verified, gaps come from the data."""

from __future__ import annotations

import datetime as dt

import pytest

from conftest import REPORT_38
from ddrsearch.answers.sources import archive_gaps, day_status, find_report, row_crop, verify_quote, verify_row
from ddrsearch.cli.command import main
from ddrsearch.errors import CitationError
from ddrsearch.reading.names import row_id

PNG = b"\x89PNG\r\n\x1a\n"

pytestmark = pytest.mark.data


def test_every_rows_crop_holds_its_text_verbatim(archive):
    checked, failed = 0, []
    for report in archive:
        for row in report.operations:
            check = verify_row(report, row)
            checked += 1
            if not check.ok:
                failed.append((row_id(report, row), check.missing))
    assert checked == 610
    assert not failed, failed[:5]


def test_crop_is_a_png_of_the_row_with_highlights(report38, tmp_path):
    out = tmp_path / "d38.png"
    plain = row_crop(report38, 8)
    marked = row_crop(report38, 8, ["stuck"], out=out)
    assert plain.startswith(PNG) and out.read_bytes() == marked
    assert marked != plain                       # the highlight changes the pixels
    import pymupdf

    pix = pymupdf.Pixmap(marked)
    assert pix.width > 3 * pix.height            # a band of the table, not the page
    with pytest.raises(IndexError, match="10 operation rows"):
        row_crop(report38, 10)


def test_quotes_are_verified_verbatim(report38):
    assert verify_quote(report38, "became assembly became stuck").row == 8
    assert verify_quote(report38, "became   assembly\nbecame stuck", row=8).ok
    bad = verify_quote(report38, "the pipe was stuck")
    assert not bad.ok and "not in any operation row" in bad.reason
    assert not verify_quote(report38, "became stuck", row=0).ok


def test_what_the_archive_does_not_contain(archive):
    gaps = archive_gaps(archive)
    assert gaps.missing_numbers["Drilling"] == [1]
    assert [(g.after, g.before, g.days) for g in gaps.date_gaps] == [("D076", "C003", 2)]
    assert gaps.incomplete_rows == [("D053-r12", "TO time and HRS")]
    assert (gaps.first_day, gaps.last_day) == (dt.date(2020, 10, 21), dt.date(2021, 1, 6))


def test_day_status(archive):
    assert day_status(dt.date(2020, 11, 26), archive).reports == ("D038",)
    gap = day_status(dt.date(2021, 1, 5), archive)
    assert gap.reports == () and "no report for that day" in gap.sentence
    before = day_status(dt.date(2020, 10, 20), archive)
    assert "the reports run from 2020-10-21 to 2021-01-06" in before.sentence


def test_find_report_and_show_command(archive, archive_folder, tmp_path, capsys):
    assert find_report("38", archive).file_name == REPORT_38
    assert find_report("D038", archive).file_name == REPORT_38
    with pytest.raises(CitationError, match="'D001' is not among the 76 reports"):
        find_report("D001", archive)
    out = tmp_path / "row.png"
    assert main(["show", "D038", "--row", "8", "--out", str(out), "--highlight", "stuck"]) == 0
    text = capsys.readouterr().out
    assert "[D038-r08]" in text and "verbatim" in text and out.read_bytes().startswith(PNG)
    assert main(["show", "D038", "--row", "12"]) == 1
    assert "D038-r12" in capsys.readouterr().err
    assert main(["show", "D001", "--row", "0"]) == 1
    assert "D001" in capsys.readouterr().err
