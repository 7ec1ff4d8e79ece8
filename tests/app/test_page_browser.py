"""In a real browser, a row or an answer carrying an image or a tag makes no request (issue 26, app.page)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ddrsearch.reading.synthetic import STUCK_PIPE_DAY, write_report

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
PROJECT = Path(__file__).resolve().parents[2]


class _Listener(BaseHTTPRequestHandler):
    """Logs every request: an image the page should never fetch, or the chat endpoint the server asks."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.fetched.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        port = self.server.server_address[1]
        answer = (f"![a](http://127.0.0.1:{port}/answer-pixel.png?q=lost+circulation) The pipe became stuck "
                  f"[D039-r02]. <img src=http://127.0.0.1:{port}/answer-tag.png>")
        payload = json.dumps({"choices": [{"message": {"content": answer}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _app_in_chromium(folder, tmp_path, **env_vars):
    """``ddrsearch app --dir folder`` on a free port (its own index under ``tmp_path``, ``env_vars`` set; a value
    of ``None`` unsets one) and headless Chromium on its page: yields ``(driver, url)``, then stops both."""
    webdriver = pytest.importorskip("selenium.webdriver")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PROJECT / "code"), os.environ.get("PYTHONPATH", "")]),
               DDRSEARCH_INDEX_DIR=str(tmp_path / "index"))
    for name, value in env_vars.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    proc = subprocess.Popen([sys.executable, "-m", "ddrsearch", "app", "--dir", str(folder), "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1800"):
        options.add_argument(arg)
    driver = None
    try:
        for _ in range(240):
            assert proc.poll() is None, f"ddrsearch app exited with status {proc.returncode}"
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        driver = webdriver.Chrome(service=webdriver.ChromeService(str(CHROMEDRIVER)), options=options)
        driver.get(url)
        yield driver, url
    finally:
        if driver is not None:
            driver.quit()
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)


@pytest.mark.browser
@pytest.mark.model
@pytest.mark.skipif(not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
                    reason="headless Chromium not installed (apt-get install chromium chromium-driver)")
def test_no_request_leaves_the_page_for_a_row_or_an_answer_with_an_image(tmp_path):
    """Before: headless Chromium fetched GET /row-pixel.png as soon as the question was asked, and the answer's
    image after "Write an answer". After: the listener the images point at sees no request; the text shows."""
    pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    listener = ThreadingHTTPServer(("127.0.0.1", 0), _Listener)
    listener.fetched = []
    threading.Thread(target=listener.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    lport = listener.server_address[1]
    rows = list(STUCK_PIPE_DAY)
    rows[2] = rows[2]._replace(operations=f"Pipe became stuck ![p](http://127.0.0.1:{lport}/row-pixel.png)")
    rows[3] = rows[3]._replace(operations=f"Jarred stuck pipe <img src=http://127.0.0.1:{lport}/row-tag.png>")
    folder = tmp_path / "reports"
    folder.mkdir()
    write_report(folder / "DDR_39.pdf", rows)
    try:
        with _app_in_chromium(folder, tmp_path, DDRSEARCH_LLM_URL=f"http://127.0.0.1:{lport}/v1") as (driver, _):
            wait = WebDriverWait(driver, 600)
            box = wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "input[aria-label='Question']")))
            box.send_keys("pipe became stuck", Keys.ENTER)
            wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".st-key-hit-1")))
            wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-testid='stStatusWidget']"))
            time.sleep(2)
            body = driver.find_element(By.TAG_NAME, "body").text
            assert listener.fetched == [], listener.fetched  # nothing fetched for the rows
            assert f"![p](http://127.0.0.1:{lport}/row-pixel.png)" in body and "<img src=" in body
            button = wait.until(ec.element_to_be_clickable((By.XPATH, "//button[contains(., 'Write an answer')]")))
            button.click()
            WebDriverWait(driver, 120).until(lambda d: "answer-pixel.png" in d.find_element(By.TAG_NAME, "body").text)
            wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-testid='stStatusWidget']"))
            time.sleep(2)
            images = [i.get_attribute("src") or "" for i in driver.find_elements(By.TAG_NAME, "img")]
            assert not [s for s in images if f":{lport}/" in s], images
            assert listener.fetched == [], listener.fetched
    finally:
        listener.shutdown()
        listener.server_close()


@pytest.mark.browser
@pytest.mark.model
@pytest.mark.skipif(not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
                    reason="headless Chromium not installed (apt-get install chromium chromium-driver)")
def test_the_page_offers_the_pdf_as_a_download_and_its_media_refuse_other_origins(tmp_path):
    """Before: "Open page N of the PDF" linked app/static/<file>, served with Access-Control-Allow-Origin: *.
    After: the card and one download button per hit show; no link to app/static; the crop's media URL sends no
    Access-Control-Allow-Origin to another origin."""
    pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    folder = tmp_path / "reports"
    folder.mkdir()
    write_report(folder / "DDR_39.pdf", list(STUCK_PIPE_DAY))
    with _app_in_chromium(folder, tmp_path, DDRSEARCH_LLM_URL=None) as (driver, _):
        wait = WebDriverWait(driver, 600)
        box = wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "input[aria-label='Question']")))
        box.send_keys("pipe became stuck", Keys.ENTER)
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".st-key-hit-1 img")))
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-testid='stStatusWidget']"))
        # the page renders in pieces: under load the hit's card can show before its download button does
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "[data-testid='stDownloadButton']"))
        body = driver.find_element(By.TAG_NAME, "body").text
        assert "supporting row(s) in 1 report(s)" in body  # the answer card
        hits = driver.find_elements(By.CSS_SELECTOR, "[class*='st-key-hit-']")
        buttons = driver.find_elements(By.CSS_SELECTOR, "[data-testid='stDownloadButton']")
        assert len(hits) == len(buttons) == 1 and "Download the PDF" in buttons[0].text
        links = [a.get_attribute("href") or "" for a in driver.find_elements(By.TAG_NAME, "a")]
        assert not [h for h in links if "/app/static/" in h], links
        crop = driver.find_element(By.CSS_SELECTOR, ".st-key-hit-1 img").get_attribute("src")
        assert "/media/" in crop, crop
        req = urllib.request.Request(crop, headers={"Origin": "http://127.0.0.1:9"})
        with urllib.request.urlopen(req, timeout=5) as r:
            assert r.status == 200 and r.read().startswith(b"\x89PNG")
            assert "access-control-allow-origin" not in {k.lower() for k in r.headers}
