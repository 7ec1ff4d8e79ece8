"""The command-line wing: the ``ddrsearch`` command, one module per group of sub-commands.

Modules: ``command`` (the parser and ``main``), one module per group of
sub-commands: ``search``, ``data_commands`` (fetch, verify, manifest, env),
``index`` (index build, add, status), ``ask`` (ask and show), ``evaluate``
(eval), ``app``, ``preview``, ``serve`` (a resident process that answers
search and ask); and the helpers ``client`` (a search or ask sent to
``serve``), ``argv`` (a query that starts with a dash) and ``outputs``
(checks of ``--out``).
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "build_parser": "command",
    "main": "command",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
