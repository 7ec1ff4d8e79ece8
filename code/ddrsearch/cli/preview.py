"""``ddrsearch preview``: execute the chapters and write HTML previews (no Quarto needed)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = ["add_preview_parser"]


def _cmd_preview(args: argparse.Namespace) -> int:
    from ddrsearch.book.preview import build_preview
    from ddrsearch.errors import BookBuildError

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


def add_preview_parser(sub) -> None:
    """Add ``ddrsearch preview``."""
    p = sub.add_parser("preview", help="execute the chapters and write HTML previews (no Quarto needed)",
                       description="Execute every chapter notebook listed in _quarto.yml and write the executed "
                                   "notebook and an HTML page for each into the output folder.")
    p.add_argument("--project", default=".", help="the book's project folder (holding _quarto.yml)")
    p.add_argument("--out", default="_preview", help="output folder (default: _preview)")
    p.add_argument("--timeout", type=int, default=1800, help="seconds allowed per notebook cell")
    p.add_argument("--only", nargs="+", metavar="STEM", help="build only these files (e.g. 04-searching-by-meaning)")
    p.add_argument("--mathjax-url", default=None, help="load MathJax from here (e.g. a local copy) instead of the CDN")
    p.set_defaults(func=_cmd_preview)
