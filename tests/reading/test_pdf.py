"""ddrsearch.reading.pdf: the PDFs of a folder, and what is named like a PDF but is not one."""

from __future__ import annotations

import shutil
import warnings

import pytest

from ddrsearch.errors import FolderWarning
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
