"""Tests of ddrsearch.text.words: the normaliser and the stop words."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ddrsearch.text.tokenizer import tokenize
from ddrsearch.text.words import DEFAULT_STOPWORDS, normalise

R38_TRIP_OUT = "Mix and pump dry job.  pump dry pill, Trip out of hole with BHA #20."


R38_TRIP_IN = "Trip in hole to  6,360' , no issues"


def test_in_and_out_are_not_stop_words():
    out = tokenize(R38_TRIP_OUT)
    inn = tokenize(R38_TRIP_IN)
    assert out == ["mix", "pump", "dry", "job", "pump", "dry", "pill", "trip", "out", "hole", "bha", "20"]
    assert inn == ["trip", "in", "hole", "6360", "no", "issues"]
    assert tokenize("trip in hole") != tokenize("trip out of hole")
    assert {"in", "out", "on", "off", "up", "down", "no", "not", "back"}.isdisjoint(DEFAULT_STOPWORDS)


def test_normalise_case_space_quotes_dashes():
    assert normalise("  TRIP  OUT of\nHOLE\t") == "trip out of hole"
    assert normalise("\u201cslick\u201d \u2018BHA\u2019 6,360\u2032") == "\"slick\" 'bha' 6,360'"
    assert normalise("3200 \u2013 3400 \u2014 3500 \u2212 1") == "3200 - 3400 - 3500 - 1"
    assert normalise("\uff36\uff32\uff33\uff33 \ufb01ll") == "vrss fill"  # full-width letters, "fi" ligature
    assert normalise("soft\u00adhyphen zero\u200bwidth") == "softhyphen zerowidth"
    assert normalise("") == "" and normalise(" \n\t ") == ""


def test_normalise_degree_sign():
    assert normalise("Max 118°") == "max 118°"
    assert normalise("Max 118\u00ba") == "max 118°"  # masculine ordinal typed for degrees
    assert normalise("Max 118\u02da") == "max 118°"  # ring above typed for degrees


def test_normalise_rejects_non_text():
    with pytest.raises(TypeError):
        normalise(b"bytes")  # type: ignore[arg-type]


any_text = st.text(
    alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(list("0123456789,.'/:-#°\" ABCpuso")),
    ),
    max_size=80,
)


@settings(max_examples=400, deadline=None)
@given(any_text)
def test_normalise_is_idempotent(text):
    once = normalise(text)
    assert normalise(once) == once
    assert once == once.strip()
    assert "  " not in once


def test_every_control_character_becomes_a_space_and_every_format_character_goes():
    """Each Cc character (tabs, NUL, C1 controls) reads as a space, each Cf one (soft hyphen, ZWSP, BOM) is dropped."""
    import unicodedata

    from ddrsearch.text.words import normalize

    chars = [chr(c) for c in range(0xE0080) if unicodedata.category(chr(c)) in ("Cc", "Cf")]
    assert len(chars) > 100
    for ch in chars:
        want = "pipe stuck" if unicodedata.category(ch) == "Cc" else "pipestuck"
        assert normalize(f"pipe{ch}stuck") == want, f"U+{ord(ch):04X}"
    assert normalize("pipe\u00a0stuck \u00e9") == "pipe stuck \u00e9"  # printable text is left as it is
