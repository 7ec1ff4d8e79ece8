"""``ddrsearch app``: start the web app "Ask the reports" on 127.0.0.1 (:mod:`ddrsearch.app.launcher`)."""

from __future__ import annotations

import argparse

from ddrsearch.app.launcher import DEFAULT_PORT, serve_app

__all__ = ["add_app_parser"]


def add_app_parser(sub) -> argparse.ArgumentParser:
    """Add ``ddrsearch app`` and its options to the command line's sub-parsers ``sub``; return its parser."""
    p = sub.add_parser("app", help="start the web app 'Ask the reports' on 127.0.0.1",
                       description="Start a local web app (Streamlit, on 127.0.0.1 only): type a question, see the "
                                   "answer card, the matching report rows with their PDF crops and scores, and how "
                                   "the ranking was made. It uses the index on disk when it is current "
                                   "(ddrsearch index build); otherwise it reads and indexes the reports once, "
                                   "when the page first loads.")
    p.add_argument("--corpus", choices=["sample", "archive"], default="sample",
                   help="sample: the ten-report sample (default); archive: all 76 reports")
    p.add_argument("--dir", metavar="FOLDER", default=None, help="search every PDF in FOLDER instead of --corpus")
    p.add_argument("--archive", metavar="DIR", default=None, help="folder of the book's report PDFs")
    p.add_argument("--port", type=int, default=None,
                   help=f"port on 127.0.0.1 (default $DDRSEARCH_APP_PORT or {DEFAULT_PORT})")
    p.set_defaults(func=lambda a: serve_app(corpus=a.corpus, folder=a.dir, archive=a.archive, port=a.port))
    return p
