"""Reading report files in a separate process, with a hard limit on the time and the memory each may take.

The reader's own limits (:mod:`ddrsearch.reading.pdf`: pages, drawing
instructions, characters, and :class:`~ddrsearch.reading.pdf.ReadClock`) are
checked between PyMuPDF calls. One PyMuPDF call on one page cannot be
interrupted from Python, and some work inside it is not seen by those counts
(a Type3 font shown from another Type3 font's glyph runs all its glyph
procedures when it is loaded), so a small hostile file can keep one call busy
for minutes and take gigabytes.

:class:`IsolatedReader` runs the reading function in a worker process and
holds each file to two hard limits, enforced from outside:

* ``DDRSEARCH_MAX_READ_SECONDS`` (default 60 s): the parent waits at most this
  long for each file's answer;
* ``DDRSEARCH_MAX_READ_MB`` (default :data:`MAX_READ_MB`): the parent reads the
  worker's resident memory (``VmRSS`` of ``/proc/<pid>/status``) every
  :data:`POLL_SECONDS` while it waits.

Over either, the worker is killed (``SIGKILL``), :class:`~ddrsearch.errors.ReportTooLargeError`
names the file, what it spent, the limit and the setting, and the next file
is read by a fresh worker. A worker that dies by itself (a crash in the PDF
library, the kernel's out-of-memory killer) gives a
:class:`~ddrsearch.errors.ReportError` naming the file and the signal.

The worker is a fresh interpreter (``python -c``, given this process's
``sys.path`` before its first import), never a fork of a parent that may hold PyTorch's
threads; it talks over a socket pair with :mod:`multiprocessing.connection`.
It is started like multiprocessing's ``"spawn"`` method, but without what
spawn adds: re-running the caller's main script in the worker (a script that
calls :func:`~ddrsearch.reading.report.load_archive` outside an
``if __name__ == "__main__":`` guard then fails). One worker reads many files
in a row; it is started at the first file and stopped when the reader is
closed (a ``with`` block); it ignores Ctrl-C (the parent's
``KeyboardInterrupt`` stops it) and, on Linux, is killed if the parent dies.

Where the platform has no ``/proc`` (macOS), the memory limit is not
enforced; the time limit still is. On Windows (no descriptor passing) and with
``DDRSEARCH_READ_ISOLATED=0``, files are read in the calling process, with the
soft limits only.
"""

from __future__ import annotations

import os
import pickle
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ddrsearch import settings
from ddrsearch.errors import ReportError, ReportTooLargeError, SettingError

__all__ = ["MAX_READ_MB", "POLL_SECONDS", "IsolatedReader", "isolation_on", "read_limits"]

#: Default most resident memory, MB, of the process reading one file (``DDRSEARCH_MAX_READ_MB``). The worker
#: holds about 150 MB reading the FORGE reports (the interpreter, PyMuPDF and the reader) and about 930 MB
#: OCR'ing a scanned one with rapidocr (its models and the page image): twice that leaves room for a report
#: of many scanned pages. A limit on the address space (``RLIMIT_AS``) is not used: the OCR worker maps
#: 2.2 GB for its 930 MB resident, and an allocation refused inside MuPDF reads as a damaged file.
MAX_READ_MB = 2000

#: Seconds between two looks at the worker's memory while it reads.
POLL_SECONDS = 0.02

#: Seconds a new worker may take to start (interpreter and imports), not charged to any file.
START_SECONDS = 120.0

_MB = 1024 * 1024


def isolation_on() -> bool:
    """Whether report files are read in a worker process (``DDRSEARCH_READ_ISOLATED``, default on; POSIX only).

    Raises:
        SettingError: the setting is neither ``1`` nor ``0``.
    """
    value = settings.get("DDRSEARCH_READ_ISOLATED")
    if value not in (None, "0", "1"):
        raise SettingError(f"DDRSEARCH_READ_ISOLATED={value!r} must be 1 (read in a worker process, with hard "
                           "limits) or 0 (read in this process); or unset it for 1.")
    return value != "0" and os.name == "posix"


def read_limits() -> tuple[float, float]:
    """The hard limits in force: ``(seconds, megabytes)`` one file may take.

    Raises:
        SettingError: ``DDRSEARCH_MAX_READ_SECONDS`` or ``DDRSEARCH_MAX_READ_MB`` is not a positive number.
    """
    from ddrsearch.reading.pdf import MAX_READ_SECONDS

    return (settings.get_number("DDRSEARCH_MAX_READ_SECONDS", MAX_READ_SECONDS),
            settings.get_number("DDRSEARCH_MAX_READ_MB", MAX_READ_MB))


def _rss_mb(pid: int) -> float | None:
    """Resident memory of process ``pid``, MB (``/proc/<pid>/status`` VmRSS), or ``None`` without ``/proc``."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1]) * 1024 / _MB
    except (OSError, ValueError, IndexError):
        return None
    return None


def _die_with_parent(parent: int) -> None:
    """On Linux, have the kernel kill this process when its parent ends (``PR_SET_PDEATHSIG``)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent ended before the line above
        raise SystemExit(0)


def _portable(exc: BaseException):
    """The error as the parent will raise it: the exception itself when it pickles, else its type and message."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return (type(exc).__module__, type(exc).__qualname__, str(exc))


def _serve(fd: int, parent: int) -> None:
    """The worker (run by ``python -c``): answer each ``(path, kwargs, env)`` request with
    ``("ok", read(path, **kwargs))`` or ``("error", exception)`` until ``None`` or the end of the pipe."""
    from multiprocessing.connection import Connection

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent decides
    _die_with_parent(parent)
    conn = Connection(fd)
    read, preload, refuse = pickle.loads(conn.recv_bytes())
    for name in refuse:  # "import name" raises ModuleNotFoundError
        sys.modules[name] = None
    for name in preload:  # imported before the first file's clock starts
        __import__(name)
    conn.send(("ready", None))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        path, kwargs, env = request
        for name in [n for n in os.environ if n.startswith("DDRSEARCH_") and n not in env]:
            del os.environ[name]
        os.environ.update(env)  # the parent's settings as they are for this file
        try:
            answer = ("ok", read(path, **kwargs))
        except Exception as exc:
            answer = ("error", _portable(exc))
        try:
            conn.send(answer)
        except Exception as exc:  # an answer that does not pickle
            conn.send(("error", (ReportError.__module__, "ReportError",
                                 f"{path}: the reader's answer could not be sent back ({type(exc).__name__}: {exc}).")))


class IsolatedReader:
    """Reads files one at a time in a worker process, each within hard time and memory limits.

    Use it as a context manager, so that the worker is stopped however the block ends::

        with IsolatedReader(read_report, preload=("pymupdf",)) as reader:
            reports = [reader.read(p) for p in paths]

    Args:
        read: the reading function, ``read(path, **kwargs)``; a module-level function (it is pickled by
            name, so the worker imports its module).
        preload: modules the worker imports before its first file (their import is not charged to a file).
        refuse: modules the worker must not import (optional plugins that ``read`` does not use and that
            a preloaded module imports if it can): their import raises ``ModuleNotFoundError`` there.

    When :func:`isolation_on` is false, :meth:`read` calls ``read`` in this process.
    """

    def __init__(self, read: Callable, *, preload: Sequence[str] = (), refuse: Sequence[str] = ()):
        self.read_function = read
        self.preload, self.refuse = tuple(preload), tuple(refuse)
        self.process = None
        self.conn = None
        self.busy = False
        #: Peak resident memory, MB, of the worker seen while it read each file (path -> MB; a refused file
        #: too), for measurements.
        self.peak_mb: dict[Path, float] = {}

    def __enter__(self) -> IsolatedReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def read(self, path: str | os.PathLike, **kwargs):
        """``read(path, **kwargs)`` in the worker, within ``DDRSEARCH_MAX_READ_SECONDS`` and ``DDRSEARCH_MAX_READ_MB``.

        Returns:
            What ``read`` returns (sent back pickled).

        Raises:
            ReportTooLargeError: the file took longer than ``DDRSEARCH_MAX_READ_SECONDS`` or the worker's resident
                memory went over ``DDRSEARCH_MAX_READ_MB`` (the worker is killed; the next file gets a new one);
                the message names the file, the seconds or MB spent, the limit and the setting.
            ReportError: the worker died while reading the file (the message names the file and the signal or
                exit code), or could not start.
            Exception: whatever ``read`` raised in the worker, as the same class with the same message.
        """
        if not isolation_on():
            return self.read_function(path, **kwargs)
        seconds, megabytes = read_limits()
        path = Path(path)
        self._start(path)
        env = {n: v for n, v in os.environ.items() if n.startswith("DDRSEARCH_")}
        try:
            self.conn.send((path, kwargs, env))
        except OSError:  # the worker ended since the last file (killed from outside)
            raise self._died(path) from None
        self.busy = True
        start, peak = time.monotonic(), 0.0
        try:
            while not self.conn.poll(POLL_SECONDS):
                spent = time.monotonic() - start
                rss = _rss_mb(self.process.pid)
                peak = self.peak_mb[path] = max(peak, rss or 0.0)
                if self.process.poll() is not None and not self.conn.poll(0):
                    raise self._died(path)
                if spent > seconds:
                    self._kill()
                    raise ReportTooLargeError(
                        f"{path}: reading stopped after {spent:.1f} s, over the {seconds:g} s one file may take "
                        "(a daily report reads in under a second); the process reading it was stopped. Not read; "
                        "if the file is a real report, raise the limit with DDRSEARCH_MAX_READ_SECONDS=<seconds>.",
                        path, "DDRSEARCH_MAX_READ_SECONDS")
                if rss is not None and rss > megabytes:
                    self._kill()
                    raise ReportTooLargeError(
                        f"{path}: reading took {rss:,.0f} MB of memory after {spent:.1f} s, over the "
                        f"{megabytes:,.0f} MB one file may use (a daily report needs under 200 MB, with OCR "
                        "under 1,000 MB); the process reading it was stopped. Not read; if the file is a real "
                        "report, raise the limit with DDRSEARCH_MAX_READ_MB=<megabytes>.",
                        path, "DDRSEARCH_MAX_READ_MB")
            try:
                kind, value = self.conn.recv()
            except (EOFError, OSError):
                raise self._died(path) from None
        except BaseException:
            if self.busy:  # interrupted (KeyboardInterrupt) or stopped: the worker's state is unknown
                self._kill()
            raise
        self.busy = False
        self.peak_mb[path] = max(peak, _rss_mb(self.process.pid) or 0.0)
        if kind == "ok":
            return value
        if isinstance(value, BaseException):
            raise value
        module, name, message = value
        raise ReportError(f"{message} ({module}.{name}, raised while reading {path})", path)

    def close(self) -> None:
        """Stop the worker (at once if it is reading a file) and wait for it to end."""
        if self.process is None:
            return
        if not self.busy:
            try:
                self.conn.send(None)
                self.process.wait(2.0)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        self._kill()

    def _start(self, path: Path) -> None:
        """Start a worker unless one is running; wait for it to be ready."""
        if self.process is not None:
            return
        from multiprocessing.connection import Connection

        mine, theirs = socket.socketpair()
        # The worker imports exactly what this process does: its sys.path, set before the first import (not
        # PYTHONPATH, which a path holding os.pathsep would split, and not -c's current folder first).
        bootstrap = (f"import sys; sys.path[:] = {[p for p in sys.path if p]!r}; "
                     f"from ddrsearch.reading.isolation import _serve; _serve({theirs.fileno()}, {os.getpid()})")
        try:
            self.process = subprocess.Popen([sys.executable, "-c", bootstrap], pass_fds=(theirs.fileno(),),
                                            stdin=subprocess.DEVNULL, stdout=2)
        except OSError as exc:  # no interpreter to start (an embedded Python with an empty sys.executable)
            mine.close()
            raise ReportError(
                f"{path}: the worker process that reads report files could not be started ({sys.executable!r}: "
                f"{exc.strerror or exc}). Read in this process instead with DDRSEARCH_READ_ISOLATED=0 (the soft "
                "limits only).", path) from exc
        finally:
            theirs.close()
        self.conn = Connection(mine.detach())
        try:
            self.conn.send_bytes(pickle.dumps((self.read_function, self.preload, self.refuse)))
            ready = self.conn.poll(START_SECONDS) and self.conn.recv()
        except (EOFError, OSError):
            ready = None
        if not ready:
            raise self._died(path, starting=True)

    def _died(self, path: Path, starting: bool = False) -> ReportError:
        """The error for a worker that ended on its own (or never started); the worker is cleaned up."""
        try:
            code = self.process.wait(1.0)
        except subprocess.TimeoutExpired:
            code = None
        self._kill()
        if code is None:
            how = f"did not start within {START_SECONDS:g} s"
        elif code < 0:
            how = f"was killed by signal {signal.Signals(-code).name}" if -code in signal.valid_signals() \
                else f"was killed by signal {-code}"
        else:
            how = f"exited with code {code}"
        if starting:
            return ReportError(f"{path}: not read: the process that reads report files {how} before it could "
                               "read any (see the messages above). Set DDRSEARCH_READ_ISOLATED=0 to read in "
                               "this process instead.", path)
        return ReportError(
            f"{path}: the process reading it {how} before it finished (a crash of the PDF library on this "
            "file, or the machine ran out of memory). Not read; the file may be damaged or made to crash PDF "
            "readers: leave it out or replace it with a good copy.", path)

    def _kill(self) -> None:
        """Kill the worker if it runs, reap it and forget it."""
        process, conn = self.process, self.conn
        self.process = self.conn = None
        self.busy = False
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        process.wait()
        conn.close()
