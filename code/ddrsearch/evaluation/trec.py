"""Read and write judgements and runs in the TREC text formats.

These are the formats read by ``trec_eval`` (and ``pytrec_eval.parse_qrel`` /
``parse_run``), so results of this package can be checked with the reference
tool::

    trec_eval -m P.5 -m recall.5 -m recip_rank -m map -m ndcg_cut.5 qrels.txt run.txt

*qrels* file, one judgement per line::

    qid 0 docid grade

(the second field is the TREC "iteration", always ``0`` here and ignored when
reading).

*run* file, one retrieved doc per line::

    qid Q0 docid rank score tag

Fields are separated by whitespace, so qids, doc ids and the tag must not
contain any (:class:`ValueError` naming the offending value). Files are UTF-8
with ``\\n`` line ends.

Important: trec_eval ignores the ``rank`` column; it re-sorts each question's
lines by score descending and breaks ties by doc id *descending*. This package
breaks ties by doc id *ascending* (:func:`ddrsearch.evaluation.metrics.rank_by_score`).
:func:`write_run` always writes strictly decreasing scores when it is given
rankings without scores, so trec_eval keeps the order of the ranking; when it
is given tied scores, trec_eval may order the tied docs differently.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Union

from ddrsearch.errors import DuplicateDocumentError, TrecFormatError
from ddrsearch.evaluation.metrics import rank_by_score

__all__ = [
    "TrecFormatError",
    "read_qrels",
    "read_run",
    "write_qrels",
    "write_run",
]

PathLike = Union[str, "os.PathLike[str]"]


def _check_token(value, what: str) -> str:
    """A qid, doc id or tag must be a non-empty str without whitespace."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {value!r} ({type(value).__name__})")
    if value == "" or any(ch.isspace() for ch in value):
        raise ValueError(
            f"{what} {value!r} is empty or contains whitespace; TREC files separate "
            "fields by whitespace, so rename it (e.g. replace spaces by '_')"
        )
    return value


def _format_score(score: float) -> str:
    # repr() is the shortest string that parses back to the same float.
    return repr(float(score))


# --------------------------------------------------------------------------
# qrels
# --------------------------------------------------------------------------


def write_qrels(qrels: Mapping[str, Mapping[str, int]], path: PathLike) -> None:
    """Write judgements as a TREC qrels file.

    One line ``qid 0 docid grade`` per judgement, sorted by qid then doc id
    (Python string order). A question with no judgement at all writes no
    line, so :func:`read_qrels` will not return it.

    Args:
        qrels: ``Mapping[str, Mapping[str, int]]``, qid -> doc id -> grade.
        path: ``str`` or path-like; the file is overwritten.

    Returns:
        ``None``.

    Raises:
        ValueError: a qid or doc id is empty or contains whitespace (naming
            it); a grade is negative.
        TypeError: a qid or doc id is not a ``str``; a grade is not an integer.
    """
    lines = []
    for qid in sorted(qrels, key=lambda q: _check_token(q, "question id")):
        judged = qrels[qid]
        for doc in sorted(judged, key=lambda d: _check_token(d, "doc id")):
            grade = judged[doc]
            if isinstance(grade, bool) or not isinstance(grade, numbers.Integral):
                raise TypeError(
                    f"grade of doc {doc!r} for question {qid!r} must be an "
                    f"integer, got {grade!r}"
                )
            if grade < 0:
                raise ValueError(
                    f"grade of doc {doc!r} for question {qid!r} is negative ({grade})"
                )
            lines.append(f"{qid} 0 {doc} {int(grade)}\n")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)


def _lines(path):
    """(line number, line) of a UTF-8 text file; a byte-order mark is dropped.

    Raises:
        TrecFormatError: the file is not UTF-8 (the message names it).
    """
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TrecFormatError(path, 1, f"not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8", "") from exc
    return list(enumerate(text.splitlines(), start=1))


def read_qrels(path: PathLike) -> dict[str, dict[str, int]]:
    """Read a TREC qrels file written by :func:`write_qrels` (or by TREC).

    Each non-blank line must have exactly 4 whitespace-separated fields
    ``qid iteration docid grade``; the iteration field is ignored and the
    grade must be an integer ``>= 0``. Blank lines are skipped.

    Args:
        path: ``str`` or path-like.

    Returns:
        ``dict[str, dict[str, int]]``: qid -> doc id -> grade, in file order.

    Raises:
        TrecFormatError (a ``ValueError``): wrong number of fields, a grade
            that is not an integer or is negative, or the same (qid, doc id)
            judged twice; the message names the file and line number.
        OSError: the file cannot be opened.
    """
    qrels: dict[str, dict[str, int]] = {}
    first_seen: dict[tuple[str, str], int] = {}
    for lineno, line in _lines(path):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise TrecFormatError(
                path,
                lineno,
                f"expected 4 fields 'qid 0 docid grade', got {len(fields)}",
                line,
            )
        qid, _iteration, doc, grade_text = fields
        try:
            grade = int(grade_text)
        except ValueError:
            raise TrecFormatError(
                path, lineno, f"grade {grade_text!r} is not an integer", line
            ) from None
        if grade < 0:
            raise TrecFormatError(
                path, lineno, f"grade {grade} is negative (must be >= 0)", line
            )
        if (qid, doc) in first_seen:
            raise TrecFormatError(
                path,
                lineno,
                f"doc {doc!r} is judged twice for question {qid!r} "
                f"(first on line {first_seen[qid, doc]})",
                line,
            )
        first_seen[qid, doc] = lineno
        qrels.setdefault(qid, {})[doc] = grade
    return qrels


# --------------------------------------------------------------------------
# runs
# --------------------------------------------------------------------------


def write_run(
    run: Mapping[str, Mapping[str, float] | Sequence[str]],
    path: PathLike,
    tag: str = "ddrsearch",
) -> None:
    """Write retrieval results as a TREC run file.

    One line ``qid Q0 docid rank score tag`` per retrieved doc; questions in
    qid order (Python string order), then by rank starting at 1.

    Each value of ``run`` is either

    * a mapping ``doc id -> score``: docs are ranked with
      :func:`ddrsearch.evaluation.metrics.rank_by_score` (score descending, ties by doc
      id ascending) and the scores are written as given (``repr`` of the
      float, which reads back to the identical float); or
    * a ranked sequence of doc ids without scores (best first): the score
      written for rank ``r`` of ``n`` docs is ``n - r + 1`` (``n`` for the
      first doc down to ``1.0`` for the last). The scores are distinct and
      strictly decreasing, so trec_eval, which sorts by score and ignores the
      rank column, keeps exactly this order.

    A question with an empty ranking writes no line (the format cannot
    express it); :func:`ddrsearch.evaluation.metrics.evaluate` treats a question missing
    from the run as an empty ranking, so the scores are unchanged.

    Args:
        run: ``Mapping[str, Mapping[str, float] | Sequence[str]]``.
        path: ``str`` or path-like; the file is overwritten.
        tag: ``str``, the run name in the last column (no whitespace).

    Returns:
        ``None``.

    Raises:
        ValueError: a qid, doc id or the tag is empty or contains whitespace
            (naming it); a score is NaN or infinite.
        DuplicateDocumentError: a ranked sequence lists a doc twice.
        TypeError: a qid/doc id/tag is not a ``str``; a value of ``run`` is a
            single string or a set.
    """
    _check_token(tag, "run tag")
    lines = []
    for qid in sorted(run, key=lambda q: _check_token(q, "question id")):
        value = run[qid]
        if isinstance(value, Mapping):
            docs = rank_by_score(value)
            scores = [float(value[d]) for d in docs]
        else:
            # NumPy arrays and other ordered iterables are fine; strings and
            # sets are not rankings.
            if isinstance(value, (str, bytes, AbstractSet)):
                raise TypeError(
                    f"the ranking of question {qid!r} must be a sequence of "
                    f"doc ids or a mapping doc id -> score, got {value!r}"
                )
            docs = list(value)
            seen: set = set()
            for d in docs:
                if d in seen:
                    raise DuplicateDocumentError(d, qid)
                seen.add(d)
            n = len(docs)
            scores = [float(n - r + 1) for r in range(1, n + 1)]
        for rank, (doc, score) in enumerate(zip(docs, scores, strict=True), start=1):
            _check_token(doc, "doc id")
            lines.append(f"{qid} Q0 {doc} {rank} {_format_score(score)} {tag}\n")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)


def read_run(path: PathLike) -> dict[str, dict[str, float]]:
    """Read a TREC run file written by :func:`write_run` (or by TREC tools).

    Each non-blank line must have exactly 6 whitespace-separated fields
    ``qid Q0 docid rank score tag``. Like trec_eval, the result keeps only the
    scores: the ``Q0`` and ``tag`` fields are ignored, and the rank field is
    only checked to be an integer ``>= 1``. Turn a question's scores back into
    a ranking with :func:`ddrsearch.evaluation.metrics.rank_by_score`;
    :func:`ddrsearch.evaluation.metrics.evaluate` accepts the result directly. Blank
    lines are skipped.

    Args:
        path: ``str`` or path-like.

    Returns:
        ``dict[str, dict[str, float]]``: qid -> doc id -> score, in file
        order. This is also the input format of
        ``pytrec_eval.RelevanceEvaluator.evaluate``.

    Raises:
        TrecFormatError (a ``ValueError``): wrong number of fields, a rank
            that is not an integer >= 1, a score that is not a finite number,
            or the same doc listed twice for a question; the message names
            the file and line number.
        OSError: the file cannot be opened.
    """
    run: dict[str, dict[str, float]] = {}
    first_seen: dict[tuple[str, str], int] = {}
    for lineno, line in _lines(path):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise TrecFormatError(
                path,
                lineno,
                "expected 6 fields 'qid Q0 docid rank score tag', "
                f"got {len(fields)}",
                line,
            )
        qid, _q0, doc, rank_text, score_text, _tag = fields
        try:
            rank = int(rank_text)
        except ValueError:
            rank = 0
        if rank < 1:
            raise TrecFormatError(
                path, lineno, f"rank {rank_text!r} is not an integer >= 1", line
            )
        try:
            score = float(score_text)
        except ValueError:
            raise TrecFormatError(
                path, lineno, f"score {score_text!r} is not a number", line
            ) from None
        if not math.isfinite(score):
            raise TrecFormatError(
                path, lineno, f"score {score_text!r} is not finite", line
            )
        if (qid, doc) in first_seen:
            raise TrecFormatError(
                path,
                lineno,
                f"doc {doc!r} is listed twice for question {qid!r} "
                f"(first on line {first_seen[qid, doc]})",
                line,
            )
        first_seen[qid, doc] = lineno
        run.setdefault(qid, {})[doc] = score
    return run
