"""Argument checks shared by the wings (the number of results ``k``)."""

from __future__ import annotations

import numbers

__all__ = ["check_k"]


def check_k(k) -> int:
    """Return ``k`` as an int after checking that it is a whole number >= 1.

    Raises:
        TypeError: ``k`` is not an integer (``True``/``False`` count as not).
        ValueError: ``k < 1``.
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be a whole number of at least 1, got {k!r}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k!r}")
    return int(k)

