"""``SavedBM25``: a saved BM25 index's files are read without following links, blocking or trusting headers."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from ddrsearch.retrieval.lexical import SavedBM25


@pytest.fixture()
def saved(tmp_path):
    """A BM25 index of two passages saved by bm25s (the format an index generation holds), and a spare folder."""
    import bm25s

    bm25 = bm25s.BM25()
    bm25.index(bm25s.tokenize(["stuck pipe at 6507 ft", "lost circulation"], show_progress=False),
               show_progress=False)
    bm25.save(tmp_path / "bm25", allow_pickle=False, show_progress=False)
    (tmp_path / "outside").mkdir()
    return tmp_path / "bm25", tmp_path / "outside"


def test_a_saved_index_scores_as_bm25s_does(saved):
    folder, _ = saved
    scores = SavedBM25(folder).get_scores(["stuck"])
    assert scores.shape == (2,) and scores[0] > 0 and scores[1] == 0


@pytest.mark.parametrize("name", ["vocab.index.json", "params.index.json", "data.csc.index.npy",
                                  "indices.csc.index.npy", "indptr.csc.index.npy"])
@pytest.mark.parametrize("kind", ["a FIFO", "a link to /dev/zero", "a link to a copy outside"])
def test_a_file_that_is_a_fifo_or_a_link_is_refused_without_blocking_or_reading_it(saved, name, kind):
    """Before: the BM25 folder's files were opened following links (a FIFO blocked the search for ever, a link to
    /dev/zero filled the memory, a copy outside the index was read); after: OSError naming the file, at once."""
    folder, outside = saved
    shutil.copy2(folder / name, outside / name)
    (folder / name).unlink()
    if kind == "a FIFO":
        os.mkfifo(folder / name)
    elif kind == "a link to /dev/zero":
        (folder / name).symlink_to("/dev/zero")
    else:
        (folder / name).symlink_to(outside / name)
    with pytest.raises(OSError):
        SavedBM25(folder)


def test_the_folder_itself_as_a_link_is_refused(saved, tmp_path):
    folder, _ = saved
    shutil.move(folder, tmp_path / "elsewhere")
    folder.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OSError, match="is a link"):
        SavedBM25(folder)


def test_an_array_whose_header_claims_more_than_its_bytes_is_refused_before_any_allocation(saved):
    """A 129-byte .npy claiming 10^10 scores made np.load try to allocate them; the header is checked first."""
    folder, _ = saved
    path = folder / "data.csc.index.npy"
    with open(path, "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, {"descr": "<f4", "fortran_order": False, "shape": (10**10,)})
    with pytest.raises(ValueError, match="data.csc.index.npy: .* bytes, its header says"):
        SavedBM25(folder)


def test_columns_that_do_not_match_the_data_are_refused(saved):
    folder, _ = saved
    np.save(folder / "indptr.csc.index.npy", np.array([0, 1, 99], dtype=np.int64))
    with pytest.raises(ValueError, match="columns \\(indptr\\) do not match"):
        SavedBM25(folder)


@pytest.mark.parametrize("change, message", [
    ({"num_docs": 10**13}, "num_docs must be a whole number from 1 to"),  # before: a 36 TiB allocation per query
    ({"num_docs": "2"}, "num_docs must be a whole number"),
    ({"dtype": "V1000000"}, "must be float32 or float64"),  # before: numpy's _UFuncNoLoopError
])
def test_parameters_a_search_would_trust_are_checked(saved, change, message):
    import json

    folder, _ = saved
    params = json.loads((folder / "params.index.json").read_text())
    (folder / "params.index.json").write_text(json.dumps({**params, **change}))
    with pytest.raises(ValueError, match=message):
        SavedBM25(folder)


def test_positions_outside_the_passages_and_odd_term_ids_are_refused(saved):
    """Before: indices of 2**30 gave an IndexError at the first query, -1 scored the last passage silently, and
    vocabulary ids of 1.5 or -3 a TypeError or wrong results."""
    import json

    folder, _ = saved
    indices = np.load(folder / "indices.csc.index.npy")
    np.save(folder / "indices.csc.index.npy", np.full_like(indices, -1))
    with pytest.raises(ValueError, match="names passages outside 0 to 1"):
        SavedBM25(folder)
    np.save(folder / "indices.csc.index.npy", indices)
    vocab = json.loads((folder / "vocab.index.json").read_text())
    for bad in (1.5, -3, True):
        (folder / "vocab.index.json").write_text(json.dumps({t: bad for t in vocab}))
        with pytest.raises(ValueError, match="term ids must be whole numbers"):
            SavedBM25(folder)


def test_an_index_restored_over_other_passages_is_refused(saved):
    from ddrsearch.retrieval.lexical import BM25Retriever
    from ddrsearch.retrieval.passages import Passage

    folder, _ = saved
    one = [Passage(passage_id="r.pdf#row0", report="r.pdf", kind="operation", text="stuck pipe")]
    with pytest.raises(ValueError, match="holds 2 passages, the index 1"):
        BM25Retriever().restore(folder, one)
