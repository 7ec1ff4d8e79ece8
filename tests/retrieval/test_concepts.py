"""ddrsearch.retrieval.concepts: the plain words of the lexicon terms a row uses, added to its chunk's context."""

from __future__ import annotations

import pytest

from ddrsearch.retrieval.concepts import MAX_CONCEPT_WORDS, ConceptTagger, default_tagger


def test_a_row_using_pooh_carries_pull_out_of_hole_words():
    tagger = default_tagger()
    assert "pulled out" in tagger.plain_words("POOH to shoe", "plain")
    assert "Pull out of hole" in tagger.plain_words("POOH to shoe", "definition")
    assert tagger.plain_words("POOH to shoe", "") == ""


def test_the_longest_term_wins_and_each_printed_term_counts_once():
    tagger = default_tagger()
    terms = [e.term for e in tagger.concepts("Trip out of hole to 2000 ft, then trip out of hole again")]
    assert terms[0] == "trip out of hole" and "trip out" not in terms and terms.count("trip out of hole") == 1


def test_measurement_terms_add_nothing():
    # units and parameters are printed on every drilling row: their words would be the same on all of them
    tagger = default_tagger()
    assert all(e.kind != "measurement" for e in tagger.concepts("WOB 25 klbs, 80 RPM, SPP 2500 psi, 600 GPM"))


def test_the_words_added_are_capped():
    tagger = ConceptTagger(max_terms=50, per_term=5)
    row = "POOH, lay down BHA, rig up, raise derrick, nipple up BOP, test BOP, circulate, ream, wash, trip in hole"
    assert len(tagger.plain_words(row).split()) <= MAX_CONCEPT_WORDS


def test_bad_modes_and_sizes_are_refused():
    with pytest.raises(ValueError, match="concepts must be one of"):
        default_tagger().plain_words("POOH", "synonyms")
    with pytest.raises(ValueError, match="max_terms"):
        ConceptTagger(max_terms=0)


@pytest.mark.data
def test_switched_off_the_chunks_are_the_default_ones(report38):
    from ddrsearch.retrieval.chunking import operation_chunks

    assert operation_chunks(report38, concepts="") == operation_chunks(report38)


@pytest.mark.data
def test_switched_on_only_the_context_changes_and_it_holds_the_rows_plain_words(report38):
    from ddrsearch.retrieval.chunking import operation_chunks

    plain, expanded = operation_chunks(report38), operation_chunks(report38, concepts="plain")
    assert "".join(p.text for p in plain) == "".join(p.text for p in expanded)
    tagger = default_tagger()
    for p in (p for p in expanded if "." not in p.passage_id.rsplit("#", 1)[1]):  # a row's parts share its words
        words = tagger.plain_words(p.text, "plain")
        assert (words in p.context) if words else not p.context.endswith("; ")
    assert any(tagger.plain_words(p.text, "plain") for p in expanded)
    with pytest.raises(ValueError, match="concepts must be one of"):
        operation_chunks(report38, concepts="yes")
