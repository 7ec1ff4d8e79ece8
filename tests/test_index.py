"""The on-disk index (issue 14): add equals rebuild, a killed add leaves the old index, duplicates, staleness, dash queries."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ddrsearch.cli.argv import move_dash_query
from ddrsearch.cli.command import build_parser, main
from ddrsearch.errors import DuplicateReportError, EmptyCorpusError, SearchIndexError, StaleIndexError
from ddrsearch.reading.report import load_archive
from ddrsearch.retrieval.lexical import BM25Retriever
from ddrsearch.retrieval.passages import Passage
from ddrsearch.stores.disk_index import add_reports, build_index, open_index, stale_reasons
from ddrsearch.stores.generations import current_generation

QUERIES = ["stuck pipe", "pipe became stuck during the slide", "jar", "circulate and condition mud", "TIH",
           # numeric and date questions go through the typed fields stored with the index
           "which day did the bit pass 6,400 ft MD?", "what were we doing on November 26, 2020"]


def _paths(folder: Path, numbers) -> list[Path]:
    return [next(folder.glob(f"FORGE-16A-78-32_Drilling_{n:03d}_*.pdf")) for n in numbers]


def _resave(path: Path) -> None:
    """The same report saved again: same text, other bytes (a new title in the PDF's metadata)."""
    import pymupdf

    doc = pymupdf.open(path)
    doc.set_metadata({"title": "re-exported"})
    tmp = path.with_suffix(".tmp")
    doc.save(tmp)
    doc.close()
    tmp.replace(path)


@pytest.fixture(scope="module")
def embedder():
    from ddrsearch.embedding.encoder import Embedder

    return Embedder()


@pytest.fixture()
def six(archive_folder, tmp_path) -> list[Path]:
    """Reports 36 to 41 copied into a folder of their own (the days of the stuck-pipe story)."""
    folder = tmp_path / "reports"
    folder.mkdir()
    out = []
    for p in _paths(archive_folder, range(36, 42)):
        shutil.copy2(p, folder / p.name)
        out.append(folder / p.name)
    return out


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


_KILL = textwrap.dedent("""
    import os, signal, sys
    import ddrsearch.stores.generations as store
    where = sys.argv[3]
    if where == "bm25":  # half-way through writing the new generation
        import bm25s
        original = bm25s.BM25.save
        def save(self, *a, **k):
            original(self, *a, **k)
            os.kill(os.getpid(), signal.SIGKILL)
        bm25s.BM25.save = save
    else:  # everything written, just before CURRENT is switched (other renames, e.g. the embedding cache's, go on)
        original = os.replace
        def replace(src, dst, *a, **k):
            if str(dst).endswith("CURRENT"):
                os.kill(os.getpid(), signal.SIGKILL)
            return original(src, dst, *a, **k)
        store.os.replace = replace
    from ddrsearch.stores.disk_index import add_reports
    add_reports([sys.argv[2]], sys.argv[1])
""")


@pytest.mark.data
@pytest.mark.parametrize("where", ["bm25", "switch"])
def test_a_process_killed_during_add_leaves_the_previous_index_usable(six, tmp_path, where, embedder):
    folder = tmp_path / "ix"
    build_index(six[:5], folder, embedder=embedder)
    before = current_generation(folder)
    proc = subprocess.run([sys.executable, "-c", _KILL, str(folder), str(six[5]), where],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == -9, proc.stderr  # killed by SIGKILL, not finished
    assert len([d for d in folder.iterdir() if d.name.startswith("gen-")]) == 2  # the half-written one is beside
    after = current_generation(folder)
    assert after.folder == before.folder and after.header == before.header
    index = open_index(folder, embedder=embedder)
    assert {p.report for p in index.retriever.passages} == {p.name for p in six[:5]}
    assert index.retriever.bm25.search("stuck pipe", 3)  # BM25 leg loads and answers
    result = add_reports([six[5]], folder, embedder=embedder)  # the next add works and tidies up
    assert result.added == [six[5].name] and result.generation.header["generation"] == 2
    assert sorted(d.name for d in folder.iterdir() if d.name.startswith("gen-")) == sorted(
        [before.folder.name, result.generation.folder.name])


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


@pytest.mark.data
@pytest.mark.model
def test_search_uses_a_current_index_and_says_when_it_is_stale(six, tmp_path, capsys):
    folder = six[0].parent
    index = tmp_path / "ix"
    assert main(["index", "build", "--dir", str(folder), "--index", str(index)]) == 0
    assert "Indexed 6 reports" in capsys.readouterr().out
    assert main(["index", "status", "--dir", str(folder), "--index", str(index)]) == 0
    assert "current" in capsys.readouterr().out
    assert main(["search", "stuck pipe", "-k", "3", "--dir", str(folder), "--index", str(index)]) == 0
    out, err = capsys.readouterr()
    assert f"index {index}" in out and "D038" in out and err == ""
    _resave(six[2])
    assert main(["search", "stuck pipe", "-k", "3", "--dir", str(folder), "--index", str(index)]) == 0
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "out of date" in err and six[2].name in err and "ddrsearch index build" in err
    assert f"index {index}" not in out


def test_a_query_may_start_with_a_dash():
    parser = build_parser()
    for argv, query, k in ((["search", "-LCM", "-k", "3"], "-LCM", 3),
                           (["search", "-k", "3", "--", "-LCM"], "-LCM", 3),
                           (["search", "--method=bm25", "-LCM"], "-LCM", 5),
                           (["search", "-k3", "-LCM"], "-LCM", 3),
                           (["search", "stuck pipe", "-k", "2"], "stuck pipe", 2)):
        args = parser.parse_args(move_dash_query(argv, parser))
        assert (args.query, args.k) == (query, k)
    assert move_dash_query(["eval", "-k", "3"], parser) == ["eval", "-k", "3"]
    assert "--" in parser._subparsers._group_actions[0].choices["search"].format_help()


@pytest.mark.data
def test_dash_query_from_the_command_line(archive_folder, capsys):
    assert main(["search", "-LCM", "--method", "bm25", "-k", "2", "--no-index"]) == 0
    out = capsys.readouterr().out
    assert "rank" in out or "No report matches" in out


def test_bm25_over_passages_without_words_names_the_reports():
    passages = [Passage("a#1", "a.pdf", ""), Passage("b#1", "b.pdf", "the of and"), Passage("c#1", "c.pdf", "  ")]
    with pytest.raises(EmptyCorpusError) as exc:
        BM25Retriever().index(passages)
    assert "a.pdf, b.pdf, c.pdf" in str(exc.value)


def test_no_index_is_a_clear_error(tmp_path):
    with pytest.raises(SearchIndexError, match="index build"):
        open_index(tmp_path / "nothing")
    with pytest.raises(SearchIndexError, match="index build"):
        add_reports([], tmp_path / "nothing")
