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
``ddrsearch show REPORT --row N --out PNG``
    Write a PNG crop of one operation row and check its text verbatim.
``ddrsearch verify``
    Check the archive folder against the manifest without fetching.
``ddrsearch manifest FOLDER --out FILE``
    Write a manifest for a folder of your own reports.
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
import sys
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
    entries = write_manifest(args.folder, args.out)
    print(f"Wrote {args.out}: {len(entries)} reports from {args.folder}. Use it with:\n"
          f"  export DDRSEARCH_MANIFEST={Path(args.out).resolve()} DDRSEARCH_ARCHIVE_DIR={Path(args.folder).resolve()}")
    return 0


def _cmd_preview(args: argparse.Namespace) -> int:
    from .book import build_preview

    try:
        out = build_preview(Path(args.project), Path(args.out), timeout=args.timeout)
    except (FileNotFoundError, ValueError) as exc:
        print(f"ddrsearch preview: {exc}", file=sys.stderr)
        return 1
    for path in out:
        print(path)
    return 0


def _shorten(text: str, width: int, query: str = "") -> str:
    """Fit ``text`` in ``width`` characters, keeping the first query word it contains in view."""
    text = " ".join((text or "").split())
    if len(text) <= width:
        return text
    from .tokenizer import tokenize

    low = text.lower()
    positions = [low.find(t) for t in tokenize(query) if len(t) > 2 and low.find(t) >= 0]
    at = min(positions) if positions else 0
    if at + 20 < width:
        return text[: width - 1] + "…"
    start = max(0, min(at - width // 3, len(text) - (width - 2)))
    snippet = text[start: start + width - 2]
    return "…" + snippet + ("…" if start + width - 2 < len(text) else "")


def _cmd_search(args: argparse.Namespace) -> int:
    from .data import corpus_paths
    from .passages import short_name
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
    if args.dir is not None:
        reports = load_archive(args.dir)
        source = f"folder {args.dir}"
    else:
        reports = read_reports(corpus_paths(args.corpus, args.archive))
        source = f"the {args.corpus}"
    retriever = build_retriever(args.method, reports, unit=args.unit, **options)
    hits = retriever.search(args.query, k=args.k)
    dates = {r.file_name: r.report_date for r in reports}
    numbers = {r.file_name: short_name(r) for r in reports}
    if not hits:
        print(f"No report matches {args.query!r} with {args.method}"
              + (" (keyword search needs every word of the query in one report)." if args.method == "keyword" else "."))
        return 0
    rows = []
    for h in hits:
        where = f"{h.start}-{h.end or '?'}" if h.start else ""
        rows.append((h.rank, numbers.get(h.report, h.report), str(dates.get(h.report, "")), f"{h.score:.4f}",
                     where, _shorten(h.text, args.width, args.query) if h.text else "(no single line holds a query word)"))
    headers = ("rank", "report", "date", "score", "row", "best matching line")
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows, strict=True)]
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    print(line.format(*headers))
    print(line.format(*("-" * w for w in widths)))
    for r in rows:
        print(line.format(*r))
    print(f"\n{len(hits)} report(s) from {source} ({len(reports)} reports), method {args.method}. "
          "Report D038 = drilling report 38, C003 = completion report 3.")
    return 0


def _cmd_ask(args: argparse.Namespace) -> int:
    from .answers import Answerer
    from .data import corpus_paths
    from .generation import (
        GenerationError,
        build_prompt,
        chat,
        check_citations,
        llm_config,
    )
    from .report import read_reports

    reports = read_reports(corpus_paths(args.corpus, args.archive))
    card = Answerer(reports).ask(args.question, k=args.k)
    print(card.to_text())
    try:
        config = llm_config()
    except GenerationError as exc:
        print(f"generation: {exc}")
        return 0
    if config is None or not card.found:
        return 0
    try:
        text = chat(build_prompt(args.question, card.rows), config)
    except GenerationError as exc:
        print(f"generation: {exc} The answer above is the extractive card.")
        return 0
    check = check_citations(text, [r.row_id for r in card.rows])
    print(f"\nGenerated by {config.model} (check every citation against the rows above):\n{text}")
    print(check.report())
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from .data import corpus_paths
    from .passages import resolve_row_id, row_id
    from .report import read_reports
    from .sources import find_report, row_crop, verify_row
    from .tokenizer import tokenize

    reports = read_reports(corpus_paths("archive", args.archive))
    report = find_report(args.report, reports)
    _, row = resolve_row_id(row_id(report, args.row), reports)
    out = Path(args.out or f"{row_id(report, row)}.png")
    if out.is_dir():
        out = out / f"{row_id(report, row)}.png"
    row_crop(report, row, tokenize(args.highlight) if args.highlight else (), out=out)
    check = verify_row(report, row)
    print(f"[{row_id(report, row)}] {report.file_name}, page {row.page}, {row.start}-{row.end or '?'}")
    print(f'"{row.operations}"')
    print(f"Wrote {out}. Quotation checked against the PDF: "
          + ("verbatim." if check.ok else f"NOT found: {'; '.join(check.missing)}"))
    return 0 if check.ok else 1


def _cmd_eval(args: argparse.Namespace) -> int:
    import pandas as pd

    from .data import corpus_paths
    from .evaluation import breakdown, compare, evaluate_retriever, evidence_agreement
    from .pipeline import METHODS, build_retriever
    from .questions import load_questions
    from .report import read_reports

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown or not methods:
        print(f"ddrsearch eval: unknown method(s) {unknown}; choose from {', '.join(METHODS)}", file=sys.stderr)
        return 2
    questions = load_questions(args.questions)
    if args.split != "all":
        questions = questions.split(args.split)
    name, n_unanswerable = questions.name, len(questions.unanswerable())
    questions = questions.answerable()  # retrieval metrics need judgements
    if not len(questions):
        where = "" if args.split == "all" else f" in the {args.split} split"
        print(f"ddrsearch eval: {args.questions} has no answerable questions{where}", file=sys.stderr)
        return 1
    corpus = args.corpus or questions.corpus
    reports = read_reports(corpus_paths(corpus, args.archive))
    names = {r.file_name for r in reports}
    outside = sorted({j for q in questions for j in q.relevant_reports if j not in names})
    if outside:
        print(f"warning: {len(outside)} judged report(s) are not in the {corpus} corpus "
              f"({', '.join(outside[:3])}{', ...' if len(outside) > 3 else ''}); no method can retrieve them, "
              "so recall stays below 1. Use the question set's own corpus.", file=sys.stderr)
    results, agreement = {}, {}
    for m in methods:
        retriever = build_retriever(m, reports)
        results[m] = evaluate_retriever(retriever, questions, k=args.k)
        # share of the relevant reports in the top k whose shown row holds the judgement's quoted evidence
        agreement[m] = evidence_agreement(retriever, questions, k=args.k).attrs["agreement"]
    table = compare(results, k=args.k)
    table[f"evidence@{args.k}"] = pd.Series(agreement)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        left_out = f" ({n_unanswerable} unanswerable left out)" if n_unanswerable else ""
        print(f"{name}: {len(questions)} questions over {len(reports)} reports, k = {args.k}{left_out}\n")
        print(table.round(3).to_string())
        print()
        print(breakdown(results, "category", f"recall@{args.k}").round(3).to_string())
    skipped = {m: list(df.index[df.note != ""]) for m, df in results.items() if (df.note != "").any()}
    for m, ids in skipped.items():
        print(f"note: {m} had no searchable words in question(s) {', '.join(ids)}; they score zero.")
    if args.out:
        out = Path(args.out)
        if out.is_dir():
            print(f"ddrsearch eval: --out {out} is a folder; give a CSV file name", file=sys.stderr)
            return 1
        out.parent.mkdir(parents=True, exist_ok=True)
        per_question = pd.concat({m: df for m, df in results.items()}, names=["method", "id"])
        per_question.to_csv(out)
        table.to_csv(out.with_name(out.stem + "_means.csv"))
        print(f"\nWrote {out} (one row per method and question) and {out.with_name(out.stem + '_means.csv')}.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of the ``ddrsearch`` command (used by ``main`` and the tests)."""
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
            "with its TIME BREAKDOWN row (FROM-TO)."
        ),
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
    p.add_argument("--width", type=int, default=90, help="characters of the matching line to show (default 90)")
    p.set_defaults(func=_cmd_search)

    p = sub.add_parser(
        "ask",
        help="answer a question with the report rows that support it",
        description=(
            "Answer a question with an extractive card: the operation rows that support the answer, quoted verbatim "
            "with report, date, FROM-TO, page and row id (D038-r08), grouped by report; 'when' questions ordered by "
            "date (latest first for 'last', earliest for 'first'). 'Not found in these reports' when no row is strong "
            "enough. With DDRSEARCH_LLM_URL (and DDRSEARCH_LLM_MODEL) set, an OpenAI-compatible endpoint also writes "
            "an answer citing the row ids, and every sentence's citations are checked."
        ),
    )
    p.add_argument("question", help='the question, in quotes, e.g. "when did we last get stuck?"')
    p.add_argument("--corpus", choices=["sample", "archive"], default="sample",
                   help="sample: the ten-report sample (default); archive: all 76 reports")
    p.add_argument("-k", type=int, default=5, help="operation rows to look at (default 5)")
    p.add_argument("--archive", metavar="DIR", default=None, help="folder of the report PDFs")
    p.set_defaults(func=_cmd_ask)

    p = sub.add_parser(
        "show",
        help="write a PNG crop of one operation row of a report",
        description="Render the page region of one TIME BREAKDOWN row as a PNG (matching words highlighted) and "
                    "check that the row's text is printed there verbatim.",
    )
    p.add_argument("report", help="the report: D038, 38, C003 or its file name")
    p.add_argument("--row", type=int, required=True, help="row index from 0 (row id D038-r08 is --row 8)")
    p.add_argument("--out", metavar="PNG", default=None, help="file to write (default <row id>.png)")
    p.add_argument("--highlight", default="", help="words to highlight in the crop")
    p.add_argument("--archive", metavar="DIR", default=None, help="folder of the report PDFs")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser(
        "eval",
        help="evaluate retrieval methods on a question set",
        description=(
            "Run each method over a question set (datasets/eval/*.yaml) and print the mean P@k, recall@k, "
            "hit@k, MRR, MAP and NDCG@k of each method, its evidence agreement (evidence@k: of the relevant "
            "reports in the top k, the share whose shown row holds the quoted evidence), and recall@k per "
            "category; optionally write CSV."
        ),
    )
    p.add_argument("questions", help="question-set YAML file, or the name of a shipped set: starter, archive")
    p.add_argument("--methods", default="keyword,bm25,dense,hybrid",
                   help="comma-separated methods (default keyword,bm25,dense,hybrid)")
    p.add_argument("-k", type=int, default=5, help="metric cut-off (default 5)")
    p.add_argument("--split", choices=["all", "dev", "test"], default="all",
                   help="evaluate all questions (default), the development part or the held-out part")
    p.add_argument("--corpus", choices=["sample", "archive"], default=None,
                   help="reports to search (default: the question set's own corpus)")
    p.add_argument("--archive", metavar="DIR", default=None, help="folder of the report PDFs")
    p.add_argument("--out", metavar="CSV", default=None,
                   help="write per-question results to CSV (and the means to <name>_means.csv)")
    p.set_defaults(func=_cmd_eval)

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
    p.set_defaults(func=_cmd_manifest)

    p = sub.add_parser("preview", help="execute the chapters and write HTML previews (no Quarto needed)",
                       description="Execute every chapter notebook listed in _quarto.yml and write the executed "
                                   "notebook and an HTML page for each into the output folder.")
    p.add_argument("--project", default=".", help="the book's project folder (holding _quarto.yml)")
    p.add_argument("--out", default="_preview", help="output folder (default: _preview)")
    p.add_argument("--timeout", type=int, default=1800, help="seconds allowed per notebook cell")
    p.set_defaults(func=_cmd_preview)
    p = sub.add_parser("env", help="list the DDRSEARCH_* environment variables, their values and defaults",
                       description="Print every environment variable ddrsearch reads, its current value, its "
                                   "default and what it sets.")
    p.set_defaults(func=_cmd_env)
    return parser


def _cmd_env(args: argparse.Namespace) -> int:
    from . import settings

    rows = settings.describe()
    for row in rows:
        print(f"{row['name']}={row['value']}" if row["value"] else f"{row['name']} (unset)")
        print(f"    {row['meaning']}")
        print(f"    default: {row['default']}")
    root = settings.project_root()
    print(f"\nproject checkout: {root if root else 'none (installed package)'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "k", 1) < 1:
        parser.error(f"-k must be at least 1, got {args.k}")
    if getattr(args, "width", 20) < 20:
        parser.error(f"--width must be at least 20, got {args.width}")
    try:
        return args.func(args)
    except (DDRSearchError, OSError, RuntimeError, ValueError) as exc:
        print(f"ddrsearch {args.command}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
