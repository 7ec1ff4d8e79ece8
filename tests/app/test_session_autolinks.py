"""In Streamlit's own Markdown (headless Chromium), inert text makes no link and is shown and copied as it is
(issue 26, app.session.inert)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

from ddrsearch.app.session import inert

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
PROJECT = Path(__file__).resolve().parents[2]
TEXTS = ("see http://evil.example/phish?q=secret", "visit www.evil.example/login today", "mail boss@evil.example",
         "ftp://evil.example/f https://127.0.0.1:8766/x.png WWW.A.COM", "at 12:30 *stuck* _pipe_ wwww.x.com a@b.c",
         # from the adversarial re-check: a domain starting with - or _ (mailto links) and emoji shortcodes
         "x@-evil.example y@_evil.example :100: :+1: :-1: :1234: from 06:00-08:00",
         # from its re-check: a local part ending in . - _ + (the split was before the @, at a letter only)
         "x.@evil.example -@evil.example x_@evil.example x+@evil.example .@evil.example")


def test_inert_text_splits_every_autolink_and_keeps_its_characters():
    """Streamlit's remark-gfm links http://, www. and a@b.c in each text node's decoded text; inert's emphasis
    (its only raw ``*``: the data's are ``&#42;``) splits them, and the pieces decoded are the text itself
    (before: a WORD JOINER, U+2060, kept them apart, so a URL copied from the app held an invisible character)."""
    import html
    import re

    autolink = re.compile(r"(?i)(https?|ftp)://|www\.[-\w]|[-.\w+]@[-\w]+\.[-\w]")
    for text in TEXTS:
        nodes = [html.unescape(n) for n in inert(text).split("*")]
        assert "".join(nodes) == text and "\u2060" not in "".join(nodes)
        assert not any(autolink.search(n) for n in nodes), nodes
    assert "*" not in inert(TEXTS[0], in_html=True)  # inside an HTML block Markdown links nothing


SCRIPT = """
import streamlit as st
from ddrsearch.app.page import _quote_html
from ddrsearch.app.session import inert

class Hit:
    def __init__(self, text):
        self.text = text
    def segments(self):
        return [(self.text[:5], False), (self.text[5:], True)]

for i, text in enumerate({texts!r}):
    st.markdown(inert(text))
    st.caption(inert(text))
    st.warning(inert(text))
    st.markdown(f"**{{inert(text)}}**, report 39")
    st.markdown(_quote_html(Hit(text)), unsafe_allow_html=True)
"""


@pytest.mark.browser
@pytest.mark.skipif(not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
                    reason="headless Chromium not installed (apt-get install chromium chromium-driver)")
def test_streamlit_shows_inert_urls_as_their_own_characters_with_no_link(tmp_path):
    """Before: a URL in a row was shown with a WORD JOINER after 'http' (copied with it). After: in st.markdown,
    st.caption, st.warning, inside bold and in the quote's HTML, each text is shown with no <a> element and its
    innerText (what copying gives) is exactly the text."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.common.by import By

    script = tmp_path / "page.py"
    script.write_text(textwrap.dedent(SCRIPT.format(texts=TEXTS)), encoding="utf-8")
    with __import__("socket").socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(PROJECT / "code"), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "ddrsearch.app.origin", "run", str(script), "--server.port",
                             str(port), "--server.address", "127.0.0.1", "--server.headless", "true"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    driver = None
    try:
        for _ in range(240):
            assert proc.poll() is None, f"streamlit exited with status {proc.returncode}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        driver = webdriver.Chrome(service=webdriver.ChromeService(str(CHROMEDRIVER)), options=options)
        driver.get(f"http://127.0.0.1:{port}")
        want = 5 * len(TEXTS)
        for _ in range(120):
            shown = [e for e in driver.find_elements(
                By.CSS_SELECTOR, "[data-testid=stMarkdownContainer], [data-testid=stCaptionContainer]")
                     if "evil" in e.text or "stuck" in e.text]
            if len(shown) >= want:
                break
            time.sleep(0.5)
        assert len(shown) == want
        assert not driver.find_elements(By.CSS_SELECTOR, "[data-testid=stMain] a[href]")
        texts = [e.text for e in shown]
        for i, text in enumerate(TEXTS):
            assert texts[5 * i:5 * i + 5] == [text, text, text, f"{text}, report 39", text], texts[5 * i:5 * i + 5]
    finally:
        if driver is not None:
            driver.quit()
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
