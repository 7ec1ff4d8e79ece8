"""The app wing: the web page "Ask the reports" (Streamlit), its search session, and its launcher.

Modules: ``session`` (reports and the default pipeline loaded once; one
search explained), ``page`` (the Streamlit page; imports Streamlit),
``launcher`` (``ddrsearch app``: Streamlit on 127.0.0.1), ``origin`` (Streamlit
run with no origin but the page's own allowed). Nothing here is
imported by the wings before it.
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "SearchSession": "session",
    "load_search": "session",
    "restrict_origins": "origin",
    "serve_app": "launcher",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
