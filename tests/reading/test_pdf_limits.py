"""A report PDF has named limits: pages, drawing instructions and text per page (issue 26, reading.pdf / reading.report)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time

import pymupdf
import pytest

from ddrsearch.errors import CorruptPDFError, ReportError, ReportTooLargeError, SettingError
from ddrsearch.reading.pdf import MAX_FORM_DEPTH, open_pdf
from ddrsearch.reading.report import read_report
from ddrsearch.reading.synthetic import write_form_drawn

pytestmark = pytest.mark.data

REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"


def _pages(path, n: int) -> None:
    doc = pymupdf.open()
    for i in range(n):
        doc.new_page().insert_text((50, 72), f"page {i + 1} DAILY DRILLING REPORT", fontsize=10)
    doc.save(path, garbage=3, deflate=True)
    doc.close()


def _inflating(path, megabytes: float) -> None:
    """One page whose compressed content stream inflates to ``megabytes`` MB of text-drawing instructions."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 72), "DAILY DRILLING REPORT", fontsize=10)
    xref = page.get_contents()[0]
    line = b"BT /helv 4 Tf 20 300 Td (stuck pipe jar circulate condition mud lost circulation) Tj ET\n"
    doc.update_stream(xref, doc.xref_stream(xref) + line * int(megabytes * 1e6 / len(line)), compress=True)
    doc.save(path, garbage=3, deflate=True)
    doc.close()


def _no_text(monkeypatch) -> None:
    def no_text(self, *a, **k):
        raise AssertionError("text was extracted from the over-limit page")

    monkeypatch.setattr(pymupdf.Page, "get_text", no_text)


def test_a_form_xobject_drawn_many_times_is_counted_each_time_it_is_drawn(tmp_path, monkeypatch):
    """Before: a few-KB page drawing one form XObject of 20,000 words 500 times passed the byte limit (the form
    was counted once, 157 KB) and one text extraction then took 41 s and 5.3 GB (70 million characters). After:
    each drawing counts the form's bytes, so the page draws 78 MB and is refused before any text is extracted,
    naming the file, the page, the limit and the setting; drawn once, the same page is read."""
    path = tmp_path / "form.pdf"
    write_form_drawn(path, words=20_000, times=500)
    assert path.stat().st_size < 20_000
    once = tmp_path / "once.pdf"
    write_form_drawn(once, words=20_000, times=1)
    assert "stuck pipe" in open_pdf(once)[0].get_text()
    _no_text(monkeypatch)
    with pytest.raises(ReportTooLargeError) as exc:
        read_report(path)
    message = str(exc.value)
    assert str(path) in message and "page 1 holds more than 2,000,000 bytes" in message
    assert "a form XObject each time it is drawn" in message and exc.value.setting == "DDRSEARCH_MAX_PAGE_BYTES"


def test_a_form_drawn_by_a_form_counts_for_every_drawing_of_both(tmp_path, monkeypatch):
    """A 1 KB word form drawn 100 times by a form the page draws 100 times is 10 MB drawn (each under the limit
    once): refused; the inner form's name is written with a #20 escape, resolved as MuPDF resolves it."""
    path = tmp_path / "nested.pdf"
    write_form_drawn(path, words=200, times=100, nested=100)
    _no_text(monkeypatch)
    with pytest.raises(ReportTooLargeError, match="page 1 holds more than 2,000,000 bytes"):
        read_report(path)


def test_a_form_that_draws_itself_is_refused_at_the_nesting_limit(tmp_path, monkeypatch):
    """A form XObject whose stream draws itself is refused (nesting deeper than MAX_FORM_DEPTH), not followed."""
    path = tmp_path / "itself.pdf"
    write_form_drawn(path, words=40, times=1, itself=True)
    _no_text(monkeypatch)
    with pytest.raises(ReportTooLargeError, match=f"nests form XObjects more than {MAX_FORM_DEPTH} deep"):
        read_report(path)


def test_a_pdf_over_the_page_limit_is_refused_naming_the_file_limit_and_setting(tmp_path, monkeypatch):
    """Before: a 3.4 MB PDF of 5,000 pages was read for 5 minutes. After: over DDRSEARCH_MAX_PAGES (default 50)
    it is refused at once with a ReportError naming the file, its pages, the limit and the setting."""
    path = tmp_path / "long.pdf"
    _pages(path, 51)
    with pytest.raises(ReportTooLargeError) as exc:
        read_report(path)
    message = str(exc.value)
    assert str(path) in message and "51 pages, more than the 50" in message and "DDRSEARCH_MAX_PAGES" in message
    assert isinstance(exc.value, ReportError) and exc.value.setting == "DDRSEARCH_MAX_PAGES"
    monkeypatch.setenv("DDRSEARCH_MAX_PAGES", "60")  # raised: the file gets past the page limit (and is no report)
    with pytest.raises(ReportError) as exc:
        read_report(path)
    assert not isinstance(exc.value, ReportTooLargeError)


def test_an_inflating_content_stream_is_refused_before_its_text_is_extracted(tmp_path, monkeypatch):
    """Before: a 75 KB one-page PDF whose content stream inflates to 29 MB took 5 minutes and 1.2 GB in
    search --dir. After: a page with more than DDRSEARCH_MAX_PAGE_BYTES (2,000,000) of drawing instructions is
    refused before PyMuPDF extracts any text (counted while inflating, never inflated whole)."""
    path = tmp_path / "bomb.pdf"
    _inflating(path, 3)
    assert path.stat().st_size < 200_000

    def no_text(self, *a, **k):
        raise AssertionError("text was extracted from the over-limit page")

    monkeypatch.setattr(pymupdf.Page, "get_text", no_text)
    with pytest.raises(ReportTooLargeError) as exc:
        read_report(path)
    assert "page 1 holds more than 2,000,000 bytes" in str(exc.value) and "DDRSEARCH_MAX_PAGE_BYTES" in str(exc.value)
    assert str(path) in str(exc.value)


def test_a_page_with_more_text_than_the_limit_is_refused(tmp_path, archive_folder, monkeypatch):
    """Text per page has a limit too (DDRSEARCH_MAX_PAGE_CHARS, default 200,000; a FORGE page has under 6,000):
    report 38 is read under the default and refused, named, under a limit of 1,000 characters."""
    shutil.copy2(archive_folder / REPORT_38, tmp_path / REPORT_38)
    assert read_report(tmp_path / REPORT_38).operations
    monkeypatch.setenv("DDRSEARCH_MAX_PAGE_CHARS", "1000")
    with pytest.raises(ReportTooLargeError) as exc:
        read_report(tmp_path / REPORT_38)
    assert "page 1 has" in str(exc.value) and "more than the 1,000" in str(exc.value)
    assert exc.value.setting == "DDRSEARCH_MAX_PAGE_CHARS" and REPORT_38 in str(exc.value)


def test_reading_one_file_stops_after_the_read_time_limit_between_pymupdf_calls(tmp_path, monkeypatch):
    """Before: one file could be read for as long as PyMuPDF took (5 min 18 s for an inflating page). After:
    reading stops at the first check past DDRSEARCH_MAX_READ_SECONDS with a ReportError naming the file, the
    limit and the setting, without reading the pages after it."""
    path = tmp_path / "slow.pdf"
    _pages(path, 10)
    calls = []
    get_text = pymupdf.Page.get_text

    def slow_get_text(self, *args, **kwargs):  # each extraction takes 0.2 s: a slow, hostile page
        calls.append(self.number)
        time.sleep(0.2)
        return get_text(self, *args, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "get_text", slow_get_text)
    monkeypatch.setenv("DDRSEARCH_MAX_READ_SECONDS", "0.5")
    with pytest.raises(ReportTooLargeError) as exc:
        read_report(path)
    message = str(exc.value)
    assert str(path) in message and "over the 0.5 s one file may take" in message
    assert "DDRSEARCH_MAX_READ_SECONDS=<seconds>" in message and exc.value.setting == "DDRSEARCH_MAX_READ_SECONDS"
    assert max(calls) < 3  # stopped within a page or two of the limit, not after all ten pages
    monkeypatch.setenv("DDRSEARCH_MAX_READ_SECONDS", "0")
    with pytest.raises(SettingError, match="DDRSEARCH_MAX_READ_SECONDS='0' must be a positive number"):
        read_report(path)


def test_a_one_filter_array_is_counted_while_it_inflates_too(tmp_path, monkeypatch):
    """Before: ``/Filter [/FlateDecode]`` (the array form) was decoded whole by PyMuPDF before the byte limit
    applied. After: it is streamed and counted like ``/Filter /FlateDecode``, and refused at the limit."""
    path = tmp_path / "array-bomb.pdf"
    _inflating(path, 3)
    doc = pymupdf.open(path)
    xref = doc[0].get_contents()[0]
    doc.xref_set_key(xref, "Filter", "[/FlateDecode]")
    doc.save(tmp_path / "array.pdf")
    doc.close()

    def no_decode(self, *a, **k):
        raise AssertionError("the stream was decoded whole")

    monkeypatch.setattr(pymupdf.Document, "xref_stream", no_decode)
    with pytest.raises(ReportTooLargeError) as exc:
        read_report(tmp_path / "array.pdf")
    assert "page 1 holds more than 2,000,000 bytes" in str(exc.value)


def test_an_error_pymupdf_raises_on_a_page_is_the_packages_naming_the_file(tmp_path, monkeypatch):
    """Before: a stream MuPDF refused ("compression bomb detected") reached search --dir as a raw FzErrorFormat
    traceback, so the good files were not searched. After: a CorruptPDFError naming the file (which --dir skips)."""
    path = tmp_path / "refused.pdf"
    _pages(path, 1)

    def refuse(self, *a, **k):
        raise RuntimeError("compression bomb detected")

    monkeypatch.setattr(pymupdf.Page, "get_text", refuse)
    with pytest.raises(CorruptPDFError) as exc:
        read_report(path)
    assert str(path) in str(exc.value) and "RuntimeError" in str(exc.value)


def test_the_read_clock_starts_after_pymupdfs_first_import():
    """Before: a process's first ReadClock started before ``import pymupdf`` (0.5-1.7 s), so the first file was
    charged for it. After: the clock is started once PyMuPDF is imported (checked in a fresh interpreter)."""
    probe = (
        "import builtins, sys, time\n"
        "from ddrsearch.reading.pdf import ReadClock\n"
        "assert 'pymupdf' not in sys.modules\n"
        "done = []\n"
        "real = builtins.__import__\n"
        "def timed(name, *a, **k):\n"
        "    module = real(name, *a, **k)\n"
        "    if name == 'pymupdf' and not done: done.append(time.monotonic())\n"
        "    return module\n"
        "builtins.__import__ = timed\n"
        "clock = ReadClock('x.pdf')\n"
        "print(bool(done) and clock.start >= done[0])\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.stdout.strip() == "True", out.stderr


def test_a_page_tree_whose_count_lies_is_a_corrupt_pdf_not_a_raw_error(tmp_path):
    """Before: a one-page PDF whose /Pages /Count says 2000000000 raised PyMuPDF's RuntimeError ('code=7: Invalid
    number of pages') out of open_pdf, and 'search --dir' stopped without naming the file. After: CorruptPDFError
    naming it, which a folder read skips with a warning."""
    doc = pymupdf.open()
    doc.new_page().insert_text((50, 72), "DAILY DRILLING REPORT", fontsize=10)
    raw = doc.tobytes(garbage=0, deflate=False)
    doc.close()
    path = tmp_path / "lie.pdf"
    path.write_bytes(raw.replace(b"/Count 1", b"/Count 2000000000"))
    with pytest.raises(CorruptPDFError, match="lie.pdf could not be read as a PDF: its page tree is damaged"):
        open_pdf(path)


@pytest.mark.parametrize("where", ["annotation", "soft mask", "type3 glyph", "tiling pattern"])
def test_forms_drawn_by_an_annotation_a_soft_mask_or_a_type3_glyph_are_counted(tmp_path, monkeypatch, where):
    """Before: the drawn bytes were counted for the page's contents only, so a 2 KB page whose stamp annotation,
    soft mask or Type3 glyph drew forms nested 7 deep (10 each: a million drawings) held one PyMuPDF call for
    32 s / 570 MB (annotation), 26 s (soft mask) and 82 s (Type3), past the 60 s read limit. After: refused
    before any text is extracted; a shallow nest (100 drawings) is within the limit."""
    from ddrsearch.reading.synthetic import write_nested_forms

    deep = write_nested_forms(tmp_path / f"{where}.pdf", where, depth=7)
    shallow = write_nested_forms(tmp_path / f"{where} shallow.pdf", where, depth=3)
    _no_text(monkeypatch)
    with pytest.raises(ReportTooLargeError, match="bytes of drawing instructions"):
        read_report(deep)
    monkeypatch.undo()
    with pytest.raises(ReportError) as exc:  # read to the end: not one of the FORGE reports' layouts
        read_report(shallow)
    assert not isinstance(exc.value, ReportTooLargeError)


def test_a_nest_of_forms_is_refused_however_the_page_reaches_it(tmp_path, monkeypatch):
    """The re-check reached the nest through paths the page-level count did not follow (an ExtGState inherited
    from /Pages, one inside a form's or an appearance's own /Resources, a Type3 font in an appearance, a
    tiling pattern): 15-18 s and 1.2 GB each. Every form, pattern and Type3 glyph of the file is now counted
    once with what it draws, so a nest no page draws at all is refused too."""
    from ddrsearch.reading.synthetic import write_nested_forms

    path = write_nested_forms(tmp_path / "orphan.pdf", "annotation", depth=7)
    doc = pymupdf.open(path)
    doc.xref_set_key(doc[0].xref, "Annots", "null")  # the page no longer draws the annotation: the nest is an orphan
    doc.save(tmp_path / "orphan2.pdf")
    doc.close()
    _no_text(monkeypatch)
    with pytest.raises(ReportTooLargeError, match=r"a form or pattern of the file \(object \d+\) draws more than"):
        read_report(tmp_path / "orphan2.pdf")


def test_a_file_whose_pages_together_hold_more_text_than_the_limit_is_refused(tmp_path, monkeypatch):
    """Before (adversarial pass): 49 pages of 180,000 characters each, every one under DDRSEARCH_MAX_PAGE_CHARS,
    were read in 46 s and the process holding the report grew to 1.7 GB. After: the pages' text together is held
    to DDRSEARCH_MAX_FILE_CHARS (default 1,000,000; a FORGE report holds under 6,000), checked page by page."""
    from ddrsearch.reading.synthetic import write_report

    path = write_report(tmp_path / "two pages.pdf", split_after=1)
    pages = read_report(path).pages
    assert len(pages) == 2
    monkeypatch.setenv("DDRSEARCH_MAX_FILE_CHARS", str(len(pages[0]) + 1))
    with pytest.raises(ReportTooLargeError) as exc:
        read_report(path)
    assert f"{sum(map(len, pages)):,} characters of text by page 2" in str(exc.value)
    assert exc.value.setting == "DDRSEARCH_MAX_FILE_CHARS" and "two pages.pdf" in str(exc.value)
