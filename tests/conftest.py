"""Shared fixtures: the real report archive, read once per test session.

The tests run on the real FORGE 16A(78)-32 reports. If they are not fetched,
the tests that need them fail (they do not skip) with the command to run.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")

from pathlib import Path

import pytest

from ddrsearch.data.folders import FETCH_COMMAND, archive_dir
from ddrsearch.data.manifest import load_manifest

PROJECT = Path(__file__).resolve().parents[1]
REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"
REPORT_39 = "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf"


@pytest.fixture(scope="session")
def archive_folder() -> Path:
    """The folder of the 76 PDFs; fails the test with the fetch command if any is missing."""
    folder = archive_dir()
    missing = [e.file_name for e in load_manifest() if not (folder / e.file_name).is_file()]
    if missing:
        pytest.fail(f"{len(missing)} report PDF(s) missing from {folder} (e.g. {missing[0]}). Run: {FETCH_COMMAND}")
    return folder


@pytest.fixture(scope="session")
def archive(archive_folder):
    """All 76 reports, read once (list of ddrsearch.reading.report.Report in report-number order)."""
    from ddrsearch.reading.report import load_archive

    return load_archive(archive_folder)


@pytest.fixture(scope="session")
def sample(archive_folder):
    """The ten-report sample, read once (list of Report in report-number order)."""
    from ddrsearch.data.folders import sample_paths
    from ddrsearch.reading.report import read_reports

    return read_reports(sample_paths(archive_folder))


@pytest.fixture(scope="session")
def archive_questions(archive_folder):
    """The archive question set, loaded (and its evidence checked against the PDFs) once."""
    from ddrsearch.evaluation.questionfiles import load_questions

    return load_questions("archive")


@pytest.fixture(scope="session")
def by_name(archive):
    """Reports keyed by file name."""
    return {r.file_name: r for r in archive}


@pytest.fixture(scope="session")
def report38(by_name):
    return by_name[REPORT_38]


# --- test tiers ----------------------------------------------------------------------------
# `make test-fast` runs `pytest -m "not data and not model and not notebook"`: the pure
# building blocks (metrics, TREC files, fusion, tokenizer, package shape) in seconds. Each test
# module states its tier: `pytestmark = pytest.mark.data` (or a list), or a mark on the test.
# One rule is checked here so that the fast tier never reads the PDFs: a test that uses
# `archive_folder` (through any fixture: archive, sample, by_name, report38, ...) is marked data.


def pytest_collection_modifyitems(config, items):
    unmarked = [item.nodeid for item in items
                if "archive_folder" in getattr(item, "fixturenames", ()) and item.get_closest_marker("data") is None]
    if unmarked:
        raise pytest.UsageError(
            f"{len(unmarked)} test(s) read the report PDFs (fixture archive_folder) but are not marked data, "
            f"e.g. {unmarked[0]}: add @pytest.mark.data to the test or pytestmark = pytest.mark.data to its module")
