"""``ddrsearch.files``: regular files only, no link followed, no blocking, sizes and ``.npy`` headers checked."""

from __future__ import annotations

import os

import numpy as np
import pytest

from ddrsearch.files import read_npy, read_regular


def test_read_regular_reads_a_file_and_refuses_one_over_its_limit(tmp_path):
    path = tmp_path / "a.json"
    path.write_bytes(b"x" * 10)
    assert read_regular(path, 10) == b"x" * 10
    with pytest.raises(OSError, match="a.json is over 9 bytes"):
        read_regular(path, 9)
    assert read_regular(path, 4, refuse_longer=False) == b"xxxxx"  # the first max + 1 bytes, for the caller


@pytest.mark.parametrize("kind", ["fifo", "device", "link", "folder"])
def test_read_regular_refuses_what_is_not_a_regular_file_without_blocking(tmp_path, kind):
    path = tmp_path / "f"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")  # a link, refused as such (O_NOFOLLOW); the device itself is below
    elif kind == "link":
        (tmp_path / "real").write_text("{}")
        path.symlink_to(tmp_path / "real")
    else:
        path.mkdir()
    with pytest.raises(OSError):
        read_regular(path, 100)
    with pytest.raises(OSError, match="zero is not a regular file"):
        read_regular("/dev/zero", 100)


def test_read_npy_gives_the_array_and_checks_type_dimensions_and_size(tmp_path):
    path = tmp_path / "v.npy"
    np.save(path, np.arange(6, dtype=np.float32).reshape(2, 3))
    assert read_npy(path, dtypes=("<f4",), ndim=2).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert read_npy(path, dtypes=("<f4",), ndim=2, mmap=True).shape == (2, 3)
    with pytest.raises(ValueError, match="not a C-ordered 1-D array of int32"):
        read_npy(path, dtypes=("<i4",), ndim=1)
    np.save(path, np.asfortranarray(np.ones((2, 3), dtype=np.float32)))
    with pytest.raises(ValueError, match="C-ordered"):
        read_npy(path, dtypes=("<f4",), ndim=2)
    with open(path, "wb") as fh:  # a header claiming 10^9 x 384 floats, no data
        np.lib.format.write_array_header_1_0(fh, {"descr": "<f4", "fortran_order": False, "shape": (10**9, 384)})
    with pytest.raises(ValueError, match="bytes, its header says"):
        read_npy(path, dtypes=("<f4",), ndim=2)
