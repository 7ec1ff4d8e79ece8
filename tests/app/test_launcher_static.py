"""``ddrsearch app`` serves the reports it searches and nothing else of their folder (issue 26, app.launcher)."""

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

from ddrsearch.app.launcher import served_reports, static_folder

pytestmark = pytest.mark.data

REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"


@pytest.fixture()
def reports(tmp_path, archive_folder):
    """A folder of one report, with a notes file, a secrets file and a subfolder beside it."""
    folder = tmp_path / "reports"
    folder.mkdir()
    shutil.copy2(archive_folder / REPORT_38, folder / REPORT_38)
    (folder / "notes.txt").write_text("private notes", encoding="utf-8")
    (folder / ".env").write_text("DDRSEARCH_GRADER_KEY=secret", encoding="utf-8")
    return folder


def test_the_static_folder_holds_only_the_searched_pdfs(reports, tmp_path):
    """Before: static serving was a link to the whole reports folder. After: a folder of the PDFs alone."""
    run = tmp_path / "run"
    run.mkdir()
    static = static_folder(run, served_reports(folder=reports))
    assert sorted(p.name for p in static.iterdir()) == [REPORT_38]
    assert not (static / REPORT_38).is_symlink()  # Streamlit refuses links that lead out of its folder
    assert (static / REPORT_38).read_bytes() == (reports / REPORT_38).read_bytes()
    assert static_folder(tmp_path / "run2", []) is None


def _get(url: str) -> tuple[int, bytes, dict]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read(), {k.lower(): v for k, v in r.headers.items()}
    except urllib.error.HTTPError as exc:
        return exc.code, b"", {k.lower(): v for k, v in exc.headers.items()}


def test_the_app_answers_the_pdf_and_refuses_the_other_files_of_the_folder(reports):
    """Before: in --dir R, R/notes.txt and R/.env were served with 200. After: 404 for them, the PDF as a PDF."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "ddrsearch", "app", "--dir", str(reports), "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            assert proc.poll() is None, f"ddrsearch app exited with status {proc.returncode}"
            try:
                if _get(base + "/_stcore/health")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.5)
        status, body, headers = _get(f"{base}/app/static/{REPORT_38}")
        assert status == 200 and body.startswith(b"%PDF-") and headers.get("content-type") == "application/pdf"
        assert headers.get("x-content-type-options") == "nosniff"
        for name in ("notes.txt", ".env", "../reports/notes.txt", "%2e%2e/reports/.env"):
            assert _get(f"{base}/app/static/{name}")[0] in (400, 404), name
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
