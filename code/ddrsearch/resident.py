"""A resident process on a Unix-domain socket: the wire format, its limits, the client's call and the server loop.

``ddrsearch serve`` keeps the libraries and an index loaded in one process, so
that a ``ddrsearch search`` from a new process pays only for starting Python
and one round trip (:mod:`ddrsearch.cli.serve`, :mod:`ddrsearch.cli.client`).
This module knows nothing of searching: it moves one JSON object each way.

The wire format: the client sends one JSON object on one line (UTF-8, ended
by ``\\n``, at most :data:`MAX_REQUEST_BYTES`), the server answers with one
JSON object on one line and closes the connection. Before its answer the
server may send an acknowledgement, ``{"accepted": true, ...}`` on a line of
its own, as soon as it has read the request (``serve(accept=)``): a client
that asks for one (``call(ack_timeout=)``) then knows within seconds whether
a server is working on its request, and does the work itself when none is
(a server stopped with SIGSTOP or Ctrl-Z, or busy with another request, still
lets clients connect, and would otherwise hold them for the whole answer
timeout). One request at a time: the server reads, acknowledges, answers and
only then accepts the next connection (others wait in the listen queue of
:data:`BACKLOG`). A request whose client has gone before the acknowledgement
could be sent (it gave up waiting) is not handled.

``listen`` takes an exclusive lock (``fcntl.flock`` on ``<socket>.lock``
beside the socket, mode 0600; the file stays) while it checks for a live
server, removes a dead socket file and binds, so that two servers started at
the same moment cannot both bind (the second would have removed the first's
file, leaving it listening on nothing).

Limits, all named here: :data:`MAX_REQUEST_BYTES` (64 KiB),
:data:`READ_TIMEOUT` (seconds the server waits for a request's bytes),
:data:`WRITE_TIMEOUT` (for its answer to be taken), :data:`MAX_RESPONSE_BYTES`
(what the client reads back), :data:`CONNECT_TIMEOUT`, and the client's
``ack_timeout`` and ``timeout`` for the acknowledgement and the answer. A request over the limit, cut short, or not a JSON
object is answered with ``{"error": "..."}`` (never a traceback).

Nothing here imports another ddrsearch module but :mod:`ddrsearch.errors`
(and nothing outside the standard library's ``socket``, ``json``, ``os``,
``sys``, ``time``; :func:`listen` also ``fcntl``, ``stat`` and ``contextlib``),
so the client stays cheap to import.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import time

from ddrsearch.errors import ServerBusyError

__all__ = ["BACKLOG", "CHECK_SECONDS", "CONNECT_TIMEOUT", "LOCK_SUFFIX", "MAX_PATH_BYTES", "MAX_REQUEST_BYTES",
           "MAX_RESPONSE_BYTES", "READ_TIMEOUT", "WRITE_TIMEOUT", "call", "check_path", "is_ack", "listen", "serve"]

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


#: Added to the socket's path to name the lock file :func:`listen` holds while it checks, cleans up and binds.
LOCK_SUFFIX = ".lock"


def _path_ok(path: str) -> bool:
    return len(os.fsencode(path)) <= MAX_PATH_BYTES


def check_path(path: str | os.PathLike) -> None:
    """Refuse a socket path the operating system would not bind (a server checks it before loading anything).

    Raises:
        ValueError: ``path`` is longer than :data:`MAX_PATH_BYTES` bytes; the
            message names it, its length, and what to do (a shorter index folder).
    """
    path = os.fspath(path)
    if not _path_ok(path):
        raise ValueError(f"the socket path {path} is {len(os.fsencode(path))} bytes long, more than the "
                         f"{MAX_PATH_BYTES} a Unix-domain socket allows; use a shorter index folder (--index), "
                         "for example one under /tmp")


def is_ack(message) -> bool:
    """Whether a line the server sent is its acknowledgement (``{"accepted": true, ...}``), not its answer."""
    return isinstance(message, dict) and message.get("accepted") is True


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


def call(path: str | os.PathLike, request: dict, *, timeout: float | None = 60.0,
         ack_timeout: float | None = None) -> dict | None:
    """Send ``request`` to the server listening at ``path``; its answer, or ``None`` when none answers.

    Args:
        path: the socket file.
        request: a JSON-serialisable dict (its encoding at most :data:`MAX_REQUEST_BYTES`).
        timeout: seconds to wait for the whole answer (``None``: no limit); with
            ``ack_timeout``, for the answer after the acknowledgement.
        ack_timeout: seconds from the start of the connection to the server's
            first line, its acknowledgement (:func:`is_ack`) or an answer sent
            at once (a ping's, a refusal); none in that time (a stopped or busy
            server) gives ``None``. ``None`` (the default): no acknowledgement
            awaited (one that comes is skipped), ``timeout`` for the whole.

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
        return _exchange(sock, path, data, timeout, ack_timeout)
    except (OSError, ValueError):  # refused (a dead socket file), reset, timed out, too long
        return None
    finally:
        sock.close()


class _Lines:
    """The lines a server sends on ``sock``, each read within a deadline (``TimeoutError`` past it)."""

    def __init__(self, sock: socket.socket):
        self.sock, self.buffer = sock, b""

    def next(self, deadline: float | None) -> bytes | None:
        """The next line (without its newline), or ``None`` when the stream ends first."""
        while b"\n" not in self.buffer:
            self.sock.settimeout(_left(deadline))
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
            if len(self.buffer) > MAX_RESPONSE_BYTES:
                raise ValueError("answer too long")
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line


def _left(deadline: float | None) -> float | None:
    """Seconds to ``deadline`` (a :func:`time.monotonic` time; ``None``: no limit); ``TimeoutError`` once past."""
    if deadline is None:
        return None
    rest = deadline - time.monotonic()
    if rest <= 0:
        raise TimeoutError
    return rest


def _exchange(sock: socket.socket, path: str, data: bytes, timeout: float | None,
              ack_timeout: float | None) -> dict | None:
    """:func:`call`'s connection: connect, send, and read up to the answer (skipping an acknowledgement)."""
    def after(seconds):
        return None if seconds is None else time.monotonic() + seconds

    first_deadline = after(ack_timeout)  # from the start: connecting to a stopped server's queue is part of it
    sock.settimeout(CONNECT_TIMEOUT if ack_timeout is None else min(CONNECT_TIMEOUT, ack_timeout))
    sock.connect(path)
    if not _peer_is_this_user(sock):  # the file may have been swapped between the check above and the connect
        return None
    if ack_timeout is None:
        first_deadline = after(timeout)  # connected: ``timeout`` for all the rest
    sock.settimeout(_left(first_deadline))
    sock.sendall(data)
    lines = _Lines(sock)
    line = lines.next(first_deadline)
    if line is None:
        return None
    answer = _parse(line)
    if not is_ack(answer):
        return answer  # answered at once (a ping, a refusal), without an acknowledgement
    deadline = after(timeout) if ack_timeout is not None else first_deadline  # acknowledged: ``timeout`` from now
    while is_ack(answer):
        line = lines.next(deadline)
        if line is None:
            return None  # the stream ended before an answer
        answer = _parse(line)
    return answer


def _parse(line: bytes) -> dict | None:
    try:
        answer = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return answer if isinstance(answer, dict) else None


def listen(path: str | os.PathLike) -> socket.socket:
    """A listening socket at ``path``, readable and writable by this user only (mode 0600).

    A socket file left by a server that was killed (nobody answers on it) is
    removed first. The check, the removal and the bind are done holding an
    exclusive lock on ``path`` + :data:`LOCK_SUFFIX` (created 0600 and left in
    place), taken without waiting.

    Raises:
        ServerBusyError: another server answers at ``path``, or another one holds the
            lock (it is starting at this moment).
        ValueError: ``path`` is longer than :data:`MAX_PATH_BYTES` bytes (:func:`check_path`).
        OSError: ``path`` exists and is not a socket, the lock file is not a regular
            file of this user with one name (a hard link to another file is not
            chmodded), the folder is not writable, or this Python has no Unix-domain
            sockets (Windows).
    """
    path = os.fspath(path)
    if not hasattr(socket, "AF_UNIX"):
        raise OSError("ddrsearch serve needs Unix-domain sockets, which this Python does not have (Windows); "
                      "use ddrsearch app to keep an index loaded")
    check_path(path)
    lock = _lock(path)
    try:
        return _bind(path)
    finally:
        os.close(lock)  # releases the lock: the socket is bound and listening (or this server gave up)


def _lock(path: str) -> int:
    """The descriptor of ``path``'s lock file, locked exclusively; raises ``ServerBusyError`` when it is held."""
    import contextlib
    import fcntl
    import stat

    name = path + LOCK_SUFFIX
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) \
        | getattr(os, "O_NONBLOCK", 0)  # a FIFO planted there does not block the open
    try:
        fd = os.open(name, flags, 0o600)
    except OSError as exc:
        raise OSError(f"cannot open the server's lock file {name}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{name} exists and is not a regular file; remove it or serve another index folder")
        if st.st_nlink != 1:  # a hard link to a file elsewhere: its mode must not be changed here
            raise OSError(f"{name} has {st.st_nlink} names (a hard link to another file), so it is not a lock "
                          "file a server made; remove it or serve another index folder")
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            raise OSError(f"{name} belongs to another user (uid {st.st_uid}), not to this server's; remove it "
                          "or serve another index folder")
        with contextlib.suppress(OSError):
            os.fchmod(fd, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ServerBusyError(f"another ddrsearch serve is starting at {path} at this moment (it holds "
                                  f"{name}); use that one, or stop it first") from None
    except BaseException:
        os.close(fd)
        raise
    return fd


def _bind(path: str) -> socket.socket:
    """Remove a dead server's socket file at ``path`` and bind and listen there (the caller holds the lock)."""
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
        if os.path.lexists(path):  # a server that took no lock (an older ddrsearch) bound it meanwhile
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


def _answer(conn: socket.socket, answer: dict) -> bool:
    """Send one line; ``False`` when the client has gone (nothing to tell it)."""
    conn.settimeout(WRITE_TIMEOUT)
    try:
        conn.sendall(json.dumps(answer).encode("utf-8") + b"\n")
    except OSError:
        return False
    return True


#: Seconds between two checks, while no request comes, that the server's socket file is still there.
CHECK_SECONDS = 10.0


def serve(sock: socket.socket, handle, *, idle_seconds: float | None = None, log=None, alive=None,
          accept=None) -> str:
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
        accept: called with each request as soon as it is read; a dict it returns
            (it must satisfy :func:`is_ack`) is sent at once as the
            acknowledgement, before ``handle`` runs; when that send fails (the
            client has gone: it gave up waiting) the request is not handled.
            ``None`` returned, or no ``accept``: no acknowledgement.

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
                ack = accept(request) if accept is not None else None
            except Exception as exc:  # as a handler's error below
                log(f"internal error: {type(exc).__name__}: {exc}")
                _answer(conn, {"error": f"internal error: {type(exc).__name__}: {exc}"})
                continue
            if ack is not None and not _answer(conn, ack):
                log("a client went away before its request was acknowledged (it runs it itself); not answered")
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
