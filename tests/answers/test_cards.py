"""ddrsearch.answers.cards: a card as a table that wraps at the page, its report text escaped."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from ddrsearch.answers.answerer import AnswerCard, SupportRow
from ddrsearch.answers.cards import MAX_CELL_CHARS, card_crop, card_markdown, escape_markdown, markdown_table

PNG = b"\x89PNG\r\n\x1a\n"


def _row(text: str, row_id: str = "D038-r08", row: int = 8) -> SupportRow:
    return SupportRow(row_id=row_id, report="FORGE-16A-78-32_Drilling_038_2020-11-26.pdf", label="D038",
                      report_number=38, date=dt.date(2020, 11, 26), start="23:30", end="04:00", page=1, row=row,
                      text=text, score=1.0, cosine=0.5, coverage=1.0, evidence=0.75, margin=0.2, support=0.95)


def _card(rows, question="when did we last get stuck?") -> AnswerCard:
    return AnswerCard(question=question, searched="stuck?", order="latest", rows=rows, candidates=rows,
                      threshold=0.431)


def test_every_ascii_punctuation_is_escaped_and_controls_and_line_breaks_go():
    text = "*a* _b_ `c` | <script>x</script> $5$ @sec-x [l](u) #h\n\x1b[2Knext\u202eline"
    out = escape_markdown(text)
    assert "\n" not in out and "\x1b" not in out and "\u202e" not in out
    # each punctuation character is preceded by a backslash: removing the escapes gives the text back
    assert out.replace("\\", "") == "*a* _b_ `c` | <script>x</script> $5$ @sec-x [l](u) #h nextline"
    import string

    for i, ch in enumerate(out):
        if ch in string.punctuation and ch != "\\":
            assert out[i - 1] == "\\", (ch, out)


def test_an_over_long_cell_is_cut_and_says_so():
    out = escape_markdown("x" * (MAX_CELL_CHARS + 50))
    assert out.endswith(" \\.\\.\\.") and out.count("x") == MAX_CELL_CHARS


def test_the_separator_line_is_longer_than_pandocs_72_columns_and_follows_the_widths():
    table = markdown_table(["a", "b"], [["1", "2"]], widths=[1, 3]).splitlines()
    assert table[0] == "| a | b |" and table[2] == "| 1 | 2 |"
    dashes = [len(d) for d in table[1].strip("|").split("|")]
    assert len(table[1]) > 72 and dashes == [25, 75]


def test_a_row_with_the_wrong_number_of_cells_or_a_bad_width_is_refused():
    with pytest.raises(ValueError, match="row 0 has 1 cells; the table has 2"):
        markdown_table(["a", "b"], [["1"]])
    with pytest.raises(ValueError, match="one positive width per column"):
        markdown_table(["a", "b"], [], widths=[1, 0])
    with pytest.raises(ValueError, match="at least one column"):
        markdown_table([], [])


def test_a_card_is_its_question_and_one_table_row_per_quoted_row_with_the_pipe_escaped():
    card = _card([_row("WOB 20 | 35k *stuck*"), _row("Work pipe free", "D038-r09", 9)])
    md = card_markdown(card)
    lines = md.splitlines()
    assert lines[0] == "**Q:** when did we last get stuck\\?"
    table = [ln for ln in lines if ln.startswith("|")]
    assert len(table) == 2 + 2  # header, separator, two rows
    # the 23:30 row of the report dated 26 Nov happened on 25 Nov; the report's date stays beside it
    assert table[2].startswith("| D038\\-r08 | 2020\\-11\\-25 23\\:30\\-04\\:00 \\(report dated 2020\\-11\\-26\\, "
                               "page 1\\) | 0\\.95 |")
    # the row's pipe is escaped, so the row keeps four cells
    assert table[2].replace("\\|", "").count("|") == 5
    assert "\\*stuck\\*" in table[2]
    assert "reports latest first\\, each report\\'s rows in table order" in md


def test_the_header_says_how_the_rows_are_ordered_and_a_bm25_card_does_not_claim_support_order():
    """Before: chapter 5's card said 'best supported first' over rows listed in BM25 order (0.75, 0.472, 0.479)."""
    rows = [_row("Pick up packer", "D049-r05", 5), _row("Set packer", "D049-r02", 2)]
    for order, said in [("score", "reports best supported first\\, each report\\'s rows best supported first"),
                        ("bm25", "in the order BM25 ranked the rows \\(not by support\\)")]:
        card = AnswerCard(question="packers", searched="packers", order=order, rows=rows, candidates=rows,
                          threshold=0.431)
        md = card_markdown(card)
        assert said in md and "supported first" not in md.replace(said, "")
        text = card.to_text()
        assert said.replace("\\", "") in " ".join(text.split()) and max(map(len, text.splitlines())) <= 79


def test_a_refusal_is_one_sentence_with_the_best_support_and_the_threshold():
    md = card_markdown(_card([]))
    assert "|" not in md.replace("\\|", "")
    assert md.endswith("Not found in these reports \\(best support 0\\.00 \\< 0\\.431\\)\\.")
    with pytest.raises(ValueError, match="a refusal has nothing to crop"):
        card_crop(_card([]), [])


def test_a_refusal_with_candidates_shows_its_closest_rows_as_the_command_line_does():
    # learner: chapter 10 said a refused card lists its closest rows, but the book's card showed only its sentence
    weak = dataclasses.replace(_row("Cut core *from* 5,846'"), support=0.40, evidence=0.3)
    card = AnswerCard(question="did we cut a sample of the rock", searched="cut sample rock", order="score",
                      rows=[], candidates=[weak], threshold=0.431)
    md = card_markdown(card)
    assert md.split("\n\n")[1] == "Not found in these reports \\(best support 0\\.40 \\< 0\\.431\\)\\."
    assert "not an answer" in md and "D038\\-r08" in md and "Cut core \\*from\\* 5\\,846" in md


@pytest.mark.data
def test_the_crop_is_the_png_of_the_cards_first_row_with_its_words_highlighted(report38):
    from ddrsearch.answers.sources import row_crop

    card = _card([_row("...")])
    png = card_crop(card, [report38])
    assert png.startswith(PNG)
    assert png == row_crop(report38, 8, ["stuck"])
    with pytest.raises(KeyError, match="is not among the 0 reports"):
        card_crop(card, [])


@pytest.mark.data
def test_a_card_prints_report_38s_rows_on_their_real_days_with_the_reports_date_beside(archive):
    """Before: the 23:30 row of the report dated 2020-11-26 was printed as "2020-11-26 23:30-04:00"; it began on
    25 Nov. Its 04:00 row, past midnight, is on 26 Nov itself."""
    from ddrsearch.reading.names import row_id

    d038 = next(r for r in archive if r.phase == "Drilling" and r.report_number == 38)

    def real(i: int) -> SupportRow:
        row = d038.operations[i]
        return SupportRow(row_id=row_id(d038, i), report=d038.file_name, label="D038", report_number=38,
                          date=d038.report_date, start=row.start, end=row.end, page=row.page, row=i,
                          text=row.operations, score=1.0, cosine=0.5, coverage=1.0, evidence=0.75, support=0.95)

    card = _card([real(8), real(9)])
    text = card.to_text(width=200).splitlines()
    assert "D038  report 38 dated 2020-11-26, page 1" in text
    assert any(line.startswith("  [D038-r08] 2020-11-25 23:30-04:00 (evidence") for line in text)
    assert any(line.startswith("  [D038-r09] 2020-11-26 04:00-06:00 (evidence") for line in text)
    table = [ln for ln in card_markdown(card).splitlines() if ln.startswith("| D038")]
    assert "2020\\-11\\-25 23\\:30\\-04\\:00 \\(report dated 2020\\-11\\-26" in table[0]
    assert "2020\\-11\\-26 04\\:00\\-06\\:00 \\(report dated 2020\\-11\\-26" in table[1]
