"""Words of a query that no report prints (ddrsearch.text.spelling): misspellings get the nearest printed words, English words none."""

from __future__ import annotations

import pytest

from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.retrieval.pipeline import build_retriever
from ddrsearch.text.spelling import (
    MAX_NOTES,
    LexiconWord,
    PrintedApart,
    Spelling,
    is_english,
    query_words,
    spelling_notes,
)
from ddrsearch.text.tokenizer import tokenize


def test_suggestions_count_a_swap_as_one_edit_and_allow_more_edits_in_longer_words():
    s = Spelling(["lay down BHA", "Cement job", "Cement to surface", "cemented", "slide", "sliding", "test"])
    assert s.suggest("dwon") == ["down"]  # a swap of two letters is one edit (plain Levenshtein: two)
    assert s.suggest("cemnet") == ["cement"]  # six letters: two edits allowed
    assert s.suggest("tst") == ["test"]
    assert s.suggest("cmt") == []  # three letters: one edit only, and "cat"/"cut" are not printed here
    assert s.suggest("cement") == []  # printed: nothing to suggest
    assert s.suggest("slidng") == ["sliding", "slide"]  # nearest first
    counts = Spelling(["rot rot rot", "not"])
    assert counts.suggest("hot") == ["rot", "not"]  # same distance: the word printed more often first


def test_query_words_skip_numbers_short_words_stop_words_and_repeats():
    assert query_words("Stuk pipe at 6,360 ft, stuk again with BHA #4") == ["stuk", "pipe", "again", "bha"]
    assert is_english("hung") and not is_english("stuk")


def test_notes_say_did_you_mean_only_for_words_with_suggestions():
    assert spelling_notes({}) == []
    assert spelling_notes({"dwon": ["down"], "hung": [], "bend": []}) == [
        'no report prints "dwon": did you mean "down"?',
        'no report prints "hung", "bend"; the reports may use other words for them.',
    ]


@pytest.mark.data
def test_few_did_you_mean_notes_on_the_questions_engineers_wrote(archive):
    # noise check: of the 171 questions of the archive and fresh sets, 3 get a "did you mean", all for
    # words neither the reports nor the English word list hold: "DST" (a test the archive never
    # mentions), "cavings" and "cmt" (cement, shorthand the asker's table does not spell out)
    # (the words the reports print as two, "overpull" for "over pull", are not misspellings: counted apart)
    default = build_retriever("hybrid", archive)
    unknown = {q.id: default.unknown_words(q.question) for s in ("archive", "fresh") for q in load_questions(s)}
    suggested = {i: u for i, found in unknown.items()
                 for u in [{w: near for w, near in found.items() if near and not isinstance(near[0], PrintedApart)}]
                 if u}
    assert suggested == {"A116": {"dst": ["dsm", "dct"]}, "A131": {"cavings": ["casing"]},
                         "F18": {"cmt": ["cut", "crt", "cat"]}}
    apart = {w: near[0] for found in unknown.values() for w, near in found.items()
             if near and isinstance(near[0], PrintedApart)}
    assert apart == {"bottomhole": "bottom hole", "downhole": "down hole", "overpull": "over pull",
                     "wellbore": "well bore"}


def test_a_word_the_reports_print_as_two_is_offered_as_two_not_called_unprinted():
    # before: 'no report prints "overpull"; the reports may use other words for it.' above rows quoting "over pull"
    s = Spelling(["Worked pipe with 50k over pull", "pull over the hole"])
    assert s.unknown("any overpull on the trip out?") == {"overpull": ["over pull"]}
    assert spelling_notes(s.unknown("any overpull on the trip out?")) == [
        'no report prints "overpull" as one word; they print "over pull".']
    assert s.splits("pullover") == ["pull over"]
    assert s.splits("pipeover") == []  # words never printed side by side
    assert s.splits("overpul") == []  # nor a part the reports never print


@pytest.fixture(scope="module")
def default_archive(archive):
    return build_retriever("hybrid", archive)


@pytest.mark.data
def test_a_word_printed_only_in_a_header_table_is_not_called_unprinted(default_archive):
    """A word printed only in a header table (D016's BHA: STRAIGHT) was called printed by no report; only rows were
    checked.
    """
    # before: 'no report prints "straight"', though D016's BHA table prints STRAIGHT (only rows were checked)
    assert default_archive.unknown_words("hole straight") == {}
    assert "straight" in default_archive._spelling


@pytest.mark.data
def test_english_words_and_contractions_get_no_note(default_archive):
    """English words (how, which, highest) were named as unprinted and "didn't" gave 'did you mean "did"'; they get no
    note.
    """
    # before: "how", "which", "much", "pass", "highest" were named; "didn't" gave 'did you mean "did"?'
    for q in ("how much mud did we lose?", "which day did we pass 8,000 ft?", "what was the highest mud weight?",
              "didn't the pipe come free? couldn't we circulate?"):
        assert default_archive.unknown_words(q) == {}, q
    assert query_words("didn't we POOH, wasn't it") == ["pooh"]


@pytest.mark.data
def test_a_misspelt_stop_word_gets_no_suggestion_and_stop_words_are_never_suggested(default_archive):
    """Misspelt stop words got suggestions (teh -> the), words the search drops anyway; stop words are never suggested.
    """
    # before: teh -> "the", wiht -> "with": words the search drops anyway
    assert default_archive.unknown_words("teh pipe wiht slips") == {}
    assert default_archive.unknown_words("P/U weigth")["weigth"][0] == "weight"
    assert "with" not in default_archive.unknown_words("P/U weigth")["weigth"]


@pytest.mark.data
def test_a_dropped_letter_is_suggested_before_an_extra_one(default_archive):
    """"stk" came before "stuck" for "stuk"; a dropped letter is suggested before an extra one."""
    # "stk" (strokes, printed in every pump table) used to come before "stuck" for "stuk"
    assert default_archive.unknown_words("stuk pipe") == {"stuk": ["stuck", "stk"]}


def test_notes_are_capped_for_a_very_long_query():
    """A 10,000-word query printed 368 note lines, one of 97,069 characters; the notes are capped."""
    # before: a 10,000-word query printed 368 note lines, one of 97,069 characters
    words = [f"zq{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}x{i}" for i in range(400)]
    unknown = {w: [] for w in words} | {"stuk": ["stuck"]}
    lines = spelling_notes(unknown)
    assert len(lines) <= MAX_NOTES + 2 and max(len(line) for line in lines) < 400
    assert "and 395 more" in lines[-1]


def test_spelling_refuses_a_string_and_a_limit_below_one():
    """Spelling refuses a string instead of a list of texts and a limit below one; full-width letters are folded."""
    with pytest.raises(TypeError, match="list of texts"):
        Spelling("stuck pipe")
    with pytest.raises(ValueError, match="at least 1"):
        Spelling(["stuck pipe"]).suggest("stuk", limit=0)
    assert Spelling(["stuck pipe"]).suggest("ｓｔｕｋ") == ["stuck"]  # full-width letters are folded


def test_letters_glued_to_digits_count_as_printed_and_signs_keep_the_leading_zero():
    """"skc" (printed in SKC613M) was called unprinted and "<.5" tokenized as "5"; long words are cut in the note."""
    # before: "skc" (printed in SKC613M) was called unprinted; "<.5" tokenized as "5"
    assert "skc" in Spelling(["Bit SKC613M at 4,460ft"])
    assert tokenize("<.5 ppg") == ["0.5", "ppg"] and tokenize("±.5") == ["0.5"]
    long = "x" * 60
    assert spelling_notes({long: []})[0].startswith(f'no report prints "{"x" * 40}..."')


@pytest.mark.data
def test_a_misspelt_word_the_reports_never_print_gets_the_lexicons_nearest_word(default_archive):
    """Before: 'hihgest' got no suggestion: the reports never print 'highest', so no printed word was within 2 edits.
    After: the nearest word of the drilling lexicon is offered and the note says the reports do not print it."""
    unknown = default_archive.unknown_words("what was the hihgest ROP")
    assert unknown == {"hihgest": ["highest"]} and isinstance(unknown["hihgest"][0], LexiconWord)
    assert spelling_notes(unknown) == ['no report prints "hihgest": did you mean "highest"? (a drilling word no '
                                       'report prints either: the search reads it by meaning only)']
    assert default_archive.unknown_words("bit balling in the lateral") in ({}, {"balling": []})  # lexicon: no guess
    assert default_archive.unknown_words("downhole motor") == {"downhole": ["down hole"]}  # printed as two words


def test_words_side_by_side_count_within_one_phrase_only():
    # adversarial: "casing" and "drilling" sat together only across two cells ("Intermediate Casing" / "Drilling"),
    # yet the note said 'they print "casing drilling"'; and "rigup" (for the "Rig up" printed 55 times) got none
    s = Spelling(["Intermediate Casing\nDrilling"], phrases=["Intermediate Casing", "Drilling", "Rig up wireline"])
    assert s.splits("casingdrilling") == [] and s.splits("rigup") == ["rig up"]
    assert Spelling(["Cement 7\" casing; Test lines"]).splits("casingtest") == []  # a punctuation mark between
    with pytest.raises(TypeError, match="list of texts"):
        Spelling(["x"], phrases="Rig up")


def test_a_very_long_word_is_named_quickly_and_without_a_suggestion():
    # adversarial: an 88,000-letter "word" took 2 min 47 s in search (the contraction pattern was quadratic,
    # and edit distances to every printed word were computed for it)
    from ddrsearch.text.spelling import MAX_WORD_LETTERS

    s = Spelling(["150k over pull"])
    word = "overpull" * 11000
    assert s.unknown(word) == {word: []} and s.splits("overpull" * 6) == [] and MAX_WORD_LETTERS == 40
    assert query_words(f"didn't {word}") == [word]


@pytest.mark.parametrize("mark", ["\uff0c", "\u2026", "\r", "\u2028", " \u2014 ", " - ", "\t"])
def test_no_pair_across_a_mark_of_any_script(mark):
    # second adversarial pass: full-width commas, an ellipsis, dashes, spaced hyphens ("Black - green") and line
    # breaks other than \n joined two cells' words
    assert Spelling(["x"], phrases=[f"Intermediate Casing{mark}Drilling"]).splits("casingdrilling") == []


def test_texts_given_as_a_generator_are_read_once_for_both_uses():
    # second adversarial pass: the default phrases re-read a spent generator, so no split was ever offered
    assert Spelling(t for t in ["150k over pull, pulled free"]).splits("overpull") == ["over pull"]


def test_a_split_with_a_two_letter_part_comes_after_the_printed_words_near_it():
    s = Spelling(["Cementing casing", "cement in place", "Rig up wireline"])
    assert s.unknown("cementin")["cementin"][:2] == ["cementing", "cement"]
    assert s.unknown("rigup") == {"rigup": ["rig up"]}
