"""An answer card as a table at the page width: report text escaped, never read as Markdown.

A card printed as plain text (:meth:`ddrsearch.answers.answerer.AnswerCard.to_text`)
is a monospace block: in a book it is as wide as its longest line. As a
table it wraps at the page, in HTML and in the PDF alike: :func:`card_markdown`
writes a Markdown pipe table whose separator line is longer than Pandoc's 72
columns, which makes Pandoc give the columns relative widths (from the dashes
of that line) and wrap their cells (Pandoc's manual, "pipe_tables").

The question and the quoted rows are data, from a report or a stranger:
:func:`escape_markdown` strips control characters, collapses whitespace and
backslash-escapes every ASCII punctuation character, so that ``*``, ``|``,
``<``, ``$`` or ``@`` in a row print as themselves (Pandoc reads a backslash
before any ASCII punctuation as that character, literally).
(chapters/05-answers-with-sources.ipynb, chapters/10-traceable-answers.ipynb)
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

__all__ = ["MAX_CELL_CHARS", "card_crop", "card_markdown", "escape_markdown", "markdown_table"]

#: The most characters a table cell keeps (a longer text is cut with "..." and the table says so):
#: the longest OPERATIONS cell of the archive is under 700 characters.
MAX_CELL_CHARS = 2000

#: Dashes of the separator line, shared out by the columns' relative widths: more than Pandoc's 72
#: columns, so the table is set at the full text width with wrapping cells.
SEPARATOR_DASHES = 100

_PUNCTUATION = re.compile("([" + re.escape(string.punctuation) + "])")


def escape_markdown(text: object) -> str:
    """``text`` as literal Markdown inline text: one line, nothing in it read as markup.

    Control characters and terminal escapes are removed
    (:func:`ddrsearch.answers.generation.strip_controls`), whitespace (line
    breaks too) collapses to single spaces, and every ASCII punctuation
    character is backslash-escaped.

    >>> print(escape_markdown("*bold* | $5"))
    \\*bold\\* \\| \\$5
    """
    from ddrsearch.answers.generation import strip_controls

    plain = " ".join(strip_controls(str(text)).split())
    if len(plain) > MAX_CELL_CHARS:
        plain = plain[:MAX_CELL_CHARS] + " ..."
    return _PUNCTUATION.sub(r"\\\1", plain)


def markdown_table(columns: Sequence[str], rows: Sequence[Sequence[object]],
                   widths: Sequence[float] | None = None) -> str:
    """A Markdown pipe table of ``rows`` under ``columns``, every cell escaped (:func:`escape_markdown`).

    Args:
        columns: the header, one name per column.
        rows: the cells, one sequence per row, as many as ``columns``.
        widths: relative column widths (any positive numbers; default equal);
            they set the dashes of the separator line, which Pandoc turns into
            column widths that share the page.

    Returns:
        The table's lines joined by newlines.

    Raises:
        ValueError: no column, a row with another number of cells, or a
            width that is not positive.
    """
    if not columns:
        raise ValueError("markdown_table needs at least one column")
    widths = [1.0] * len(columns) if widths is None else [float(w) for w in widths]
    if len(widths) != len(columns) or any(not w > 0 for w in widths):
        raise ValueError(f"markdown_table needs one positive width per column ({len(columns)}), got {widths}")
    for i, row in enumerate(rows):
        if len(row) != len(columns):
            raise ValueError(f"row {i} has {len(row)} cells; the table has {len(columns)} columns")
    total = sum(widths)
    dashes = [max(3, round(SEPARATOR_DASHES * w / total)) for w in widths]

    def line(cells) -> str:
        return "| " + " | ".join(escape_markdown(c) for c in cells) + " |"

    out = [line(columns), "|" + "|".join("-" * d for d in dashes) + "|"]
    out += [line(row) for row in rows]
    return "\n".join(out)


def card_markdown(card, *, columns: Sequence[str] = ("row", "day, FROM-TO (report dated, page)", "support",
                                            "the row, verbatim"),
                  widths: Sequence[float] = (12, 20, 9, 59)) -> str:
    """An answer card as Markdown: the question, its note, then its rows as a table, or its refusal.

    Args:
        card: an :class:`ddrsearch.answers.answerer.AnswerCard`.
        columns, widths: the table's header and relative column widths (four columns:
            row id (which names the report), the row's real day with its FROM-TO times
            (:attr:`~ddrsearch.answers.answerer.SupportRow.when`) then the report's date and
            the page, support, the quoted OPERATIONS text).

    Returns:
        Markdown text: a line with the question, the note when there is one, a
        line on how the rows are ordered and a table, or one line saying that
        nothing was found (with the best support and the threshold) and the
        table of the closest rows, marked as no answer
        (:meth:`~ddrsearch.answers.answerer.AnswerCard.nearest`). Every piece of
        the question, note and rows is escaped.
    """
    from ddrsearch.answers.answerer import ORDER_WORDS

    how = ORDER_WORDS[card.order]
    parts = [f"**Q:** {escape_markdown(card.question)}"]
    if card.note:
        parts.append(escape_markdown(card.note))
    def table(rows):
        return markdown_table(columns, [(r.row_id, f"{r.when} (report dated {r.date.isoformat()}, page {r.page})",
                                         f"{r.support:.2f}", f'"{r.text}"') for r in rows], widths)

    if not card.found:
        parts.append(escape_markdown(card.refusal))
        nearest = card.nearest()
        if nearest:  # as the command line's card: the closest rows, marked as no answer
            parts.append(escape_markdown("The closest rows, in the row search's order, not an answer (their support "
                                         "is below the threshold):"))
            parts.append(table(nearest))
        return "\n\n".join(parts)
    parts.append(escape_markdown(f"{len(card.rows)} {card.kind_of_rows} in {len(card.groups())} report(s), {how}:"))
    parts.append(table(card.rows))
    return "\n\n".join(parts)


def card_crop(card, reports, terms=None, *, zoom: float = 2.0) -> bytes:
    """The PNG crop of the card's first row as printed in its report, the searched words highlighted.

    Args:
        card: an :class:`ddrsearch.answers.answerer.AnswerCard` that found rows.
        reports: the reports the card was made from (its first row's report among them).
        terms: words to highlight (default: the card's searched words, as the shared
            tokenizer cuts them, abbreviations expanded).
        zoom: pixels per PDF point (:func:`ddrsearch.answers.sources.row_crop`).

    Raises:
        ValueError: the card found no row (a refusal has nothing to crop).
        KeyError: the first row's report is not among ``reports``.
    """
    from ddrsearch.answers.sources import row_crop
    from ddrsearch.text.tokenizer import tokenize

    if not card.found:
        raise ValueError(f"the card for {card.question!r} found no row: a refusal has nothing to crop")
    by_name = {r.file_name: r for r in reports}
    if card.top.report not in by_name:
        raise KeyError(f"{card.top.report} (the card's first row) is not among the {len(by_name)} reports given")
    if terms is None:
        terms = tokenize(card.searched, expand=True)
    return row_crop(by_name[card.top.report], card.top.row, terms, zoom=zoom)
