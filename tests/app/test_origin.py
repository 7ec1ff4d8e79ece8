"""ddrsearch.app.origin: the app's WebSocket answers its own page only, not a page of another local port (issue 26)."""

from __future__ import annotations

import base64
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from ddrsearch.app.origin import CHECK, no_other_origin, restrict_origins

pytest.importorskip("streamlit")


def test_every_streamlit_module_holding_the_origin_check_gets_the_strict_one(monkeypatch):
    """Streamlit's own check lets any localhost or 127.0.0.1 origin through, whatever its port."""
    import importlib

    from streamlit.web.server import server_util

    assert server_util.is_url_from_allowed_origins("http://localhost:9999")  # Streamlit's, before
    for name in ("streamlit.web.server.server_util", "streamlit.web.server.starlette.starlette_websocket"):
        module = importlib.import_module(name)
        monkeypatch.setattr(module, CHECK, getattr(module, CHECK))  # put back after the test
    monkeypatch.setattr(module, "_is_origin_allowed", module._is_origin_allowed)  # (the starlette module's)
    patched = restrict_origins()
    assert "streamlit.web.server.server_util" in patched
    for name in patched:
        assert getattr(sys.modules[name], CHECK) is no_other_origin
    assert not no_other_origin("http://localhost:9999") and not no_other_origin("http://127.0.0.1:8501")


def test_an_origin_of_another_scheme_is_not_the_pages_own(monkeypatch):
    """Before: Streamlit's same-origin test compared host and port only, so a page of https://127.0.0.1:P was
    taken as the app's own while the app is served over http. After: the scheme is compared too."""
    from streamlit.web.server.starlette import starlette_websocket as ws

    from ddrsearch.app.origin import SAME_ORIGIN_CHECK, same_origin_only

    assert ws._is_origin_allowed("https://127.0.0.1:8501", "127.0.0.1:8501")  # Streamlit's, before
    for module in {sys.modules[n] for n in ("streamlit.web.server.server_util",)} | {ws}:
        monkeypatch.setattr(module, CHECK, getattr(module, CHECK))
    monkeypatch.setattr(ws, SAME_ORIGIN_CHECK, getattr(ws, SAME_ORIGIN_CHECK))
    restrict_origins()
    assert ws._is_origin_allowed is same_origin_only
    assert same_origin_only("http://127.0.0.1:8501", "127.0.0.1:8501")
    for other in ("https://127.0.0.1:8501", "ws://127.0.0.1:8501", "file://127.0.0.1:8501", "null"):
        assert not same_origin_only(other, "127.0.0.1:8501"), other
    assert same_origin_only(None, "127.0.0.1:8501")  # no Origin: not a browser, as in Streamlit


def test_the_allowed_hosts_are_still_passed_when_read_from_streamlit_runs_flags():
    """host_options looks the flag up on ``streamlit run`` instead of reading the option (which parsed Streamlit's
    configuration before the flags and made every start warn that the [server] section had changed); the
    hosts are still passed (the start-up message itself: tests/cli/test_app.py)."""
    from ddrsearch.app.origin import host_options

    assert host_options() == ["--server.allowedHosts", "127.0.0.1", "--server.allowedHosts", "localhost"]


def _upgrade(port: int, origin: str, host: str = "127.0.0.1") -> int:
    """The HTTP status of a WebSocket upgrade of the app's /_stcore/stream sent with ``origin`` to ``host``."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = (f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
               f"Sec-WebSocket-Protocol: streamlit\r\nOrigin: {origin}\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request.encode())
        head = s.recv(4096).decode("latin-1")
    return int(head.split()[1])


@pytest.mark.data
def test_a_page_of_another_local_port_cannot_open_the_apps_websocket(tmp_path):
    """Before: a page on http://localhost:8766 opened the app's WebSocket and read the rows of its answers.
    After: an upgrade from another port's origin (or another scheme), or from a page re-pointed at 127.0.0.1 (its own name as Host),
    is refused (403); the page's own origin still connects (101)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, DDRSEARCH_INDEX_DIR=str(tmp_path / "index"))
    proc = subprocess.Popen([sys.executable, "-m", "ddrsearch", "app", "--corpus", "sample", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        for _ in range(240):
            assert proc.poll() is None, f"ddrsearch app exited with status {proc.returncode}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        assert _upgrade(port, f"http://127.0.0.1:{port}") == 101
        assert _upgrade(port, f"http://localhost:{port}", host="localhost") == 101
        for other in ("http://localhost:8766", f"http://127.0.0.1:{port + 1}", "http://evil.example",
                      f"https://127.0.0.1:{port}"):
            assert _upgrade(port, other) == 403, other
        # DNS rebinding: a page of evil.example re-pointed at 127.0.0.1 sends its own name as Host and Origin
        assert _upgrade(port, f"http://evil.example:{port}", host="evil.example") == 403
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
