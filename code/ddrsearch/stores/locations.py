"""Where an index lives: its default folder, and the socket of the server that keeps it loaded.

Cheap to import (:mod:`os` and :mod:`ddrsearch.settings`; :mod:`pathlib`,
:mod:`ddrsearch.data.folders` and :mod:`ddrsearch.hashing` only when a
folder is resolved that needs them): the command line's client
(:mod:`ddrsearch.cli.client`) finds a running ``ddrsearch serve`` through
:func:`quick_socket_path` without loading NumPy, the index or even :mod:`pathlib`.
"""

from __future__ import annotations

import os

from ddrsearch import settings

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["SOCKET_NAME", "default_index_dir", "quick_socket_path", "socket_path"]

#: The Unix-domain socket ``ddrsearch serve`` listens on, inside the index folder it serves.
SOCKET_NAME = "serve.sock"


def default_index_dir(corpus: str | None = "archive", folder: str | os.PathLike | None = None,
                      archive: str | os.PathLike | None = None) -> Path:
    """Where the index of a corpus lives by default.

    Args:
        corpus: ``"archive"`` or ``"sample"``; ignored when ``folder`` is given.
        folder: a folder of your own reports (``--dir``).
        archive: the archive folder given on the command line (``--archive``),
            which wins over ``$DDRSEARCH_ARCHIVE_DIR``.

    Returns:
        ``<base>/<corpus>`` or ``<base>/dir-<folder name>-<hash of its path>``,
        with ``<base>`` = ``$DDRSEARCH_INDEX_DIR``, else ``.cache/index`` in
        the project's checkout, else ``~/.cache/ddrsearch/index``. When the
        archive folder or the manifest is not the book's (``--archive``,
        ``$DDRSEARCH_ARCHIVE_DIR``, ``$DDRSEARCH_MANIFEST``), the corpus name
        gets the folder's name (at most 40 characters) and a hash of the
        paths that differ (``archive-my_reports-<hash>``): an archive of your
        own never overwrites the book's index.
    """
    from pathlib import Path
    base = settings.get_path("DDRSEARCH_INDEX_DIR")
    if base is None:
        root = settings.project_root()
        base = root / ".cache" / "index" if root else Path.home() / ".cache" / "ddrsearch" / "index"
    if folder is not None:
        from ddrsearch.hashing import text_sha256

        resolved = Path(folder).resolve()
        return base / f"dir-{resolved.name[:40]}-{text_sha256(str(resolved))[:10]}"
    from ddrsearch.data.folders import archive_dir, book_archive_dir

    name = corpus or "archive"
    where = (Path(archive) if archive else archive_dir()).expanduser().resolve()
    manifest = settings.get_path("DDRSEARCH_MANIFEST")
    if where != book_archive_dir().resolve() or manifest is not None:
        # another archive: its own index (keyed by what differs, so a reinstall keeps the same folder)
        from ddrsearch.hashing import text_sha256

        key = f"{Path(manifest).expanduser().resolve() if manifest is not None else ''}|{where}"
        name += f"-{where.name[:40]}-{text_sha256(key)[:10]}"
    return base / name


def socket_path(index_dir: str | os.PathLike) -> Path:
    """The socket of the server of the index in ``index_dir`` (:data:`SOCKET_NAME` inside it; it may not exist)."""
    from pathlib import Path

    return Path(index_dir) / SOCKET_NAME


def quick_socket_path(corpus: str | None, index: str | None = None) -> str | None:
    """``socket_path(default_index_dir(corpus))``, or of ``index``, with :mod:`os.path` alone; ``None`` when it needs more.

    Args:
        corpus: ``"sample"`` or ``"archive"`` (``None``: the archive).
        index: an index folder given on the command line (``--index``), which wins.

    Returns:
        The socket's path, or ``None`` when the folder depends on a hash
        (``DDRSEARCH_ARCHIVE_DIR`` or ``DDRSEARCH_MANIFEST`` set): then call
        :func:`default_index_dir`. (``--dir`` and ``--archive`` are the caller's
        to send there.) The same folder as :func:`default_index_dir`'s, spelled
        without :class:`~pathlib.Path`'s normalisation.
    """
    if index:
        return os.path.join(index, SOCKET_NAME)
    if settings.get("DDRSEARCH_ARCHIVE_DIR") or settings.get("DDRSEARCH_MANIFEST"):
        return None
    base = settings.get("DDRSEARCH_INDEX_DIR")
    if base is not None:
        base = os.path.expanduser(base)
    else:
        root = settings.project_folder()
        base = os.path.join(root, ".cache", "index") if root is not None \
            else os.path.join(os.path.expanduser("~"), ".cache", "ddrsearch", "index")
    return os.path.join(base, corpus or "archive", SOCKET_NAME)
