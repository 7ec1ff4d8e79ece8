"""The on-disk index (ddrsearch.stores.disk_index): add equals rebuild, duplicates, staleness, its folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from ddrsearch.cli.command import main
from ddrsearch.errors import DuplicateReportError, SearchIndexError, StaleIndexError
from ddrsearch.reading.report import load_archive
from ddrsearch.stores.disk_index import add_reports, build_index, open_index, stale_reasons
from ddrsearch.stores.generations import current_generation

QUERIES = ["stuck pipe", "pipe became stuck during the slide", "jar", "circulate and condition mud", "TIH",
           # numeric and date questions go through the typed fields stored with the index
           "which day did the bit pass 6,400 ft MD?", "what were we doing on November 26, 2020"]


def _resave(path: Path) -> None:
    """The same report saved again: same text, other bytes (a new title in the PDF's metadata)."""
    import pymupdf

    doc = pymupdf.open(path)
    doc.set_metadata({"title": "re-exported"})
    tmp = path.with_suffix(".tmp")
    doc.save(tmp)
    doc.close()
    tmp.replace(path)


@pytest.mark.data
@pytest.mark.model
def test_add_one_day_at_a_time_equals_a_full_rebuild(six, tmp_path, embedder):
    grown, full = tmp_path / "grown", tmp_path / "full"
    build_index(six[:3], grown, embedder=embedder)
    first = add_reports(six[3:4], grown, embedder=embedder)
    assert first.added == [six[3].name] and first.passages > 0
    second = add_reports(six[5:3:-1], grown, embedder=embedder)  # two days at once, in the wrong order
    assert sorted(second.added) == sorted(p.name for p in six[4:])
    build_index(six, full, embedder=embedder)
    a, b = current_generation(grown), current_generation(full)
    assert [p.passage_id for p in a.passages()] == [p.passage_id for p in b.passages()]
    assert a.passages() == b.passages()
    assert np.array_equal(a.vectors(), b.vectors())
    assert [r["file_name"] for r in a.header["reports"]] == [r["file_name"] for r in b.header["reports"]]
    assert a.header["generation"] == 3 and b.header["generation"] == 1
    ia, ib = open_index(grown, embedder=embedder), open_index(full, embedder=embedder)
    for q in QUERIES:
        assert np.array_equal(ia.retriever.bm25.passage_scores(q), ib.retriever.bm25.passage_scores(q), equal_nan=True)
        assert ia.search(q, 6) == ib.search(q, 6)


@pytest.mark.data
@pytest.mark.model
def test_loaded_index_gives_the_pipeline_s_results(six, tmp_path, embedder):
    from ddrsearch.reading.report import read_reports
    from ddrsearch.retrieval.pipeline import build_retriever

    build_index(six, tmp_path / "ix", embedder=embedder)
    index = open_index(tmp_path / "ix", embedder=embedder)
    direct = build_retriever("hybrid", read_reports(six))
    for q in QUERIES:
        assert index.search(q, 5) == direct.search(q, 5)
    if getattr(direct, "structured", 0):
        assert index.retriever.structured_match(QUERIES[-1]) == direct.structured_match(QUERIES[-1]) is not None
    assert index.search("stuck pipe", 3, weight=0.0) == direct.with_weight(0.0).search("stuck pipe", 3)


@pytest.mark.model
@pytest.mark.data
def test_duplicates_are_refused_and_re_adding_is_a_no_op(six, tmp_path, embedder, capsys):
    folder = tmp_path / "ix"
    build_index(six[:4], folder, embedder=embedder)
    twin = tmp_path / "DDR_41 (1).pdf"
    shutil.copy2(six[3], twin)
    with pytest.raises(DuplicateReportError) as exc:
        add_reports([twin], folder, embedder=embedder)
    assert twin.name in str(exc.value) and six[3].name in str(exc.value)
    again = add_reports([six[2]], folder, embedder=embedder)
    assert again.unchanged == [six[2].name] and not again.added
    assert "already indexed, unchanged" in again.summary()
    assert current_generation(folder).header["generation"] == 1  # nothing written
    with pytest.raises(DuplicateReportError, match="same file"):
        add_reports([six[4], shutil.copy2(six[4], tmp_path / "copy.pdf")], folder, embedder=embedder)
    shutil.copy2(six[0], six[0].parent / "DDR_36 (1).pdf")
    with pytest.raises(DuplicateReportError) as exc:
        load_archive(six[0].parent)
    assert "DDR_36 (1).pdf" in str(exc.value) and six[0].name in str(exc.value)
    assert main(["manifest", str(six[0].parent), "--out", str(tmp_path / "m.csv")]) == 0
    err = capsys.readouterr().err
    assert "identical files" in err and "DDR_36 (1).pdf" in err and six[0].name in err


@pytest.mark.model
@pytest.mark.data
def test_staleness_names_what_changed(six, tmp_path, embedder):
    folder = tmp_path / "ix"
    gen = build_index(six[:5], folder, embedder=embedder)
    assert stale_reasons(gen, corpus=six[:5], model_key=embedder.source.key) == []
    reasons = stale_reasons(gen, corpus=six, model_key=embedder.source.key)
    assert reasons == [f"1 report(s) are not indexed yet ({six[5].name})"]
    assert "embedding model changed" in stale_reasons(gen, corpus=six[:5], model_key="sha256-0000")[0]
    # an index over other reports (the archive's, while the search is over your own folder) is stale
    assert stale_reasons(gen, corpus=six[:2], model_key=embedder.source.key) == [
        f"it holds 3 report(s) that are not among the 2 searched ({', '.join(p.name for p in six[2:5])})"]
    _resave(six[1])
    assert stale_reasons(gen, corpus=six[:5], model_key=embedder.source.key) == [
        f"{six[1].name} changed since it was indexed"]
    result = add_reports([six[1]], folder, embedder=embedder)  # a changed report replaces the indexed one
    assert result.replaced == [six[1].name] and not result.added
    assert stale_reasons(result.generation, corpus=six[:5], model_key=embedder.source.key) == []
    header = dict(result.generation.header,
                  code=dict(result.generation.header["code"], **{"chunking.py": "0" * 64}))
    stale = type(gen)(gen.folder, header)
    assert "code or settings changed (chunking.py" in stale_reasons(stale, model_key=embedder.source.key)[0]
    import json

    (result.generation.folder / "header.json").write_text(json.dumps(header))
    with pytest.raises(StaleIndexError, match="Rebuild"):
        add_reports([six[5]], folder, embedder=embedder)


def test_no_index_is_a_clear_error(tmp_path):
    with pytest.raises(SearchIndexError, match="index build"):
        open_index(tmp_path / "nothing")
    with pytest.raises(SearchIndexError, match="index build"):
        add_reports([], tmp_path / "nothing")


def test_your_own_archive_gets_its_own_index_folder(tmp_path, monkeypatch):
    """Your own archive (DDRSEARCH_MANIFEST and DDRSEARCH_ARCHIVE_DIR) shared the book's index folder, each build
    replacing the other.
    """
    # README recipe: DDRSEARCH_MANIFEST and DDRSEARCH_ARCHIVE_DIR at your reports, then --corpus archive; the index
    # went to <base>/archive, so "index build" overwrote the book's index and the two kept replacing each other
    from ddrsearch.stores.disk_index import default_index_dir

    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "idx"))
    monkeypatch.delenv("DDRSEARCH_MANIFEST", raising=False)
    monkeypatch.delenv("DDRSEARCH_ARCHIVE_DIR", raising=False)
    book = default_index_dir("archive")
    assert book == tmp_path / "idx" / "archive"
    (tmp_path / "my_reports").mkdir()
    (tmp_path / "my_manifest.csv").write_text("file_name,sha256\n")
    monkeypatch.setenv("DDRSEARCH_MANIFEST", str(tmp_path / "my_manifest.csv"))
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", str(tmp_path / "my_reports"))
    mine = default_index_dir("archive")
    assert mine != book and mine.parent == book.parent and mine.name.startswith("archive-my_reports-")
    assert default_index_dir("archive") == mine  # the same folder every time
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", str(tmp_path / "other"))
    assert default_index_dir("archive") != mine


def test_index_folder_follows_what_differs_from_the_book(tmp_path, monkeypatch):
    """The index folder moved for the book's own folder, stayed for ``--archive DIR``, and a long folder name failed;
    it follows what differs from the book.
    """
    # before: DDRSEARCH_ARCHIVE_DIR at the book's own folder moved the index; --archive DIR still
    # wrote the book's index; a 240-character folder name made search fail with "File name too long"
    from ddrsearch.data.folders import book_archive_dir
    from ddrsearch.stores.disk_index import default_index_dir

    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "idx"))
    monkeypatch.delenv("DDRSEARCH_MANIFEST", raising=False)
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", str(book_archive_dir()))
    assert default_index_dir("archive") == tmp_path / "idx" / "archive"
    other = tmp_path / "other"
    assert default_index_dir("archive", archive=other).name.startswith("archive-other-")
    long = tmp_path / ("x" * 240)
    assert len(default_index_dir("archive", archive=long).name) < 80
    assert len(default_index_dir(folder=long).name) < 80


@pytest.mark.data
@pytest.mark.model
def test_an_index_build_leaves_the_lexicon_vectors_in_the_embedding_cache(tmp_path):
    """A new reader's first search using the lexicon took about 70 s after 'index build' (the lexicon's vectors
    were computed at that search); the build computes them, so they are in the cache when it ends."""
    from ddrsearch.data.folders import sample_paths
    from ddrsearch.embedding.encoder import Embedder
    from ddrsearch.stores.disk_index import build_index

    cache = tmp_path / "embeddings"
    build_index(sample_paths(), tmp_path / "ix", embedder=Embedder(cache_dir=cache))
    assert list(cache.glob("lexicon-*.npy")) and list(cache.glob("lexicon-*.npy.sha256"))


@pytest.mark.data
@pytest.mark.model
def test_vectors_of_the_wrong_width_or_not_finite_and_nested_json_are_a_damaged_index(six, tmp_path, embedder):
    """The adversarial re-check: vectors.npy 2 numbers wide gave a raw matmul error at the first search, NaN
    vectors searched silently, and passages.json nested 100,000 deep 'maximum recursion depth exceeded'. Each
    is now 'damaged', naming the file."""

    import numpy as np

    from ddrsearch.errors import SearchIndexError

    generation = build_index(six, tmp_path / "ix", embedder=embedder)
    vectors = generation.folder / "vectors.npy"
    good = np.load(vectors)
    for bad in (np.ascontiguousarray(good[:, :2]), np.full_like(good, np.nan)):
        np.save(vectors, bad)
        with pytest.raises(SearchIndexError, match=r"is damaged \(vectors.npy: .*where the header says 384"):
            open_index(tmp_path / "ix", embedder=embedder)
    np.save(vectors, good)
    (generation.folder / "passages.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(SearchIndexError, match=r"is damaged \(passages.json: "):
        open_index(tmp_path / "ix", embedder=embedder)


@pytest.mark.data
@pytest.mark.model
def test_edited_structured_records_in_the_header_are_a_damaged_index(six, tmp_path, embedder):
    """The adversarial pass: header.json's structured records with bits [[12.25, 0, inf]] searched silently
    (every report 'in the 12-1/4'), and a string bit size stopped the search with a TypeError traceback."""
    import json

    generation = build_index(six[:5], tmp_path / "ix", embedder=embedder)
    path = generation.folder / "header.json"
    header = json.loads(path.read_text())
    for bits in ([[12.25, 0.0, float("inf")]], [["12.25", 0.0, 100.0]]):
        header["structured"][0]["bits"] = bits
        path.write_text(json.dumps(header))
        with pytest.raises(SearchIndexError, match=r"is damaged \(header.json: structured record 0 .*bits"):
            open_index(tmp_path / "ix", embedder=embedder)
        # nor are they carried into a new generation by an add (which said 'added 1 report(s)')
        with pytest.raises(SearchIndexError, match=r"is damaged \(header.json: structured record 0 .*bits"):
            add_reports(six[5:], tmp_path / "ix", embedder=embedder)
        assert current_generation(tmp_path / "ix").header["generation"] == 1


@pytest.mark.data
@pytest.mark.model
@pytest.mark.parametrize("edit", [{"sections": "0.3"}, {"sections": None}, {"sections": 5}, {"bogus": 1}])
def test_edited_pipeline_settings_in_the_header_are_a_damaged_index(six, tmp_path, embedder, edit):
    """The adversarial pass: header.json's settings with the new sections score a string or null, or an unknown
    option, stopped 'ddrsearch search' with a TypeError traceback; sections 5 with 'sections must be a score
    from 0 to 1' and no index named. Each is now 'damaged (header.json: settings hybrid: ...)'."""
    import json

    generation = build_index(six[:2], tmp_path / "ix", embedder=embedder)
    path = generation.folder / "header.json"
    header = json.loads(path.read_text())
    header["settings"]["hybrid"].update(edit)
    path.write_text(json.dumps(header))
    with pytest.raises(SearchIndexError, match=r"is damaged \(header.json: settings hybrid: "):
        open_index(tmp_path / "ix", embedder=embedder)
