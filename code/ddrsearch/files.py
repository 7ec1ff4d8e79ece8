"""Reading the files of an index that someone else may have written or swapped.

An index folder can be shared, copied from another machine or tampered with.
Every file of it is read here the same way: opened without following a
symbolic link and without blocking (a FIFO would block for ever), checked with
``fstat`` to be a regular file (not a device such as ``/dev/zero``), and read
up to a stated number of bytes; a ``.npy`` file has its header checked against
its size and the expected kind of array before numpy allocates anything.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

import numpy as np

__all__ = ["open_regular", "read_npy", "read_regular"]


def open_regular(path: str | os.PathLike) -> int:
    """A read-only descriptor of ``path``, opened without following a link or blocking, checked to be a regular file.

    The caller closes it (``os.close``).

    Raises:
        OSError: it cannot be opened, is a link (``ELOOP``), or is not a regular file (a FIFO, a device, a folder).
    """
    path = Path(path)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(f"{path.name} is not a regular file")
    return fd


def read_regular(path: str | os.PathLike, max_bytes: int, *, refuse_longer: bool = True) -> bytes:
    """The bytes of ``path``, a regular file that is not a link (:func:`open_regular`), at most ``max_bytes``.

    With ``refuse_longer=False`` a longer file gives its first ``max_bytes + 1``
    bytes (the caller says what is wrong with it) instead of an error.

    Raises:
        OSError: as :func:`open_regular`, or the file is over ``max_bytes`` bytes.
    """
    path = Path(path)
    fd = open_regular(path)
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(max_bytes + 1)
    finally:
        os.close(fd)
    if len(data) > max_bytes and refuse_longer:
        raise OSError(f"{path.name} is over {max_bytes:,} bytes")
    return data


def read_npy(path: str | os.PathLike, *, dtypes: Iterable[str], ndim: int, mmap: bool = False) -> np.ndarray:
    """The array of a ``.npy`` file opened by :func:`open_regular`, its header checked before it is read.

    Args:
        path: the ``.npy`` file (numpy's format, versions 1.0 to 3.0).
        dtypes: the array types accepted, as numpy spells them (``"<f4"``, ``"<i4"``, ...).
        ndim: the number of dimensions expected.
        mmap: memory-map the array (read-only) instead of reading it.

    Returns:
        The C-ordered array of the header's shape and type.

    Raises:
        OSError: as :func:`open_regular`.
        ValueError: not a ``.npy`` file, a type or dimension other than those expected, a Fortran-ordered
            array, or a file whose size is not the header's shape exactly (a forged header cannot make
            numpy allocate a shape the file does not have).
    """
    path = Path(path)
    allowed = {np.dtype(d) for d in dtypes}
    fd = open_regular(path)
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            version = np.lib.format.read_magic(fh)
            read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                           else np.lib.format.read_array_header_2_0)
            shape, fortran, dtype = read_header(fh)
            if dtype not in allowed or fortran or len(shape) != ndim:
                kinds = " or ".join(sorted(str(d) for d in allowed))
                raise ValueError(f"{path.name}: its header says {dtype} {tuple(shape)}, not a C-ordered "
                                 f"{ndim}-D array of {kinds}")
            count = int(np.prod(shape, dtype=np.int64))
            offset, size = fh.tell(), os.fstat(fd).st_size
            if size != offset + dtype.itemsize * count:
                raise ValueError(f"{path.name}: {size:,} bytes, its header says {tuple(shape)} {dtype} "
                                 f"({offset + dtype.itemsize * count:,})")
            if mmap:  # the map holds its own descriptor: closing this one leaves it valid
                return np.memmap(fh, dtype=dtype, mode="r", shape=tuple(shape), offset=offset)
            return np.fromfile(fh, dtype=dtype, count=count).reshape(shape)
    finally:
        os.close(fd)
