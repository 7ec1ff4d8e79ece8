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
    Keep an on-disk index of the default pipeline (:mod:`ddrsearch.cli.index`),
    which ``search`` then uses when it is current.
``ddrsearch env``
    List every ``DDRSEARCH_*`` environment variable, its value and default.
``ddrsearch preview``
    Execute the book's chapter notebooks and write an HTML preview of each
    (for machines without Quarto).
``ddrsearch serve [--corpus sample|archive | --dir FOLDER] [--index PATH]``
    Keep an index and the libraries loaded in one process; ``search`` then
    answers through it (:mod:`ddrsearch.cli.serve`, :mod:`ddrsearch.cli.client`).

Each sub-command's ``--help`` explains its options. Exit status: 0 on
success, 1 when the work could not be completed (the message says why and
what to do), 2 for a usage error.
"""

from __future__ import annotations

import os
import sys
import warnings

__all__ = ["build_parser", "main", "run"]


#: Each sub-command -> the module and function that add it (some add two).
_ADDERS = {
    "fetch": ("data_commands", "add_fetch_parser"), "search": ("search", "add_search_parser"),
    "ask": ("ask", "add_answer_parsers"), "show": ("ask", "add_answer_parsers"),
    "eval": ("evaluate", "add_eval_parser"), "app": ("app", "add_app_parser"),
    "verify": ("data_commands", "add_verify_manifest_parsers"),
    "manifest": ("data_commands", "add_verify_manifest_parsers"),
    "preview": ("preview", "add_preview_parser"), "env": ("data_commands", "add_env_parser"),
    "index": ("index", "add_index_parser"), "serve": ("serve", "add_serve_parser"),
}


def build_parser(command: str | None = None):
    """Return the argument parser of the ``ddrsearch`` command (used by ``main`` and the tests).

    Args:
        command: a sub-command's name to build only its parser (and its twin's, for
            ``ask``/``show`` and ``verify``/``manifest``): ``main`` does so for the
            sub-command on the command line, so that a search does not import the
            modules of the app, ``eval`` or ``preview``. ``None`` (or an unknown name):
            every sub-command, as ``ddrsearch --help`` lists them.

    Returns:
        A :class:`ddrsearch.cli.argv.CommandParser`.
    """
    import importlib

    from ddrsearch.cli.argv import CommandParser

    parser = CommandParser(
        prog="ddrsearch",
        description="Search daily drilling reports (DDRs) and measure how well the search works.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    adders = [_ADDERS[command]] if command in _ADDERS else list(dict.fromkeys(_ADDERS.values()))
    for module, function in adders:
        getattr(importlib.import_module(f"ddrsearch.cli.{module}"), function)(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status.

    A ``search`` or ``ask`` is first offered to a ``ddrsearch serve`` of the same index
    (:func:`ddrsearch.cli.client.run_via_server`; off with ``DDRSEARCH_SERVER=0``),
    which prints exactly what this process would; without one it runs here (:func:`run`).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["search"], ["ask"]):
        from ddrsearch.cli.client import run_via_server

        status = run_via_server(argv)
        if status is not None:
            return status
    return run(argv)


def run(argv: list[str], *, prepare=None) -> int:
    """Run the command line in this process; return the exit status.

    Args:
        argv: the arguments after ``ddrsearch`` (the sub-command first).
        prepare: called with the parsed arguments before the sub-command runs
            (``ddrsearch serve`` hands its loaded index to ``search`` this way).
    """
    from ddrsearch.cli.argv import move_dash_query
    from ddrsearch.errors import DDRSearchError

    parser = build_parser(argv[0] if argv else None)  # only the sub-command asked for
    args, extra = parser.parse_known_args(move_dash_query(argv, parser))
    if extra:  # refused with the command's own usage (its options listed), not the top-level one
        parser.commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    if getattr(args, "k", 1) < 1:  # refused with the command's own usage, as above
        parser.commands[args.command].error(f"-k must be at least 1, got {args.k}")
    if getattr(args, "width", 20) < 20:
        parser.commands[args.command].error(f"--width must be at least 20, got {args.width}")
    if prepare is not None:
        prepare(args)
    with warnings.catch_warnings():  # one line per warning, without Python's source-line echo
        warnings.showwarning = _show_warning
        try:
            return args.func(args)
        except BrokenPipeError:  # output piped into head or less, which stopped reading: not an error to report
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (Python's advice: no second error at exit)
            return 1
        except (DDRSearchError, OSError, RuntimeError, ValueError) as exc:
            print(f"ddrsearch {args.command}: {_printable(str(exc))}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:  # Ctrl-C: one line, the shell's status for SIGINT; an index being written
            print(f"ddrsearch {args.command}: interrupted.", file=sys.stderr)  # keeps its previous generation
            return 130


def _printable(text: str) -> str:
    """``text`` without control characters or escape sequences (a file name or a question file can hold them)."""
    from ddrsearch.answers.generation import strip_controls

    return strip_controls(text)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    # one line per warning: a line break in a file name it quotes must not start a line of its own
    from ddrsearch.cli.outputs import one_line

    print(f"warning: {one_line(str(message))}", file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
