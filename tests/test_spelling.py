"""Words of a query that no report prints: misspellings get the nearest printed words, English words none."""

from __future__ import annotations

import pytest

from ddrsearch.cli.command import main
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.retrieval.pipeline import build_retriever
from ddrsearch.text.spelling import Spelling, is_english, query_words, spelling_notes


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


@pytest.fixture(scope="module")
def default_sample(sample):
    return build_retriever("hybrid", sample)


def test_the_default_pipeline_names_misspelt_and_unprinted_words(default_sample):
    assert default_sample.unknown_words("stuk pipe")["stuk"][0] == "stuck"
    # "while" is a stop word of the default's BM25 leg and "sliding" is stemmed: nothing unknown
    assert default_sample.unknown_words("pipe stuck while sliding") == {}
    # the asker's shorthand is spelt out before the check, and framing words are not checked
    assert default_sample.unknown_words("When did we POOH?") == {}
    # English words the reports do not print are spelt right: no note (the dense leg reads them)
    assert default_sample.unknown_words("drill string got hung up") == {}


def test_search_and_ask_print_the_notes(capsys, archive_folder):
    assert main(["search", "stuk pipe", "-k", "2"]) == 0
    assert 'note: no report prints "stuk": did you mean "stuck"' in capsys.readouterr().err
    assert main(["ask", "when did the pipe get stuk"]) == 0
    assert 'note: no report prints "stuk": did you mean "stuck"' in capsys.readouterr().err
    assert main(["search", "pipe stuck while sliding", "-k", "2"]) == 0
    assert "no report prints" not in capsys.readouterr().err


def test_few_did_you_mean_notes_on_the_questions_engineers_wrote(archive):
    # noise check: of the 171 questions of the archive and fresh sets, 3 get a "did you mean", all for
    # words neither the reports nor the English word list hold: "DST" (a test the archive never
    # mentions), "cavings" and "cmt" (cement, shorthand the asker's table does not spell out)
    default = build_retriever("hybrid", archive)
    suggested = {q.id: u for s in ("archive", "fresh") for q in load_questions(s)
                 for u in [{w: near for w, near in default.unknown_words(q.question).items() if near}] if u}
    assert suggested == {"A116": {"dst": ["dsm", "dct"]}, "A131": {"cavings": ["casing"]},
                         "F18": {"cmt": ["cut", "crt", "cat"]}}
