"""Query rewriting (ddrsearch.text.rewriting): the asker's shorthand, and the rig-terms table.

The rig-terms table: the asker's plain words followed by the words the reports
print for the same thing, and its loader's errors (a byte order mark, a wrong
header, another encoding, empty or all-matching entries, line numbers).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ddrsearch.errors import GlossaryError
from ddrsearch.text.rewriting import (
    RigTerm,
    add_rig_terms,
    add_shorthand,
    expand_asker_shorthand,
    load_rig_terms,
    rewrite_query,
    rig_terms,
    strip_framing,
)
from ddrsearch.text.words import split_words

HEADER = "words,report_words,note\n"


def test_plain_words_are_followed_by_the_reports_words():
    assert add_rig_terms("rig blackout").split() == ["rig", "blackout", "lost", "power", "loss", "generators"]
    assert add_rig_terms("Rewinding the hoisting cable onto the winch") == (
        "rewinding spool re the hoisting cable drilling line drill onto the winch drawworks drum")


def test_the_longest_phrasing_wins_and_nothing_is_added_twice():
    terms = (RigTerm((("fluid",), ("losing", "fluid")), ("losses",), "", 2),
             RigTerm((("losing",),), ("seepage",), "", 3))
    # "losing fluid" is one phrasing of the first entry: "losing" alone is not looked up inside it
    assert add_rig_terms("losing fluid fast", terms) == "losing fluid losses fast"
    # a word the query already holds is not added again, and an entry adds its words once
    assert add_rig_terms("fluid losses and more fluid", terms) == "fluid losses and more fluid"


def test_a_query_without_a_phrasing_is_only_normalised():
    assert add_rig_terms("Trip out of hole to 5,500'") == " ".join(split_words("Trip out of hole to 5,500'"))


def test_rewrite_query_applies_rig_terms_after_the_askers_shorthand():
    # KOP is spelled out first ("kick off point"), and that is a phrasing of the table
    assert "curve" in rewrite_query("KOP", asker=True, rig_terms=True).split()
    assert rewrite_query("KOP", asker=True) == "kop kick off point"
    assert rewrite_query("rig blackout") == "rig blackout"


@pytest.mark.data
def test_every_added_word_occurs_in_the_archive(archive):
    words = set()
    for report in archive:
        words.update(split_words(report.text))
    missing = {(e.line, w) for e in rig_terms() for w in e.report_words if w not in words}
    assert not missing, f"rig_terms.csv adds words no report prints (line, word): {sorted(missing)}"


def test_every_entry_quotes_where_the_reports_use_its_words():
    assert len(rig_terms()) >= 40
    assert all(e.note and e.phrases and e.report_words for e in rig_terms())


@pytest.mark.parametrize("text, message", [
    ("abbreviation,expansion,note\nx,y,z\n", "first line must be the header"),
    (HEADER + "blackout,,note\n", "line 2: need three cells"),
    (HEADER + "blackout | outage,lost power,a\nstorm | outage,winds,b\n", "line 3: the phrasing 'outage' is already listed on line 2"),
])
def test_a_bad_table_names_the_file_and_line(tmp_path, text, message):
    path = tmp_path / "terms.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GlossaryError, match=message) as err:
        load_rig_terms(path)
    assert str(path) in str(err.value)


def test_a_missing_table_is_named(tmp_path):
    with pytest.raises(GlossaryError, match="Cannot read the rig-terms table .*nowhere.csv"):
        load_rig_terms(tmp_path / "nowhere.csv")


def _write(tmp_path, text: str | bytes, name: str = "terms.csv") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_a_table_saved_with_a_byte_order_mark_is_read(tmp_path):
    """A rig-terms table saved with a byte order mark (Excel's CSV UTF-8) was refused for its header; it is read."""
    # Excel's "CSV UTF-8" writes a BOM. The glossary loader (glossary.load_glossary) and the question-set
    # loader read with utf-8-sig; load_rig_terms reads with utf-8, so the header it sees is '\ufeffwords,...'
    # and it says "the first line must be the header words,report_words,note." - which it already is.
    path = _write(tmp_path, ("\ufeff" + HEADER + "blackout,lost power,n\n").encode("utf-8"))
    terms = load_rig_terms(path)
    assert add_rig_terms("rig blackout", terms) == "rig blackout lost power"


def test_a_wrong_header_is_quoted_in_the_message(tmp_path):
    """The rig-terms header's case does not matter; a wrong header is quoted in the message, so the user sees what
    differs.
    """
    # the header's case does not matter (as in the glossary loader); a wrong header is quoted, so the user
    # can see what differs
    path = _write(tmp_path, "Words,Report_Words,Note\nblackout,lost power,n\n")
    assert add_rig_terms("rig blackout", load_rig_terms(path)) == "rig blackout lost power"
    path = _write(tmp_path, "phrase,report_words,note\nblackout,lost power,n\n")
    with pytest.raises(GlossaryError, match="found 'phrase,report_words,note'"):
        load_rig_terms(path)


def test_a_file_that_is_not_utf8_says_to_save_it_as_utf8(tmp_path):
    """A rig-terms table that is not UTF-8 gave the codec's message; the error says to save it as UTF-8."""
    # before: "Cannot read the rig-terms table ...: 'utf-8' codec can't decode byte 0xe9 in position 27:
    # invalid continuation byte" - names the file, not what to do (the question-set loader says "save it as UTF-8")
    path = _write(tmp_path, (HEADER + "café blackout,lost power,n\n").encode("latin-1"))
    with pytest.raises(GlossaryError) as err:
        load_rig_terms(path)
    assert "UTF-8" in str(err.value)


def test_a_table_with_no_entries_is_not_silently_empty(tmp_path):
    """A header-only rig-terms table loaded as empty and rewrote nothing while the retriever named it; it is refused."""
    # A header-only table loads as () and TunedHybridRetriever(rig_terms=path) then rewrites nothing
    # while its .rig_terms still names the file: the user believes the table is on.
    path = _write(tmp_path, HEADER)
    with pytest.raises(GlossaryError, match=str(path)):
        load_rig_terms(path)


@pytest.mark.parametrize("row, what", [
    ("!!! | ???,lost power,n\n", "a phrasing cell with no words (only punctuation)"),
    ("blackout,---,n\n", "a report_words cell with no words (only punctuation)"),
    ("the | of,lost power,n\n", "phrasings made only of stop words (they fire on almost every query)"),
])
def test_an_entry_that_adds_nothing_or_everything_is_refused(tmp_path, row, what):
    """Rig-terms entries that never change a query, or add words after every stop word, were loaded without a word;
    they are refused by line.
    """
    # before: loaded without a word; the first two entries never change a query,
    # the third appends 'lost power' after every 'the' and 'of' of every query
    path = _write(tmp_path, HEADER + row)
    with pytest.raises(GlossaryError, match="line 2"):
        load_rig_terms(path)
        pytest.fail(f"{what} was accepted: {load_rig_terms(path)!r}")


def test_an_empty_note_is_refused_as_documented(tmp_path):
    """load_rig_terms accepted an empty note cell although its docstring says empty cells are refused."""
    # load_rig_terms' docstring: "Raises GlossaryError: ... an empty cell"; the note cell may be empty
    path = _write(tmp_path, HEADER + "blackout,lost power,\n")
    with pytest.raises(GlossaryError, match="line 2"):
        load_rig_terms(path)


def test_line_numbers_are_lines_of_the_file_after_a_quoted_newline(tmp_path):
    """The rig-terms loader counted CSV rows, not lines: after a quoted newline every line number was one short."""
    # The loader counts CSV rows, not lines: after a cell holding a newline every line number is one short.
    # File lines: 1 header, 2-3 one entry, 4 blackout, 5 outage, 6 blackout again.
    # before: "line 5: the phrasing 'blackout' is already listed on line 3" (lines 3 and 5 hold other text)
    path = _write(tmp_path, HEADER + '"alpha","b\nc",n\nblackout,lost power,n\noutage,x,q\nblackout,y,z\n')
    with pytest.raises(GlossaryError) as err:
        load_rig_terms(path)
    assert "line 6" in str(err.value) and "line 4" in str(err.value), str(err.value)


@pytest.mark.parametrize("value", ["my_rig_terms.csv", Path("my_rig_terms.csv"), 1])
def test_rewrite_query_with_a_path_or_a_wrong_value_is_no_raw_traceback(tmp_path, value):
    """rewrite_query given a path or a wrong rig_terms value raised AttributeError or TypeError; it reads the path or
    names rig_terms.
    """
    # TunedHybridRetriever and build_retriever take rig_terms=<path>; rewrite_query does not, and says
    # AttributeError: 'str' object has no attribute 'phrases'  (or TypeError: 'int' object is not iterable)
    _write(tmp_path, HEADER + "blackout,lost power,n\n", "my_rig_terms.csv")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        try:
            out = rewrite_query("rig blackout", rig_terms=value)
        except (ValueError, GlossaryError) as err:
            assert "rig_terms" in str(err)
        else:
            assert out == "rig blackout lost power"
    finally:
        os.chdir(cwd)


def test_a_long_phrasing_does_not_make_a_query_hang(monkeypatch):
    """A 1,000-word rig-terms phrasing made long queries take seconds; only phrasings starting with the query's word
    are compared (counted, not timed).
    """
    # add_rig_terms tried every length up to the longest phrasing at every position: a table holding one
    # 1,000-word phrasing (a pasted paragraph) made a 3,000-word query take ~5 s (3,000-word phrasing and a
    # 5,000-word query: ~60 s). Now only phrasings starting with the query's word at a position are compared,
    # so a phrasing whose first word the query lacks is never compared at all (counted, not timed).
    import ddrsearch.text.rewriting

    compared = []

    class Words(list):
        def __getitem__(self, key):
            if isinstance(key, slice):
                compared.append(key)
            return super().__getitem__(key)

    real = ddrsearch.text.rewriting.split_words
    monkeypatch.setattr(ddrsearch.text.rewriting, "split_words", lambda text: Words(real(text)))
    terms = (RigTerm((tuple(["w"] * 1000),), ("x",), "n", 2),)
    assert add_rig_terms(" ".join(["z"] * 3000), terms) == " ".join(["z"] * 3000)
    assert compared == []
    assert add_rig_terms("z w z", (RigTerm((("w",),), ("x",), "n", 2),)) == "z w x z"
    assert len(compared) == 1  # one comparison, at the one position starting with w


@pytest.mark.data
def test_query_rewrites():
    """The query rewrites: question framing stripped, the asker's shorthand expanded, plain words given their
    shorthand.
    """
    assert strip_framing("Which day did the bit pass 8,000 ft MD?") == "bit pass 8,000 ft md"
    assert strip_framing("how many") == "how many"  # nothing but framing: kept
    assert expand_asker_shorthand("POOH to shoe") == "pooh pull out of hole to shoe"
    assert expand_asker_shorthand("W&R to bottom") == "wr wash and ream to bottom"
    assert add_shorthand("pick up the bha") == "pick up pu the bha"


def test_the_plural_bops_an_engineer_types_is_spelled_out_as_the_report_glossary_does():
    """An engineer types "BOPs"; the reports print BOP or BOPE, and the report glossary's expansion of BOP is
    what the documents carry (a new reader's "when did we pressure test the BOPs?" missed D016's "Test BOPE"
    row)."""
    from ddrsearch.text.glossary import default_glossary

    assert expand_asker_shorthand("pressure test the BOPs") == "pressure test the bops blowout preventer"
    assert default_glossary()["BOP"].expansion == "blowout preventer"


@pytest.mark.parametrize(("query", "read"), [
    ("Had to strap down the TD umbilical in gusty weather", "top drive umbilical"),
    ("longest TD repair", "top drive repair"),
    ("TD gripper broke", "top drive gripper"),
])
def test_td_before_a_part_of_the_top_drive_is_the_top_drive_not_total_depth(query, read):
    # before: "td total depth umbilical", so BM25 ranked "DRILL TO TD" first for a question on the service loop
    from ddrsearch.text.tokenizer import tokenize

    out = expand_asker_shorthand(query)
    assert read in out and "total depth" not in out
    assert "total" not in tokenize(out, expand=True)  # nor does the report glossary read it so


@pytest.mark.parametrize("query", [
    "when did we reach TD", "TD of the 12-1/4 section", "drill to TD and circulate",
    # adversarial: a depth word before TD keeps it total depth, whatever follows
    "circulate bottoms up at TD service rig", "drilled to TD hydraulic stimulation next", "ream to TD problems",
    "reach TD failure", "mud weight at TD service",
    # second pass: a word or a number between the depth word and TD
    "circulated at final TD service rig", "reached planned TD service rig", "at 10,987' TD service rig",
])
def test_td_elsewhere_is_still_total_depth(query):
    assert "td total depth" in expand_asker_shorthand(query)


@pytest.mark.parametrize(("query", "read"), [("TD's umbilical", "top drive umbilical"),
                                             ("TD-repair", "top drive repair"), ("the TD/brake", "top drive brake")])
def test_the_top_drive_in_a_possessive_or_joined_by_a_dash(query, read):
    assert read in expand_asker_shorthand(query)


def test_md_td_is_a_depth_pair():
    from ddrsearch.text.rewriting import read_top_drive

    assert read_top_drive("MD/TD service") == ("md/td service", False)


def test_bm25_expand_spells_out_a_top_drive_td_too():
    # adversarial: search --method bm25 --expand still read "TD umbilical" as total depth (the report glossary)
    from ddrsearch.text.rewriting import spell_out_asker_shorthand

    assert spell_out_asker_shorthand("TD umbilical") == ("top drive umbilical", [("td", "top drive")])
    assert spell_out_asker_shorthand("drill to TD") == ("drill to TD", [])
