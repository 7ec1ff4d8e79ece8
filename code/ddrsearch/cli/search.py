"""``ddrsearch search``: search the reports and print a ranked table, with the index on disk when it is current."""

from __future__ import annotations

import argparse
import datetime as dt
import sys

from ddrsearch.cli.index import add_index_options
from ddrsearch.cli.outputs import one_line

__all__ = ["add_search_parser"]


def _print_spelling_notes(retriever, query: str) -> None:
    """Misspelt words, and words no report prints (:meth:`ddrsearch.retrieval.base.Retriever.unknown_words`)."""
    from ddrsearch.text.spelling import spelling_notes

    where = "report" if retriever.reports else "indexed row"  # an index on disk holds rows, not the header tables
    for line in spelling_notes(retriever.unknown_words(query), where):
        print(f"note: {line}", file=sys.stderr)


def _cmd_search(args: argparse.Namespace) -> int:
    from ddrsearch.data.folders import corpus_paths
    from ddrsearch.reading.layout import row_when
    from ddrsearch.reading.names import short_name
    from ddrsearch.reading.report import load_archive, read_reports
    from ddrsearch.retrieval.base import cut_query
    from ddrsearch.retrieval.pipeline import build_retriever

    args.query, cut = cut_query(args.query)  # a question over DDRSEARCH_MAX_QUESTION_WORDS words is cut
    if cut:
        print(f"note: {cut}", file=sys.stderr)
    options = {}
    if args.method in ("keyword", "bm25"):
        options["expand"] = args.expand
        if args.expand:  # the asker's shorthand the reports never print (L/D, POOH): spelled out like P/U
            from ddrsearch.text.rewriting import spell_out_asker_shorthand

            args.query, spelled = spell_out_asker_shorthand(args.query)
            for abbreviation, expansion in spelled:
                why = ("not total depth: a part of the top drive follows it" if expansion == "top drive"
                       else "the reports never print it")
                print(f"note: {abbreviation.upper()} searched as {expansion!r} ({why})", file=sys.stderr)
    elif args.expand:
        print(f"ddrsearch search: --expand applies to keyword and bm25, not {args.method}", file=sys.stderr)
        return 2
    if args.weight is not None:
        if args.method != "hybrid":
            print("ddrsearch search: --weight applies to --method hybrid only", file=sys.stderr)
            return 2
        if not 0.0 <= args.weight <= 1.0:
            print(f"ddrsearch search: --weight must be between 0 and 1, got {args.weight}", file=sys.stderr)
            return 2
        options["weight"] = args.weight
    source = f"folder {args.dir}" if args.dir is not None else f"the {args.corpus}"
    from ddrsearch import settings

    if args.dir is None and settings.get_path("DDRSEARCH_MANIFEST") is not None:  # your own reports' manifest
        source += f" of DDRSEARCH_MANIFEST {settings.get_path('DDRSEARCH_MANIFEST').name}"
    index, reports = None, []
    if not args.no_index and args.method == "hybrid" and args.unit == "auto":
        from ddrsearch.cli.index import current_index

        # ddrsearch serve hands in its loaded index (the same stale rules and notes: ddrsearch.cli.serve)
        index = (getattr(args, "current_index", None) or current_index)(args)
    if index is not None:
        hits = index.search(args.query, k=args.k, weight=options.get("weight"))
        dates = {r["file_name"]: dt.date.fromisoformat(r["report_date"]) for r in index.reports}
        numbers = {r["file_name"]: r["short"] for r in index.reports}
        n_reports, source = len(index.reports), f"{source}, index {index.folder}"
        retriever = index.retriever
    else:
        if args.dir is not None:
            reports = load_archive(args.dir, ocr=args.ocr, on_error="skip")  # a refused file: one line, the rest searched
            for r in reports:
                for item in r.review:
                    print(f"review {r.file_name}, {item}: not indexed", file=sys.stderr)
        else:
            reports = read_reports(corpus_paths(args.corpus, args.archive))
        retriever = build_retriever(args.method, reports, unit=args.unit, **options)
        hits = retriever.search(args.query, k=args.k)
        dates = {r.file_name: r.report_date for r in reports}
        numbers = {r.file_name: short_name(r) for r in reports}
        n_reports = len(reports)
        if args.dir is not None:  # your own folder: say what the reader found incomplete
            for r in reports:
                for note in r.notes:
                    print(f"note: {r.file_name}: {note}", file=sys.stderr)
    if not hits:
        print(f"No report matches {_echo(args.query)} with {args.method}"
              + (" (keyword search needs every word of the query in one report)." if args.method == "keyword" else "."))
        _print_spelling_notes(retriever, args.query)
        return 0
    rows = []
    for h in hits:
        day = dates.get(h.report)
        where = ((row_when(day, h.start, h.end) if day else f"{h.start}-{h.end or '?'}") if h.start else "") \
            + (" OCR" if h.ocr else "")
        shown = retriever.excerpt(h.text, args.query, args.width) if h.text else "(no single line holds a query word)"
        rows.append((h.rank, numbers.get(h.report, h.report), str(dates.get(h.report, "")), f"{h.score:.4f}",
                     where, shown + (f" [matched in its CODE: {h.code}]" if h.code else "")))
    headers = ("rank", "report", "dated", "score", "row (its day, FROM-TO)", "best matching line")
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=True)]
    # numbers right-aligned, so that 9.0000 and 14.0000 (keyword counts) line up by their decimal point
    line = "  ".join(f"{{:{'>' if i in (0, 3) else '<'}{w}}}" for i, w in enumerate(widths))
    print(line.format(*headers))
    print(line.format(*("-" * w for w in widths)))
    for r in rows:
        print(line.format(*r))
    # a folder's or an index's path is the user's, but may hold escape sequences: printed without them
    print(f"\n{len(hits)} report(s) from {one_line(source)} ({n_reports} reports), "
          f"method {args.method}."
          + _names_key((numbers.get(h.report, h.report), h.report) for h in hits))
    if not retriever.words_found(args.query):
        from ddrsearch.retrieval.structured import parse_date

        structured = getattr(retriever, "structured_match", None)
        match = structured(args.query) if structured is not None else None
        known = sorted(d for d in dates.values() if d)
        named = parse_date(args.query, years=sorted({d.year for d in known}),
                           span=(known[0] - dt.timedelta(days=1), known[-1]) if known else None)
        if match is not None and match.kind == "date" and match.day is not None:
            covering = " and ".join(numbers.get(n, n) for n in match.scores)
            how = (f"by the day it names ({match.day.isoformat()}: the rows that began on it, in {covering}, "
                   "first) and by meaning")
        elif named is not None and structured is not None:
            how = (f"by meaning alone and may be unrelated: no report here covers {named.isoformat()}, "
                   "the day it names")
        elif named is not None:
            how = (f"by meaning alone and may be unrelated: method {args.method} does not read the day it names "
                   f"({named.isoformat()})")
        else:
            how = "by meaning alone and may be unrelated (check the spelling, or try the rig's words)"
        print(f"note: no word of {_echo(args.query)} occurs in the rows searched; the results are ranked {how}.",
              file=sys.stderr)
    _print_spelling_notes(retriever, args.query)
    return 0


def _echo(query: str) -> str:
    """The query as a note quotes it: ``repr``, its first :data:`~ddrsearch.answers.answerer.QUESTION_ECHO_CHARS`
    characters only (a one-word query of 88,000 letters is not printed whole)."""
    from ddrsearch.answers.answerer import QUESTION_ECHO_CHARS

    return repr(query) if len(query) <= QUESTION_ECHO_CHARS else f"{query[:QUESTION_ECHO_CHARS]!r} [...]"


def _names_key(shown) -> str:
    """How the short names shown read: `` Report D038 = drilling report 38, C003 = completion report 3.``

    Args:
        shown: ``(short name, file name)`` of each report in the table, in table order.

    Returns:
        FORGE's numbering for the first report of each phase whose file is named in its pattern, then
        the file of every report whose file is named otherwise (``D051 = today.pdf``: your own folder),
        control characters removed; ``""`` when there is nothing to say.
    """
    import re

    from ddrsearch.data.manifest import FILE_NAME_RE

    first, own = {}, {}
    for label, file_name in shown:
        m = re.fullmatch(r"([DC])(\d{3})", label)
        if not FILE_NAME_RE.match(str(file_name)):  # on one line, and cut: a file name is the user's
            name = one_line(str(file_name))
            own.setdefault(label, name if len(name) <= 80 else name[:80] + "...")
        elif m:
            first.setdefault(m[1], (label, int(m[2])))
    keys = [f"{label} = {'drilling' if phase == 'D' else 'completion'} report {number}"
            for phase, (label, number) in sorted(first.items(), key=lambda kv: kv[0] != "D")]
    keys += [f"{label} = {name}" for label, name in own.items() if label != name]
    return f" Report {', '.join(keys)}." if keys else ""


def add_search_parser(sub) -> None:
    """Add ``ddrsearch search``."""
    p = sub.add_parser(
        "search",
        help="search the reports and print a ranked table",
        description=(
            "Search the ten-report sample or the whole archive and print the top reports: rank, report "
            "(D038 = drilling report 38), date, score, and the report line that best matches the query "
            "with its TIME BREAKDOWN row (FROM-TO). With a current index (ddrsearch index build) the default "
            "method searches it instead of re-reading the PDFs."
        ),
        epilog='A query may start with a dash: ddrsearch search "-LCM" (or, the usual way, ddrsearch search -- "-LCM").',
    )
    p.add_argument("query", help='what to look for, in quotes, e.g. "pipe stuck during slide"')
    p.add_argument("--method", choices=["keyword", "bm25", "dense", "hybrid"], default="hybrid",
                   help="keyword: boolean AND (every word must occur); bm25: ranked BM25; "
                        "dense: sentence-embedding similarity (all-MiniLM-L6-v2); "
                        "hybrid: the book's default pipeline, BM25 + dense over operation rows (default)")
    p.add_argument("--unit", choices=["auto", "report", "operation", "window"], default="auto",
                   help="what is indexed: whole reports, operation-row chunks or fixed windows; "
                        "auto (default): whole reports for keyword/bm25/dense, operation rows for hybrid")
    p.add_argument("--weight", type=float, default=None,
                   help="hybrid only: dense weight from 0 (pure BM25) to 1 (pure dense); default the book's tuned value")
    p.add_argument("-k", type=int, default=5, help="number of reports to show (default 5)")
    p.add_argument("--corpus", choices=["sample", "archive"], default="sample",
                   help="sample: the ten-report sample (default); archive: all 76 reports")
    p.add_argument("--expand", action="store_true",
                   help="expand rig abbreviations (TIH -> trip in hole) from the glossary (keyword, bm25)")
    p.add_argument("--archive", metavar="DIR", default=None,
                   help="folder of the report PDFs (default: $DDRSEARCH_ARCHIVE_DIR or datasets/forge_archive)")
    p.add_argument("--dir", metavar="FOLDER", default=None,
                   help="search every PDF in FOLDER (your own reports; no manifest needed) instead of --corpus")
    p.add_argument("--ocr", choices=("auto", "rapidocr", "tesseract"), default=None,
                   help="with --dir: OCR pages without a text layer (scanned reports); OCR'd rows are marked OCR")
    p.add_argument("--width", type=int, default=90, help="characters of the matching line to show (default 90)")
    add_index_options(p, search=True)
    p.set_defaults(func=_cmd_search)
