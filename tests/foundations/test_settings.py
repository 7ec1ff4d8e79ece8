"""ddrsearch.settings: a setting that cannot be resolved names its variable."""

from __future__ import annotations

import pytest

from ddrsearch.cli.command import main


@pytest.mark.parametrize("name", ["DDRSEARCH_ARCHIVE_DIR", "DDRSEARCH_INDEX_DIR"])
def test_a_setting_with_an_unknown_home_folder_names_the_variable(monkeypatch, capsys, name):
    """A setting with ``~nosuchuser`` said "Could not determine home directory"; the message names the variable and its
    value.
    """
    monkeypatch.setenv(name, "~nosuchuser-ddrsearch/reports")
    # before: "ddrsearch search: Could not determine home directory." (neither variable nor value)
    assert main(["search", "stuck", "--method", "bm25", "--no-index"] if name.endswith("ARCHIVE_DIR")
                else ["index", "status"]) == 1
    err = capsys.readouterr().err
    assert f"{name}='~nosuchuser-ddrsearch/reports'" in err and "without '~'" in err
