"""Tests of ddrsearch.text.tokenizer: the shared tokenizer and abbreviation expansion.

Most inputs are real lines of the FORGE 16A(78)-32 reports (report 38 unless
said otherwise), so the expected tokens are what the book's retrievers index.
The property tests (hypothesis) check what must hold for *any* text.
"""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddrsearch.text.glossary as glossary_module
import ddrsearch.text.tokenizer as tokenizer_module
import ddrsearch.text.words as text_module
from ddrsearch.text.glossary import Glossary, expand_abbreviations
from ddrsearch.text.tokenizer import make_tokenizer, tokenize
from ddrsearch.text.words import DEFAULT_STOPWORDS, normalise

# Real lines of report 38 (FORGE-16A-78-32_Drilling_038_2020-11-26.pdf), as the reader gives them.
R38_DRILL = "Drill From 6,360' to 6,507',  (147')  Total ,  32.6' feet per hour."


R38_PARAMS = "WOB 20 TO 35k, Rotary 50, Torque 6,500,  SPP 3200 -3400  GPM  560, DIFF  200 - 300psi"


R38_STUCK = "During the slide  lost tool face and became assembly became stuck"


R38_TRIP_OUT = "Mix and pump dry job.  pump dry pill, Trip out of hole with BHA #20."


R38_TRIP_IN = "Trip in hole to  6,360' , no issues"


R38_UBI = "Rig up Schlumberger run the UBI log from 5.200 to surface."


R38_TEMP = "Temperatures on surface Max 118°"


# Report 17 (same well) writes the shorthand and the words side by side.
R17_TOOH = "TOOH (trip out of hole) with BHA #2.  Break off bit, lay down Scout RSS (rotary steerable)."


def _is_subsequence(short: list[str], long: list[str]) -> bool:
    it = iter(long)
    return all(any(t == u for u in it) for t in short)


POOH_GLOSSARY = Glossary.from_dict(
    {"POOH": "pull out of hole", "TOOH": "trip out of hole", "BHA": "bottom hole assembly", "SO": "slack off"}
)


def test_depths_lose_thousands_comma_and_feet_mark():
    assert tokenize(R38_DRILL) == ["drill", "6360", "6507", "147", "total", "32.6", "feet", "per", "hour"]


def test_depth_written_either_way_is_the_same_token():
    assert tokenize("5,200'") == tokenize("5200") == tokenize("5,200 ft")[:1] == ["5200"]
    assert tokenize("Trip in hole to 5,200'") == ["trip", "in", "hole", "5200"]


def test_drilling_parameters_line():
    assert tokenize(R38_PARAMS) == [
        "wob", "20", "35k", "rotary", "50", "torque", "6500", "spp", "3200", "3400", "gpm", "560", "diff", "200",
        "300", "psi",
    ]


def test_stuck_line():
    assert tokenize(R38_STUCK) == ["during", "slide", "lost", "tool", "face", "became", "assembly", "became", "stuck"]


def test_a_decimal_is_kept_even_when_it_is_a_typo():
    # "5.200" in report 38 is 5,200 ft mistyped; the tokenizer does not guess.
    assert tokenize(R38_UBI) == ["rig", "up", "schlumberger", "run", "ubi", "log", "5.200", "surface"]


def test_degree_sign_is_a_separator():
    assert tokenize(R38_TEMP) == ["temperatures", "on", "surface", "max", "118"]
    assert tokenize("Drilling 65° Tangent") == ["drilling", "65", "tangent"]
    assert tokenize("1.5° fixed bend") == ["1.5", "fixed", "bend"]


def test_header_abbreviations_with_dots_and_slashes():
    assert tokenize("P.U. WT.:270") == ["pu", "wt", "270"]
    assert tokenize("S.O. WT.: 190") == ["so", "wt", "190"]
    assert tokenize("B.O.P. test") == tokenize("BOP test") == ["bop", "test"]
    assert tokenize("MD/TVD: 6507") == ["md/tvd", "6507"]
    # single letters joined by slashes lose them, like dotted ones: P/U = P.U. = PU
    assert tokenize("N/S E/W") == ["ns", "ew"]
    assert tokenize("P/U and S/O weights") == ["pu", "so", "weights"]
    assert tokenize("WELL/JOB INFORMATION") == ["well", "job", "information"]
    assert tokenize("Motor 7/8 5.7 w/ 1.5° fixed bend") == ["motor", "7/8", "5.7", "w/", "1.5", "fixed", "bend"]
    assert tokenize("RPT DATE: 11/26/2020") == ["rpt", "date", "11/26/2020"]


def test_hyphens_possessives_and_hash_marks():
    assert tokenize("PJSM, pre job safety meeting.") == tokenize("PJSM, pre-job safety meeting")
    assert tokenize("FORGE DSM's Leroy Swearingen") == ["forge", "dsm", "leroy", "swearingen"]
    assert tokenize("BHA #20") == tokenize("BHA 20") == ["bha", "20"]
    assert tokenize("9 5/8\" 40#, HCL-80, BTC") == ["9", "5/8", "40", "hcl", "80", "btc"]


def test_times_stay_whole():
    assert tokenize("13:30 15:30 Cut and Slip drilling line") == ["13:30", "15:30", "cut", "slip", "drilling", "line"]


def test_nul_character_inside_a_pdf_word():
    # Some report PDFs have a NUL between two words ("Fixed\x001.25").
    assert tokenize("Fixed\x001.25") == ["fixed", "1.25"]


def test_stopwords_none_keeps_everything():
    assert tokenize("Trip out of hole with BHA #20", stopwords=None) == ["trip", "out", "of", "hole", "with", "bha", "20"]
    assert tokenize("Trip out of hole", stopwords=set()) == ["trip", "out", "of", "hole"]
    assert tokenize("Trip out of hole", stopwords={"trip"}) == ["out", "of", "hole"]


def test_expansion_appends_after_the_abbreviation():
    assert tokenize("POOH", expand=True, glossary=POOH_GLOSSARY) == ["pooh", "pull", "out", "hole"]
    assert tokenize("POOH", expand=True, glossary=POOH_GLOSSARY, stopwords=None) == ["pooh", "pull", "out", "of", "hole"]
    assert expand_abbreviations(["pooh", "bha", "20"], POOH_GLOSSARY) == [
        "pooh", "pull", "out", "hole", "bha", "bottom", "hole", "assembly", "20",
    ]


def test_expansion_on_and_off_give_different_tokens():
    off = tokenize(R17_TOOH)
    on = tokenize(R17_TOOH, expand=True)  # the packaged glossary
    assert off != on
    assert off == [
        "tooh", "trip", "out", "hole", "bha", "2", "break", "off", "bit", "lay", "down", "scout", "rss", "rotary",
        "steerable",
    ]
    assert on[:5] == ["tooh", "trip", "out", "hole", "trip"]
    assert "system" in on and "system" not in off  # rss -> rotary steerable system
    assert _is_subsequence(off, on)  # appending never loses or reorders a token


def test_plain_words_query_matches_shorthand_only_with_expansion():
    line = R38_PARAMS
    query = "standpipe pressure"
    assert not set(tokenize(query)) <= set(tokenize(line))
    assert set(tokenize(query, expand=True)) <= set(tokenize(line, expand=True))


def test_expansion_does_not_recurse():
    g = Glossary.from_dict({"HWDP": "heavy-weight drill pipe", "DP": "drill pipe"})
    assert tokenize("HWDP", expand=True, glossary=g) == ["hwdp", "heavy", "weight", "drill", "pipe"]


def test_expansion_words_that_are_stop_words_are_dropped():
    g = Glossary.from_dict({"W/": "with"})
    assert tokenize("reamer w/ float", expand=True, glossary=g) == ["reamer", "w/", "float"]
    assert tokenize("reamer w/ float", expand=True, glossary=g, stopwords=None) == ["reamer", "w/", "with", "float"]


def test_abbreviation_that_is_a_stop_word_still_expands():
    # A made-up entry, only to show the order of the steps: expansion runs before stop-word removal.
    g = Glossary.from_dict({"TO": "trip out"})
    assert tokenize("to", expand=True, glossary=g) == ["trip", "out"]
    assert tokenize("to", expand=True, glossary=g, stopwords=None) == ["to", "trip", "out"]


def test_dotted_and_plain_spellings_expand_alike():
    assert tokenize("S.O. WT.", expand=True, glossary=POOH_GLOSSARY) == tokenize(
        "SO WT", expand=True, glossary=POOH_GLOSSARY
    ) == ["so", "slack", "off", "wt"]


def test_glossary_is_ignored_without_expand():
    assert tokenize("POOH", glossary=POOH_GLOSSARY) == ["pooh"]


def test_make_tokenizer_fixes_the_settings():
    tok = make_tokenizer(expand=True, glossary=POOH_GLOSSARY)
    assert tok("POOH") == ["pooh", "pull", "out", "hole"]
    plain = make_tokenizer(stopwords=None)
    assert plain("Trip out of hole") == ["trip", "out", "of", "hole"]


REAL_LINES = [R38_DRILL, R38_PARAMS, R38_STUCK, R38_TRIP_OUT, R38_TRIP_IN, R38_UBI, R38_TEMP, R17_TOOH,
              "P.U. WT.:270", "S.O. WT.: 190", "MD/TVD: 6507", "Motor-6.5''  7/8 , 5.7, 0.242 RPG 1.50,* Fi"]


@pytest.mark.parametrize("line", REAL_LINES)
def test_deterministic_and_idempotent_on_real_lines(line):
    toks = tokenize(line)
    assert tokenize(line) == toks
    assert tokenize(normalise(line)) == toks
    assert tokenize(" ".join(toks)) == toks
    raw = tokenize(line, stopwords=None)
    assert tokenize(" ".join(raw), stopwords=None) == raw


def test_docstring_examples_are_correct():
    attempted = 0
    for module in (text_module, tokenizer_module, glossary_module):
        result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0, module.__name__
        attempted += result.attempted
    assert attempted >= 15


any_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(list("0123456789,.'/:-#°\" ABCpuso")),
    ),
    max_size=80,
)


@settings(max_examples=400, deadline=None)
@given(any_text)
def test_tokens_are_lowercase_nonempty_without_whitespace(text):
    for stop in (DEFAULT_STOPWORDS, None):
        for tok in tokenize(text, stopwords=stop):
            assert tok
            assert tok == tok.lower()
            assert not any(ch.isspace() for ch in tok)
            assert tok not in (stop or ())


@settings(max_examples=400, deadline=None)
@given(any_text)
def test_tokenize_is_stable_on_its_own_output(text):
    toks = tokenize(text, stopwords=None)
    assert tokenize(text, stopwords=None) == toks
    assert tokenize(normalise(text), stopwords=None) == toks
    assert tokenize(" ".join(toks), stopwords=None) == toks


@settings(max_examples=200, deadline=None)
@given(any_text)
def test_expansion_only_adds_tokens(text):
    off = tokenize(text, stopwords=None)
    on = tokenize(text, expand=True, glossary=POOH_GLOSSARY, stopwords=None)
    assert _is_subsequence(off, on)
    assert len(on) >= len(off)


def test_slash_dotted_and_plain_shorthand_are_one_token():
    for plain, slashed, dotted in (("PU", "P/U", "P.U."), ("SO", "S/O", "S.O."), ("LD", "L/D", "L.D."),
                                   ("MU", "M/U", "M.U."), ("RU", "R/U", "R.U.")):
        assert tokenize(f"{slashed} weight") == tokenize(f"{plain} weight") == tokenize(f"{dotted} weight")


def test_a_number_glued_to_its_unit_is_two_tokens():
    assert tokenize("DIFF 250psi") == tokenize("DIFF 250 psi") == ["diff", "250", "psi"]
    assert tokenize("500psi over") == ["500", "psi", "over"]
    assert tokenize("9.0ppg") == ["9.0", "ppg"]
    assert tokenize("WOB 35k") == ["wob", "35k"]  # not a unit of GLUED_UNITS: stays glued


def test_unicode_fractions_are_written_out():
    assert tokenize('Drill 12¼" hole') == ["drill", "12", "1/4", "hole"] == tokenize('Drill 12 1/4" hole')
    assert tokenize('Run 9⅝" casing') == ["run", "9", "5/8", "casing"]
    assert "121" not in tokenize('Drill 12¼" hole')
    assert normalise("12½") == "12 1/2" and normalise(normalise("12½")) == normalise("12½")


def test_a_number_without_its_leading_zero_keeps_its_value():
    # ".5 ppg over" was ["5", "ppg", "over"]: it matched reports printing "5 ppg", ten times the weight
    assert tokenize(".5 ppg over") == ["0.5", "ppg", "over"] == tokenize("0.5 ppg over")
    assert tokenize("pump .5bbl (.75 hr)") == ["pump", "0.5", "bbl", "0.75", "hr"]
    assert tokenize("x.5") == ["x", "5"]  # after a letter the dot separates, as before
    assert tokenize("150 -223 psi") == ["150", "223", "psi"]  # a dash is still a range, not a sign


def test_the_leading_zero_is_not_added_after_an_ellipsis_a_bracket_or_for_other_digits():
    """"to...5,000 ft" gave 0.5000 and ".٥" gave "0.٥"; the leading zero is added only to a real decimal point."""
    # before: "to...5,000 ft" gave 0.5000; ".٥" gave "0.٥", which tokenized again as "0", "٥"
    assert tokenize("drilled to...5,000 ft") == ["drilled", "5000", "ft"]
    assert tokenize("(see below).5000") == ["see", "below", "5000"]
    for text in (".٥", "1..5", "-.5 psi", "(.75)"):
        tokens = tokenize(text)
        assert tokenize(" ".join(tokens)) == tokens, text
    assert tokenize("-.5 psi") == ["0.5", "psi"]
