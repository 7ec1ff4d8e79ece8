"""Fixtures of the command-line tests: odd folders made from real reports, and a small index."""

from __future__ import annotations

import shutil

import pytest

from ddrsearch.cli.command import main

REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"
REPORT_39 = "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf"


@pytest.fixture
def messy(tmp_path, archive_folder):
    """A folder with report 38, and report 39 left in a subfolder ``old/``."""
    folder = tmp_path / "my reports"
    (folder / "old").mkdir(parents=True)
    shutil.copy(archive_folder / REPORT_38, folder)
    shutil.copy(archive_folder / REPORT_39, folder / "old")
    return folder


@pytest.fixture(scope="module")
def built_index(tmp_path_factory, archive_folder):
    """An index of reports 38 and 39 (built once), and the folder of the two PDFs."""
    root = tmp_path_factory.mktemp("ix")
    one = root / "one"
    one.mkdir()
    for name in (REPORT_38, REPORT_39):
        shutil.copy(archive_folder / name, one)
    assert main(["index", "build", "--dir", str(one), "--index", str(root / "ix")]) == 0
    return root / "ix", one
