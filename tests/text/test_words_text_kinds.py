"""Text kinds the tokenizer missed: a fraction glued to a letter code, and the asker's L/D (issue 26, text.words,
text.rewriting and search --expand)."""

from __future__ import annotations

import shutil

import pytest

from ddrsearch.cli.command import main
from ddrsearch.retrieval.lexical import BM25Retriever, KeywordRetriever
from ddrsearch.text.rewriting import spell_out_asker_shorthand
from ddrsearch.text.tokenizer import tokenize

GLUED = ("FORGE-16A-78-32_Drilling_020_2020-11-08.pdf", "FORGE-16A-78-32_Drilling_021_2020-11-09.pdf")
LAY_DOWN_BHA = "FORGE-16A-78-32_Drilling_062_2020-12-20.pdf"  # "ACTIVITY PLANNED: LAY DOWN BHA #44, ..."


def test_a_fraction_glued_to_a_letter_code_is_cut_like_a_unit_glued_to_a_number():
    """Before: `4 1/2IF Box` was the tokens 4, 1/2if, box, so `4 1/2 IF box` (4, 1/2, if, box) missed it.
    After: the letters glued to a fraction are the next token, as `250psi` is `250 psi`."""
    assert tokenize("4 1/2IF Box") == tokenize("4 1/2 IF box") == ["4", "1/2", "if", "box"]
    assert tokenize("6 5/8REG pin") == ["6", "5/8", "reg", "pin"]
    assert tokenize("7/8in") == ["7/8", "in"]
    # what was one token stays one: fractions, dates, short slashed codes, single letters
    assert tokenize("7/8 11/26/2020 md/tvd bbl/min P/U w/") == ["7/8", "11/26/2020", "md/tvd", "bbl/min", "pu", "w/"]


@pytest.mark.data
def test_4_1_2_if_box_finds_the_reports_printing_4_1_2if_box(archive):
    """Reports 20 and 21 print `X-Over-6 5/8 Reg Pin X 4 1/2IF Box X`: the keyword search `4 1/2 IF box`
    finds both, showing that very line."""
    hits = {h.report: h for h in KeywordRetriever().index(archive).search("4 1/2 IF box", 20)}
    for name in GLUED:
        assert name in hits and "1/2IF Box" in (hits[name].text or ""), name


def test_l_d_is_spelled_out_as_lay_down_like_p_u_is_pick_up():
    """Before: `L/D BHA --expand` searched the tokens ld bha (the report glossary has PU, pick up, but no LD:
    these reports never print L/D). After: with --expand the asker's shorthand the reports never print is
    spelled out, so L/D is lay down as P/U is pick up; P/U is left to the report glossary."""
    assert spell_out_asker_shorthand("L/D BHA") == ("lay down bha", [("ld", "lay down")])
    assert spell_out_asker_shorthand("P/U BHA") == ("P/U BHA", [])  # the report glossary expands it
    assert "lay" in tokenize(spell_out_asker_shorthand("L/D BHA")[0], expand=True)
    assert tokenize("P/U BHA", expand=True)[:3] == ["pu", "pick", "up"]


@pytest.mark.data
def test_l_d_bha_with_expand_finds_the_report_that_lays_down_the_bha(archive):
    """`L/D BHA` searched with expansion finds report 62 ("LAY DOWN BHA #44"), as `lay down BHA` does."""
    query = spell_out_asker_shorthand("L/D BHA")[0]
    for retriever in (KeywordRetriever(expand=True), BM25Retriever(expand=True)):
        retriever.index(archive)
        found = [h.report for h in retriever.search(query, 20)]
        assert LAY_DOWN_BHA in found
        assert found == [h.report for h in retriever.search("lay down BHA", 20)]


@pytest.mark.data
def test_search_expand_says_how_it_read_l_d(tmp_path, archive_folder, capsys):
    """ddrsearch search "L/D BHA" --method keyword --expand: report 62 is found and a note says L/D was read
    as lay down (before: "No report matches")."""
    shutil.copy2(archive_folder / LAY_DOWN_BHA, tmp_path / LAY_DOWN_BHA)
    assert main(["search", "L/D BHA", "--dir", str(tmp_path), "--method", "keyword", "--expand"]) == 0
    out, err = capsys.readouterr()
    assert "D062" in out and "note: LD searched as 'lay down'" in err
