"""The data wing: where the reports live, the manifest that lists them, and fetching them.

Modules: ``resources`` (files shipped in the package), ``manifest`` (the list of
reports with their SHA-256), ``folders`` (the archive folder, the ten-report
sample, the book's datasets folder), ``fetch`` (download or copy, then verify).
Imports only the foundations (:mod:`ddrsearch.errors`, :mod:`ddrsearch.settings`, ...).
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "resource_path": "resources",
    "FILE_NAME_RE": "manifest",
    "ManifestEntry": "manifest",
    "load_manifest": "manifest",
    "manifest_path": "manifest",
    "FETCH_COMMAND": "folders",
    "archive_dir": "folders",
    "archive_paths": "folders",
    "corpus_paths": "folders",
    "datasets_dir": "folders",
    "sample_paths": "folders",
    "FetchReport": "fetch",
    "fetch_archive": "fetch",
    "verify_archive": "fetch",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
