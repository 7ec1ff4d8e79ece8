"""The reading wing: a report PDF into a :class:`Report` (header, TIME BREAKDOWN rows, tables, typed fields).

Modules: ``pdf`` (opening a PDF safely, words with positions), ``isolation``
(reading files in a worker process with hard time and memory limits), ``layout``
(header fields and the TIME BREAKDOWN), ``ocr`` (scanned pages), ``tables``
(MUD, DRILL BITS, PUMPS, SURVEY DATA, BHA), ``report`` (``read_report``,
``load_archive``), ``fields`` (typed numbers with units), ``names`` (``D038``,
``D038-r08``), ``folder_manifest`` (a manifest for your own folder),
``synthetic`` (small reports in other templates, for trying the reader).
Imports the text and data wings.
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "IsolatedReader": "isolation",
    "Report": "report",
    "load_archive": "report",
    "read_report": "report",
    "read_reports": "report",
    "resolve_row_id": "names",
    "row_id": "names",
    "short_name": "names",
    "OperationRow": "layout",
    "typed_fields": "fields",
    "write_manifest": "folder_manifest",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
