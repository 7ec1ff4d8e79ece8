"""ddrsearch.answers.generation: the chat client against a small local HTTP server, and the citation checker."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pytest

from ddrsearch.answers.generation import (
    GenerationError,
    LLMConfig,
    build_prompt,
    chat,
    check_citations,
    llm_config,
    split_sentences,
)

ROWS = [
    SimpleNamespace(row_id="D038-r08", date=dt.date(2020, 11, 26), start="23:30", end="04:00",
                    text="During the slide lost tool face and became assembly became stuck"),
    SimpleNamespace(row_id="D039-r01", date=dt.date(2020, 11, 27), start="06:00", end="07:00",
                    text="Work tight hole at 6,526'"),
]


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, body))
        mode = self.server.mode
        if mode == "slow":
            time.sleep(2.0)   # longer than the client's timeout: the client has gone, write nothing
            return
        if mode == "error":
            self.send_response(500)
            self.end_headers()
            return
        payload = b"not json" if mode == "garbage" else json.dumps(
            {"choices": [{"message": {"role": "assistant", "content": self.server.answer}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    srv.mode, srv.requests = "ok", []
    srv.answer = "The pipe became stuck during the slide on 2020-11-26. [D038-r08]"
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=5)


def _config(srv, timeout=5.0):
    return LLMConfig(url=f"http://127.0.0.1:{srv.server_address[1]}/v1", model="test-model", timeout=timeout)


def test_client_posts_chat_completions_and_returns_the_answer(server):
    messages = build_prompt("when did we last get stuck?", ROWS)
    assert chat(messages, _config(server)) == server.answer
    path, body = server.requests[0]
    assert path == "/v1/chat/completions"
    assert body["model"] == "test-model" and body["temperature"] == 0
    user = body["messages"][-1]["content"]
    assert "[D038-r08] 2020-11-25 23:30-04:00 (report dated 2020-11-26): During the slide" in user
    assert "[D039-r01]" in user and "when did we last get stuck?" in user


def test_slow_endpoint_gives_one_line_within_the_timeout(server):
    server.mode = "slow"
    t0 = time.monotonic()
    with pytest.raises(GenerationError, match=r"did not answer within 0.5 s") as info:
        chat(build_prompt("q", ROWS), _config(server, timeout=0.5))
    assert time.monotonic() - t0 < 1.9
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("mode, message", [("error", "HTTP 500"), ("garbage", "not in the chat completions format")])
def test_bad_replies_are_named(server, mode, message):
    server.mode = mode
    with pytest.raises(GenerationError, match=message):
        chat(build_prompt("q", ROWS), _config(server))


def test_endpoint_down_is_named():
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(GenerationError, match="could not be reached"):
        chat(build_prompt("q", ROWS), LLMConfig(url=f"http://127.0.0.1:{port}/v1", timeout=2))


def test_config_from_environment():
    assert llm_config({}) is None
    cfg = llm_config({"DDRSEARCH_LLM_URL": "http://127.0.0.1:11434/v1/", "DDRSEARCH_LLM_MODEL": "llama3.2",
                      "DDRSEARCH_LLM_TIMEOUT": "7.5"})
    assert cfg == LLMConfig("http://127.0.0.1:11434/v1", "llama3.2", 7.5)
    with pytest.raises(GenerationError, match="not an http"):
        llm_config({"DDRSEARCH_LLM_URL": "127.0.0.1:11434"})
    with pytest.raises(GenerationError, match="positive number"):
        llm_config({"DDRSEARCH_LLM_URL": "http://x/v1", "DDRSEARCH_LLM_TIMEOUT": "0"})


def test_checker_passes_a_fully_cited_answer():
    check = check_citations("The pipe stuck at 6,507' on 2020-11-26 [D038-r08]. The next day they worked "
                            "tight hole at 6,526' [D039-r01].", ["D038-r08", "D039-r01"])
    assert check.ok and len(check.sentences) == 2


def test_checker_flags_uncited_sentences_and_ids_not_in_the_prompt():
    answer = ("The pipe became stuck while sliding [D038-r08]. It was freed by jarring. "
              "It stuck again in December [D050-r03, D038-r08].")
    check = check_citations(answer, ["D038-r08", "D039-r01"])
    assert not check.ok
    assert check.uncited == ["It was freed by jarring."]
    assert check.unknown == ["D050-r03"]
    assert "NO CITATION: It was freed by jarring." in check.report()
    assert "NOT IN THE PROMPT: D050-r03" in check.report()


def test_checker_accepts_not_found_and_keeps_decimals_and_trailing_citations():
    assert check_citations("Not found in these reports.", []).ok
    assert split_sentences("ROP 32.6 ft/hr. [D038-r08] Then tripped out. [D038-r09]") == [
        "ROP 32.6 ft/hr. [D038-r08]", "Then tripped out. [D038-r09]"]
    assert not check_citations("", ["D038-r08"]).ok


@pytest.mark.parametrize("url", ["http://", "https:// host"])
def test_llm_url_without_a_host_is_refused_at_once(url):
    """A DDRSEARCH_LLM_URL without a host was tried as ``http:/chat/completions``; it is refused when the settings are
    read.
    """
    from ddrsearch.answers.generation import llm_config
    from ddrsearch.errors import GenerationError

    with pytest.raises(GenerationError, match="is not an http"):  # before: tried "http:/chat/completions"
        llm_config({"DDRSEARCH_LLM_URL": url})


def test_a_reply_over_the_byte_limit_is_refused_not_read_whole(monkeypatch):
    """Before: chat() read the endpoint's reply whatever its size. After: over MAX_REPLY_BYTES it stops reading
    and raises a GenerationError saying the limit."""
    import io

    from ddrsearch.answers import generation
    from ddrsearch.answers.generation import MAX_REPLY_BYTES, GenerationError, LLMConfig, chat

    read = []

    class _Huge(io.RawIOBase):
        def read(self, n=-1):
            read.append(n)
            return b"x" * (MAX_REPLY_BYTES + 1 if n == -1 else n)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(generation.urllib.request, "urlopen", lambda request, timeout: _Huge())
    with pytest.raises(GenerationError, match=f"more than {MAX_REPLY_BYTES:,} bytes"):
        chat([{"role": "user", "content": "q"}], LLMConfig(url="http://127.0.0.1:9/v1"))
    assert read == [MAX_REPLY_BYTES + 1]
