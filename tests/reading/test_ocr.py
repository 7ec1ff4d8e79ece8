"""OCR of scanned copies of the real reports: detection, engines, the quality gate, the OCR flag on hits.

Scanned copies are made at test time from report 38 (rendered to an image-only
PDF); nothing scanned is committed. Tesseract runs where it is installed
(these tests use it because it is the faster engine on a shared machine);
the RapidOCR path is exercised by the chapter 06-scanned-and-unusual-reports.
"""

from __future__ import annotations

import shutil

import numpy as np
import pymupdf
import pytest

from conftest import REPORT_38
from ddrsearch.errors import NoTextLayerError, OCRUnavailableError
from ddrsearch.reading import ocr
from ddrsearch.reading.report import read_report
from ddrsearch.reading.synthetic import scan_page, write_scanned_copy
from ddrsearch.retrieval.lexical import BM25Retriever
from ddrsearch.retrieval.passages import report_lines

needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None, reason="Tesseract is not installed")


@pytest.fixture(scope="module")
def scanned38(archive_folder, tmp_path_factory):
    """Report 38 as a clean 300-dpi scan, under its own file name."""
    return write_scanned_copy(archive_folder / REPORT_38, tmp_path_factory.mktemp("scan") / REPORT_38, 300)


def test_error_rates_ignore_reading_order_unless_asked():
    assert ocr.error_rates("Pipe stuck at 4,980'", "stuck pipe at 4,980'") == (0.0, 0.0)
    cer, wer = ocr.error_rates("pipe stuck", "stuck pipe", order="reading")
    assert cer > 0 and wer == 1.0
    assert ocr.error_rates("trip out of hole", "trip ouf of hole")[1] == 0.25
    with pytest.raises(ValueError):
        ocr.error_rates("  ", "text")


def test_known_share_counts_report_words():
    assert ocr.known_share("Trip out of hole, circulate bottoms up") == 1.0
    assert ocr.known_share("Tr1p ouf qf hqle xzzq") < 0.5
    assert ocr.known_share("12 34") is None


@pytest.mark.data
@pytest.mark.parametrize("angle", [-3.0, 1.5])
def test_skew_is_estimated_and_a_turned_page_flagged(archive_folder, angle):
    page = pymupdf.open(archive_folder / REPORT_38)[0]
    skew, turned = ocr.estimate_skew(scan_page(page, 100, skew=angle))
    assert abs(skew - angle) <= 0.5 and not turned
    _, turned = ocr.estimate_skew(np.ascontiguousarray(np.rot90(scan_page(page, 100))))
    assert turned


@pytest.mark.data
def test_scanned_copy_without_ocr_is_refused_with_the_way_out(scanned38):
    assert not pymupdf.open(scanned38)[0].get_text().strip()  # really no text layer
    with pytest.raises(NoTextLayerError) as exc:
        read_report(scanned38)
    assert REPORT_38 in str(exc.value) and "ocr='auto'" in str(exc.value)


@pytest.mark.data
def test_no_engine_says_how_to_install_one(scanned38, monkeypatch):
    monkeypatch.setattr(ocr, "available_engines", lambda: [])
    with pytest.raises(OCRUnavailableError) as exc:
        read_report(scanned38, ocr="auto")
    msg = str(exc.value)
    assert REPORT_38 in msg and "pip install rapidocr-onnxruntime" in msg and "tesseract" in msg


@pytest.mark.data
@needs_tesseract
def test_ocr_reads_the_scan_and_flags_every_citation(scanned38, report38):
    r = read_report(scanned38, ocr="tesseract", dpi=300)
    assert r.ocr_pages == (1,) and r.ocr_engine == "tesseract" and r.review == []
    assert (r.report_number, r.phase) == (38, "Drilling")
    cer, _ = ocr.error_rates(report38.text, r.text)
    assert cer < 0.10
    lines = report_lines(r)
    assert lines and all(p.ocr for p in lines)
    hit = BM25Retriever().index(lines).search("assembly became stuck during the slide", k=1)[0]
    assert hit.ocr and hit.citation.startswith("D038 p1") and hit.citation.endswith("(OCR)")
    native = BM25Retriever().index(report_lines(report38)).search("stuck during the slide", k=1)[0]
    assert not native.ocr and "(OCR)" not in native.citation


@pytest.mark.data
@needs_tesseract
def test_a_page_below_the_gate_goes_to_review_not_to_the_index(scanned38):
    strict = ocr.QualityGate(min_confidence=0.999)
    r = read_report(scanned38, ocr="tesseract", dpi=300, gate=strict)
    assert r.ocr_pages == () and r.pages == [""] and r.operations == []
    assert len(r.review) == 1 and r.review[0].startswith("page 1: mean confidence")
    assert any("below the quality gate" in n for n in r.notes)
    assert report_lines(r) == [] or all(not p.text.strip() for p in report_lines(r) if p.kind != "header")


@pytest.mark.data
@needs_tesseract
def test_a_clip_reads_only_that_box_in_page_coordinates(archive_folder, tmp_path):
    native = pymupdf.open(archive_folder / REPORT_38)[0]
    top = native.search_for("TIME BREAKDOWN")[0].y0 - 3
    clip = (0.0, top, native.rect.width, native.search_for("TOTAL HRS")[0].y1 + 3)
    copy = write_scanned_copy(archive_folder / REPORT_38, tmp_path / REPORT_38, 200, skew=1.5)
    got = ocr.ocr_page(pymupdf.open(copy)[0], "tesseract", 200, clip=clip, cache=False)
    assert got.deskewed and got.words
    assert all(clip[1] - 2 <= w.y0 and w.y1 <= clip[3] + 2 for w in got.words)  # page points, inside the box
    ref = ocr.layer_text(native, clip)
    assert "TIME BREAKDOWN" in ref and "RPT DATE" not in ref and "RPT DATE" in ocr.layer_text(native)
    assert ocr.error_rates(ref, got.text)[0] < 0.10
    with pytest.raises(ValueError, match="outside the page"):
        ocr.ocr_page(pymupdf.open(copy)[0], "tesseract", 200, clip=(0, 900, 612, 950), cache=False)


def test_the_gate_has_measured_thresholds_per_engine():
    for engine in ocr.ENGINES:
        gate = ocr.QualityGate.for_engine(engine)
        assert (gate.min_confidence, gate.min_known_share) == tuple(ocr.GATE_THRESHOLDS[engine].values())
        assert 0 < gate.min_confidence < 1 and 0 < gate.min_known_share < 1
    assert ocr.QualityGate.for_engine("rapidocr", min_words=5).min_words == 5
    assert ocr.QualityGate.for_engine("other") == ocr.QualityGate()
