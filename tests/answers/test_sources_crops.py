"""ddrsearch.answers.sources.RowCrops: the crops of many rows, each PDF opened once and each row drawn once.

Its PNGs are :func:`row_crop`'s, pixel for pixel except at the edges of the
highlighted boxes; a PDF removed or rewritten since is not cropped from memory;
a page over the drawing limit is refused before it is drawn.
"""

from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import pymupdf
import pytest

from ddrsearch.answers.sources import RowCrops, row_crop
from ddrsearch.errors import ReportTooLargeError

pytestmark = pytest.mark.data


def _pixels(png: bytes) -> np.ndarray:
    pix = pymupdf.Pixmap(png)
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n).astype(int)


@pytest.mark.parametrize("terms", [(), ("stuck",), ("stuck", "assembly", "became")])
def test_a_crop_is_row_crops_png_but_at_the_highlights_edges(report38, terms):
    """The same size; at most 2 % of the pixels differ by more than 8 levels (the boxes' rounded edges), and
    the highlight changes as many pixels as row_crop's, within a quarter."""
    crops = RowCrops()
    mine, theirs = _pixels(crops.png(report38, 8, terms)), _pixels(row_crop(report38, 8, terms))
    assert mine.shape == theirs.shape
    assert (np.abs(mine - theirs).max(axis=2) > 8).mean() <= 0.02
    if terms:
        mine_marked = (np.abs(mine - _pixels(crops.png(report38, 8))).max(axis=2) > 8).mean()
        theirs_marked = (np.abs(theirs - _pixels(row_crop(report38, 8))).max(axis=2) > 8).mean()
        assert theirs_marked > 0 and abs(mine_marked - theirs_marked) <= 0.25 * theirs_marked, (mine_marked,
                                                                                                 theirs_marked)


def test_the_highlight_depends_only_on_the_terms_asked_now(report38):
    """A row drawn once with highlights and once without gives two different PNGs, and the first again."""
    crops = RowCrops()
    marked = crops.png(report38, 8, ["stuck"])
    plain = crops.png(report38, 8)
    assert marked != plain and crops.png(report38, 8, ["STUCK"]) == marked and crops.png(report38, 8) == plain


def test_a_removed_or_rewritten_pdf_is_not_cropped_from_memory(report38, tmp_path):
    path = tmp_path / report38.file_name
    shutil.copy(report38.path, path)
    mine = dataclasses.replace(report38, path=path)
    crops = RowCrops()
    first = crops.png(mine, 8, ["stuck"])
    blank = pymupdf.open()
    blank.new_page(width=612, height=792)
    blank.insert_page(0, text="not the report")  # the same name, other drawing: drawn again
    blank.save(path)
    assert crops.png(mine, 8, ["stuck"]) != first
    path.unlink()
    with pytest.raises(OSError):
        crops.png(mine, 8, ["stuck"])


def test_a_page_over_the_drawing_limit_is_refused_before_it_is_drawn(report38, monkeypatch):
    monkeypatch.setenv("DDRSEARCH_MAX_PAGE_BYTES", "1000")
    with pytest.raises(ReportTooLargeError, match="DDRSEARCH_MAX_PAGE_BYTES"):
        RowCrops().png(report38, 8)


def test_a_missing_row_and_bad_sizes_are_refused(report38):
    with pytest.raises(IndexError, match="10 operation rows"):
        RowCrops().png(report38, 10)
    with pytest.raises(ValueError, match="at least 1"):
        RowCrops(max_rows=0)
