"""ddrsearch.answers.sources: back to the PDF.

Every row's crop holds its text (page word boxes, not clip text) and no word of
another row; quotes are verified; gaps come from the data.
"""

from __future__ import annotations

import datetime as dt

import pytest

from ddrsearch.answers.sources import _clip, archive_gaps, day_status, row_crop, verify_quote, verify_row
from ddrsearch.reading.names import row_id
from ddrsearch.reading.pdf import open_pdf

pytestmark = pytest.mark.data


PNG = b"\x89PNG\r\n\x1a\n"


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
    covered = day_status(dt.date(2020, 11, 26), archive)  # before: ("D038",), the report dated that day only
    assert covered.reports == ("D039", "D038")
    assert covered.sentence == ("2020-11-26 is covered by report(s) D039 (from 06:00, dated 2020-11-27) and "
                                "D038 (to 06:00, dated 2020-11-26).")
    gap = day_status(dt.date(2021, 1, 4), archive)  # D076 (dated 01-03) ends at 06:00 on 01-03, C003 starts 01-05
    assert gap.reports == () and "no report for that day" in gap.sentence
    assert day_status(dt.date(2021, 1, 5), archive).reports == ("C003",)  # from 06:00: the report dated 01-06
    before = day_status(dt.date(2020, 10, 19), archive)  # D002 (dated 10-21) begins at 06:00 on 10-20
    assert "the reports run from 2020-10-21 to 2021-01-06" in before.sentence


def _operation_words(words, row):
    """The page's word boxes printing ``row.lines``: the run of words equal to them nearest the row's top."""
    want = " ".join(row.lines).split()
    texts = [w[4] for w in words]
    starts = [i for i in range(len(words) - len(want) + 1) if texts[i:i + len(want)] == want]
    assert starts, f"row {row.index}: its OPERATIONS words are not a run of the page's words"
    best = min(starts, key=lambda i: abs(words[i][1] - row.bbox[1]))
    return words[best:best + len(want)]


def _crops(archive):
    """``(report, row, page, crop rectangle)`` for every operation row of ``archive``, one PDF open at a time."""
    for report in archive:
        doc = open_pdf(report.path)
        try:
            for row in report.operations:
                page = doc[row.page - 1]
                yield report, row, page, _clip(page, row)
        finally:
            doc.close()


def test_every_operation_word_is_inside_its_rows_crop(archive):
    cut = []
    for report, row, page, clip in _crops(archive):
        words = sorted(page.get_text("words"), key=lambda w: (w[5], w[6], w[7]))
        for w in _operation_words(words, row):
            if not (clip.x0 - 0.01 <= w[0] and w[2] <= clip.x1 + 0.01
                    and clip.y0 - 0.01 <= w[1] and w[3] <= clip.y1 + 0.01):
                cut.append((report.file_name, row.index, w[4], tuple(round(v, 1) for v in w[:4])))
    assert not cut, cut[:10]


def test_no_word_of_another_row_shows_in_a_crop(archive):
    """A crop shows no part of a word printed outside its row's band (a sliver of the next row read as a cut line)."""
    intruders = []
    for report, row, page, clip in _crops(archive):
        top, bottom = row.bbox[1], row.bbox[3]
        for w in page.get_text("words"):
            overlaps = w[3] > clip.y0 and w[1] < clip.y1 and w[2] > clip.x0 and w[0] < clip.x1
            if overlaps and not top <= w[1] < bottom:
                intruders.append((report.file_name, row.index, w[4], tuple(round(v, 1) for v in w[:4])))
    assert not intruders, intruders[:10]
