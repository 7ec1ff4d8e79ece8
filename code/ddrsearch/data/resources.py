"""Data files shipped inside the package (``ddrsearch/resources/``): the manifest, glossary and tables."""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from ddrsearch.errors import DataNotFoundError

__all__ = ["resource_path"]


@functools.cache
def _folder() -> Path:
    """The package's resource folder, found once (:func:`importlib.resources.files` costs a fraction of a ms)."""
    return Path(str(resources.files("ddrsearch.resources")))


def resource_path(name: str) -> Path:
    """Path of a data file shipped inside the package (``ddrsearch/resources/<name>``).

    Read with :mod:`importlib.resources`, so it works from a checkout and from
    an installed wheel alike.

    Raises:
        DataNotFoundError: the file is not in the installed package (a broken install).
    """
    path = _folder() / name
    if not path.is_file():
        raise DataNotFoundError(f"{name} is missing from the installed package at {path}; reinstall ddrsearch.")
    return path
