"""Start the web app: ``streamlit run`` on the page of :mod:`ddrsearch.app.page`, on 127.0.0.1 only.

``ddrsearch app`` calls :func:`serve_app`. Streamlit runs a script file, so
:func:`serve_app` writes a two-line script (``from ddrsearch.app.page import
main; main(...)``, the corpus or folder given as arguments) into a temporary
folder and runs it.

No file is served over HTTP: static serving is off
(``server.enableStaticServing=false``, no ``static`` folder), because
Streamlit's static route answers every file with
``Access-Control-Allow-Origin: *`` (hard-coded, no option turns it off), so
any web page the user opens could read the reports. The page shows the
crop of each cited row as an image and offers the whole report with
``st.download_button``; both reach the browser through Streamlit's media
route, which names each file by a hash of its content and sends no
``Access-Control-Allow-Origin`` to another origin (``server.enableCORS``
stays on, with no allowed origin), and nothing else of the reports folder
(``notes.txt``, ``.env``) is reachable at all. Both protections, CORS and
XSRF (``server.enableXsrfProtection``), are set on the command line, so a
``.streamlit/config.toml`` in the folder the app is started from cannot turn
them off.

The server is bound to 127.0.0.1 (nothing on the network can reach it),
headless (no browser is opened), without usage statistics
(``browser.gatherUsageStats=false``), without a file watcher, and logging
warnings and errors only (``logger.level=warning``). This module
does not import Streamlit or the page: the layers above it do.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from ddrsearch import settings

__all__ = ["DEFAULT_PORT", "SCRIPT", "app_command", "serve_app"]

#: Port when neither ``--port`` nor ``DDRSEARCH_APP_PORT`` is given (Streamlit's own default).
DEFAULT_PORT = 8501

#: The script Streamlit runs; ``{call}`` is replaced by the arguments of :func:`ddrsearch.app.page.main`.
SCRIPT = "from ddrsearch.app.page import main\n\nmain({call})\n"


def app_command(script: str | os.PathLike, port: int) -> list[str]:
    """The ``streamlit run`` command line for ``script`` on 127.0.0.1:``port``.

    Headless, no statistics, no file watcher, static serving off and CORS
    protection on; run through :mod:`ddrsearch.app.origin`, so that no origin
    besides the page's own reaches its WebSocket (Streamlit alone lets any
    ``localhost`` port through). Streamlit logs warnings and errors only
    (``--logger.level warning``): its address lines stay, its start-up
    messages (which web server started, on which port) do not.
    """
    return [sys.executable, "-m", "ddrsearch.app.origin", "run", str(script), "--server.address", "127.0.0.1",
            "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
            "--server.enableStaticServing", "false", "--server.enableCORS", "true",
            "--server.enableXsrfProtection", "true",
            "--server.fileWatcherType", "none", "--client.toolbarMode", "minimal", "--logger.level", "warning"]


def serve_app(corpus: str = "sample", folder: str | os.PathLike | None = None,
              archive: str | os.PathLike | None = None, port: int | None = None) -> int:
    """Run the app until it is stopped (Ctrl+C or SIGTERM); return the exit status.

    Args:
        corpus: ``"sample"`` or ``"archive"`` (when ``folder`` is not given).
        folder: a folder of the user's own report PDFs.
        archive: folder of the book's PDFs (default ``DDRSEARCH_ARCHIVE_DIR``).
        port: TCP port on 127.0.0.1 (default ``DDRSEARCH_APP_PORT`` or :data:`DEFAULT_PORT`).

    Returns:
        Streamlit's exit status; 0 when stopped with Ctrl+C; 1 when Streamlit
        is not installed or the port is in use (said before the address is announced); 2 for a port outside 1-65535 (the message says so
        on stderr). A folder that cannot be read is reported on the page.
    """
    if importlib.util.find_spec("streamlit") is None:
        from ddrsearch.errors import MissingExtraError

        print(f"ddrsearch app: {MissingExtraError('the web app', 'app', 'streamlit')}", file=sys.stderr)
        return 1
    raw = port if port is not None else settings.get("DDRSEARCH_APP_PORT") or DEFAULT_PORT
    try:
        port = int(raw)
    except ValueError:
        port = -1
    if not 0 < port < 65536:
        print(f"ddrsearch app: the port must be a whole number between 1 and 65535, got {raw!r} "
              "(--port or DDRSEARCH_APP_PORT)", file=sys.stderr)
        return 2
    if not _port_free(port):
        print(f"ddrsearch app: port {port} on 127.0.0.1 is in use (another program, or another ddrsearch app); "
              "give another with --port or DDRSEARCH_APP_PORT", file=sys.stderr)
        return 1
    folder = Path(folder).expanduser().resolve() if folder else None
    with tempfile.TemporaryDirectory(prefix="ddrsearch-app-") as run:
        call = (f"corpus={corpus!r}, folder={str(folder) if folder else None!r}, "
                f"archive={str(archive) if archive else None!r}")
        script = Path(run) / "ask_the_reports.py"
        script.write_text(SCRIPT.format(call=call), encoding="utf-8")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(Path(__file__).resolve().parents[2]),
                                                        env.get("PYTHONPATH", "")) if p)
        what = f"folder {folder}" if folder else f"the {corpus}"
        print(f"ddrsearch app: serving {what} at http://127.0.0.1:{port}  (Ctrl+C stops it)", flush=True)
        proc = subprocess.Popen(app_command(script, port), env=env)

        def _stop(signum, frame):  # SIGTERM stops the server too, not only this process
            raise KeyboardInterrupt

        previous = signal.signal(signal.SIGTERM, _stop)
        try:
            return proc.wait()
        except KeyboardInterrupt:
            proc.terminate()
            proc.wait()
            return 0
        finally:
            signal.signal(signal.SIGTERM, previous)


def _port_free(port: int) -> bool:
    """Whether a server could listen on 127.0.0.1:``port`` now (as Streamlit's does: address reuse on)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True
