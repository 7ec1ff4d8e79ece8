"""The ``ddrsearch`` command line.

Sub-commands:

``ddrsearch fetch``
    Fetch the 76 report PDFs (or just the ten-report sample) into
    ``datasets/forge_archive/`` and verify their SHA-256.
``ddrsearch verify``
    Check the archive folder against the manifest without fetching.
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
            "Fetch the 76 FORGE 16A(78)-32 report PDFs listed in datasets/manifest.csv into the archive folder, "
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

    p = sub.add_parser("verify", help="check the archive folder against the manifest",
                       description="Check every report PDF's SHA-256 against datasets/manifest.csv; fetch nothing.")
    p.add_argument("--dest", metavar="DIR", default=None, help="archive folder (default: datasets/forge_archive)")
    p.set_defaults(func=_cmd_verify)

    p = sub.add_parser("preview", help="execute the chapters and write HTML previews (no Quarto needed)",
                       description="Execute every chapter notebook listed in _quarto.yml and write the executed "
                                   "notebook and an HTML page for each into the output folder.")
    p.add_argument("--project", default=".", help="the book's project folder (holding _quarto.yml)")
    p.add_argument("--out", default="_preview", help="output folder (default: _preview)")
    p.add_argument("--timeout", type=int, default=1800, help="seconds allowed per notebook cell")
    p.set_defaults(func=_cmd_preview)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except DDRSearchError as exc:
        print(f"ddrsearch {args.command}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
