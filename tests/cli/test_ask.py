"""``ddrsearch ask``: answer cards printed for a question, on the archive and on your own folder, and its errors."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from ddrsearch.answers.answerer import Answerer
from ddrsearch.cli.command import main
from ddrsearch.errors import QueryError
from ddrsearch.evaluation.questionfiles import load_questions


@pytest.fixture(scope="module")
def answerer(archive):
    return Answerer(archive)


@pytest.mark.data
@pytest.mark.model
def test_ask_last_stuck_prints_the_latest_stuck_report_first(archive_folder, capsys):
    a01 = next(q for q in load_questions("archive") if q.id == "A01")
    stuck = {j.report for j in a01.relevant if j.grade >= 2}   # the reports where the pipe got stuck
    assert main(["ask", "when did we last get stuck?", "--corpus", "archive"]) == 0
    out = capsys.readouterr().out.splitlines()
    first = next(line for line in out if re.match(r"^[DC]\d{3}  report", line))
    label = first.split()[0]
    number = int(label[1:])
    latest = max((j for j in stuck), key=lambda n: n)  # file names sort by report number
    assert f"_{number:03d}_" in latest
    assert "2020-11-26" in first
    assert any("[D038-r08] 2020-11-25 23:30-04:00" in line for line in out)  # 23:30 of 25 Nov, report of 26 Nov
    assert "became stuck" in " ".join(out)


@pytest.mark.data
@pytest.mark.model
def test_unanswerable_question_prints_not_found(archive_folder, capsys):
    question = load_questions("archive", check_evidence=False)["A119"]   # a dev unanswerable question
    assert question.kind == "unanswerable" and question.split == "dev"
    assert main(["ask", question.question, "--corpus", "archive"]) == 0
    assert "Not found in these reports" in capsys.readouterr().out


@pytest.mark.data
@pytest.mark.model
def test_empty_or_stopword_question_is_the_search_error(answerer, capsys):
    with pytest.raises(QueryError, match="empty"):
        answerer.ask("   ")
    with pytest.raises(QueryError, match="no searchable words"):
        answerer.ask("when did we?")
    assert main(["ask", "the of"]) == 1
    ask_err = capsys.readouterr().err
    assert main(["search", "the of"]) == 1
    search_err = capsys.readouterr().err
    assert ask_err.replace("ddrsearch ask", "") == search_err.replace("ddrsearch search", "")


R40 = "FORGE-16A-78-32_Drilling_040_2020-11-28.pdf"


R41 = "FORGE-16A-78-32_Drilling_041_2020-11-29.pdf"


R42 = "FORGE-16A-78-32_Drilling_042_2020-11-30.pdf"


def test_ask_with_an_option_it_does_not_have_names_that_option_plainly(capsys):
    """An option ask lacks was moved behind ``--`` as a dash query; the error names the option plainly."""
    # `ddrsearch ask "which day did we pass 7,000 ft?" --dir my_reports` (ask had no --dir then) printed
    # "error: unrecognized arguments: my_reports -- --dir": move_dash_query took --dir for a query
    # starting with a dash and moved it behind "--".
    with pytest.raises(SystemExit):
        main(["ask", "which day did we pass 7,000 ft?", "--weight", "0.5"])
    err = capsys.readouterr().err
    assert "-- --weight" not in err and "ask has no option --weight" in err


@pytest.mark.data
@pytest.mark.model
def test_ask_answers_from_your_own_folder(tmp_path, archive_folder, capsys):
    """``ask`` took no ``--dir``, so your own PDFs could only be asked through Python; ``--ocr`` needs ``--dir``."""
    # search and app took --dir; ask did not, so your own PDFs could only be asked through Python
    for name in (R40, R41, R42):
        shutil.copy(archive_folder / name, tmp_path / name)
    assert main(["ask", "which day did we pass 7,000 ft?", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "From the typed fields (first MD >= 7,000 ft): D04" in out
    assert main(["ask", "stuck", "--ocr", "auto"]) == 2
    assert "--ocr applies to --dir" in capsys.readouterr().err


def _name(n: int) -> str:
    import datetime as dt

    day = dt.date(2020, 10, 19) + dt.timedelta(days=n)
    return f"FORGE-16A-78-32_Drilling_{n:03d}_{day.isoformat()}.pdf"


def test_ask_option_it_lacks_is_named_without_the_question(capsys):
    """An option ask lacks made its value the question and the question "unrecognized"; the error names the option
    only.
    """
    # ddrsearch ask --method bm25 "lost circulation" -> "error: unrecognized arguments: --method lost circulation":
    # the question is reported as unrecognized and "bm25" silently became the question.
    with pytest.raises(SystemExit):
        main(["ask", "--method", "bm25", "lost circulation"])
    err = capsys.readouterr().err
    assert "--method" in err and "lost circulation" not in err, err


def _scanned(src: Path, dst: Path) -> None:
    import pymupdf

    doc, out = pymupdf.open(src), pymupdf.open()
    for page in doc:
        new = out.new_page(width=page.rect.width, height=page.rect.height)
        new.insert_image(new.rect, pixmap=page.get_pixmap(dpi=72))
    out.save(dst)


@pytest.mark.data
def test_ask_dir_scanned_report_message_gives_the_ask_command(tmp_path, archive_folder, capsys):
    """A scanned PDF in ``ask --dir`` was told to run ``search --ocr auto``; the message fits the command run."""
    # ddrsearch ask --dir FOLDER "stuck pipe" with a scanned PDF: "Read it with OCR: ddrsearch search --dir FOLDER
    # --ocr auto" -- ask has --ocr now; the user ran ask.
    _scanned(archive_folder / _name(39), tmp_path / "scan39.pdf")
    assert main(["ask", "--dir", str(tmp_path), "stuck pipe"]) == 1
    err = capsys.readouterr().err
    assert "add --ocr auto to the command (ddrsearch search, ask" in err, err


@pytest.mark.data
@pytest.mark.model
def test_ask_with_only_a_date_says_what_is_missing(archive_folder, capsys):
    """``ask 2020-11-26`` said the question had only stop words; it says the question names a day but nothing to look
    for.
    """
    assert main(["ask", "2020-11-26"]) == 1  # before: "no searchable words (only stop words or punctuation)"
    assert "names a day but nothing to look for on it" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["ask", "--dir"], ["search", "--method", "bm25", "--dir"], ["manifest"]])
def test_missing_own_folder_is_not_told_to_fetch(command, capsys):
    """A missing folder of your own was told to fetch the FORGE reports, which does not create it."""
    # ddrsearch ask --dir /tmp/nonexist "mud" -> "Report folder /tmp/nonexist does not exist. Fetch the reports
    # with: ddrsearch fetch (or: make data)": fetching the FORGE archive does not create the user's folder.
    argv = command + ["/tmp/adv2_no_such_folder"] + (["mud"] if command[0] != "manifest" else [])
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "ddrsearch fetch" not in err, err


@pytest.mark.data
@pytest.mark.model
def test_ask_prints_each_cited_sentences_overlap_and_flags_a_row_that_does_not_say_it(tmp_path, archive_folder,
                                                                                       capsys, monkeypatch):
    """Before: 'The well blew out [D038-r09].' citing a stuck-pipe row passed the check (every sentence cited a row
    of the prompt). After: it is flagged LOW OVERLAP with its score; the sentence quoting the row shows 1.00."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Chat(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):  # the first row of the prompt, quoted and cited; then a claim it does not hold
            prompt = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["messages"][1]["content"]
            row, text = re.search(r"^\[(D\d{3}-r\d\d)\] \S+ \S+ \(report dated \S+\): (.*?)[.]?$", prompt, re.M).groups()
            answer = f"They had to {text} [{row}]. The well blew out [{row}]."
            payload = json.dumps({"choices": [{"message": {"content": answer}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Chat)
    threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    monkeypatch.setenv("DDRSEARCH_LLM_URL", f"http://127.0.0.1:{srv.server_address[1]}/v1")
    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "index"))
    name = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"
    shutil.copy(archive_folder / name, tmp_path / name)
    try:
        assert main(["ask", "when did the pipe become stuck?", "--dir", str(tmp_path)]) == 0
    finally:
        srv.shutdown()
        srv.server_close()
    out = capsys.readouterr().out
    assert re.search(r"^LOW OVERLAP 0\.00 with D038-r\d\d \(the row does not say most of it\): The well blew out", out,
                     re.M), out[-600:]
    assert re.search(r"^overlap 1\.00 with D038-r\d\d: They had to ", out, re.M), out[-600:]
    assert "All 2 sentence(s)" not in out


@pytest.mark.data
@pytest.mark.model
def test_ask_how_deep_on_a_day_prints_both_covering_reports_md(archive, capsys):
    """Before: "Not found in these reports (best support 0.11 < 0.431)"."""
    from ddrsearch.reading.fields import typed_fields

    md = {r.report_date.isoformat(): typed_fields(r)["md_ft"].value for r in archive}
    assert main(["ask", "how deep were we on thanksgiving", "--corpus", "archive"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"D038 prints MD/TVD {md['2020-11-26']:,.0f} ft" in out and f"D039 prints MD/TVD {md['2020-11-27']:,.0f} ft" in out
    assert "[D039-r11] 2020-11-26 23:00-06:00" in out and "Not found" not in out
    assert "row(s) of the day in 1 report(s), in the order the rows began on the day (not by support)" in out
