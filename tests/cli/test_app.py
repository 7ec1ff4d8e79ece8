"""``ddrsearch app``: the port it accepts, localhost only, and the page in a headless browser."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import PROJECT
from ddrsearch.app.launcher import app_command
from ddrsearch.cli.command import main as cli_main

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest


#: Seconds one AppTest run may take: the first one reads, chunks and embeds the sample.
RUN_TIMEOUT = 900


def test_the_app_command_checks_its_port_and_binds_to_localhost(capsys, monkeypatch):
    assert cli_main(["app", "--port", "70000"]) == 2
    assert "between 1 and 65535, got 70000" in capsys.readouterr().err
    monkeypatch.setenv("DDRSEARCH_APP_PORT", "eighty")
    assert cli_main(["app"]) == 2
    assert "got 'eighty' (--port or DDRSEARCH_APP_PORT)" in capsys.readouterr().err
    cmd = app_command("x.py", 8600)
    assert cmd[1:4] == ["-m", "ddrsearch.app.origin", "run"]  # Streamlit, with no other origin allowed
    pairs = dict(zip(cmd[5::2], cmd[6::2]))
    assert pairs["--server.address"] == "127.0.0.1" and pairs["--server.port"] == "8600"
    assert pairs["--server.headless"] == "true" and pairs["--browser.gatherUsageStats"] == "false"
    assert pairs["--server.enableStaticServing"] == "false"


def test_the_app_prints_its_address_and_no_streamlit_start_up_noise(tmp_path):
    """Before: every start wrote "An update to the [server] config option section was detected. ... please
    restart streamlit." and "Uvicorn server started on ..." to stderr. After: neither; the address is printed."""
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PROJECT / "code"), os.environ.get("PYTHONPATH", "")]),
               DDRSEARCH_INDEX_DIR=str(tmp_path / "index"))
    proc = subprocess.Popen([sys.executable, "-m", "ddrsearch", "app", "--dir", str(tmp_path), "--port", str(port)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _wait_healthy(f"http://127.0.0.1:{port}", proc, 120)
    finally:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl+C
        out, err = proc.communicate(timeout=60)
    assert f"http://127.0.0.1:{port}" in out
    assert "config option section" not in err and "restart streamlit" not in err, err
    assert "Uvicorn server started" not in err, err


CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


SCREENSHOT = PROJECT / "figures" / "app-search.png"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise AssertionError(f"ddrsearch app exited with status {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"ddrsearch app did not answer at {url} within {seconds} s")


@pytest.mark.browser
@pytest.mark.data
@pytest.mark.model
@pytest.mark.skipif(not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
                    reason="headless Chromium not installed (apt-get install chromium chromium-driver)")
def test_the_app_in_a_browser_shows_result_rows(archive_folder):
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PROJECT / "code"), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "ddrsearch.cli.command", "app", "--corpus", "sample", "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1800"):
        options.add_argument(arg)
    driver = None
    try:
        _wait_healthy(url, proc, 120)
        driver = webdriver.Chrome(service=webdriver.ChromeService(str(CHROMEDRIVER)), options=options)
        driver.get(url)
        wait = WebDriverWait(driver, RUN_TIMEOUT)
        box = wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "input[aria-label='Question']")))
        box.send_keys("packers failed to set", Keys.ENTER)
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".st-key-hit-1 img")))
        wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, "[data-testid='stStatusWidget']"))
        # the hits are drawn one after another; wait for all five (CI at load 4 saw 3 of them at the first look)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "[class*='st-key-hit-']")) >= 5)
        rows = driver.find_elements(By.CSS_SELECTOR, "[class*='st-key-hit-']")
        assert len(rows) == 5
        assert rows[0].text.startswith("1. D049 · report 49 dated 2020-12-07 · row 5, 2020-12-06 14:00-19:00")
        assert "Attempted multiple times to set packers" in rows[0].text
        button = rows[0].find_element(By.CSS_SELECTOR, "[data-testid='stDownloadButton']")
        assert "Download the PDF (the row is on page 1)" in button.text
        n_rows = sum(" · row " in r.text.split("\n")[0] for r in rows)
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "[class*='st-key-hit-'] img")) == n_rows)
        for _ in range(3):  # the screenshot ends below the second hit; resizing can move it, so measure again
            bottom, chrome = driver.execute_script(
                "return [document.querySelector('.st-key-hit-2').getBoundingClientRect().bottom,"
                " window.outerHeight - window.innerHeight]")
            driver.set_window_size(1400, int(bottom + chrome) + 30)
            time.sleep(1)
        SCREENSHOT.parent.mkdir(exist_ok=True)
        assert driver.save_screenshot(str(SCREENSHOT))
    finally:
        if driver is not None:
            driver.quit()
        os.killpg(proc.pid, signal.SIGTERM)  # the launcher and the Streamlit server it started
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:  # a busy machine: stop them outright
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
