"""ddrsearch.reading.pdf: the PDFs of a folder, and what is named like a PDF but is not one."""

from __future__ import annotations

import os
import shutil
import warnings

import pytest

from ddrsearch.errors import FolderWarning, ReportError
from ddrsearch.reading.pdf import folder_pdfs
from ddrsearch.reading.report import load_archive

pytestmark = pytest.mark.data


REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"


def test_a_folder_named_like_a_pdf_is_not_an_errno(tmp_path, archive_folder):
    """A folder named ``weird.pdf`` raised IsADirectoryError [Errno 21]; it is named in a warning and not read."""
    shutil.copy(archive_folder / REPORT_38, tmp_path)
    (tmp_path / "weird.pdf").mkdir()  # before: IsADirectoryError [Errno 21] from load_archive
    with pytest.warns(FolderWarning, match=r"weird\.pdf/ \(a folder named like a PDF\)"):
        assert [r.file_name for r in load_archive(tmp_path)] == [REPORT_38]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FolderWarning)
        assert folder_pdfs(tmp_path) == [tmp_path / REPORT_38]


def test_a_pipe_or_a_link_to_a_device_named_like_a_pdf_is_named_not_dropped(tmp_path, archive_folder):
    """Before (adversarial pass): fifo.pdf and devzero.pdf -> /dev/zero were left out without a word ('2 reports').
    After: each is named in the folder's warning as not a regular file, and the reports beside them are read."""
    shutil.copy(archive_folder / REPORT_38, tmp_path)
    os.mkfifo(tmp_path / "fifo.pdf")
    (tmp_path / "devzero.pdf").symlink_to("/dev/zero")
    with pytest.warns(FolderWarning) as caught:
        assert folder_pdfs(tmp_path) == [tmp_path / REPORT_38]
    message = " ".join(str(w.message) for w in caught)
    assert "devzero.pdf (not a regular file" in message and "fifo.pdf (not a regular file" in message


def test_empty_pdfs_are_each_refused_as_empty_not_as_copies_of_each_other(tmp_path, archive_folder):
    """Before: a folder of 0-byte PDFs said 'r2.pdf and r1.pdf are the same file ... saved twice'. After: each
    empty file is refused by name as what it is, and the reports beside them are read."""
    from ddrsearch.reading.report import read_each

    shutil.copy(archive_folder / REPORT_38, tmp_path)
    for name in ("r1.pdf", "r2.pdf"):
        (tmp_path / name).write_bytes(b"")
    good, failures = read_each(folder_pdfs(tmp_path))
    assert [r.file_name for r in good] == [REPORT_38]
    assert sorted(p.name for p, _ in failures) == ["r1.pdf", "r2.pdf"]
    with pytest.raises(ReportError) as exc:
        load_archive(tmp_path)
    assert "same file" not in str(exc.value) and "r1.pdf" in str(exc.value)
