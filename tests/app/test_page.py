"""The web app "Ask the reports" on the real reports: Streamlit's own headless tests, and a browser check.

The page is driven with ``streamlit.testing.v1.AppTest`` (no browser): it
renders, ``packers failed to set`` on the sample shows report 49 first with
its row, bad input gives a message and no traceback, and reports changed on
disk since they were indexed show the rebuild hint. The browser test starts
``ddrsearch app`` on a free localhost port, types a question in headless
Chromium (Selenium) and saves ``figures/app-search.png``, the screenshot of
the book's setup appendix; it runs where ``/usr/bin/chromium`` and
``/usr/bin/chromedriver`` are installed and is skipped otherwise.
"""

from __future__ import annotations

import json
import re
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ddrsearch.cli.command import main as cli_main
from ddrsearch.data.folders import sample_paths
from ddrsearch.retrieval.pipeline import DEFAULT_WEIGHT

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest


#: Seconds one AppTest run may take: the first one reads, chunks and embeds the sample.
RUN_TIMEOUT = 900


REPORT_49 = "FORGE-16A-78-32_Drilling_049_2020-12-07.pdf"


def page(**kwargs) -> AppTest:
    """An AppTest of the page, ``main(**kwargs)``, run once."""
    args = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
    at = AppTest.from_string(f"from ddrsearch.app.page import main\nmain({args})\n", default_timeout=RUN_TIMEOUT)
    return at.run()


def ask(at: AppTest, question: str, method: str = "pipeline", k: int = 5) -> AppTest:
    at.text_input(key="question").input(question)
    at.selectbox(key="method").select(method)
    at.number_input(key="k").set_value(k)
    return at.button(key="search").click().run()


def texts(at: AppTest, kind: str) -> list[str]:
    return [e.value for e in getattr(at, kind)]


@pytest.fixture(scope="module")
def sample_page(archive_folder):
    at = page(corpus="sample")
    assert not at.exception, at.exception
    return at


@pytest.mark.data
@pytest.mark.model
def test_the_page_renders(sample_page):
    at = sample_page
    assert at.title[0].value == "Ask the reports"
    assert at.text_input(key="question").label == "Question"
    assert [o for o in at.selectbox(key="method").options] == [
        "Default pipeline (BM25 + dense, fused)", "BM25 (words, abbreviations expanded)", "Dense (meaning, all-MiniLM-L6-v2)"]
    assert at.caption[0].value.startswith("Searching the ten-report sample (10 reports): 105 passages")
    assert not at.warning and not at.error


@pytest.mark.data
@pytest.mark.model
def test_packers_failed_to_set_shows_report_49_first_with_its_row(sample_page):
    at = ask(sample_page, "packers failed to set")
    assert not at.exception and not at.warning
    heads = [m for m in texts(at, "markdown") if m.startswith("**1. ")]
    assert heads and heads[0].startswith("**1. D049** · report 49 dated 2020-12-07 · row 5, 2020-12-06 14:00-19:00")
    quotes = [m for m in texts(at, "markdown") if m.startswith("<blockquote>")]
    assert "Attempted multiple times to <mark>set</mark> <mark>packers</mark> Pressures" in quotes[0]
    citations = texts(at, "code")
    assert citations[0].startswith("[D049-r05] report 49 dated 2020-12-07, 2020-12-06 14:00-19:00, page 1 ("
                                   + REPORT_49 + ")")
    signals = [m for m in texts(at, "markdown") if m.startswith("this row: BM25 score **")]
    assert len(signals) == 5 and re.fullmatch(r"this row: BM25 score \*\*\d+\.\d\d\*\* · dense cosine \*\*0\.\d{3}\*\* · "
                                              r"fused score \*\*\d\.\d{3}\*\* · report ranked by \*\*\d+\.\d{3}\*\* "
                                              r"\(its best passage\)", signals[0])
    # the score each report was ranked by goes down the list (the shown row's own fused score need not)
    ranked_by = [float(re.search(r"report ranked by \*\*([\d.]+)", m).group(1)) for m in signals]
    assert ranked_by == sorted(ranked_by, reverse=True)
    rows = [m for m in texts(at, "markdown") if re.match(r"\*\*\d\. ", m) and " · row " in m]
    assert len(at.get("image")) == len(rows) >= 1  # a crop for each hit that is a TIME BREAKDOWN row
    card = [m for m in texts(at, "markdown") if "D049-r05" in m and "evidence" in m]
    assert card, "the answer card quotes D049-r05"
    w = DEFAULT_WEIGHT
    assert any(m.startswith(f"**Fusion**: fused = {1 - w:g} x BM25 scaled + {w:g} x dense scaled")
               for m in texts(at, "markdown"))
    assert len(at.dataframe) == 3  # BM25 leg, dense leg, fusion


@pytest.mark.data
@pytest.mark.model
def test_a_typed_field_answer_is_not_also_shown_as_not_found(sample_page):
    """Before: "what was the deepest we got?" showed the typed-field note (the highest MD in these reports) and
    then "Not found in these reports.": the card both answered and refused, as ddrsearch ask did."""
    at = ask(sample_page, "what was the deepest we got?")
    assert not at.exception
    assert any("the highest in these reports is" in c for c in texts(at, "caption"))
    infos = texts(at, "info")
    assert not [i for i in infos if "Not found" in i], infos
    assert any("the answer is the typed-field note above" in i for i in infos), infos


@pytest.mark.data
@pytest.mark.model
def test_bm25_and_dense_methods_are_the_pipeline_legs(sample_page):
    at = ask(sample_page, "packers failed to set", method="bm25", k=3)
    assert texts(at, "subheader")[-1] == "3 report(s) by BM25 (words, abbreviations expanded)"
    heads = [m for m in texts(at, "markdown") if m.startswith("**1. ")]
    assert heads[0].startswith("**1. D049**")
    at = ask(at, "tripping in the hole", method="dense", k=2)
    assert texts(at, "subheader")[-1] == "2 report(s) by Dense (meaning, all-MiniLM-L6-v2)"


@pytest.mark.data
@pytest.mark.model
def test_a_misspelt_word_gets_a_did_you_mean_caption(sample_page):
    at = ask(sample_page, "stuk pipe", k=2)
    assert 'No report prints "stuk": did you mean "stuck" or "stk"?' in texts(at, "caption")
    at = ask(at, "pipe stuck while sliding", k=2)
    assert not [c for c in texts(at, "caption") if "report prints" in c]


@pytest.mark.data
@pytest.mark.model
@pytest.mark.parametrize("question, message", [
    ("", "Type a question first"),
    ("   ", "Type a question first"),
    ("?!...", "has no searchable words"),
    ("the of and", "has no searchable words"),
])
def test_bad_questions_give_a_message_not_a_traceback(sample_page, question, message):
    at = ask(sample_page, question)
    assert not at.exception
    assert len(at.warning) == 1 and message in at.warning[0].value
    assert not [m for m in texts(at, "markdown") if m.startswith("**1. ")]


@pytest.mark.data
@pytest.mark.model
def test_how_the_ranking_was_made_adds_up(sample_page):
    """The panel's fusion terms add up to the pipeline's own fused scores; shorthand is expanded for BM25."""
    from ddrsearch.app.page import load_search

    session = load_search("sample", None, None)  # the page's cached session, not a second index
    question = "TIH to the casing shoe"
    ex = session.explain(question)
    assert ("tih", "trip in hole") in ex.expansions
    assert "trip" in ex.expanded_terms and "trip" not in ex.terms
    b, v, f = session.signals(question)
    at = {p.passage_id: i for i, p in enumerate(session.retriever.passages)}
    legs_b, _ = session.retriever.leg_scores(question)
    assert [r.score for r in ex.bm25] == sorted((x for x in legs_b if x == x), reverse=True)[:10]
    assert len(ex.dense) == len(ex.fused) == 10
    for r in ex.fused:
        w = ex.weight
        assert r.score == pytest.approx((1 - w) * (r.bm25_norm or 0.0) + w * (r.dense_norm or 0.0) + r.bonus)
        assert r.score == pytest.approx(f[at[r.passage_id]])
    hits = session.search(question, k=3)
    assert hits[0].fused == pytest.approx(max(x for x in f if x == x))
    # shorthand in a row is highlighted for a question in plain words, and the other way round
    assert session.marks("TIH to 6,360', no issues", set(session.terms("trip in hole"))) == ("TIH",)
    assert {"Trip", "hole"} <= set(session.marks("Trip in hole to 6,360'", set(session.terms("TIH"))))


class _Chat(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat endpoint that answers ``server.answer``."""

    def log_message(self, *args):
        pass

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": self.server.answer}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.mark.data
@pytest.mark.model
def test_a_generated_answer_is_shown_with_its_citations_checked(sample_page, monkeypatch):
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Chat)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    monkeypatch.setenv("DDRSEARCH_LLM_URL", f"http://127.0.0.1:{srv.server_address[1]}/v1")
    monkeypatch.setenv("DDRSEARCH_LLM_MODEL", "test-model")
    try:
        srv.answer = "The packers did not set on 2020-12-07. [D049-r05]"
        at = ask(sample_page, "packers failed to set")
        assert at.button(key="generate").label == "Write an answer with test-model (citations checked)"
        at = at.button(key="generate").click().run()
        assert texts(at, "text") == ["The packers did not set on 2020-12-07. [D049-r05]"]  # plain text (issue 26)
        assert at.success[0].value.startswith("All 1 sentence(s) cite rows that were in the prompt. Overlap")
        assert "overlap 0.86 with D049-r05: The packers did not set on 2020-12-07." in at.success[0].value
        srv.answer = "The packers did not set. [D049-r05] The crew then drilled ahead. [D001-r01]"
        at = at.button(key="generate").click().run()
        assert not at.success
        assert "NOT IN THE PROMPT: D001-r01" in at.warning[0].value
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(timeout=5)


def test_unreadable_folders_give_a_message_not_a_traceback(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "DDR_41.pdf").write_text("not a PDF", encoding="utf-8")
    for folder, says in ((tmp_path / "missing", "does not exist"), (tmp_path / "empty", "No PDF files"),
                         (tmp_path / "bad", "DDR_41.pdf")):
        at = page(folder=str(folder))
        assert not at.exception, at.exception
        assert at.error and at.error[0].value.startswith("The reports could not be loaded:")
        assert says in at.error[0].value
        assert "ddrsearch app --dir FOLDER" in at.info[0].value


@pytest.mark.data
@pytest.mark.model
def test_reports_changed_on_disk_show_the_rebuild_hint(tmp_path, archive_folder):
    """The index is stale when the folder's PDFs change after indexing; the page says so and rebuilds on request."""
    first, second, third = sample_paths(archive_folder)[:3]
    for p in (first, second):
        shutil.copy2(p, tmp_path / p.name)
    at = page(folder=str(tmp_path))
    assert not at.exception and not at.warning
    shutil.copy2(third, tmp_path / third.name)  # a new day's report arrives
    at = at.run()
    assert len(at.warning) == 1 and at.warning[0].value.startswith("The index is stale")
    assert f"1 PDF(s) added: {third.name}" in at.warning[0].value
    at = at.button(key="rebuild").click().run()
    assert not at.exception and not at.warning
    assert at.caption[0].value.startswith(f"Searching folder {tmp_path} (3 reports)")
    (tmp_path / first.name).unlink()
    at = at.run()
    assert f"1 PDF(s) removed: {first.name}" in at.warning[0].value


@pytest.mark.data
@pytest.mark.model
def test_a_stale_index_on_disk_shows_the_rebuild_hint(tmp_path, archive_folder, monkeypatch):
    """With an index built by ``ddrsearch index build``, the page uses it while current and says to rebuild when not."""
    from ddrsearch.app.page import load_search

    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "index"))
    folder = tmp_path / "reports"
    folder.mkdir()
    first, second, third = sample_paths(archive_folder)[:3]
    for p in (first, second):
        shutil.copy2(p, folder / p.name)
    assert cli_main(["index", "build", "--dir", str(folder)]) == 0
    at = page(folder=str(folder))
    assert not at.exception and not at.warning
    assert load_search("sample", str(folder), None).index_note == ""
    shutil.copy2(third, folder / third.name)  # a new report the index does not hold yet
    load_search.clear()  # as a new process would start
    at = page(folder=str(folder))
    assert not at.exception
    hint = at.warning[0].value
    assert hint.startswith("The index on disk (") and "is stale: 1 report(s) are not indexed yet" in hint
    assert f"Rebuild it with: ddrsearch index build --dir {folder}" in hint
    assert at.caption[0].value.startswith(f"Searching folder {folder} (3 reports)")


@pytest.mark.data
@pytest.mark.model
def test_a_folder_with_one_bad_file_is_searched_and_names_the_file_skipped(tmp_path, archive_folder, monkeypatch):
    """Before: app --dir with one unreadable PDF showed "The reports could not be loaded" and searched nothing.
    After: the good reports are searched and a warning names the skipped file and why, as search --dir does."""
    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "index"))
    folder = tmp_path / "reports"
    folder.mkdir()
    for p in sample_paths(archive_folder)[:2]:
        shutil.copy2(p, folder / p.name)
    (folder / "DDR_41.pdf").write_text("not a PDF", encoding="utf-8")
    at = page(folder=str(folder))
    assert not at.exception and not at.error
    assert at.caption[0].value.startswith(f"Searching folder {folder} (2 reports)")
    assert len(at.warning) == 1
    assert at.warning[0].value.startswith("DDR_41.pdf skipped, not searched:"), at.warning[0].value
    assert "is not a PDF" in at.warning[0].value


@pytest.mark.data
@pytest.mark.model
def test_a_days_quantity_no_report_prints_is_not_refused_for_want_of_evidence(sample_page):
    """Before: "how many feet did we drill on Oct 21" (D003 prints no 24 HR FTG, no row of the day prints a
    drilled interval) showed "No row has enough evidence (best 0.4x, threshold 0.431)" beside a best support of
    0.50: the day's rows are chosen by what they print. After: the card's own refusal, as ddrsearch ask prints it."""
    at = ask(sample_page, "how many feet did we drill on Oct 21")
    assert not at.exception
    infos = texts(at, "info")
    assert not [i for i in infos if "enough evidence" in i], infos
    assert any("reports covering that day" in i for i in infos), infos


@pytest.mark.data
@pytest.mark.model
def test_the_rows_of_a_day_are_not_called_supporting_rows(sample_page):
    """Before: the page counted a day's rows, quoted whatever their support, as "supporting row(s)"; ddrsearch
    ask says "row(s) of the day"."""
    at = ask(sample_page, "how many feet did we drill on Nov 25")
    assert not at.exception
    heads = [m for m in texts(at, "markdown") if " report(s), in the order the rows began" in m]
    assert heads and all("row(s) of the day" in m for m in heads), heads
