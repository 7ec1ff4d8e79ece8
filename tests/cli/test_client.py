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
