"""``ddrsearch env``: the DDRSEARCH_* settings in effect."""

from __future__ import annotations

from ddrsearch.cli.command import main


def test_env_prints_the_folders_in_effect(capsys, tmp_path, monkeypatch):
    """``env`` printed "(unset)" and the default's description, not the folder in use; it prints the folders in effect.
    """
    # before: "DDRSEARCH_ARCHIVE_DIR (unset)" and the default's description, not the folder in use
    from ddrsearch.data.folders import archive_dir

    monkeypatch.delenv("DDRSEARCH_ARCHIVE_DIR", raising=False)
    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "idx"))
    assert main(["env"]) == 0
    out = capsys.readouterr().out
    assert f"in effect: {archive_dir()}" in out and f"in effect: {tmp_path / 'idx'}" in out


def test_env_prints_every_setting_when_one_cannot_be_resolved(capsys, monkeypatch, tmp_path):
    """A setting that cannot be resolved (``~nosuchuser/x``) stopped ``env`` halfway with exit 1; every setting is
    printed.
    """
    # before: DDRSEARCH_ARCHIVE_DIR='~nosuchuser/x' stopped env halfway with exit status 1
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", "~nosuchuser/x")
    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "nothing"))
    assert main(["env"]) == 0
    out = capsys.readouterr().out
    assert "in effect: cannot be resolved" in out and "DDRSEARCH_DATABASE_URL" in out
    assert f"in effect: {tmp_path / 'nothing'} (does not exist yet)" in out
