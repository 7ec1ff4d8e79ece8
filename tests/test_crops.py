"""Every word of every row's OPERATIONS lines lies inside the row's crop (page word boxes, not clip text)."""

import pytest

from ddrsearch.answers.sources import _clip
from ddrsearch.reading.pdf import open_pdf

pytestmark = pytest.mark.data


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
