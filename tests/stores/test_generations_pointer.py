"""``CURRENT`` is not trusted: it must name a generation folder inside the index (issue 26, stores.generations)."""

from __future__ import annotations

import json

import pytest

from ddrsearch.errors import SearchIndexError
from ddrsearch.stores.generations import FORMAT, current_generation

GOOD = "gen-000001-1a2b3c"


@pytest.fixture()
def index(tmp_path):
    """An index folder with one generation (a header only), a folder outside it with a header too."""
    folder = tmp_path / "ix"
    for gen in (folder / GOOD, tmp_path / "outside"):
        gen.mkdir(parents=True)
        (gen / "header.json").write_text(json.dumps({"format": FORMAT, "settings": {}, "reports": []}))
    (folder / "gen-000002-ffffff").symlink_to(tmp_path / "outside")
    return folder


def test_a_current_naming_a_generation_folder_is_read(index):
    (index / "CURRENT").write_text(GOOD + "\n")
    assert current_generation(index).folder == index / GOOD


@pytest.mark.parametrize("content", [
    "../outside", "/tmp", "gen-000001-1a2b3c/../../outside", "gen-000001-1a2b3c/", "..", "", "x" * 5000,
    "gen-1-abc", "gen-000001-1A2B3C", "gen-\u0660\u0660\u0660\u0660\u0660\u0661-1a2b3c"])
def test_a_current_holding_anything_but_a_generation_name_is_refused_naming_the_file_and_the_repair(index, content):
    """Before: CURRENT's text was joined to the index folder as it was ('../outside' read a header outside the
    index). After: anything but gen-NNNNNN-xxxxxx is a SearchIndexError naming CURRENT and how to repair it."""
    (index / "CURRENT").write_text(content)
    with pytest.raises(SearchIndexError) as exc:
        current_generation(index)
    message = str(exc.value)
    assert f"The index pointer {index / 'CURRENT'} holds" in message and "not a generation name" in message
    assert "Repair it: write the name of one of the index's gen-NNNNNN-xxxxxx folders" in message
    assert "ddrsearch index build" in message and len(message) < 600


@pytest.mark.parametrize("name, why", [("gen-000009-abcdef", "missing"), ("gen-000002-ffffff", "a link out")])
def test_a_current_naming_a_missing_folder_or_a_link_out_of_the_index_is_refused(index, name, why):
    (index / "CURRENT").write_text(name)
    with pytest.raises(SearchIndexError, match=f"names {name}, which is not a folder of "):
        current_generation(index)


def test_a_current_that_is_not_text_is_refused(index):
    (index / "CURRENT").write_bytes(b"\xff\xfe\x00gen")
    with pytest.raises(SearchIndexError, match="cannot be read .*Repair it"):
        current_generation(index)


@pytest.mark.parametrize("kind", ["a link", "a folder", "not a regular file"])
def test_a_current_that_is_a_link_a_folder_or_a_fifo_is_refused_without_reading_it(index, tmp_path, kind):
    """Before: CURRENT as a folder or a FIFO was taken silently for 'no index', and a CURRENT linked to
    /etc/passwd put its first line into the error. After: each is a SearchIndexError saying what it is (a FIFO
    is never opened: reading it would block)."""
    import os

    pointer = index / "CURRENT"
    if kind == "a link":
        secret = tmp_path / "secret.txt"
        secret.write_text("root:x:0:0:root")
        pointer.symlink_to(secret)
    elif kind == "a folder":
        pointer.mkdir()
    else:
        os.mkfifo(pointer)
    with pytest.raises(SearchIndexError) as exc:
        current_generation(index)
    assert f"The index pointer {pointer} is {kind}" in str(exc.value) and "root:x" not in str(exc.value)


@pytest.mark.parametrize("kind", ["a FIFO", "a link to a header outside", "a link to /dev/zero"])
def test_a_header_that_is_a_fifo_or_a_link_is_refused_without_blocking_or_reading_it(index, tmp_path, kind):
    """Before: a header.json that was a FIFO blocked current_generation() for ever, a link to /dev/zero filled
    the memory, and a link to a header outside the index was read. After: each is refused as damaged, at once."""
    import os

    (index / "CURRENT").write_text(GOOD)
    header = index / GOOD / "header.json"
    header.unlink()
    if kind == "a FIFO":
        os.mkfifo(header)
    elif kind == "a link to /dev/zero":
        header.symlink_to("/dev/zero")
    else:
        header.symlink_to(tmp_path / "outside" / "header.json")
    with pytest.raises(SearchIndexError, match="is damaged"):
        current_generation(index)


@pytest.fixture()
def written(tmp_path):
    """An index of one generation written by write_generation: two passages, their vectors, a BM25 index."""
    import bm25s
    import numpy as np

    from ddrsearch.retrieval.passages import Passage
    from ddrsearch.stores.generations import write_generation

    passages = [Passage(passage_id=f"r.pdf#row{i}", report="r.pdf", kind="operation", text=t)
                for i, t in enumerate(["stuck pipe at 6507 ft", "lost circulation"])]
    bm25 = bm25s.BM25()
    bm25.index(bm25s.tokenize([p.text for p in passages], show_progress=False), show_progress=False)
    vectors = np.eye(2, 3, dtype=np.float32)
    header = {"format": FORMAT, "settings": {}, "reports": [{"file_name": "r.pdf", "passages": 2}],
              "n_passages": 2, "dim": 3}
    return write_generation(tmp_path / "ix", header, passages, vectors, bm25), tmp_path


@pytest.mark.parametrize("name", ["passages.json", "vectors.npy"])
@pytest.mark.parametrize("kind", ["a FIFO", "a link to /dev/zero", "a link to a copy outside"])
def test_passages_and_vectors_that_are_a_fifo_or_a_link_are_refused_with_the_stores_error(written, name, kind):
    """Before: passages.json and vectors.npy were opened following links: a FIFO blocked the reader for ever and
    a link to /dev/zero filled the memory (or a copy outside the index was read). After: each is read as
    header.json is (no link followed, no blocking, a regular file) and refused as damaged, naming the file."""
    import os
    import shutil

    generation, tmp_path = written
    assert generation.problems() == [] and generation.vectors().shape == (2, 3)
    target = generation.folder / name
    shutil.copy2(target, tmp_path / name)
    target.unlink()
    if kind == "a FIFO":
        os.mkfifo(target)
    elif kind == "a link to /dev/zero":
        target.symlink_to("/dev/zero")
    else:
        target.symlink_to(tmp_path / name)
    read = generation.passages if name == "passages.json" else generation.vectors
    with pytest.raises(SearchIndexError, match=f"is damaged \\({name}: "):
        read()
    assert any(f"({name}: " in problem for problem in generation.problems())


def test_a_vectors_file_whose_header_claims_more_rows_than_it_holds_is_refused_before_any_allocation(written):
    """A vectors.npy whose header is rewritten to claim 10**9 rows (the bytes hold 2) is refused from its header
    and size, memory-mapped or not, without numpy allocating the claimed 12 GB."""
    generation, _ = written
    path = generation.folder / "vectors.npy"
    data = path.read_bytes()
    forged = data.replace(b"(2, 3)", b"(1000000000, 3)")
    header_end = data.index(b"\n") + 1
    forged = forged[:forged.index(b"\n")].ljust(header_end - 1) + b"\n" + data[header_end:]
    path.write_bytes(forged)
    for mmap in (False, True):
        with pytest.raises(SearchIndexError, match="its header says \\(1000000000, 3\\) float32"):
            generation.vectors(mmap=mmap)


def test_a_passage_whose_text_is_a_number_and_a_header_whose_reports_are_numbers_are_damaged(written):
    """Before: passages.json with "text": 12345 loaded and failed at the first search with a TypeError from
    normalize(); header.json with "reports": [1, 2, 3] gave a TypeError in index status. After: damaged, rebuild."""
    import json

    from ddrsearch.stores.generations import current_generation

    generation, _ = written
    path = generation.folder / "passages.json"
    records = json.loads(path.read_text())
    path.write_text(json.dumps([{**records[0], "text": 12345}, *records[1:]]))
    with pytest.raises(SearchIndexError, match=r"is damaged \(passages.json: .*not all text"):
        generation.passages()
    header = generation.folder / "header.json"
    header.write_text(json.dumps({**json.loads(header.read_text()), "reports": [1, 2, 3]}))
    with pytest.raises(SearchIndexError, match="header.json is not an index header"):
        current_generation(generation.folder.parent)
