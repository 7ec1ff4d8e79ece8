"""ddrsearch.book.notebook: the helpers the chapters share."""

from __future__ import annotations

import datetime as dt

import pytest

from ddrsearch.answers.answerer import AnswerCard, SupportRow
from ddrsearch.book.notebook import join_and, rank_of, show_card


def test_a_list_reads_as_prose_and_a_rank_counts_from_one():
    assert join_and(["D019", "D038", "D048"]) == "D019, D038 and D048"
    assert join_and([]) == "" and join_and(["a"]) == "a"
    assert rank_of(["D019", "D038"], "D038") == 2 and rank_of(["D019"], "D038") is None


def _card(rows):
    return AnswerCard(question="when did we last get stuck?", searched="stuck?", order="latest", rows=rows,
                      candidates=rows, threshold=0.431)


@pytest.fixture
def shown(monkeypatch):
    import IPython.display

    out = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: out.append(obj))
    return out


def test_a_refusal_shows_its_sentence_and_no_crop(shown):
    show_card(_card([]), [])
    (only,) = shown
    assert type(only).__name__ == "Markdown" and "Not found in these reports" in only.data


@pytest.mark.data
def test_a_card_shows_its_table_then_the_png_crop_of_its_first_row(shown, report38):
    row = SupportRow(row_id="D038-r08", report=report38.file_name, label="D038", report_number=38,
                     date=dt.date(2020, 11, 26), start="23:30", end="04:00", page=1, row=8, text="...", score=1.0,
                     cosine=0.5, coverage=1.0, evidence=0.75, margin=0.2, support=0.95)
    show_card(_card([row]), [report38])
    table, crop = shown
    assert "| D038\\-r08 |" in table.data
    assert type(crop).__name__ == "Image" and crop.data.startswith(b"\x89PNG")
