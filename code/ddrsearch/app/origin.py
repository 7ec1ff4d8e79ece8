"""Streamlit with the page's own origin as the only one allowed: ``python -m ddrsearch.app.origin run SCRIPT ...``.

Streamlit's server (1.67, the one installed here) lets a WebSocket or a cross-origin request
through when the origin's *host* is ``localhost`` or ``127.0.0.1``, whatever its
port (``streamlit.web.server.server_util.is_url_from_allowed_origins``). A page
that another program serves on this machine could then open the app's
``/_stcore/stream``, ask questions and read the rows the app answers with.
This module puts :func:`no_other_origin` in the place of that check in every
Streamlit server module that holds it (Streamlit lets a same-origin request
through before it asks; its same-origin test compares host and port only, so
:func:`same_origin_only` takes its place and compares the scheme too: a page of
``https://127.0.0.1:PORT`` is not the app served over ``http``), answers only the Host names 127.0.0.1 and localhost
(:data:`ALLOWED_HOSTS`: a page re-pointed at this machine by DNS rebinding
sends its own name), then runs Streamlit's command line with the arguments
given. If no module holds the check (another Streamlit), it says so
in one line on standard error and runs Streamlit as it is.
"""

from __future__ import annotations

import importlib
import sys
from urllib.parse import urlsplit

__all__ = ["ALLOWED_HOSTS", "CHECK", "SAME_ORIGIN_CHECK", "host_options", "no_other_origin", "restrict_origins",
           "same_origin_only", "served_scheme"]

#: Streamlit's WebSocket test of an Origin against the Host (``starlette_websocket._is_origin_allowed``).
SAME_ORIGIN_CHECK = "_is_origin_allowed"
_SAME_ORIGIN_MODULE = "streamlit.web.server.starlette.starlette_websocket"

#: The name of Streamlit's check of an origin's host, replaced in the modules that hold it.
CHECK = "is_url_from_allowed_origins"

#: Streamlit's server modules that hold :data:`CHECK` (those present are imported and patched).
_MODULES = ("streamlit.web.server.server_util", "streamlit.web.server.starlette.starlette_websocket",
            "streamlit.web.server.starlette.starlette_routes", "streamlit.web.server.browser_websocket_handler",
            "streamlit.web.server.routes")


def no_other_origin(url: str) -> bool:
    """``False`` for every ``url``: an origin other than the page's own is never allowed."""
    return False


def served_scheme() -> str:
    """``"https"`` when Streamlit serves over TLS (``server.sslCertFile`` set), else ``"http"``."""
    from streamlit import config

    return "https" if config.get_option("server.sslCertFile") else "http"


def same_origin_only(origin: str | None, host: str | None) -> bool:
    """Whether a WebSocket upgrade with ``origin`` (the Origin header) sent to ``host`` (the Host header) is the
    page's own: the Host is one Streamlit answers, and the Origin has the scheme the app is served over
    (:func:`served_scheme`) and the Host's host and port. No Origin (a client that is not a browser) passes, as
    in Streamlit.
    """
    from streamlit.web.server.starlette.starlette_websocket import is_host_allowed

    if not is_host_allowed(host):
        return False
    if origin is None:
        return True
    parts = urlsplit(origin)
    return parts.scheme == served_scheme() and parts.netloc == host


def restrict_origins() -> list[str]:
    """Put :func:`no_other_origin` in place of Streamlit's origin check, and :func:`same_origin_only` in place
    of its same-origin test; return the modules patched (may be empty)."""
    patched = []
    for name in _MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if callable(getattr(module, CHECK, None)):
            setattr(module, CHECK, no_other_origin)
            patched.append(name)
        if name == _SAME_ORIGIN_MODULE and callable(getattr(module, SAME_ORIGIN_CHECK, None)) \
                and callable(getattr(module, "is_host_allowed", None)):
            setattr(module, SAME_ORIGIN_CHECK, same_origin_only)
    return patched


#: The Host headers the server answers (Streamlit's ``server.allowedHosts``; ports are ignored): a page whose
#: name was re-pointed at 127.0.0.1 (DNS rebinding) sends its own name and is refused.
ALLOWED_HOSTS = ("127.0.0.1", "localhost")


def host_options() -> list[str]:
    """``--server.allowedHosts`` for each of :data:`ALLOWED_HOSTS`, or ``[]`` for a Streamlit without the option.

    Asks ``streamlit run`` which flags it takes rather than reading an option: reading one parses
    Streamlit's configuration before the flags are given, and the second parse, with them, then
    warns on every start that "an update to the [server] config option section was detected".
    """
    from streamlit.web import cli

    flags = {opt for param in cli.main_run.params for opt in getattr(param, "opts", ())}
    if "--server.allowedHosts" not in flags:
        return []
    return [arg for host in ALLOWED_HOSTS for arg in ("--server.allowedHosts", host)]


def main(argv: list[str] | None = None) -> None:
    """Restrict the origins and hosts, then run ``streamlit`` with ``argv`` (default: this process's arguments)."""
    if not restrict_origins():
        print(f"ddrsearch app: this Streamlit has no {CHECK} to replace: pages of other local ports may reach "
              "the app's WebSocket", file=sys.stderr)
    hosts = host_options()
    if not hosts:
        print("ddrsearch app: this Streamlit has no server.allowedHosts: a page re-pointed at 127.0.0.1 (DNS "
              "rebinding) may reach the app", file=sys.stderr)
    from streamlit.web import cli

    args = list(sys.argv[1:] if argv is None else argv)
    sys.argv = ["streamlit", *args, *(hosts if args[:1] == ["run"] else [])]
    cli.main(prog_name="streamlit")


if __name__ == "__main__":  # pragma: no cover
    main()
