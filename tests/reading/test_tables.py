"""ddrsearch.reading.tables: the form's tables read from the words the report kept, without opening its PDF again."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import REPORT_38
from ddrsearch.reading import tables
from ddrsearch.reading.tables import read_tables

pytestmark = pytest.mark.data


@pytest.mark.data
def test_kept_words_and_the_reopened_pdf_give_the_same_tables(archive):
    # every archive report: the words read_report kept, and a report without them (its PDF opened again)
    for report in archive:
        assert len(report.words) == len(report.pages)
        reopened = dataclasses.replace(report, words=[])
        assert read_tables(report) == read_tables(reopened), report.file_name


@pytest.mark.data
def test_read_tables_does_not_open_the_pdf_of_a_read_report(by_name, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("read_tables opened the PDF again")

    monkeypatch.setattr(tables, "open_pdf", refuse)
    got = read_tables(by_name[REPORT_38])
    assert got["bha"][0]["TORQUE"] == "5,615"  # as printed in report 38's BHA summary
    assert [r["MW"] for r in got["MUD"]][-1] == "8.9"
    assert {"MUD", "DRILL BITS", "PUMPS", "SURVEY DATA", "bha"} <= set(got)
