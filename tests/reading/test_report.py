"""The report reader (ddrsearch.reading.report) on the real 76 reports, and its errors on bad files built from them.

Odd files and folders (subfolders, links, re-saved copies, blanked tables) are
made at test time from real reports: each is named, never silently skipped.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sys

import pymupdf
import pytest

from conftest import REPORT_38, REPORT_39
from ddrsearch.cli.command import main
from ddrsearch.data.manifest import load_manifest
from ddrsearch.errors import (
    CorruptPDFError,
    DataNotFoundError,
    EncryptedPDFError,
    FolderWarning,
    IdentityMismatchError,
    NotAPDFError,
    NoTextLayerError,
    ReportError,
    ReportNotFoundError,
)
from ddrsearch.reading.report import load_archive, read_report


@pytest.mark.data
def test_all_76_reports_parse_in_report_number_order(archive):
    assert len(archive) == 76
    assert sum(r.phase == "Drilling" for r in archive) == 75
    numbers = [r.report_number for r in archive]
    assert numbers == sorted(numbers)
    assert numbers[:2] == [2, 3] and numbers[-1] == 76
    # drilling report 3 comes before the completion report 3
    assert [r.phase for r in archive if r.report_number == 3] == ["Drilling", "Completion"]


@pytest.mark.data
def test_identity_agrees_with_manifest_and_file_names(archive):
    manifest = {e.file_name: e for e in load_manifest()}
    assert set(manifest) == {r.file_name for r in archive}
    for r in archive:
        e = manifest[r.file_name]
        assert (r.report_number, r.report_date, r.phase) == (e.report_number, e.report_date, e.phase)
        assert r.well == "FORGE-16A-78-32"
        # the header itself says the same thing as the file name
        assert int(r.header["RPT NUM"]) == r.report_number


@pytest.mark.data
def test_every_drilling_report_has_operation_rows_that_add_up(archive):
    drilling = [r for r in archive if r.phase == "Drilling"]
    assert all(r.operations for r in drilling)
    not_24 = {r.report_number: r.hours_total for r in drilling if r.hours_total != 24.0}
    # Report 53 is the one exception: its last row (02:30) has no TO time and
    # no HRS in the report itself, and its printed TOTAL HRS is 20.5.
    assert not_24 == {53: 20.5}
    r53 = next(r for r in drilling if r.report_number == 53)
    assert r53.total_hours_printed == 20.5
    last = r53.operations[-1]
    assert (last.start, last.end, last.hours) == ("02:30", "", None)
    assert r53.notes == ["page 1, row 12 (02:30-?): no TO time and no HRS printed in the report"]
    for r in drilling:
        # the sum of the rows equals the table's own TOTAL HRS line
        assert r.hours_total == r.total_hours_printed, r.file_name
        for row in r.operations:
            if row.hours is not None:
                assert row.hours == pytest.approx(row.clock_hours), (r.file_name, row.start)
    assert sum(len(r.operations) for r in archive) == 610


@pytest.mark.data
def test_report_38_facts_a_reader_can_check_by_eye(report38):
    r = report38
    assert r.report_number == 38 and r.report_date == dt.date(2020, 11, 26)
    assert r.header["RPT DATE"] == "11/26/2020"
    assert r.md_ft == 6507.0
    assert r.footage_ft == 147.0
    assert r.header["JOB"] == "Drilling 65° Tangent"
    assert r.present_operations == "PIPE FREE, TRIP OUT OF HOLE FOR BHA INSPECTION"
    assert r.activity_planned == "INSPECT BHA, TRIP IN HOLE DRILL CURVE"
    assert len(r.operations) == 10
    row = next(o for o in r.operations if o.start == "23:30")
    assert (row.end, row.hours, row.phase, row.code) == ("04:00", 4.5, "Production Drilling", "Trips")
    assert "During the slide lost tool face and became assembly became stuck" in row.operations
    assert row.lines[0] == "Drill From 6,360' to 6,507', (147') Total , 32.6' feet per hour."
    first = r.operations[0]
    assert (first.start, first.end, first.hours, first.code) == ("06:00", "11:00", 5.0, "Wire Line Logs")
    # the continuation lines of a cell are joined in order
    assert first.operations == (
        "PJSM, pre job safety meeting. Rig up Schlumberger run the UBI log from 5.200 to surface. "
        "Rig down logging tools."
    )
    # a row whose CODE cell is blank in the report stays blank
    assert next(o for o in r.operations if o.start == "20:30").code == ""
    frame = r.operations_frame()
    assert list(frame.columns) == ["row", "from", "to", "hours", "phase", "code", "npt", "operations"]
    assert frame["hours"].sum() == 24.0


@pytest.mark.data
def test_completion_report_reads_without_rows(by_name):
    c = by_name["FORGE-16A-78-32_Completion_003_2021-01-06.pdf"]
    assert c.phase == "Completion" and c.report_number == 3 and c.report_date == dt.date(2021, 1, 6)
    assert c.operations == []
    assert c.header["JOB"] == "DFIT"
    assert c.present_operations == "TRIP IN HOLE TO CLEAN AND CONDITION FOR DFIT TEST"
    assert "Tag cement at 9,470'" in c.text


@pytest.fixture
def r38_path(archive_folder):
    return archive_folder / REPORT_38


def test_missing_path(tmp_path):
    with pytest.raises(ReportNotFoundError) as exc:
        read_report(tmp_path / REPORT_38)
    assert REPORT_38 in str(exc.value) and "ddrsearch fetch" in str(exc.value)


def test_folder_is_not_a_report(tmp_path):
    with pytest.raises(ReportNotFoundError, match="folder"):
        read_report(tmp_path)


def test_not_a_pdf(tmp_path):
    bad = tmp_path / "report.pdf"
    bad.write_text("<html><body>404 Not Found</body></html>")
    with pytest.raises(NotAPDFError) as exc:
        read_report(bad)
    assert str(bad) in str(exc.value)


@pytest.mark.data
@pytest.mark.parametrize("fraction", [0.5, 0.9, 0.1])
def test_truncated_pdf(tmp_path, r38_path, fraction):
    data = r38_path.read_bytes()
    bad = tmp_path / REPORT_38
    bad.write_bytes(data[: int(len(data) * fraction)])
    with pytest.raises(CorruptPDFError) as exc:
        read_report(bad)
    assert REPORT_38 in str(exc.value) and "truncated" in str(exc.value)


@pytest.mark.data
def test_encrypted_pdf(tmp_path, r38_path):
    bad = tmp_path / REPORT_38
    doc = pymupdf.open(r38_path)
    doc.save(bad, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="rig16", owner_pw="owner")
    doc.close()
    with pytest.raises(EncryptedPDFError) as exc:
        read_report(bad)
    assert "password" in str(exc.value) and REPORT_38 in str(exc.value)


@pytest.mark.data
def test_image_only_pdf(tmp_path, r38_path):
    src = pymupdf.open(r38_path)
    pix = src[0].get_pixmap(dpi=72)
    img = pymupdf.open()
    page = img.new_page(width=src[0].rect.width, height=src[0].rect.height)
    page.insert_image(page.rect, pixmap=pix)
    bad = tmp_path / REPORT_38
    img.save(bad)
    with pytest.raises(NoTextLayerError) as exc:
        read_report(bad)
    assert "OCR" in str(exc.value) and REPORT_38 in str(exc.value)


@pytest.mark.data
def test_file_name_disagrees_with_header(tmp_path, r38_path):
    bad = tmp_path / REPORT_39  # report 38's bytes under report 39's name
    shutil.copyfile(r38_path, bad)
    with pytest.raises(IdentityMismatchError) as exc:
        read_report(bad)
    msg = str(exc.value)
    assert "39" in msg and "RPT NUM 38" in msg


@pytest.mark.data
def test_date_disagrees_with_header(tmp_path, r38_path):
    bad = tmp_path / "FORGE-16A-78-32_Drilling_038_2020-11-27.pdf"
    shutil.copyfile(r38_path, bad)
    with pytest.raises(IdentityMismatchError, match="2020-11-27.*2020-11-26"):
        read_report(bad)


@pytest.mark.data
def test_other_file_names_take_identity_from_header(tmp_path, r38_path):
    mine = tmp_path / "ddr today.pdf"
    shutil.copyfile(r38_path, mine)
    r = read_report(mine)
    assert (r.report_number, r.report_date, r.well) == (38, dt.date(2020, 11, 26), "FORGE 16A [78]-32")


@pytest.mark.data
def test_load_archive_never_drops_a_file(tmp_path, archive_folder):
    for name in [REPORT_38, REPORT_39]:
        shutil.copyfile(archive_folder / name, tmp_path / name)
    (tmp_path / "notes.pdf").write_text("not a pdf")
    with pytest.raises(NotAPDFError):
        load_archive(tmp_path)
    with pytest.raises(ReportError) as exc:
        load_archive(tmp_path, on_error="collect")
    assert "1 of 3" in str(exc.value) and "notes.pdf" in str(exc.value)
    (tmp_path / "notes.pdf").unlink()
    assert [r.report_number for r in load_archive(tmp_path)] == [38, 39]


def test_load_archive_missing_folder_says_how_to_fetch(tmp_path, monkeypatch):
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", str(tmp_path / "book"))  # the book's reports: fetch them
    with pytest.raises(DataNotFoundError, match="ddrsearch fetch"):
        load_archive(tmp_path / "book")
    with pytest.raises(DataNotFoundError, match="check the path") as info:  # your own folder: fetching won't help
        load_archive(tmp_path / "nowhere")
    assert "ddrsearch fetch" not in str(info.value)
    with pytest.raises(DataNotFoundError, match="ddrsearch fetch"):
        load_archive(tmp_path)


@pytest.mark.data
def test_two_reports_in_one_file_are_refused(tmp_path, archive_folder):
    merged = pymupdf.open(archive_folder / REPORT_38)
    merged.insert_pdf(pymupdf.open(archive_folder / REPORT_39))
    bad = tmp_path / REPORT_38
    merged.save(bad)
    with pytest.raises(IdentityMismatchError, match="page 1 is RPT NUM 38 .* page 2 is RPT NUM 39"):
        read_report(bad)


@pytest.mark.data
def test_a_blank_first_page_does_not_hide_the_header(tmp_path, archive_folder):
    doc = pymupdf.open()
    doc.new_page(width=612, height=792)
    doc.insert_pdf(pymupdf.open(archive_folder / REPORT_39))
    bad = tmp_path / REPORT_38  # report 39's page under report 38's name
    doc.save(bad)
    with pytest.raises(IdentityMismatchError, match="RPT NUM 39"):
        read_report(bad)


@pytest.mark.data
def test_impossible_date_in_file_name(tmp_path, r38_path):
    bad = tmp_path / "FORGE-16A-78-32_Drilling_038_2020-13-45.pdf"
    shutil.copyfile(r38_path, bad)
    with pytest.raises(IdentityMismatchError, match="2020-13-45.*not a real date"):
        read_report(bad)
    with pytest.raises(ReportError, match="1 of 1"):
        load_archive(tmp_path, on_error="collect")


@pytest.mark.data
def test_phase_in_file_name_must_match_the_layout(tmp_path, r38_path):
    bad = tmp_path / "FORGE-16A-78-32_Completion_038_2020-11-26.pdf"
    shutil.copyfile(r38_path, bad)
    with pytest.raises(IdentityMismatchError, match="Completion report, but the PDF has a drilling report"):
        read_report(bad)


@pytest.mark.data
def test_upper_case_extension_is_read(tmp_path, r38_path):
    shutil.copyfile(r38_path, tmp_path / "R38.PDF")
    assert [r.report_number for r in load_archive(tmp_path)] == [38]


@pytest.fixture
def messy(tmp_path, archive_folder):
    """A folder with report 38, and report 39 left in a subfolder ``old/``."""
    folder = tmp_path / "my reports"
    (folder / "old").mkdir(parents=True)
    shutil.copy(archive_folder / REPORT_38, folder)
    shutil.copy(archive_folder / REPORT_39, folder / "old")
    return folder


@pytest.mark.data
def test_pdfs_in_a_subfolder_are_named_not_silently_skipped(messy):
    """PDFs left in a subfolder were skipped without a word; load_archive now warns with the subfolder and its count."""
    with pytest.warns(FolderWarning, match=r"old/ \(1 PDF\)"):
        reports = load_archive(messy)
    assert [r.file_name for r in reports] == [REPORT_38]


@pytest.mark.data
def test_a_folder_with_pdfs_only_in_a_subfolder_names_it(tmp_path, archive_folder):
    """A folder whose PDFs are all in subfolders said only that no PDF was found; the error names the subfolders."""
    (tmp_path / "a").mkdir()
    shutil.copy(archive_folder / REPORT_38, tmp_path / "a")
    with pytest.raises(DataNotFoundError, match=r"only in subfolders: a/ \(1 PDF\)"):
        load_archive(tmp_path)


def _blank_time_breakdown(src, dest):
    """Report ``src`` with every TIME BREAKDOWN row blanked out (headings and TOTAL kept)."""
    doc = pymupdf.open(src)
    page = doc[0]
    words = page.get_text("words")
    heading = next(w for w in words if w[4] == "BREAKDOWN")[3]
    columns = next(w for w in words if w[4] == "FROM" and w[1] > heading - 1)[3]
    total = min((w[1] for w in words if w[4] == "TOTAL" and w[1] > columns), default=page.rect.height)
    page.add_redact_annot(pymupdf.Rect(0, columns + 0.5, page.rect.width, total - 1))
    page.apply_redactions()
    doc.save(dest)


@pytest.mark.data
def test_an_empty_time_breakdown_is_a_note_not_silence(tmp_path, archive_folder, capsys):
    """A report whose TIME BREAKDOWN has no rows was read without a word; it carries a note, and search prints it."""
    _blank_time_breakdown(archive_folder / REPORT_39, tmp_path / REPORT_39)
    r = read_report(tmp_path / REPORT_39)
    assert r.operations == []
    assert any("no operation rows" in n for n in r.notes)
    assert main(["search", "stuck pipe", "--dir", str(tmp_path), "--method", "bm25", "-k", "1"]) == 0
    assert f"note: {REPORT_39}: the TIME BREAKDOWN table has no operation rows" in capsys.readouterr().err


@pytest.fixture
def resaved(tmp_path, archive_folder):
    """Report 38 and a re-saved copy of it (other bytes, same pages) under another name."""
    folder = tmp_path / "resaved"
    folder.mkdir()
    shutil.copy(archive_folder / REPORT_38, folder)
    doc = pymupdf.open(archive_folder / REPORT_38)
    doc.save(folder / "DDR 38 copy.pdf", garbage=3)
    assert (folder / "DDR 38 copy.pdf").read_bytes() != (folder / REPORT_38).read_bytes()
    return folder


@pytest.mark.data
def test_a_re_saved_copy_is_refused_like_an_identical_one(resaved, capsys):
    """A re-saved copy of a report (other bytes, same report) was read twice and listed twice; it is refused like an
    identical copy.
    """
    from ddrsearch.errors import DuplicateReportError
    from ddrsearch.reading.report import read_reports

    # before: both were read, and search listed D038 twice with the same row
    with pytest.raises(DuplicateReportError, match=f"{REPORT_38} and DDR 38 copy.pdf hold the same report"):
        load_archive(resaved)
    with pytest.raises(DuplicateReportError):
        read_reports(sorted(resaved.iterdir()))
    assert main(["search", "stuck pipe", "--dir", str(resaved), "--method", "bm25"]) == 1
    assert "hold the same report" in capsys.readouterr().err


@pytest.mark.data
def test_a_broken_link_named_like_a_pdf_is_named(tmp_path, archive_folder):
    """A broken link named like a PDF was skipped without a word; it is named in a warning, and in the error when
    nothing else is there.
    """
    shutil.copy(archive_folder / REPORT_38, tmp_path)
    (tmp_path / "today.pdf").symlink_to(tmp_path / "gone" / "today.pdf")
    # before: skipped without a word (neither a file nor a folder)
    with pytest.warns(FolderWarning, match=r"today\.pdf \(a link to .*gone/today\.pdf, which does not exist\)"):
        assert [r.file_name for r in load_archive(tmp_path)] == [REPORT_38]
    (tmp_path / REPORT_38).unlink()
    # before: "No PDF files in <folder>" with the broken link unmentioned
    with pytest.raises(DataNotFoundError, match=r"Broken link\(s\), not read: today\.pdf"):
        load_archive(tmp_path)


@pytest.mark.data
@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes only on Linux")
def test_a_file_name_that_is_not_utf8_is_not_called_damaged(tmp_path, archive_folder):
    """A PDF whose file name is not valid UTF-8 was called unopenable and to be fetched again; the error says to rename
    it.
    """
    name = os.path.join(os.fsencode(tmp_path), b"DDR \xff38.pdf")
    shutil.copy(archive_folder / REPORT_38, name)
    # before: "could not be opened as a PDF (Failed to open file ...). Fetch or copy the file again."
    with pytest.raises(ReportError, match="its name is not valid UTF-8.*Rename the file") as exc:
        read_report(os.fsdecode(name))
    assert "Fetch or copy" not in str(exc.value)


@pytest.mark.data
def test_a_first_row_with_an_unreadable_from_time_is_noted_not_lost(tmp_path, archive_folder):
    """A first row whose FROM time is unreadable vanished silently; the text before the first readable row is kept in a
    note.
    """
    import pymupdf

    doc = pymupdf.open(archive_folder / REPORT_38)
    page = doc[0]
    first_from = page.search_for("06:00")[0]  # the first row's FROM; "06:00" is the first match on the page
    page.add_redact_annot(first_from)
    page.apply_redactions()
    page.insert_text((first_from.x0, first_from.y1 - 1.5), "25:99", fontsize=7)
    doc.save(tmp_path / REPORT_38)
    r = read_report(tmp_path / REPORT_38)
    # before: the row (PJSM ... Rig up Schlumberger run the UBI log) vanished; only the hours sum hinted at it
    assert not any("Schlumberger" in o.operations for o in r.operations)
    assert any("text before the first row with a HH:MM FROM time is not read" in n and "Schlumberger" in n
               for n in r.notes)
