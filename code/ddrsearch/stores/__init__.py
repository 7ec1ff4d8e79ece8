"""The stores wing: the search index kept on disk, and the PostgreSQL backend.

Modules: ``generations`` (the index's files, and how a new version replaces
the old one), ``locations`` (an index's default folder and its server's
socket, cheap to import), ``disk_index`` (build, add a day's report, check, open),
``postgres`` and ``pgserver`` (full-text search and pgvector; an embedded
server). Imports the retrieval wing and those before it.
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "SearchIndex": "disk_index",
    "add_reports": "disk_index",
    "build_index": "disk_index",
    "open_index": "disk_index",
    "stale_reasons": "disk_index",
    "Generation": "generations",
    "current_generation": "generations",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
