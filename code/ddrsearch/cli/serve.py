"""``ddrsearch serve``: keep an index and the libraries loaded, and answer ``search`` and ``ask`` from other processes.

A search from a new process spends most of its time loading NumPy,
onnxruntime, the tokenizer and the index, not searching. ``ddrsearch serve``
loads them once, in the foreground, and listens on a Unix-domain socket inside
the index folder (``<index>/serve.sock``, mode 0600,
:mod:`ddrsearch.resident`); ``ddrsearch search`` and ``ddrsearch ask`` with the
same index find it there and send their command line (:mod:`ddrsearch.cli.client`).

The server runs each request as ``ddrsearch search`` (or ``ask``) would in a process of
its own: the same parser, the same command (:mod:`ddrsearch.cli.search`, :mod:`ddrsearch.cli.ask`), in
the client's working folder, with the client's terminal width, and records
what it prints, in order, with its exit status. So the client's output is byte
for byte the in-process one, notes and usage errors included. It declines
(and the client searches in its own process) when it cannot stand in exactly:
other ``DDRSEARCH_*`` settings than its own, another copy of the package or
another Python, a search that would not use its index (another method, unit or
index folder, ``--no-index``, ``ask --ocr``), or the package's code changed since it started
(then it also stops: start it again).

Before each search it checks, by the rules of ``search``
(:func:`ddrsearch.cli.index.current_index`, :func:`ddrsearch.stores.disk_index.stale_reasons`),
that its index is still current: a new generation (``index add``, ``index
build``) is loaded; an index gone stale (a report changed, one not indexed
yet) gets the same one-line note as ``search`` prints, and the search reads the
PDFs, as it would.

Each request of this version of the protocol (:data:`ddrsearch.cli.client.PROTOCOL`) is acknowledged as soon
as it is read, before the search: a client whose request is not acknowledged within
:data:`ddrsearch.cli.client.ACK_TIMEOUT` (this server stopped with Ctrl-Z or SIGSTOP, or busy) searches in its
own process, and a request whose client has gone by then is not run. A request of another version is declined,
and every answer carries the version.

Limits: one request at a time (the next ones wait in the socket's queue), the
request and timeout limits of :mod:`ddrsearch.resident`, and ``--idle-minutes``
(default :data:`IDLE_MINUTES`) without a request, after which it stops; it also
stops when its socket file is gone (the index folder deleted or moved).
Ctrl-C (or SIGTERM) stops it after the answer in progress, with exit status
130; the socket file is removed. A second server on the same index is
refused (also one started at the same moment: :func:`ddrsearch.resident.listen` locks ``serve.sock.lock``);
a socket file left by a killed server is removed. A socket path the system cannot bind (longer than
:data:`ddrsearch.resident.MAX_PATH_BYTES`) is refused before the index is loaded. A server whose first
searches print notes that a process prints only once (:meth:`IndexServer.warm`: the embedding cache cannot be
written, questions embedded with PyTorch) says them and does not serve: its answers would lack them.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import io
import os
import signal
import sys
import time
from pathlib import Path

from ddrsearch.cli.client import ACK_TIMEOUT, PROTOCOL
from ddrsearch.cli.index import add_index_options
from ddrsearch.errors import ServerDeclined

__all__ = ["IDLE_MINUTES", "IndexServer", "add_serve_parser"]

#: Default minutes without a request after which ``ddrsearch serve`` stops.
IDLE_MINUTES = 60.0

#: Commands a server runs for a client.
_COMMANDS = ("search", "ask")



def _status(path) -> tuple:
    """A file's identity and change times (inode, size, mtime, ctime in ns), or just its name when it is missing."""
    try:
        st = os.stat(path)
    except OSError:
        return (str(path),)
    return (str(path), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

class _Recorder(io.TextIOBase):
    """A text stream that records what is written to it as ``[stream number, text]`` events, in order."""

    def __init__(self, number: int, events: list):
        self.number, self.events = number, events

    @property
    def encoding(self) -> str:
        return "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text:
            if self.events and self.events[-1][0] == self.number:
                self.events[-1][1] += text
            else:
                self.events.append([self.number, text])
        return len(text)


def _code_stamp(package: Path) -> dict[str, tuple[int, int]]:
    """Size and modification time of every file of the package (its code and resources)."""
    stamp = {}
    for root, dirs, files in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            path = os.path.join(root, name)
            with contextlib.suppress(OSError):
                st = os.stat(path)
                stamp[os.path.relpath(path, package)] = (st.st_size, st.st_mtime_ns)
    return stamp


def _files_status(folder: Path) -> tuple:
    """Size, modification and change times of each file of a generation (a file rewritten or damaged shows)."""
    found = []
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            path = os.path.join(root, name)
            with contextlib.suppress(OSError):
                st = os.stat(path)
                found.append((path, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(sorted(found))


def _settings_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith("DDRSEARCH_") and k != "DDRSEARCH_SERVER"}


@contextlib.contextmanager
def _as_client(cwd: str, columns: int, lines: int):
    """The client's working folder and terminal size (argparse wraps to it), for one request."""
    here = os.getcwd()
    saved = {k: os.environ.get(k) for k in ("COLUMNS", "LINES")}
    os.chdir(cwd)
    os.environ["COLUMNS"], os.environ["LINES"] = str(columns), str(lines)
    try:
        yield
    finally:
        os.chdir(here)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


class IndexServer:
    """The state of one ``ddrsearch serve``: its index, the settings it started with, and the request handler.

    Args:
        args: the parsed ``ddrsearch serve`` arguments (``corpus``, ``dir``, ``archive``, ``index``).
        index: the current index they name (:func:`ddrsearch.cli.index.current_index`).
        log: called with one line per event (default: standard error).

    Attributes:
        folder: the index folder, resolved; index: the loaded
            :class:`~ddrsearch.stores.disk_index.SearchIndex` (replaced when a
            new generation is current); requests: how many were answered.
    """

    def __init__(self, args: argparse.Namespace, index, *, log=None):
        import ddrsearch
        from ddrsearch.cli.index import index_dir_of

        self.args, self.index, self.ask_index = args, index, None
        self.folder = index_dir_of(args).resolve()
        stream = sys.stderr  # the server's own, not a request's (whose output is recorded for its client)
        self.log = log or (lambda line: print(line, file=stream, flush=True))
        self.package = Path(ddrsearch.__file__).resolve().parent
        self.env = _settings_env()
        self.stamp = _code_stamp(self.package)
        self.requests = 0
        self.inputs = self._inputs()
        self.signature = None  # of the inputs when the last full check found the index current
        self.loaded = _files_status(index.generation.folder)  # the generation's files as they were loaded
        self.corpus_memo = None  # (what the corpus's PDFs depend on, their paths)
        self.stop_requested = False  # Ctrl-C or SIGTERM during a request: stop after answering it
        self.in_request = False

    def warm(self) -> list[str]:
        """Run a search and an ask as a client would (their output dropped), so that a first request pays no loading.

        A first search loads the question encoder, the lexicon and the row
        tables, a misspelt word the spelling dictionary, a first ask the
        answerer and its copy of the index (:meth:`_ask_index`). The questions
        are not ones a benchmark asks, so no answer of theirs comes from the
        retriever's per-question caches.

        Both run twice. Returns the lines of standard error the first run
        printed and the second did not: notes a process prints once, at its
        first search (the embedding cache cannot be written, questions
        embedded with PyTorch instead of ONNX), which a search in its own
        process prints every time but an answer from this server would leave
        out (:func:`_cmd_serve` then does not serve). Empty when there are none.
        """
        a = self.args
        where = ["--dir", a.dir] if a.dir is not None else ["--corpus", a.corpus]
        where += [*(["--archive", a.archive] if a.archive else []), "--index", str(self.folder)]
        log, self.log = self.log, lambda line: None
        runs = []
        try:
            for _ in range(2):
                printed = []
                for argv in (["search", "circulte", "-k", "3", *where], ["ask", "when did we circulte?", *where]):
                    answer, _ = self.handle({"v": PROTOCOL, "argv": argv, "cwd": os.getcwd(), "env": self.env,
                                             "terminal": [80, 24], "package": str(self.package),
                                             "python": sys.version})
                    printed += "".join(text for stream, text in answer.get("events", []) if stream == 2).splitlines()
                runs.append(printed)
        finally:
            self.log, self.requests = log, 0
        return [line for line in runs[0] if line not in runs[1]]

    # -- the index, checked before each search ------------------------------------------------------------
    def _inputs(self) -> list[Path]:
        """Files besides the reports whose change makes the index stale: the glossary, the lexicon, the model's."""
        from ddrsearch.retrieval.concepts import default_tagger
        from ddrsearch.text.glossary import glossary_path

        files = [glossary_path(), default_tagger().lexicon.path]
        model = Path(self.index.retriever.dense.embedder.source.location)
        if model.is_dir():
            files += sorted(p for p in model.rglob("*") if p.is_file())
        return files

    def _corpus_paths(self, args: argparse.Namespace) -> list[Path]:
        """The PDFs of ``--corpus`` (:func:`ddrsearch.cli.index.source_paths`), read again only when they may differ.

        The manifest is parsed again when its file, or the folder of the PDFs
        (a file added, removed or renamed), has another status than at the last
        reading; ``--dir`` is listed at every request (the listing warns about
        subfolders, as a search in its own process does every time).
        """
        from ddrsearch.cli.index import source_paths
        from ddrsearch.data.folders import archive_dir
        from ddrsearch.data.manifest import manifest_path

        where = Path(args.archive) if args.archive else archive_dir()
        key = (os.getcwd(), args.corpus, args.archive, _status(where), _status(manifest_path()))
        if self.corpus_memo is None or self.corpus_memo[0] != key:
            self.corpus_memo = (key, source_paths(args)[0])
        return self.corpus_memo[1]

    def _signature(self, folder: Path, paths: list[Path]) -> tuple:
        """What the last full check of currency depended on, by file status (inode, size, modification and change times)."""
        indexed = [e["path"] for e in self.index.reports]
        return (str(folder.resolve()), _status(folder / "CURRENT"), _files_status(self.index.generation.folder),
                *map(_status, paths), "|",
                *map(_status, indexed), "|", *map(_status, self.inputs))

    def current_index(self, args: argparse.Namespace, *, say=None):
        """The index a search with ``args`` uses: the loaded one while it is current, else as ``search`` decides.

        The same answer, and the same one-line notes, as
        :func:`ddrsearch.cli.index.current_index` in a new process. The loaded
        index is returned when nothing it was checked against has changed since
        the last full check found it current: the file ``CURRENT`` (replaced
        by every new generation), each report PDF of the search (the list and
        each file's inode, size, modification and change times), each indexed
        report's file, the files of the loaded generation, the glossary, the lexicon and the model's files (the
        package's code is checked before each request, :meth:`handle`).
        Otherwise the full check runs: the generation ``CURRENT`` names and
        :func:`~ddrsearch.stores.disk_index.stale_reasons` (the reports'
        SHA-256, the model, the pipeline's code), and when that finds a
        difference, ``current_index`` itself decides (it loads a new
        generation, kept for the next requests, or prints why the index is out
        of date and returns ``None``, and the search reads the PDFs).
        """
        from ddrsearch.cli.index import current_index, index_dir_of, source_paths
        from ddrsearch.errors import SearchIndexError
        from ddrsearch.stores.disk_index import stale_reasons
        from ddrsearch.stores.generations import current_generation

        index = self.index
        try:
            folder = index_dir_of(args)
            paths = self._corpus_paths(args) if args.dir is None else source_paths(args)[0]
            signature = self._signature(folder, paths)
            current = signature == self.signature
            generation = None if current else current_generation(folder)
        except SearchIndexError:
            current, generation = False, None
        if not current and generation is not None and folder.resolve() == self.folder \
                and generation.folder.name == index.generation.folder.name \
                and _files_status(index.generation.folder) == self.loaded \
                and not stale_reasons(index.generation, corpus=paths,
                                      model_key=index.retriever.dense.embedder.source.key):
            self.signature, current = signature, True
        if current:  # named as this request names it (search prints it)
            return dataclasses.replace(index if args.command == "search" else self._ask_index(), folder=folder)
        self.signature = None
        fresh = current_index(args, say=say)  # a damaged generation: its note, and the search reads the PDFs
        if fresh is not None and (fresh.generation.folder.name != index.generation.folder.name
                                  or _files_status(fresh.generation.folder) != self.loaded):
            self.log(f"ddrsearch serve: loaded {fresh.generation.folder.name} ({len(fresh.reports)} reports)")
            self.loaded = _files_status(fresh.generation.folder)
            if args.command == "search":
                self.index, self.ask_index = fresh, None
            else:
                self.index, self.ask_index = self._open(fresh), fresh
        return fresh

    def _open(self, like):
        """Another copy of the current index (its own retriever; the question encoder shared with ``like``)."""
        from ddrsearch.stores.disk_index import open_index

        return open_index(self.folder, embedder=like.retriever.dense.embedder)

    def _ask_index(self):
        """The copy of the index ``ask`` uses: ``ask`` attaches the reports to its retriever, which ``search`` must
        not see (a search's notes speak of indexed rows, not of reports)."""
        if self.ask_index is None or self.ask_index.generation.folder.name != self.index.generation.folder.name:
            self.ask_index = self._open(self.index)
        return self.ask_index

    def _prepare(self, args: argparse.Namespace) -> None:
        """Hand the loaded index to ``search``, or decline a search that would not use it."""
        from ddrsearch.cli.index import index_dir_of
        from ddrsearch.errors import SearchIndexError

        if args.command not in _COMMANDS:
            raise ServerDeclined(f"{args.command} is not served")
        if args.no_index or (args.command == "search" and (args.method != "hybrid" or args.unit != "auto")) \
                or (args.command == "ask" and args.ocr is not None):
            raise ServerDeclined(f"this {args.command} does not use the index")
        try:
            folder = index_dir_of(args).resolve()
        except SearchIndexError as exc:
            raise ServerDeclined(str(exc)) from None
        if folder != self.folder:
            raise ServerDeclined(f"another index ({folder})")
        args.current_index = self.current_index

    # -- one request -----------------------------------------------------------------------------------------
    def _check(self, request: dict) -> tuple[list[str], str, int, int]:
        """The request's command line, folder and terminal size; raises ``ServerDeclined`` or ``ValueError``."""
        if request.get("v") != PROTOCOL:
            raise ServerDeclined(f"protocol {request.get('v')!r}, this server speaks {PROTOCOL}")
        argv, cwd, env, terminal = (request.get(k) for k in ("argv", "cwd", "env", "terminal"))
        if not (isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv)):
            raise ValueError("argv must be a non-empty list of strings")
        if not isinstance(cwd, str) or not isinstance(env, dict) \
                or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            raise ValueError("cwd must be a string and env an object of strings")
        if not (isinstance(terminal, list) and len(terminal) == 2
                and all(isinstance(n, int) and not isinstance(n, bool) and 0 < n < 100_000 for n in terminal)):
            raise ValueError("terminal must be [columns, lines], two positive whole numbers")
        if argv[0] not in _COMMANDS:
            raise ServerDeclined(f"{argv[0][:40]!r} is not served")
        if request.get("package") != str(self.package) or request.get("python") != sys.version:
            raise ServerDeclined("another copy of ddrsearch or another Python")
        if env != self.env:
            raise ServerDeclined("other DDRSEARCH_* settings than the server's")
        if not os.path.isdir(cwd):
            raise ServerDeclined("the working folder is not a folder here")
        return argv, cwd, terminal[0], terminal[1]

    def _code_changed(self) -> bool:
        """Whether a file of the package changed since this server started (then it says so and stops)."""
        if _code_stamp(self.package) == self.stamp:
            return False
        self.log("ddrsearch serve: the package's code changed since this server started; stopping "
                 "(start it again to serve the new code)")
        return True

    def accept(self, request: dict) -> dict | None:
        """The acknowledgement of a request (:func:`ddrsearch.resident.serve`'s ``accept``), sent before it runs.

        ``{"accepted": true, "v": PROTOCOL}`` for a request of this version of the
        protocol (:data:`ddrsearch.cli.client.PROTOCOL`); ``None`` for a ping and
        for another version, which :meth:`handle` answers at once.
        """
        if request.get("command") == "ping" or request.get("v") != PROTOCOL:
            return None
        return {"accepted": True, "v": PROTOCOL}

    def handle(self, request: dict) -> tuple[dict, bool]:
        """Answer one request (:func:`ddrsearch.resident.serve`'s handler): ``(answer, stop)``, with ``"v"``.

        Every answer carries ``"v"``: :data:`ddrsearch.cli.client.PROTOCOL`.

        Requests: ``{"command": "ping"}`` is answered ``{"pong": true, "pid": ..., "index": ..., "requests": n}``
        (``n`` searches answered so far), or, when the package's code changed, with a ``fallback`` as the
        server stops (a ``ddrsearch serve`` started on the new code then takes its place);
        a search request (:func:`ddrsearch.cli.client.request_for`) with
        ``{"events": [[1 or 2, text], ...], "code": exit status}`` (1: standard
        output, 2: standard error), or ``{"fallback": reason}`` when the client
        should search itself (also for a request of another version), or
        ``{"error": reason}`` for a malformed request.
        """
        answer, stop = self._handle(request)
        return {**answer, "v": PROTOCOL}, stop

    def _handle(self, request: dict) -> tuple[dict, bool]:
        from ddrsearch.cli.command import run

        if request.get("command") == "ping":
            if self._code_changed():  # so that a new server of the new code is not refused by this one
                return {"fallback": "the server's code is out of date"}, True
            return {"pong": True, "pid": os.getpid(), "index": str(self.folder), "requests": self.requests}, False
        try:
            argv, cwd, columns, lines = self._check(request)
        except ValueError as exc:
            return {"error": f"bad request: {exc}"}, False
        except ServerDeclined as exc:
            return {"fallback": str(exc)}, False
        if self._code_changed():
            return {"fallback": "the server's code is out of date"}, True
        events: list = []
        t0 = time.perf_counter()
        self.in_request = True
        gc.disable()  # no collection pause inside an answer: it runs between requests instead
        try:
            with _as_client(cwd, columns, lines), contextlib.redirect_stdout(_Recorder(1, events)), \
                    contextlib.redirect_stderr(_Recorder(2, events)):
                try:
                    code = run(argv, prepare=self._prepare)
                except SystemExit as exc:  # argparse: a usage error (2) or --help (0)
                    code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
                    if not isinstance(exc.code, int | None):
                        print(exc.code, file=sys.stderr)
        except ServerDeclined as exc:
            return {"fallback": str(exc)}, self.stop_requested
        finally:
            self.in_request = False
            gc.enable()
        self.requests += 1
        self.log(f"ddrsearch serve: {argv[0]} answered (exit {code}) in {time.perf_counter() - t0:.3f} s")
        return {"events": events, "code": code}, self.stop_requested


def _idle_minutes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of minutes of 0 or more (0: never stop)")
    return value


def _cmd_serve(args: argparse.Namespace) -> int:
    from ddrsearch.cli.index import current_index, index_dir_of, source_paths
    from ddrsearch.errors import ServerBusyError
    from ddrsearch.resident import call, check_path, listen, serve
    from ddrsearch.stores.locations import socket_path

    folder = index_dir_of(args)
    path = socket_path(folder)
    check_path(path)  # too long for a socket: said before seconds of loading (a ValueError: one line, exit 1)
    pong = call(path, {"command": "ping"}, timeout=ACK_TIMEOUT)  # a stopped server: listen() below refuses it
    if pong is not None and pong.get("pong"):  # said before loading anything (listen() checks again)
        raise ServerBusyError(f"another ddrsearch serve answers at {path} (process {pong.get('pid')}); stop it "
                              "first (Ctrl-C in its terminal) or use that one")
    index = current_index(args)  # a stale or damaged index: the note search prints
    if index is None:
        print(f"ddrsearch serve: no current index at {folder} to serve; build it with: {source_paths(args)[2]}"
              + (f" --index {args.index}" if args.index else ""), file=sys.stderr)
        return 1
    server = IndexServer(args, index)
    once = server.warm()
    if once:  # a client's answer would lack them: a search in its own process prints them each time
        print("\n".join(once), file=sys.stderr)
        print("ddrsearch serve: not serving: a search in its own process prints the line(s) above every time, "
              "and an answer from this server would leave them out; fix what they say and start it again "
              "(meanwhile ddrsearch search and ask work without it)", file=sys.stderr)
        return 1
    gc.freeze()  # what is loaded now stays: the collector no longer walks it at every collection
    sock = listen(path)  # another server there: ServerBusyError (an OSError: one line, exit 1)
    inode = os.stat(path).st_ino

    def stop(signum, frame):
        if server.in_request:
            server.stop_requested = True  # answer the request in progress, then stop
        else:
            raise KeyboardInterrupt

    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        idle = args.idle_minutes * 60 if args.idle_minutes else None
        print(f"ddrsearch serve: {folder} ({len(index.reports)} reports, {index.generation.folder.name}) on {path}; "
              + (f"stops after {args.idle_minutes:g} minutes without a request; " if idle else "")
              + "Ctrl-C stops it.", flush=True)
        def alive() -> bool:  # the socket file is still this server's (not removed with the index folder)
            try:
                return os.lstat(path).st_ino == inode
            except OSError:
                return False

        why = serve(sock, server.handle, idle_seconds=idle, log=server.log, alive=alive, accept=server.accept)
        if why == "gone":
            print(f"ddrsearch serve: {path} was removed (the index folder deleted or moved), so no search can "
                  f"reach this server; stopped ({server.requests} answered).", flush=True)
        elif why == "idle":
            print(f"ddrsearch serve: no request for {args.idle_minutes:g} minutes; stopped "
                  f"({server.requests} answered).", flush=True)
        elif server.stop_requested:
            raise KeyboardInterrupt
        return 0
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
        sock.close()
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == inode:  # still ours (not a newer server's)
                os.unlink(path)


def add_serve_parser(sub) -> None:
    """Add ``ddrsearch serve``."""
    p = sub.add_parser(
        "serve",
        help="keep an index loaded so that searches and asks from other processes answer fast",
        description=(
            "Load the current index of a corpus or folder (the same options as ddrsearch search) and the "
            "libraries once, and answer ddrsearch search and ddrsearch ask from other processes through a "
            "socket in the index folder: the same output, without loading them each time. Runs in the "
            "foreground; Ctrl-C stops it, and it stops after N minutes without a request (--idle-minutes). "
            "DDRSEARCH_SERVER=0 makes a search or ask ignore it."
        ),
    )
    p.add_argument("--corpus", choices=["sample", "archive"], default="sample",
                   help="sample: the ten-report sample (default, as for search); archive: all 76 reports")
    p.add_argument("--archive", metavar="DIR", default=None,
                   help="folder of the report PDFs (default: $DDRSEARCH_ARCHIVE_DIR or datasets/forge_archive)")
    p.add_argument("--dir", metavar="FOLDER", default=None, help="a folder of your own report PDFs instead")
    p.add_argument("--idle-minutes", type=_idle_minutes, default=IDLE_MINUTES, metavar="N",
                   help=f"stop after N minutes without a request (default {IDLE_MINUTES:g}; 0: never)")
    add_index_options(p)
    p.set_defaults(func=_cmd_serve)
