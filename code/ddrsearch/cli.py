"""The ``ddrsearch`` command line.

Sub-commands:

``ddrsearch fetch``
    Fetch the 76 report PDFs (or just the ten-report sample) into
    ``datasets/forge_archive/`` and verify their SHA-256.
``ddrsearch search "QUERY" --method keyword|bm25|dense|hybrid -k 5 --corpus sample|archive``
    (or ``--dir FOLDER`` for a folder of your own reports)
    Search the reports and print rank, report, date, score and the best
    matching line.
``ddrsearch eval QUESTIONS.yaml --methods keyword,bm25,dense,hybrid -k 5``
    Evaluate methods on a question set; print the table and write CSV.
``ddrsearch ask "QUESTION" --corpus sample|archive -k 5``
    Answer with the operation rows that support it, quoted with their
    sources (or "not found in these reports").
``ddrsearch show D038-r08 --out PNG`` (or ``ddrsearch show REPORT --row N``)
    Write a PNG crop of one operation row and check its text verbatim.
``ddrsearch app [--corpus sample|archive | --dir FOLDER] [--port N]``
    Start the web app "Ask the reports" on 127.0.0.1 (Streamlit).
``ddrsearch verify``
    Check the archive folder against the manifest without fetching.
``ddrsearch manifest FOLDER --out FILE``
    Write a manifest for a folder of your own reports.
``ddrsearch index build|add|status``
    Keep an on-disk index of the default pipeline (:mod:`ddrsearch.indexcli`),
    which ``search`` then uses when it is current.
``ddrsearch env``
    List every ``DDRSEARCH_*`` environment variable, its value and default.
``ddrsearch preview``
    Execute the book's chapter notebooks and write an HTML preview of each
    (for machines without Quarto).

Each sub-command's ``--help`` explains its options. Exit status: 0 on
success, 1 when the work could not be completed (the message says why and
what to do), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

from .errors import DDRSearchError


def _cmd_fetch(args: argparse.Namespace) -> int:
    from .data import load_manifest
    from .fetch import fetch_archive

    only = [e.file_name for e in load_manifest() if e.in_sample] if args.sample_only else None
    report = fetch_archive(
        args.dest, mirror=args.mirror, base_url=args.base_url, only=only,
        replace_changed=args.replace_changed, progress=not args.quiet,
    )
    print(report.summary())
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from .fetch import verify_archive

    report = verify_archive(args.dest)
    print(report.summary())
    if not report.ok:
        print("Fix with: ddrsearch fetch" + ("  (add --replace-changed to move changed files aside)" if report.changed else ""))
        return 1
    return 0


def _cmd_manifest(args: argparse.Namespace) -> int:
    from .fetch import write_manifest

    if Path(args.out).is_dir():
        print(f"ddrsearch manifest: --out {args.out} is a folder; give a CSV file name", file=sys.stderr)
        return 1
    entries = write_manifest(args.folder, args.out, ocr=args.ocr)
    by_hash: dict[str, list[str]] = {}
    for e in entries:
        by_hash.setdefault(e.sha256, []).append(e.file_name)
    for names in by_hash.values():
        if len(names) > 1:
            print(f"warning: {' and '.join(names)} are identical files (same SHA-256): the same report saved "
                  "twice. Remove all but one, or searches will count it twice.", file=sys.stderr)
    print(f"Wrote {args.out}: {len(entries)} reports from {args.folder}. Use it with:\n"
          f"  export DDRSEARCH_MANIFEST={Path(args.out).resolve()} DDRSEARCH_ARCHIVE_DIR={Path(args.folder).resolve()}")
    return 0


def _cmd_preview(args: argparse.Namespace) -> int:
    from .book import build_preview
    from .errors import BookBuildError

    kwargs = {"mathjax_url": args.mathjax_url} if args.mathjax_url else {}
    try:
        out = build_preview(Path(args.project), Path(args.out), timeout=args.timeout, only=args.only, **kwargs)
    except (FileNotFoundError, ValueError) as exc:
        print(f"ddrsearch preview: {exc}", file=sys.stderr)
        return 1
    except BookBuildError as exc:  # each failure was named in one line as it happened
        print(f"ddrsearch preview: {len(exc.failures)} chapter(s) failed; the other pages are in {args.out}",
              file=sys.stderr)
        return 1
    for path in out:
        print(path)
    return 0


def _excerpt_options(retriever) -> dict:
    """``expand``/``stem`` of ``retriever``'s own tokenizer (its BM25 leg for the hybrid), for :func:`excerpt`.

    A dense retriever has neither: its line is cut around the query's plain words.
    """
    leg = getattr(retriever, "bm25", retriever)
    return {"expand": bool(getattr(leg, "expand", False)), "stem": bool(getattr(leg, "stem", False))}


def _print_spelling_notes(leg, reports, query: str) -> None:
    """Misspelt words: the default pipeline also knows its rewrites; another method checks the reports' words."""
    from .spelling import Spelling, spelling_notes

    where = "report"
    if hasattr(leg, "unknown_words"):
        unknown = leg.unknown_words(query)
        where = "report" if getattr(leg, "_reports", None) else "indexed row"  # an index holds rows, not tables
    else:
        unknown = Spelling([r.text for r in reports]).unknown(query) if reports else {}
    for line in spelling_notes(unknown, where):
        print(f"note: {line}", file=sys.stderr)


def _matched_code(hit, report, query: str) -> str:
    """The row's CODE cell when it, and not the row's text, holds the query's words (the code is indexed, not shown)."""
    from .tokenizer import tokenize

    if report is None or hit.row is None or hit.row >= len(report.operations) or not hit.text:
        return ""
    code = report.operations[hit.row].code
    terms = set(tokenize(query, expand=True, stem=True))
    if not code or terms & set(tokenize(hit.text, expand=True, stem=True)):
        return ""
    return code if terms & set(tokenize(code, expand=True, stem=True)) else ""


def _cmd_search(args: argparse.Namespace) -> int:
    from .data import corpus_paths
    from .passages import excerpt, short_name
    from .pipeline import build_retriever
    from .report import load_archive, read_reports

    options = {}
    if args.method in ("keyword", "bm25"):
        options["expand"] = args.expand
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
    index, reports = None, []
    if not args.no_index and args.method == "hybrid" and args.unit == "auto":
        from .indexcli import current_index

        index = current_index(args)
    if index is not None:
        hits = index.search(args.query, k=args.k, weight=options.get("weight"))
        dates = {r["file_name"]: r["report_date"] for r in index.reports}
        numbers = {r["file_name"]: r["short"] for r in index.reports}
        n_reports, source = len(index.reports), f"{source}, index {index.folder}"
        cut = _excerpt_options(index.retriever)
    else:
        if args.dir is not None:
            reports = load_archive(args.dir, ocr=args.ocr, on_error="collect")
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
        cut = _excerpt_options(retriever)
        if args.dir is not None:  # your own folder: say what the reader found incomplete
            for r in reports:
                for note in r.notes:
                    print(f"note: {r.file_name}: {note}", file=sys.stderr)
    if not hits:
        print(f"No report matches {args.query!r} with {args.method}"
              + (" (keyword search needs every word of the query in one report)." if args.method == "keyword" else "."))
        _print_spelling_notes(index.retriever if index is not None else retriever, reports, args.query)
        return 0
    rows = []
    by_name = {r.file_name: r for r in reports}
    for h in hits:
        where = (f"{h.start}-{h.end or '?'}" if h.start else "") + (" OCR" if h.ocr else "")
        shown = excerpt(h.text, args.query, args.width, **cut) if h.text else "(no single line holds a query word)"
        code = _matched_code(h, by_name.get(h.report), args.query)
        rows.append((h.rank, numbers.get(h.report, h.report), str(dates.get(h.report, "")), f"{h.score:.4f}",
                     where, shown + (f" [matched in its CODE: {code}]" if code else "")))
    headers = ("rank", "report", "date", "score", "row", "best matching line")
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=True)]
    # numbers right-aligned, so that 9.0000 and 14.0000 (keyword counts) line up by their decimal point
    line = "  ".join(f"{{:{'>' if i in (0, 3) else '<'}{w}}}" for i, w in enumerate(widths))
    print(line.format(*headers))
    print(line.format(*("-" * w for w in widths)))
    for r in rows:
        print(line.format(*r))
    print(f"\n{len(hits)} report(s) from {source} ({n_reports} reports), method {args.method}."
          + ("" if args.dir is not None else " Report D038 = drilling report 38, C003 = completion report 3."))
    leg = index.retriever if index is not None else retriever
    if hasattr(leg, "words_found") and not leg.words_found(args.query):
        print(f"note: no word of {args.query!r} occurs in the rows searched; the results are ranked by meaning "
              "alone and may be unrelated (check the spelling, or try the rig's words).", file=sys.stderr)
    _print_spelling_notes(leg, reports, args.query)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``ddrsearch`` command (used by ``main`` and the tests)."""
    from .serve import add_app_command

    parser = argparse.ArgumentParser(
        prog="ddrsearch",
        description="Search daily drilling reports (DDRs) and measure how well the search works.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "fetch",
        help="fetch the report PDFs and verify their SHA-256",
        description=(
            "Fetch the 76 FORGE 16A(78)-32 report PDFs listed in the manifest into the archive folder, "
            "verifying every SHA-256. Files already present and verified are left alone; a local file with the "
            "wrong hash, or a PDF the manifest does not list, is reported by name and kept."
        ),
    )
    p.add_argument("--mirror", metavar="DIR", default=None,
                   help="copy from this local folder of the same files instead of downloading "
                        "(default: $DDRSEARCH_MIRROR if set; CI uses ../shared/datasets/forge_archive)")
    p.add_argument("--dest", metavar="DIR", default=None,
                   help="where to put the PDFs (default: $DDRSEARCH_ARCHIVE_DIR or datasets/forge_archive)")
    p.add_argument("--base-url", default=None, help="download address prefix (default: the public repository at a pinned commit)")
    p.add_argument("--sample-only", action="store_true", help="fetch only the ten-report sample")
    p.add_argument("--replace-changed", action="store_true",
                   help="move a local file whose hash differs to <name>.changed and fetch a fresh copy")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_fetch)

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
    from .answercli import add_answer_parsers
    from .indexcli import add_index_options, add_index_parser

    add_index_options(p, search=True)
    p.set_defaults(func=_cmd_search)

    add_answer_parsers(sub)

    from .evalcli import add_eval_parser

    add_eval_parser(sub)

    add_app_command(sub)  # ddrsearch app: its options live beside the launcher, in ddrsearch.serve

    p = sub.add_parser("verify", help="check the archive folder against the manifest",
                       description="Check every report PDF's SHA-256 against the manifest; fetch nothing.")
    p.add_argument("--dest", metavar="DIR", default=None, help="archive folder (default: datasets/forge_archive)")
    p.set_defaults(func=_cmd_verify)

    p = sub.add_parser("manifest", help="write a manifest for a folder of your own report PDFs",
                       description="Read every PDF in FOLDER and write a manifest CSV (file name, SHA-256, bytes, "
                                   "phase, report number, date). Point DDRSEARCH_MANIFEST at it and "
                                   "DDRSEARCH_ARCHIVE_DIR at the folder to search and evaluate your own reports.")
    p.add_argument("folder", help="folder of report PDFs")
    p.add_argument("--out", default="my_manifest.csv", help="CSV file to write (default my_manifest.csv)")
    p.add_argument("--ocr", choices=("auto", "rapidocr", "tesseract"), default=None,
                   help="OCR pages without a text layer (scanned reports) to read their number and date")
    p.set_defaults(func=_cmd_manifest)

    p = sub.add_parser("preview", help="execute the chapters and write HTML previews (no Quarto needed)",
                       description="Execute every chapter notebook listed in _quarto.yml and write the executed "
                                   "notebook and an HTML page for each into the output folder.")
    p.add_argument("--project", default=".", help="the book's project folder (holding _quarto.yml)")
    p.add_argument("--out", default="_preview", help="output folder (default: _preview)")
    p.add_argument("--timeout", type=int, default=1800, help="seconds allowed per notebook cell")
    p.add_argument("--only", nargs="+", metavar="STEM", help="build only these files (e.g. 04-searching-by-meaning)")
    p.add_argument("--mathjax-url", default=None, help="load MathJax from here (e.g. a local copy) instead of the CDN")
    p.set_defaults(func=_cmd_preview)
    p = sub.add_parser("env", help="list the DDRSEARCH_* environment variables, their values and defaults",
                       description="Print every environment variable ddrsearch reads, its current value, its "
                                   "default and what it sets.")
    p.set_defaults(func=_cmd_env)
    add_index_parser(sub)
    return parser


def _cmd_env(args: argparse.Namespace) -> int:
    from . import settings
    from .data import archive_dir, manifest_path
    from .embeddings import default_cache_dir
    from .index import default_index_dir

    # the folder or file each path setting resolves to now, set or not (Appendix A: "the values in effect")
    in_effect = {"DDRSEARCH_ARCHIVE_DIR": archive_dir, "DDRSEARCH_MANIFEST": manifest_path,
                 "DDRSEARCH_CACHE_DIR": default_cache_dir, "DDRSEARCH_INDEX_DIR": lambda: default_index_dir(folder=".").parent}
    rows = settings.describe()
    for row in rows:
        print(f"{row['name']}={row['value']}" if row["value"] else f"{row['name']} (unset)")
        print(f"    {row['meaning']}")
        print(f"    default: {row['default']}")
        if row["name"] in in_effect:
            try:
                path = in_effect[row["name"]]()
            except (DDRSearchError, OSError, RuntimeError, ValueError) as exc:  # e.g. ~nosuchuser/x
                print(f"    in effect: cannot be resolved: {exc}")
                continue
            print(f"    in effect: {path}" + ("" if path.exists() else " (does not exist yet)"))
    root = settings.project_root()
    print(f"\nproject checkout: {root if root else 'none (installed package)'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    from .indexcli import move_dash_query

    parser = build_parser()
    args = parser.parse_args(move_dash_query(list(sys.argv[1:] if argv is None else argv), parser))
    if getattr(args, "k", 1) < 1:
        parser.error(f"-k must be at least 1, got {args.k}")
    if getattr(args, "width", 20) < 20:
        parser.error(f"--width must be at least 20, got {args.width}")
    with warnings.catch_warnings():  # one line per warning, without Python's source-line echo
        warnings.showwarning = _show_warning
        try:
            return args.func(args)
        except BrokenPipeError:  # output piped into head or less, which stopped reading: not an error to report
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (Python's advice: no second error at exit)
            return 1
        except (DDRSearchError, OSError, RuntimeError, ValueError) as exc:
            print(f"ddrsearch {args.command}: {exc}", file=sys.stderr)
            return 1


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"warning: {message}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
