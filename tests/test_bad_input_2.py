"""Bad input, second adversarial pass: what tests/test_bad_input.py does not cover.

Each test reproduces a case that, before it was fixed, gave a raw traceback, a
misleading message, or left something out silently. Odd files are made at test
time in a temporary folder.
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from ddrsearch.errors import DataNotFoundError, FolderWarning, ReportError
from ddrsearch.report import load_archive, read_report

REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"
REPORT_39 = "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf"


# --- odd files in a report folder -----------------------------------------------------------

def test_a_broken_link_named_like_a_pdf_is_named(tmp_path, archive_folder):
    shutil.copy(archive_folder / REPORT_38, tmp_path)
    (tmp_path / "today.pdf").symlink_to(tmp_path / "gone" / "today.pdf")
    # before: skipped without a word (neither a file nor a folder)
    with pytest.warns(FolderWarning, match=r"today\.pdf \(a link to .*gone/today\.pdf, which does not exist\)"):
        assert [r.file_name for r in load_archive(tmp_path)] == [REPORT_38]
    (tmp_path / REPORT_38).unlink()
    # before: "No PDF files in <folder>" with the broken link unmentioned
    with pytest.raises(DataNotFoundError, match=r"Broken link\(s\), not read: today\.pdf"):
        load_archive(tmp_path)


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes only on Linux")
def test_a_file_name_that_is_not_utf8_is_not_called_damaged(tmp_path, archive_folder):
    name = os.path.join(os.fsencode(tmp_path), b"DDR \xff38.pdf")
    shutil.copy(archive_folder / REPORT_38, name)
    # before: "could not be opened as a PDF (Failed to open file ...). Fetch or copy the file again."
    with pytest.raises(ReportError, match="its name is not valid UTF-8.*Rename the file") as exc:
        read_report(os.fsdecode(name))
    assert "Fetch or copy" not in str(exc.value)
