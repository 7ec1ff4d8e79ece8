"""Helpers the chapters share, written once here instead of a copy in each notebook.

The chapters open the same reports again and again and ask the same small
questions of a ranking ("at which rank is D038?"). These are the tested
versions; a chapter that teaches how to write one may still write its own
first, and then this one must give the same numbers.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from ddrsearch.data.folders import archive_dir, sample_paths
from ddrsearch.reading.names import short_name
from ddrsearch.reading.report import Report, load_archive, read_reports

__all__ = ["archive", "by_name", "join_and", "names", "rank_of", "sample", "show_card"]


@functools.lru_cache(maxsize=1)
def _archive(folder: str) -> tuple[Report, ...]:
    return tuple(load_archive(folder))


@functools.lru_cache(maxsize=1)
def _sample(folder: str) -> tuple[Report, ...]:
    return tuple(read_reports(sample_paths(folder)))


def archive() -> list[Report]:
    """All reports of the archive folder (:func:`ddrsearch.data.folders.archive_dir`), read once per kernel."""
    return list(_archive(str(archive_dir())))


def sample() -> list[Report]:
    """The ten-report sample, read once per kernel."""
    return list(_sample(str(archive_dir())))


def by_name(reports: Iterable[Report] | None = None) -> dict[str, Report]:
    """Reports keyed by file name (default: the archive)."""
    return {r.file_name: r for r in (archive() if reports is None else reports)}


def names(items: Iterable) -> list[str]:
    """Short names (``D038``) of reports, hits or file names, in their order."""
    out = []
    for item in items:
        report = getattr(item, "report", item)  # a Hit names its report by file name
        out.append(short_name(report))
    return out


def rank_of(ranking: Sequence, report: str) -> int | None:
    """Rank (from 1) of ``report`` in ``ranking``, or ``None`` when it is absent.

    Args:
        ranking: hits (:class:`~ddrsearch.retrieval.passages.Hit`), reports, or
            report names (file names or short names), best first.
        report: a file name or a short name (``"D038"``).

    >>> rank_of(["D019", "D038"], "D038")
    2
    >>> rank_of(["D019"], "D038") is None
    True
    """
    wanted = short_name(report)
    for position, label in enumerate(names(ranking), start=1):
        if label == wanted:
            return position
    return None


def join_and(items: Iterable) -> str:
    """``"a, b and c"`` (``"a"`` for one item, ``""`` for none): a list as prose writes it.

    >>> join_and(["D019", "D038", "D048"])
    'D019, D038 and D048'
    """
    items = [str(i) for i in items]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def show_card(card, reports: Iterable[Report]) -> None:
    """Display an answer card in a notebook: its table, then the crop of its first row from the PDF.

    The table is :func:`ddrsearch.answers.cards.card_markdown` (report text
    escaped, wrapping at the page width); the crop is
    :func:`ddrsearch.answers.cards.card_crop` with the searched words
    highlighted. A refusal shows its sentence and no crop.

    Args:
        card: an :class:`ddrsearch.answers.answerer.AnswerCard`.
        reports: the reports the card was made from.
    """
    from IPython.display import Image, Markdown, display

    from ddrsearch.answers.cards import card_crop, card_markdown

    display(Markdown(card_markdown(card)))
    if card.found:
        display(Image(data=card_crop(card, list(reports))))
