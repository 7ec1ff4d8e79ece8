"""The app renders text from reports and models, never markup (issue 26, app.page and app.session.inert)."""

from __future__ import annotations

import html
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from markdown_it import MarkdownIt

from ddrsearch.app.session import inert
from ddrsearch.reading.synthetic import STUCK_PIPE_DAY, write_report

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest

IMAGE = "![p](http://127.0.0.1:1/p.png)"
TAG = "<img src=/t.png>"
ROW = f"Pipe became stuck {IMAGE} {TAG}"  # short enough to stay on the page
ROW2 = "Jarred stuck pipe free [l](http://127.0.0.1:1/l) www.x.com"
ANSWER = "![a](http://127.0.0.1:1/x.png?q=lost+circulation) The pipe became stuck [D039-r02]. <img src=http://127.0.0.1:1/a.png>"
MARKDOWN_KINDS = ("markdown", "caption", "info", "warning", "success", "error", "subheader", "title")
_MD = MarkdownIt("commonmark", {"html": True})


def _rendered(at) -> list[tuple[str, str]]:
    """Every Markdown element of the page as (source, HTML a CommonMark renderer makes of it, raw HTML allowed)."""
    return [(e.value, _MD.render(e.value)) for kind in MARKDOWN_KINDS for e in getattr(at, kind)]


def _assert_inert(at) -> str:
    """No element would make the browser fetch or follow anything; returns the page's text, entities decoded."""
    shown = []
    for source, rendered in _rendered(at):
        assert "<img" not in rendered and "<a " not in rendered, source
        assert "://" not in source and "www." not in source, source  # no GFM autolink either
        shown.append(html.unescape(re.sub(r"<[^>]+>", "", rendered)))
    return "\n".join(shown)


class _Chat(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        payload = json.dumps({"choices": [{"message": {"content": ANSWER}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def test_inert_text_renders_as_itself_and_makes_no_element():
    """Each markup kind a row or model could carry renders as its own characters: no image, link or tag."""
    for text in (IMAGE, TAG, ROW, ROW2, ANSWER, "*bold* _em_ ~s~ `code` $x$ :red[x] a@b.com | x |", "# H\n- item\n1. one\n> q"):
        rendered = _MD.render(inert(text))
        assert "<img" not in rendered and "<a " not in rendered and "<h1>" not in rendered and "<li>" not in rendered
        # the only emphasis is inert's own: one character where an autolink would start (http:<em>/</em>/)
        assert all(len(em) == 1 for em in re.findall(r"<em>(.*?)</em>", rendered)), rendered
        assert "<code>" not in rendered and "<blockquote>" not in rendered
        assert " ".join(html.unescape(re.sub(r"<[^>]+>", "", rendered)).split()) == " ".join(text.split())


@pytest.mark.model
def test_a_row_and_an_answer_carrying_images_and_tags_are_shown_as_text(tmp_path, monkeypatch):
    """Before: a report row holding ![p](http://...) went into st.markdown by the answer card and the browser
    fetched the image as soon as the question was asked; a generated answer with an image was fetched after
    "Write an answer". After: every row, quote, card line and answer is shown inert (or with st.text): the page
    holds no image or link element from them, and their text appears literally."""
    rows = list(STUCK_PIPE_DAY)
    rows[2] = rows[2]._replace(operations=ROW)
    rows[3] = rows[3]._replace(operations=ROW2)
    folder = tmp_path / "reports"
    folder.mkdir()
    write_report(folder / "DDR_39.pdf", rows)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Chat)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    monkeypatch.setenv("DDRSEARCH_LLM_URL", f"http://127.0.0.1:{srv.server_address[1]}/v1")
    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "index"))
    try:
        at = AppTest.from_string(f"from ddrsearch.app.page import main\nmain(folder={str(folder)!r})\n",
                                 default_timeout=900).run()
        assert not at.exception, at.exception
        at.text_input(key="question").input("pipe became stuck")
        at = at.button(key="search").click().run()
        assert not at.exception, at.exception
        text = _assert_inert(at)
        shown = " ".join(text.split())
        assert ROW in shown and ROW2 in shown, text  # the rows, quoted as printed (card and hit)
        quotes = [m for m in (e.value for e in at.markdown) if m.startswith("<blockquote>")]
        assert quotes and "<mark>" in quotes[0] and "&#60;img" in quotes[0]  # highlighting on the inert text
        rows_shown = [e.value for e in at.markdown if re.match(r"\*\*\d\. ", e.value) and " · row " in e.value]
        assert len(at.get("image")) == len(rows_shown)  # the crops of the rows, nothing else
        at = at.button(key="generate").click().run()
        assert not at.exception, at.exception
        assert [e.value for e in at.text] == [ANSWER]  # the answer as plain text
        _assert_inert(at)
        assert "NO CITATION" in at.warning[0].value
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=5)
