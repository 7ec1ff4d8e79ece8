"""``ddrsearch app`` serves no file of the reports folder over HTTP, and nothing to another origin (issue 26, app.launcher)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from ddrsearch.app.launcher import app_command

pytestmark = pytest.mark.data

REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"

#: A page the user might have open in another tab.
OTHER_ORIGIN = "http://127.0.0.1:9"


@pytest.fixture()
def reports(tmp_path, archive_folder):
    """A folder of one report, with a notes file, a secrets file and a subfolder beside it."""
    folder = tmp_path / "reports"
    folder.mkdir()
    shutil.copy2(archive_folder / REPORT_38, folder / REPORT_38)
    (folder / "notes.txt").write_text("private notes", encoding="utf-8")
    (folder / ".env").write_text("DDRSEARCH_GRADER_KEY=secret", encoding="utf-8")
    return folder


def test_the_app_command_turns_static_serving_off_and_keeps_cors_protection():
    """Before: --server.enableStaticServing true over a folder of the PDFs. After: off, CORS protection on; XSRF
    protection is set on the command line too (a .streamlit/config.toml in the working folder could turn it off)."""
    pairs = dict(zip(app_command("x.py", 8600)[5::2], app_command("x.py", 8600)[6::2]))
    assert pairs["--server.enableStaticServing"] == "false"
    assert pairs["--server.enableCORS"] == "true" and pairs["--server.enableXsrfProtection"] == "true"


def _request(url: str, method: str = "GET") -> tuple[int, bytes, dict]:
    req = urllib.request.Request(url, method=method, headers={"Origin": OTHER_ORIGIN})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read(), {k.lower(): v for k, v in r.headers.items()}
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), {k.lower(): v for k, v in exc.headers.items()}


def test_another_origin_reads_no_file_of_the_reports_folder(reports, tmp_path):
    """Before: app/static/<report>.pdf answered 200 with ``Access-Control-Allow-Origin: *``, so a page of another
    origin read the whole PDF with fetch(). After: no path gives the PDF, notes.txt or .env, and no response
    carries Access-Control-Allow-Origin."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, DDRSEARCH_INDEX_DIR=str(tmp_path / "index"))
    proc = subprocess.Popen([sys.executable, "-m", "ddrsearch", "app", "--dir", str(reports), "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    secrets = {REPORT_38: (reports / REPORT_38).read_bytes()[:64], "notes.txt": b"private notes",
               ".env": b"DDRSEARCH_GRADER_KEY"}
    try:
        for _ in range(240):
            assert proc.poll() is None, f"ddrsearch app exited with status {proc.returncode}"
            try:
                if _request(base + "/_stcore/health")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.5)
        paths = [f"{prefix}{name}" for prefix in ("/app/static/", "/static/", "/", "/media/")
                 for name in (*secrets, "../reports/notes.txt", "%2e%2e/reports/.env")]
        for path in paths:
            for method in ("GET", "OPTIONS"):
                status, body, headers = _request(base + path, method)
                assert "access-control-allow-origin" not in headers, (method, path, status)
                assert not any(secret in body for secret in secrets.values()), (method, path, status)
        status, body, headers = _request(base + f"/app/static/{REPORT_38}")
        assert headers.get("content-type", "").startswith("text/html")  # the page itself, not the report
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def test_a_port_in_use_is_said_before_the_address_is_announced(monkeypatch, capsys):
    from ddrsearch.app import launcher

    started = []
    monkeypatch.setattr(launcher.subprocess, "Popen", lambda *a, **k: started.append(a))
    with socket.socket() as other:  # another program on the port
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        # before: "serving the sample at http://127.0.0.1:PORT" on standard output, then Streamlit's
        # "Port PORT is not available" (a user opening the address reached the other program)
        assert launcher.serve_app("sample", port=port) == 1
    out, err = capsys.readouterr()
    assert out == "" and f"port {port} on 127.0.0.1 is in use" in err and not started

