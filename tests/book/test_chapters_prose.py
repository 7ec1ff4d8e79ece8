"""What the book's prose says against what the package and the tables say (the book's sources, read without executing).

Defects pinned, each found by a careful reader:

- chapter 2 named ``ddrsearch.text.words.tokenize`` (and, before, a module
  that did not exist): a learner who typed it got an ImportError; chapter 3
  named ``ddrsearch.retrieval.base.InvertedIndex`` and chapter 9
  ``ddrsearch.retrieval.fusion.HybridRetriever``, neither of which exists;
- chapter 3 said "C3" where every table prints C003;
- appendix D called HNSW's overlap with exact search "recall@10", the name
  chapter 8 retired;
- appendix C gave RR without "0 if none" and never said MRR is uncut;
- chapters 4, 5, 6, 9, 10, 13 and 14 ended without a bridge to the next chapter;
- chapters 11 and 12 held 3,106 and 3,513 words of Markdown prose (two chapters each, not one
  sitting).
"""

from __future__ import annotations

import importlib
import json
import re

import pytest

from conftest import PROJECT
from ddrsearch.book.preview import book_entries

ENTRIES = [e for e in book_entries(PROJECT) if e.path.is_file()]
CHAPTERS = [e for e in ENTRIES if e.number and not e.appendix and e.path.suffix == ".ipynb"]


def _markdown(entry) -> list[str]:
    """The Markdown cells of a notebook, or the text of a .qmd file (front matter left in: it holds no prose)."""
    if entry.path.suffix != ".ipynb":
        return [entry.path.read_text(encoding="utf-8")]
    nb = json.loads(entry.path.read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]


def _prose(entry) -> str:
    """The Markdown of a book file, fenced code blocks removed (inline code kept)."""
    return re.sub(r"```.*?```", "", "\n\n".join(_markdown(entry)), flags=re.S)


def _resolves(dotted: str) -> bool:
    """True when ``dotted`` is an importable module, or an attribute path under one."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.path.stem for e in ENTRIES])
def test_every_package_name_in_the_prose_exists(entry):
    """A `ddrsearch.x.y` name the prose gives a learner to type imports (module, class or function)."""
    names = sorted(set(re.findall(r"`(ddrsearch(?:\.[A-Za-z_]\w*)+)", _prose(entry))))
    missing = [n for n in names if not _resolves(n)]
    assert not missing, f"{entry.path.name} names what the package does not have: {missing}"


def test_the_name_chapter_2_gives_the_tokenizer_is_the_tokenizer():
    """Chapter 2's `ddrsearch.text.tokenize` is the function every retriever tokenizes with."""
    import ddrsearch.text
    from ddrsearch.text.tokenizer import tokenize

    ch2 = next(e for e in CHAPTERS if e.path.stem == "02-rig-shorthand")
    assert "`ddrsearch.text.tokenize`" in _prose(ch2)
    assert ddrsearch.text.tokenize is tokenize


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.path.stem for e in ENTRIES])
def test_report_short_names_are_written_as_the_tables_print_them(entry):
    """Tables print D038 and C003 (short_name); the prose never writes D38 or C3."""
    from ddrsearch.reading.names import short_name

    assert short_name("FORGE-16A-78-32_Completion_003_2021-01-15.pdf") == "C003"
    bad = sorted(set(re.findall(r"(?<![\w-])[DC]\d{1,2}(?![\w.,]?\d)\b", _prose(entry))))
    assert not bad, f"{entry.path.name} writes report names the tables do not print: {bad}"


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.path.stem for e in ENTRIES])
def test_hnsw_overlap_is_not_called_recall(entry):
    """A paragraph about HNSW that says recall@10 also gives chapter 8's name for it, overlap@10."""
    for para in re.split(r"\n\s*\n", _prose(entry)):
        if "HNSW" in para and "recall@10" in para.lower():
            assert "overlap@10" in para, f"{entry.path.name}: HNSW's overlap called recall@10: {para[:120]}"


def test_metric_card_gives_rr_its_zero_and_says_mrr_is_uncut():
    """Appendix C's RR has the 'none found' case and says there is no cut-off, as reciprocal_rank computes."""
    from ddrsearch.evaluation.metrics import reciprocal_rank

    card = (PROJECT / "chapters" / "appendix-metrics.qmd").read_text(encoding="utf-8")
    rr = card[card.index("\\text{RR} ="):].split("$$")[0]
    assert "0 & \\text{if none}" in rr, rr
    assert "no cut-off" in card
    ranking = [f"r{i}" for i in range(40)]
    assert reciprocal_rank(ranking, {"r39": 1}) == pytest.approx(1 / 40)  # rank 40 still counts: uncut
    assert reciprocal_rank(ranking[:10], {"r39": 1}) == 0.0


@pytest.mark.parametrize("pair", list(zip(CHAPTERS, CHAPTERS[1:])),
                         ids=[a.path.stem for a in CHAPTERS[:-1]])
def test_every_chapter_ends_with_a_bridge_to_the_next(pair):
    """Among a chapter's last four Markdown cells, a paragraph leads to the next chapter (its @sec- label)."""
    this, following = pair
    label = re.search(r"\{#(sec-[\w-]+)\}", _markdown(following)[0])[1]
    tail = " ".join("\n\n".join(_markdown(this)[-4:]).split())
    assert f"@{label}" in tail or "next chapter" in tail.lower(), (
        f"{this.path.name} ends without a bridge to {following.path.name} (@{label})")


def test_chapter_6_says_it_is_a_side_road():
    """Chapter 6 (OCR) interrupts the path from 4 to 7: its opening says later chapters do not need it."""
    ch6 = next(e for e in CHAPTERS if e.path.stem.startswith("06-"))
    opening = _markdown(ch6)[0]
    assert "side road" in opening and "@sec-chunking" in opening


@pytest.mark.parametrize("entry", CHAPTERS, ids=[e.path.stem for e in CHAPTERS])
def test_every_chapter_can_be_read_in_a_sitting(entry):
    """A numbered chapter holds less than CHAPTER_PROSE_WORDS of Markdown prose; the rest goes to an appendix."""
    from ddrsearch.book.checks import CHAPTER_PROSE_WORDS, prose_words

    words = prose_words(json.loads(entry.path.read_text(encoding="utf-8"))["cells"])
    assert words < CHAPTER_PROSE_WORDS, (
        f"{entry.path.name}: {words} words of Markdown prose (limit {CHAPTER_PROSE_WORDS}): move secondary "
        "sections to an appendix, leaving a sentence and a cross-reference")
