"""The rig-terms table (ddrsearch.text.rewriting.add_rig_terms): the asker's plain words followed by the words
the reports print for the same thing, its loader's errors, and the lever on the archive."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import ddrsearch
from ddrsearch.errors import GlossaryError
from ddrsearch.evaluation.leverbench import RIG_TERMS
from ddrsearch.retrieval.pipeline import DEFAULT_LEVERS, build_retriever
from ddrsearch.text.rewriting import RigTerm, add_rig_terms, load_rig_terms, rewrite_query, rig_terms
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


def test_the_default_pipeline_leaves_the_table_off():
    # the held-out questions did not show a gain beyond chance (chapters/12-improving-retrieval.ipynb)
    assert "rig_terms" not in DEFAULT_LEVERS and RIG_TERMS == {"rig_terms": True}


@pytest.mark.data
@pytest.mark.model
def test_the_lever_finds_the_drilling_line_for_the_hoisting_cable(archive):
    d029 = "FORGE-16A-78-32_Drilling_029_2020-11-17.pdf"
    query = "rewinding the hoisting cable onto the winch"
    off = build_retriever("hybrid", archive)
    on = build_retriever("hybrid", archive, **RIG_TERMS)
    assert on.rewrite(query) != off.rewrite(query)
    assert d029 not in [h.report for h in off.search(query, 5)]
    top = on.search(query, 3)
    assert d029 in [h.report for h in top]
    assert on.with_weight(0.5).rig_terms is True


def _modules_with_examples():
    for info in pkgutil.iter_modules(ddrsearch.__path__):
        if info.name in ("app", "__main__"):  # the app imports streamlit; __main__ runs the command line
            continue
        yield info.name


@pytest.mark.parametrize("name", sorted(_modules_with_examples()))
def test_docstring_examples_of_every_module(name):
    module = importlib.import_module(f"ddrsearch.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, report=False)
    assert result.failed == 0, f"ddrsearch.{name}: {result.failed} of {result.attempted} examples fail"


def test_your_own_table_by_path(tmp_path):
    from ddrsearch.retrieval.levered import TunedHybridRetriever

    path = tmp_path / "my_rig.csv"
    path.write_text(HEADER + 'hoisting cable | wire rope,drilling line,"our reports say ""drilling line"""\n',
                    encoding="utf-8")
    mine = TunedHybridRetriever(rig_terms=path)
    assert mine.rewrite("wire rope rewound") == "wire rope drilling line rewound"
    assert mine.rewrite("rig blackout") == "rig blackout"  # only the table given is used
    assert TunedHybridRetriever(rig_terms=True).rewrite("rig blackout").startswith("rig blackout lost power")
    assert TunedHybridRetriever().rewrite("rig blackout") == "rig blackout"
    assert mine.with_weight(0.3).rewrite("wire rope") == "wire rope drilling line"


def test_a_bad_rig_terms_value_is_refused(tmp_path):
    from ddrsearch.retrieval.levered import TunedHybridRetriever

    with pytest.raises(ValueError, match="rig_terms must be True, False or the path"):
        TunedHybridRetriever(rig_terms=1.5)
    with pytest.raises(GlossaryError, match="Cannot read the rig-terms table"):
        TunedHybridRetriever(rig_terms=tmp_path / "missing.csv")
