"""Start, find and connect to the PostgreSQL server of the PostgreSQL backend (:mod:`ddrsearch.stores.postgres`).

The server: the ``url=`` argument, else ``$DDRSEARCH_DATABASE_URL``, else an
embedded server from the PyPI package ``pgserver`` (PostgreSQL 16 with
pgvector 0.6, no root and no system install) in a private data folder
(:func:`embedded_server`, default ``.cache/postgres`` in the project, or
``$DDRSEARCH_PG_DIR``), started on first use and stopped when the process
ends. :func:`connect` opens a psycopg 3 connection with pgvector enabled.

Errors: :class:`ServerUnreachableError` (one line: the URL and the reason),
:class:`VectorExtensionError` (how to add pgvector),
:class:`EmbeddedServerError` (pgserver missing or cannot start); all derive
from :class:`PostgresError`, a :class:`~ddrsearch.errors.DDRSearchError`.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

from ddrsearch import settings
from ddrsearch.errors import (
    EmbeddedServerError,
    PostgresError,
    SchemaVersionError,
    ServerUnreachableError,
    VectorExtensionError,
)

__all__ = [
    "DATABASE_URL_ENV",
    "DATA_DIR_ENV",
    "EmbeddedServer",
    "EmbeddedServerError",
    "PostgresError",
    "SchemaVersionError",
    "ServerUnreachableError",
    "VectorExtensionError",
    "connect",
    "database_url",
    "default_data_dir",
    "embedded_server",
]

#: Environment variable holding a connection string (``postgresql://user:password@host:port/db``).
DATABASE_URL_ENV = "DDRSEARCH_DATABASE_URL"
#: Environment variable naming the embedded server's data folder.
DATA_DIR_ENV = "DDRSEARCH_PG_DIR"


# --- the server ----------------------------------------------------------------------------

def _redact(url: str) -> str:
    """The URL with any password replaced by ``***`` (for messages)."""
    return re.sub(r"(://[^:/@]+:)[^@/]+@", r"\1***@", url)


class EmbeddedServer:
    """A private PostgreSQL server (with pgvector) run by ``pgserver`` in a data folder.

    Args:
        data_dir: the data folder (created, with its parents, if missing).
        delete: remove the folder when the server stops (for tests).

    Raises:
        EmbeddedServerError: ``pgserver`` is not installed or the server does
            not start (the message names the folder and its log file).
    """

    def __init__(self, data_dir: str | os.PathLike, *, delete: bool = False):
        self.data_dir = Path(data_dir).expanduser().resolve()
        try:
            with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
                warnings.simplefilter("ignore")
                import pgserver
        except ImportError:
            raise EmbeddedServerError(
                "The embedded PostgreSQL server needs the package pgserver: `pip install pgserver` "
                f"(or `pip install ddrsearch[postgres]`), or set {DATABASE_URL_ENV} to a server of your own."
            ) from None
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._server = pgserver.get_server(self.data_dir, cleanup_mode="delete" if delete else "stop")
        except Exception as exc:  # pgserver raises CalledProcessError, TimeoutExpired, OSError, ...
            raise EmbeddedServerError(
                f"pgserver could not start PostgreSQL in {self.data_dir}: {type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''} (server log: {self.data_dir / 'log'})"
            ) from None
        self.url = self._server.get_uri()

    def stop(self) -> None:
        """Stop the server (and delete the folder when ``delete=True``); later calls do nothing."""
        server, self._server = getattr(self, "_server", None), None
        if server is not None:
            server.cleanup()
            _EMBEDDED.pop(self.data_dir, None)

    def __enter__(self) -> EmbeddedServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


_EMBEDDED: dict[Path, EmbeddedServer] = {}


def default_data_dir() -> Path:
    """``$DDRSEARCH_PG_DIR``, else ``.cache/postgres`` beside the embedding cache's default folder."""
    env = settings.get_path(DATA_DIR_ENV)
    if env is not None:
        return env
    root = settings.project_root()
    return (root / ".cache" if root else Path.home() / ".cache" / "ddrsearch") / "postgres"


def embedded_server(data_dir: str | os.PathLike | None = None, *, delete: bool = False) -> EmbeddedServer:
    """The embedded server for ``data_dir`` (default :func:`default_data_dir`), started once per process."""
    folder = Path(data_dir or default_data_dir()).expanduser().resolve()
    server = _EMBEDDED.get(folder)
    if server is None:
        server = _EMBEDDED[folder] = EmbeddedServer(folder, delete=delete)
    return server


def database_url(url: str | None = None) -> str:
    """The connection string to use: ``url``, else ``$DDRSEARCH_DATABASE_URL``, else the embedded server's."""
    if url:
        return url
    return settings.get(DATABASE_URL_ENV) or embedded_server().url


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise PostgresError("The PostgreSQL backend needs psycopg: `pip install 'psycopg[binary]' pgvector` "
                            "(or `pip install ddrsearch[postgres]`).") from None
    return psycopg


def connect(url: str | None = None):
    """Open a connection (psycopg 3), enable pgvector in the database and register its type.

    Returns:
        A ``psycopg.Connection`` (not in autocommit mode).

    Raises:
        ServerUnreachableError: nothing answers at the URL; one line naming it and the reason.
        VectorExtensionError: pgvector is not installed on the server, or the
            user may not enable it; the message says how to add it.
    """
    psycopg = _psycopg()
    url = database_url(url)
    try:
        conn = psycopg.connect(url, connect_timeout=10)
    except psycopg.OperationalError as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise ServerUnreachableError(f"No PostgreSQL server reachable at {_redact(url)}: {reason}") from None
    _enable_vector(conn, url)
    from pgvector.psycopg import register_vector

    register_vector(conn)
    return conn


def _enable_vector(conn, url: str) -> None:
    psycopg = _psycopg()
    if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
        return
    how = ("pgvector adds it (https://github.com/pgvector/pgvector#installation; on Debian/Ubuntu "
           "`apt install postgresql-<major>-pgvector`), then a superuser runs `CREATE EXTENSION vector;` "
           "in this database. Or unset " + DATABASE_URL_ENV + " to use the embedded server (pgserver), "
           "which has it.")
    if not conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone():
        conn.close()
        raise VectorExtensionError(f"The PostgreSQL server at {_redact(url)} has no vector extension: {how}")
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.commit()
    except psycopg.Error as exc:
        conn.close()
        raise VectorExtensionError(
            f"The PostgreSQL server at {_redact(url)} has pgvector, but it is not enabled in this database and "
            f"this user cannot enable it ({' '.join(str(exc).split())}): ask a superuser to run "
            f"`CREATE EXTENSION vector;` in it."
        ) from None
