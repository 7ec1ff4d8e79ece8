"""The search client: which command lines it sends to a server, to which socket, and when it runs them itself."""

from __future__ import annotations

import pytest

from ddrsearch.cli import client
from ddrsearch.stores.locations import default_index_dir, socket_path


@pytest.mark.parametrize("argv", [
    ["search", "stuck pipe", "--method", "bm25"],
    ["search", "stuck pipe", "--method=dense"],
    ["search", "stuck pipe", "--unit", "report"],
    ["search", "stuck pipe", "--no-index"],
    ["search", "stuck pipe", "--help"],
    ["search", "stuck pipe", "--corp", "archive"],  # an abbreviation argparse accepts: left to argparse
    ["search", "-LCM"],  # a query that starts with a dash
    ["search", "stuck pipe", "-k"],  # a value missing
    ["ask", "when did we get stuck?", "--ocr", "auto"],  # ask --ocr reads the PDFs
    ["ask", "when did we get stuck?", "--no-index"],
    ["show", "D038-r08"],
    [],
])
def test_what_is_not_sent(argv):
    assert client.request_for(argv) is None


def test_the_socket_is_in_the_index_folder_search_would_use(tmp_path, monkeypatch):
    monkeypatch.delenv("DDRSEARCH_INDEX_DIR", raising=False)
    path, request = client.request_for(["search", "stuck pipe", "-k3", "--corpus=archive"])
    assert path == str(socket_path(default_index_dir("archive")))
    assert request["argv"] == ["search", "stuck pipe", "-k3", "--corpus=archive"] and request["v"] == client.PROTOCOL
    path, _ = client.request_for(["search", "pipe"])
    assert path == str(socket_path(default_index_dir("sample")))  # search's default corpus
    path, _ = client.request_for(["search", "pipe", "--dir", str(tmp_path)])
    assert path == str(socket_path(default_index_dir(None, str(tmp_path))))
    path, _ = client.request_for(["search", "pipe", "--dir", str(tmp_path), "--index", "rel/ix"])  # --index wins
    assert path == str(socket_path("rel/ix"))
    path, _ = client.request_for(["search", "--index", "rel/ix", "--", "-LCM"])
    assert path == str(socket_path("rel/ix"))
    path, request = client.request_for(["ask", "when did we last get stuck?", "--corpus", "archive"])
    assert path == str(socket_path(default_index_dir("archive"))) and request["argv"][0] == "ask"


def test_the_request_carries_the_settings_but_not_the_switch(monkeypatch):
    monkeypatch.setenv("DDRSEARCH_MAX_QUESTION_WORDS", "7")
    monkeypatch.setenv("DDRSEARCH_SERVER", "1")
    monkeypatch.setenv("COLUMNS", "61")
    _, request = client.request_for(["search", "pipe"])
    assert request["env"]["DDRSEARCH_MAX_QUESTION_WORDS"] == "7" and "DDRSEARCH_SERVER" not in request["env"]
    assert request["terminal"][0] == 61


def test_no_server_or_switched_off_means_run_it_here(tmp_path, monkeypatch):
    monkeypatch.setenv("DDRSEARCH_SERVER", "0")
    assert client.run_via_server(["search", "pipe", "--index", str(tmp_path)]) is None
    monkeypatch.delenv("DDRSEARCH_SERVER")
    assert client.run_via_server(["search", "pipe", "--index", str(tmp_path)]) is None  # no socket there


class _Answering:
    """A server in a thread on ``<folder>/serve.sock`` that answers every request with ``answer``.

    As ``ddrsearch serve`` does, it acknowledges each request first and gives
    its answers the protocol's version; ``old=True``: as a server of version
    1 did (no acknowledgement, no version). ``delay``: seconds it takes to
    answer after the acknowledgement.
    """

    def __init__(self, folder, answer, *, old=False, delay=0.0):
        import threading
        import time

        from ddrsearch import resident

        self.requests, self.path = [], str(socket_path(folder))
        self.sock = resident.listen(self.path)

        def handle(request):
            if request.get("stop"):
                return {}, True
            self.requests.append(request)
            time.sleep(delay)
            return answer if old else {**answer, "v": client.PROTOCOL}, False

        def accept(request):
            return None if request.get("stop") else {"accepted": True, "v": client.PROTOCOL}

        kwargs = {"idle_seconds": 20, "log": lambda line: None, **({} if old else {"accept": accept})}
        self.thread = threading.Thread(target=resident.serve, args=(self.sock, handle), kwargs=kwargs, daemon=True)
        self.thread.start()

    def close(self):
        from ddrsearch import resident

        resident.call(self.path, {"stop": 1})
        self.thread.join(10)
        self.sock.close()


@pytest.fixture
def short_folder():
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="cl", dir="/tmp")  # a Unix socket's path must stay under 108 bytes
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_text_the_stream_cannot_encode_is_left_to_this_process(short_folder, monkeypatch):
    import io
    import sys

    monkeypatch.delenv("DDRSEARCH_SERVER", raising=False)
    server = _Answering(short_folder, {"events": [[1, "D038 \u2026 stuck\n"]], "code": 0})
    try:
        ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
        monkeypatch.setattr(sys, "stdout", ascii_out)
        # before: UnicodeEncodeError out of run_via_server (a traceback where ddrsearch prints one line)
        assert client.run_via_server(["search", "pipe", "--index", short_folder]) is None
        assert server.requests  # it was asked, and its answer not printed
        ascii_out.flush()
        assert ascii_out.buffer.getvalue() == b""
        utf8_out = io.StringIO()
        monkeypatch.setattr(sys, "stdout", utf8_out)
        assert client.run_via_server(["search", "pipe", "--index", short_folder]) == 0
        assert utf8_out.getvalue() == "D038 \u2026 stuck\n"
    finally:
        server.close()


def test_a_closed_standard_output_is_left_to_this_process(short_folder, monkeypatch):
    import sys

    monkeypatch.delenv("DDRSEARCH_SERVER", raising=False)
    server = _Answering(short_folder, {"events": [[1, "rows\n"]], "code": 0})
    try:
        monkeypatch.setattr(sys, "stdout", None)  # python ... >&- (print() is silent, write() an AttributeError)
        assert client.run_via_server(["search", "pipe", "--index", short_folder]) is None
        assert not server.requests
    finally:
        server.close()


def test_a_write_that_fails_is_one_line_and_status_1_as_in_this_process(short_folder, monkeypatch):
    import io
    import sys

    class Full(io.StringIO):
        def write(self, text):
            raise OSError(28, "No space left on device")

    monkeypatch.delenv("DDRSEARCH_SERVER", raising=False)
    server = _Answering(short_folder, {"events": [[1, "rows\n"]], "code": 0})
    try:
        err = io.StringIO()
        monkeypatch.setattr(sys, "stdout", Full())
        monkeypatch.setattr(sys, "stderr", err)
        assert client.run_via_server(["search", "pipe", "--index", short_folder]) == 1
        assert err.getvalue() == "ddrsearch search: [Errno 28] No space left on device\n"
    finally:
        server.close()


def test_a_stopped_server_is_given_up_after_the_acknowledgement_time(short_folder, monkeypatch):
    """A server stopped with SIGSTOP or Ctrl-Z: the kernel still queues connections, nobody reads them."""
    import socket
    import threading

    monkeypatch.delenv("DDRSEARCH_SERVER", raising=False)
    monkeypatch.setattr(client, "ACK_TIMEOUT", 0.5, raising=False)
    monkeypatch.setattr(client, "ANSWER_TIMEOUT", None)  # no limit: only the acknowledgement's time can end the wait
    stopped = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stopped.bind(str(socket_path(short_folder)))
    stopped.listen(4)  # listening, never accepting
    got = {}
    try:
        waiting = threading.Thread(target=lambda: got.setdefault(
            "status", client.run_via_server(["search", "pipe", "--index", short_folder])), daemon=True)
        waiting.start()
        waiting.join(60)  # a generous bound: before, the client waited for the answer (here: for ever)
        assert not waiting.is_alive() and got == {"status": None}  # None: the search runs in this process
    finally:
        stopped.close()


def test_an_acknowledged_request_waits_for_its_answer_past_the_acknowledgement_time(short_folder, monkeypatch,
                                                                                   capsys):
    monkeypatch.delenv("DDRSEARCH_SERVER", raising=False)
    monkeypatch.setattr(client, "ACK_TIMEOUT", 0.2)
    server = _Answering(short_folder, {"events": [[1, "rows\n"], [2, "note\n"]], "code": 0}, delay=1.0)
    try:
        assert client.run_via_server(["search", "pipe", "--index", short_folder]) == 0
        assert capsys.readouterr() == ("rows\n", "note\n") and len(server.requests) == 1
    finally:
        server.close()


def test_a_server_of_the_old_protocol_is_not_used(short_folder, monkeypatch, capsys):
    monkeypatch.delenv("DDRSEARCH_SERVER", raising=False)
    server = _Answering(short_folder, {"events": [[1, "old rows\n"]], "code": 0}, old=True)
    try:
        # before: printed "old rows" (protocol 1 had no version in its answers, nor an acknowledgement)
        assert client.run_via_server(["search", "pipe", "--index", short_folder]) is None
        assert server.requests and capsys.readouterr() == ("", "")
    finally:
        server.close()


@pytest.mark.parametrize("value", ["off", "false", "no", "00"])
def test_a_server_setting_that_is_neither_0_nor_1_is_an_error_naming_it(value, monkeypatch, capsys):
    """Before: DDRSEARCH_SERVER=off (or false, no) was not 0, so a running server answered: the asker who meant to
    turn it off was never told."""
    monkeypatch.setenv("DDRSEARCH_SERVER", value)
    assert client.run_via_server(["search", "stuck pipe"]) == 1
    err = capsys.readouterr().err
    assert f"DDRSEARCH_SERVER={value!r} is neither 0 nor 1" in err and "set it to 0" in err
    monkeypatch.setenv("DDRSEARCH_SERVER", "0")
    assert client.run_via_server(["search", "stuck pipe"]) is None
