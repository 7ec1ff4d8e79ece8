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
# building blocks (metrics, TREC files, fusion, tokenizer, layers) in seconds. The markers are
# given here from what a test uses, so no test can forget its own.

#: Fixtures that read the report PDFs.
DATA_FIXTURES = {
    "archive_folder", "archive", "by_name", "report38", "sample", "starter", "archive_questions",
    "archive_set", "r38_path", "mirror", "op_chunks", "vectors", "bm25", "dense", "solution_output",
    "archive_tokens", "reports", "typed", "archive_fields",
}
#: Fixtures and modules that load the embedding model or its tokenizer.
MODEL_FIXTURES = {"model", "plain", "pieces", "op_chunks", "vectors", "dense", "solution_output", "embedder"}
MODEL_MODULES = {"test_embeddings", "test_chunking", "test_vectorindex", "test_challenge", "test_evaluation"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else ""
        if names & DATA_FIXTURES:
            item.add_marker(pytest.mark.data)
        if names & MODEL_FIXTURES or module in MODEL_MODULES:
            item.add_marker(pytest.mark.model)
        if module == "test_book" and item.originalname == "test_chapter_executes_on_the_real_data":
            item.add_marker(pytest.mark.notebook)
            item.add_marker(pytest.mark.data)
