"""A resident process on a Unix-domain socket: the wire format, its limits, the client's call and the server loop.

``ddrsearch serve`` keeps the libraries and an index loaded in one process, so
that a ``ddrsearch search`` from a new process pays only for starting Python
and one round trip (:mod:`ddrsearch.cli.serve`, :mod:`ddrsearch.cli.client`).
This module knows nothing of searching: it moves one JSON object each way.

The wire format: the client sends one JSON object on one line (UTF-8, ended
by ``\\n``, at most :data:`MAX_REQUEST_BYTES`), the server answers with one
JSON object on one line and closes the connection. One request at a time:
the server reads, answers and only then accepts the next connection (others
wait in the listen queue of :data:`BACKLOG`).

Limits, all named here: :data:`MAX_REQUEST_BYTES` (64 KiB),
:data:`READ_TIMEOUT` (seconds the server waits for a request's bytes),
:data:`WRITE_TIMEOUT` (for its answer to be taken), :data:`MAX_RESPONSE_BYTES`
(what the client reads back), :data:`CONNECT_TIMEOUT` and the client's
``timeout`` for the answer. A request over the limit, cut short, or not a JSON
object is answered with ``{"error": "..."}`` (never a traceback).

Nothing here imports another ddrsearch module but :mod:`ddrsearch.errors`
(and nothing outside the standard library's ``socket``, ``json``, ``os``,
``sys``, ``time``), so the client stays cheap to import.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time

from ddrsearch.errors import ServerBusyError

__all__ = ["BACKLOG", "CHECK_SECONDS", "CONNECT_TIMEOUT", "MAX_PATH_BYTES", "MAX_REQUEST_BYTES", "MAX_RESPONSE_BYTES", "READ_TIMEOUT",
           "WRITE_TIMEOUT", "call", "listen", "serve"]

#: Largest request a server reads, in bytes (its line and the ``\n``).
MAX_REQUEST_BYTES = 64 * 1024

#: Largest answer a client reads back, in bytes (a search's table is a few KB).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024

#: Seconds the server waits for the bytes of one request (all of them) before it drops the connection.
READ_TIMEOUT = 5.0

#: Seconds the server waits for a client to take its answer.
WRITE_TIMEOUT = 30.0

#: Seconds a client waits to connect (a server that does not accept in that time is treated as absent).
CONNECT_TIMEOUT = 2.0

#: Connections that may wait while the server answers another one.
BACKLOG = 16

#: Longest socket path the operating system accepts, in bytes (Linux: 108 with the final NUL).
MAX_PATH_BYTES = 107


def _path_ok(path: str) -> bool:
    return len(os.fsencode(path)) <= MAX_PATH_BYTES


def _owned_socket(path: str) -> bool:
    """``path`` is a socket that this user owns (another user's socket in a shared folder is not trusted)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (st.st_mode & 0o170000) == 0o140000 and (not hasattr(os, "getuid") or st.st_uid == os.getuid())


def _peer_is_this_user(sock: socket.socket) -> bool:
    """The process at the other end of ``sock`` runs as this user (Linux's ``SO_PEERCRED``; elsewhere: assumed)."""
    if not hasattr(socket, "SO_PEERCRED") or not hasattr(os, "getuid"):
        return True
    import struct

    size = struct.calcsize("3i")
    _, uid, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, size))
    return uid == os.getuid()


def call(path: str | os.PathLike, request: dict, *, timeout: float | None = 60.0) -> dict | None:
    """Send ``request`` to the server listening at ``path``; its answer, or ``None`` when none answers.

    Args:
        path: the socket file.
        request: a JSON-serialisable dict (its encoding at most :data:`MAX_REQUEST_BYTES`).
        timeout: seconds to wait for the whole answer (``None``: no limit).

    Returns:
        The server's answer (a dict), or ``None``: no socket there, not one this
        user owns, a listening process of another user (Linux), nobody listening (a server that was killed), a path longer than
        :data:`MAX_PATH_BYTES`, a timeout, or an answer that is not one JSON object
        of at most :data:`MAX_RESPONSE_BYTES`. ``None`` means: do the work yourself.
    """
    path = os.fspath(path)
    if not hasattr(socket, "AF_UNIX") or not _path_ok(path) or not _owned_socket(path):
        return None  # (Windows' Python has no Unix-domain sockets)
    data = json.dumps(request).encode("utf-8") + b"\n"
    if len(data) > MAX_REQUEST_BYTES:
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(CONNECT_TIMEOUT)
        sock.connect(path)
        if not _peer_is_this_user(sock):  # the file may have been swapped between the check above and the connect
            return None
        sock.settimeout(timeout)
        sock.sendall(data)
        chunks, size = [], 0
        while True:  # to the answer's newline (or the end of the stream)
            chunk = sock.recv(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                return None
            if chunk.endswith(b"\n"):
                break
    except OSError:  # refused (a dead socket file), reset, timed out
        return None
    finally:
        sock.close()
    try:
        answer = json.loads(b"".join(chunks).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return answer if isinstance(answer, dict) else None


def listen(path: str | os.PathLike) -> socket.socket:
    """A listening socket at ``path``, readable and writable by this user only (mode 0600).

    A socket file left by a server that was killed (nobody answers on it) is
    removed first.

    Raises:
        ServerBusyError: another server answers at ``path`` (or took it between the check and the bind).
        ValueError: ``path`` is longer than :data:`MAX_PATH_BYTES` bytes.
        OSError: ``path`` exists and is not a socket, the folder is not writable, or this Python
            has no Unix-domain sockets (Windows).
    """
    path = os.fspath(path)
    if not hasattr(socket, "AF_UNIX"):
        raise OSError("ddrsearch serve needs Unix-domain sockets, which this Python does not have (Windows); "
                      "use ddrsearch app to keep an index loaded")
    if not _path_ok(path):
        raise ValueError(f"the socket path {path} is {len(os.fsencode(path))} bytes long, more than the "
                         f"{MAX_PATH_BYTES} a Unix-domain socket allows; use a shorter index folder (--index)")
    if os.path.lexists(path):
        if (os.lstat(path).st_mode & 0o170000) != 0o140000:
            raise OSError(f"{path} exists and is not a socket; remove it or serve another index folder")
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.settimeout(CONNECT_TIMEOUT)
        try:
            probe.connect(path)
        except OSError:  # nobody listening: a dead server's file
            os.unlink(path)
        else:
            raise ServerBusyError(f"another ddrsearch serve answers at {path}; stop it first (Ctrl-C in its "
                                  "terminal) or use that one")
        finally:
            probe.close()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)  # the file is created 0600: no window in which another user could connect
    try:
        sock.bind(path)
    except OSError as exc:
        sock.close()
        if os.path.lexists(path):
            raise ServerBusyError(f"another ddrsearch serve started at {path} at the same moment ({exc})") from None
        raise
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(BACKLOG)
    return sock


def _read_request(conn: socket.socket) -> dict:
    """One request line from ``conn``; raises ``ValueError`` with the reason a client is told."""
    deadline = time.monotonic() + READ_TIMEOUT  # for the whole request: a byte every few seconds does not hold it
    data = b""
    while b"\n" not in data:
        left = deadline - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            conn.settimeout(left)
            chunk = conn.recv(1 << 16)
        except TimeoutError:
            raise ValueError(f"no complete request within {READ_TIMEOUT:g} s") from None
        if not chunk:
            break
        data += chunk
        if len(data) > MAX_REQUEST_BYTES:
            raise ValueError(f"request longer than {MAX_REQUEST_BYTES} bytes")
    line, newline, _ = data.partition(b"\n")
    if not newline:
        raise ValueError("request not ended by a newline (cut short?)")
    if len(line) + 1 > MAX_REQUEST_BYTES:
        raise ValueError(f"request longer than {MAX_REQUEST_BYTES} bytes")
    try:
        request = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValueError(f"request is not JSON in UTF-8 ({type(exc).__name__})") from None
    if not isinstance(request, dict):
        raise ValueError(f"request is a JSON {type(request).__name__}, not an object")
    return request


def _answer(conn: socket.socket, answer: dict) -> None:
    conn.settimeout(WRITE_TIMEOUT)
    try:
        conn.sendall(json.dumps(answer).encode("utf-8") + b"\n")
    except OSError:  # the client went away: nothing to tell it
        return


#: Seconds between two checks, while no request comes, that the server's socket file is still there.
CHECK_SECONDS = 10.0


def serve(sock: socket.socket, handle, *, idle_seconds: float | None = None, log=None, alive=None) -> str:
    """Answer requests on ``sock`` one at a time until the handler asks to stop or nobody asks for a while.

    Args:
        sock: a listening socket (:func:`listen`).
        handle: called with each request (a dict); returns ``(answer, stop)``:
            the dict sent back, and whether to stop after sending it. An
            exception it raises is answered with ``{"error": "internal error:
            <type>: <message>"}`` and logged, and the server goes on.
        idle_seconds: stop after this many seconds without a request (``None``: never).
        log: called with one line per event worth telling the server's user
            (default: standard error).
        alive: called every :data:`CHECK_SECONDS` without a request; when it returns
            ``False`` (the socket file was removed with its folder: no client can
            reach this server any more) the server stops (``None``: never asked).

    Returns:
        Why it stopped: ``"idle"``, ``"stopped"`` (the handler's ``stop``) or ``"gone"`` (``alive``).
    """
    log = log or (lambda line: print(line, file=sys.stderr, flush=True))
    last = time.monotonic()
    while True:
        wait = None
        if idle_seconds is not None:
            left = idle_seconds - (time.monotonic() - last)
            if left <= 0:
                return "idle"
            wait = left
        if alive is not None:
            wait = CHECK_SECONDS if wait is None else min(wait, CHECK_SECONDS)
        sock.settimeout(wait)
        try:
            conn, _ = sock.accept()
        except TimeoutError:
            if alive is not None and not alive():
                return "gone"
            continue  # the idle check above decides
        last = time.monotonic()
        stop = False
        with conn:
            try:
                request = _read_request(conn)
            except (ValueError, OSError) as exc:
                log(f"bad request: {exc}")
                _answer(conn, {"error": f"bad request: {exc}"})
                continue
            try:
                answer, stop = handle(request)
            except Exception as exc:  # one bad request must not stop the server
                log(f"internal error: {type(exc).__name__}: {exc}")
                answer = {"error": f"internal error: {type(exc).__name__}: {exc}"}
            _answer(conn, answer)
        last = time.monotonic()
        if stop:
            return "stopped"
