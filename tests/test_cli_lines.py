"""``ddrsearch search``'s table: the shown line keeps the matched words; numeric columns line up."""

from __future__ import annotations

import pytest

from ddrsearch.cli.command import main
from ddrsearch.retrieval.lexical import BM25Retriever, KeywordRetriever


def _rows(out: str) -> dict[str, str]:
    """Table row of each report (``D038`` -> its printed line), from ``search``'s output."""
    lines = out.splitlines()
    end = lines.index("")  # the table ends at the blank line before the summary
    return {line.split()[1]: line for line in lines[2:end]}


@pytest.mark.model
def test_hybrid_line_of_report_38_shows_stuck(capsys, archive_folder):
    # before: "…During the slide lost tool face and became assembly became…", without "stuck"
    assert main(["search", "pipe became stuck during the slide", "--corpus", "archive", "--no-index"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert "stuck" in rows["D038"].lower()


def test_bm25_line_of_report_19_shows_seepage_losses(capsys, archive_folder):
    # before: "Drill ahead with BHA #4 from 4,460' ...", cut before "Mud fluids seepage losses"
    assert main(["search", "mud losses", "--method", "bm25", "--corpus", "archive"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert "losses" in rows["D019"].lower()


def test_keyword_scores_of_two_digits_line_up(capsys, archive_folder):
    assert main(["search", "mud weight", "--method", "keyword", "--corpus", "archive", "-k", "12"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()[: out.splitlines().index("")]
    header, rows = lines[0], lines[2:]
    scores = [float(line.split()[3]) for line in rows]
    assert max(scores) >= 10 > min(scores)  # the case that misaligned: 14.0000 above 9.0000
    end = header.index("score") + len("score")  # right-aligned under the header's last letter
    assert all(line[end - 1] == "0" and line[end] == " " for line in rows)
    assert {line.index(" ", end + 2) for line in rows if line.split()[4][0].isdigit()} == {end + 2 + len("00:00-00:00")}


def test_the_line_is_cut_with_the_retrievers_own_tokenizer():
    assert KeywordRetriever().match_options == {"expand": False, "stem": False}
    assert BM25Retriever(expand=True, stem=True).match_options == {"expand": True, "stem": True}
