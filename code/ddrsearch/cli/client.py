"""A search answered by a running ``ddrsearch serve``: find its socket, send the command line, print the answer.

:func:`run_via_server` is what :func:`ddrsearch.cli.command.main` tries first
for ``ddrsearch search`` and ``ddrsearch ask``. It reads only the options that say which index a
search would use (``--corpus``, ``--dir``, ``--archive``, ``--index``) and
whether it would use one at all (``--method``, ``--unit``, ``--no-index``; for ``ask``, ``--ocr``), looks
for the server's socket in that index folder
(:func:`ddrsearch.stores.locations.socket_path`), and sends the whole command
line with the working folder, the ``DDRSEARCH_*`` settings and the terminal's
width. The server parses and runs it as this process would and sends back
what it printed, in order, and the exit status; this process prints that and
exits with it, so the output is byte for byte the in-process one.

Anything else runs in this process as before (``None``): ``DDRSEARCH_SERVER=0``,
no server (or a dead socket file), a command line this reader does not follow
(an abbreviated option, ``--help``, a query that starts with a dash), another
method than the index's, or a server that declines (other settings, another
copy of the package, code changed since it started, another version of the
protocol), does not acknowledge the request within :data:`ACK_TIMEOUT` (a
stopped or busy server) or does not answer within :data:`ANSWER_TIMEOUT`. Imports: the standard library's ``os``, ``sys``, ``socket``, ``json`` and
the small :mod:`ddrsearch.settings`, :mod:`ddrsearch.stores.locations` and
:mod:`ddrsearch.resident` (no NumPy, no index).
"""

from __future__ import annotations

import os
import sys

__all__ = ["ACK_TIMEOUT", "ANSWER_TIMEOUT", "PROTOCOL", "request_for", "run_via_server", "terminal_size"]

#: Version of the request a client sends and of the answers it takes; a server of another version declines the
#: request, and an answer without this version (a server of version 1, which sent no acknowledgement) is not used.
#: 2: the server acknowledges a request as soon as it has read it (:func:`ddrsearch.resident.call`'s ``ack_timeout``).
PROTOCOL = 2

#: Seconds a client waits for the server to acknowledge its request (connecting included) before it runs the
#: search itself: a server stopped (SIGSTOP, Ctrl-Z in its terminal) or busy with a long request still lets
#: clients connect, but does not read them.
ACK_TIMEOUT = 2.0

#: Seconds a client waits for a server's answer, once it has acknowledged the request, before it runs the
#: search itself.
ANSWER_TIMEOUT = 120.0

#: ``search``'s options that take a value, and its flags (:func:`ddrsearch.cli.search.add_search_parser`).
_VALUED = frozenset({"--method", "--unit", "--weight", "-k", "--corpus", "--archive", "--dir",
                     "--ocr", "--width", "--index"})
_FLAGS = frozenset({"--expand", "--no-index"})


def _options(argv: list[str]) -> dict | None:
    """The options of a ``search`` command line (``argv`` after ``search``), or ``None`` when this reader cannot tell."""
    options: dict[str, object] = {}
    i, positional = 0, False
    while i < len(argv):
        arg = argv[i]
        if positional or arg == "-" or not arg.startswith("-"):
            pass  # the query (argparse checks that there is one)
        elif arg == "--":
            positional = True
        elif arg.partition("=")[0] in _VALUED and "=" in arg:
            options[arg.partition("=")[0]] = arg.partition("=")[2]
        elif arg in _VALUED:
            if i + 1 >= len(argv):
                return None
            options[arg] = argv[i + 1]
            i += 1
        elif arg.startswith("-k") and len(arg) > 2:
            options["-k"] = arg[2:]
        elif arg in _FLAGS:
            options[arg] = True
        else:  # --help, an abbreviation argparse would accept, a query that starts with a dash
            return None
        i += 1
    return options


def terminal_size() -> tuple[int, int]:
    """Columns and lines as :func:`shutil.get_terminal_size` sees them here (argparse wraps its messages to them)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    try:
        lines = int(os.environ.get("LINES", "0"))
    except ValueError:
        lines = 0
    if columns <= 0 or lines <= 0:
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno())
        except (AttributeError, ValueError, OSError):
            size = os.terminal_size((80, 24))
        columns, lines = columns if columns > 0 else size.columns, lines if lines > 0 else size.lines
    return columns, lines


def request_for(argv: list[str]) -> tuple[str, dict] | None:
    """The socket to ask and the request to send for ``ddrsearch`` ``argv``, or ``None`` (run it here).

    Args:
        argv: the arguments after ``ddrsearch``; only ``search`` and ``ask`` are sent.

    Returns:
        ``(socket path, request)``, the request being a dict with ``v``
        (:data:`PROTOCOL`), ``argv``, ``cwd``, ``env`` (every ``DDRSEARCH_*``
        variable but ``DDRSEARCH_SERVER``), ``terminal`` (columns, lines),
        ``package`` (this copy's folder) and ``python`` (its version).
    """
    if argv[:1] not in (["search"], ["ask"]):
        return None
    options = _options(argv[1:])
    if options is None or options.get("--no-index"):
        return None
    if argv[0] == "search" and (options.get("--method", "hybrid") != "hybrid" or options.get("--unit", "auto") != "auto"):
        return None  # only the default pipeline is searched in an index (ddrsearch.cli.search)
    if argv[0] == "ask" and options.get("--ocr") is not None:
        return None  # ask --ocr reads the PDFs (ddrsearch.cli.ask)
    import ddrsearch
    from ddrsearch.stores.locations import quick_socket_path

    corpus = str(options.get("--corpus") or "sample")  # search's and ask's default
    if options.get("--index"):  # it wins over --dir and --archive, as in ddrsearch.cli.index
        path = quick_socket_path(corpus, str(options["--index"]))
    elif options.get("--dir") is not None or options.get("--archive") is not None:
        path = None
    else:
        path = quick_socket_path(corpus)
    if path is None:  # a folder of your own, or another archive: its folder's name has a hash (pathlib, hashlib)
        from ddrsearch.stores.locations import default_index_dir, socket_path

        try:
            folder = default_index_dir(corpus if options.get("--dir") is None else None, options.get("--dir"),
                                       options.get("--archive"))
        except Exception:  # a setting it cannot read: the search says so itself, in this process
            return None
        path = str(socket_path(folder))
    request = {
        "v": PROTOCOL, "argv": list(argv), "cwd": os.getcwd(),
        "env": {k: v for k, v in os.environ.items() if k.startswith("DDRSEARCH_") and k != "DDRSEARCH_SERVER"},
        "terminal": list(terminal_size()), "package": os.path.dirname(os.path.realpath(ddrsearch.__file__)),
        "python": sys.version,
    }
    return path, request


def run_via_server(argv: list[str]) -> int | None:
    """Run ``ddrsearch`` ``argv`` through a listening ``ddrsearch serve``; its exit status, or ``None`` (run it here).

    Prints what the server's run printed, standard output and standard error
    in the order it was written. ``None`` whenever the server cannot stand in
    for this process exactly (see the module's description), when
    ``DDRSEARCH_SERVER`` is ``0``, when standard output or error is closed,
    and when the answer holds text they cannot encode (``PYTHONIOENCODING=ascii``,
    a file name's undecodable byte): this process then prints its own error.
    A write that fails (a full disk) is reported as ``run`` reports it: one
    line on standard error, status 1; so is a ``DDRSEARCH_SERVER`` other than
    ``0``, ``1`` or unset (``off``, ``false``: it would not turn the server off).
    """
    from ddrsearch import settings

    wanted = settings.get("DDRSEARCH_SERVER")
    if wanted == "0":
        return None
    if wanted not in (None, "1"):  # "off", "false", "no": meant to turn it off, and would not
        from ddrsearch.answers.generation import strip_controls

        print(f"ddrsearch {argv[0]}: DDRSEARCH_SERVER={strip_controls(wanted)!r} is neither 0 nor 1; set it to 0 "
              "(never use ddrsearch serve) or 1 (use one when it runs), or unset it", file=sys.stderr)
        return 1
    if sys.stdout is None or sys.stderr is None:  # a closed stream: print() is silent here, write() would fail
        return None
    try:
        found = request_for(argv)
    except OSError:
        return None
    if found is None:
        return None
    path, request = found
    if not os.path.exists(path):
        return None
    from ddrsearch.resident import call

    answer = call(path, request, timeout=ANSWER_TIMEOUT, ack_timeout=ACK_TIMEOUT)
    if answer is None or answer.get("v") != PROTOCOL or "events" not in answer \
            or not isinstance(answer.get("code"), int):
        return None  # declined, another protocol, a bad request, an internal error, or no answer: this process does it
    events = answer["events"]
    if not isinstance(events, list) or not all(
            isinstance(e, list) and len(e) == 2 and e[0] in (1, 2) and isinstance(e[1], str) for e in events):
        return None
    if not all(_writable(sys.stdout if stream == 1 else sys.stderr, text) for stream, text in events):
        return None  # a stream that cannot take the text (PYTHONIOENCODING=ascii): this process says so, its way
    try:
        for stream, text in events:
            (sys.stdout if stream == 1 else sys.stderr).write(text)
    except BrokenPipeError:  # as ddrsearch.cli.command.run does: output piped into head, which stopped reading
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return 1
    except OSError as exc:  # a full disk, an I/O error: the line ddrsearch.cli.command.run prints
        from ddrsearch.answers.generation import strip_controls  # as run's _printable

        print(f"ddrsearch {argv[0]}: {strip_controls(str(exc))}", file=sys.stderr)
        return 1
    return answer["code"]


def _writable(stream, text: str) -> bool:
    """Whether ``stream`` can encode ``text`` (the server's run wrote it to a UTF-8 recorder, not to this stream)."""
    try:
        text.encode(getattr(stream, "encoding", None) or "utf-8", getattr(stream, "errors", None) or "strict")
    except (UnicodeEncodeError, LookupError):
        return False
    return True
