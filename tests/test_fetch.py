"""Fetching from a local mirror: verification, idempotence, and reporting by name."""

from __future__ import annotations

import shutil

import pytest

from conftest import REPORT_38
from ddrsearch.cli.command import main
from ddrsearch.data.fetch import fetch_archive, sha256_of, verify_archive
from ddrsearch.data.folders import sample_paths
from ddrsearch.data.manifest import load_manifest
from ddrsearch.errors import DataNotFoundError, FetchError


@pytest.fixture
def mirror(tmp_path, archive_folder):
    """A writable copy of the verified archive, to be tampered with."""
    m = tmp_path / "mirror"
    shutil.copytree(archive_folder, m)
    return m


def test_fetch_from_mirror_then_idempotent(tmp_path, mirror):
    dest = tmp_path / "dest"
    first = fetch_archive(dest, mirror=mirror, progress=False)
    assert len(first.fetched) == 76 and not first.present and first.ok
    for e in load_manifest():
        assert sha256_of(dest / e.file_name) == e.sha256
    second = fetch_archive(dest, mirror=mirror, progress=False)
    assert len(second.present) == 76 and not second.fetched
    assert not list(dest.glob("*.partial"))


def test_altered_file_in_mirror_fails_alone(tmp_path, mirror):
    victim = mirror / REPORT_38
    data = bytearray(victim.read_bytes())
    data[len(data) // 2] ^= 0xFF
    victim.write_bytes(bytes(data))
    dest = tmp_path / "dest"
    with pytest.raises(FetchError) as exc:
        fetch_archive(dest, mirror=mirror, progress=False)
    report = exc.value.report
    assert list(report.failed) == [REPORT_38]
    assert "SHA-256 mismatch" in report.failed[REPORT_38]
    assert REPORT_38 in str(exc.value)
    assert len(report.fetched) == 75
    assert not (dest / REPORT_38).exists()  # the altered copy never gets the report's name
    assert not list(dest.glob("*.partial"))
    assert verify_archive(dest).failed == {REPORT_38: "missing"}


def test_missing_file_in_mirror_is_named(tmp_path, mirror):
    (mirror / REPORT_38).unlink()
    with pytest.raises(FetchError, match=REPORT_38):
        fetch_archive(tmp_path / "dest", mirror=mirror, progress=False)


def test_changed_local_file_is_kept_and_reported(tmp_path, mirror):
    dest = tmp_path / "dest"
    fetch_archive(dest, mirror=mirror, progress=False)
    (dest / REPORT_38).write_bytes(b"%PDF-1.6 my own edits")
    (dest / "my_notes.pdf").write_bytes(b"%PDF-1.6 notes")
    with pytest.raises(FetchError) as exc:
        fetch_archive(dest, mirror=mirror, progress=False)
    report = exc.value.report
    assert report.changed == [REPORT_38] and report.unexpected == ["my_notes.pdf"]
    assert (dest / REPORT_38).read_bytes() == b"%PDF-1.6 my own edits"  # not overwritten
    assert (dest / "my_notes.pdf").exists()  # not deleted
    # asked to, it moves the changed file aside (never deletes it) and fetches a fresh copy
    again = fetch_archive(dest, mirror=mirror, progress=False, replace_changed=True)
    assert again.moved_aside == {REPORT_38: REPORT_38 + ".changed"} and again.fetched == [REPORT_38]
    assert (dest / (REPORT_38 + ".changed")).read_bytes() == b"%PDF-1.6 my own edits"
    assert (dest / "my_notes.pdf").exists()
    # a second edit moved aside never overwrites the first one
    (dest / REPORT_38).write_bytes(b"%PDF-1.6 second edits")
    third = fetch_archive(dest, mirror=mirror, progress=False, replace_changed=True)
    assert third.moved_aside == {REPORT_38: REPORT_38 + ".changed-2"}
    assert (dest / (REPORT_38 + ".changed")).read_bytes() == b"%PDF-1.6 my own edits"
    assert (dest / (REPORT_38 + ".changed-2")).read_bytes() == b"%PDF-1.6 second edits"


def test_destination_problems_are_named(tmp_path, mirror):
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(FetchError, match="is a file, not a folder"):
        fetch_archive(afile, mirror=mirror, progress=False)
    dest = tmp_path / "dest"
    (dest / REPORT_38).mkdir(parents=True)
    with pytest.raises(FetchError) as exc:
        fetch_archive(dest, mirror=mirror, progress=False)
    assert list(exc.value.report.failed) == [REPORT_38] and "is a folder" in exc.value.report.failed[REPORT_38]
    assert len(exc.value.report.fetched) == 75  # the others were still fetched


def test_sample_is_a_view_of_the_archive(archive_folder):
    paths = sample_paths(archive_folder)
    assert len(paths) == 10 and all(p.parent == archive_folder for p in paths)
    assert sorted(p.name for p in paths)[0] == "FORGE-16A-78-32_Completion_003_2021-01-06.pdf"


def test_missing_data_error_names_the_fetch_command(tmp_path):
    with pytest.raises(DataNotFoundError, match="ddrsearch fetch"):
        sample_paths(tmp_path)


def test_cli_fetch_sample_only(tmp_path, mirror, capsys):
    dest = tmp_path / "dest"
    assert main(["fetch", "--mirror", str(mirror), "--dest", str(dest), "--sample-only", "--quiet"]) == 0
    assert len(list(dest.glob("*.pdf"))) == 10
    assert "10 fetched" in capsys.readouterr().out
    assert main(["verify", "--dest", str(dest)]) == 1  # the other 66 are missing
    assert "66 failed" in capsys.readouterr().out


def test_cli_fetch_bad_mirror(tmp_path, capsys):
    assert main(["fetch", "--mirror", str(tmp_path / "nope"), "--dest", str(tmp_path / "d"), "--quiet"]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_manifest_for_your_own_reports(tmp_path, archive_folder, monkeypatch, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    for name in [REPORT_38, "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf"]:
        shutil.copyfile(archive_folder / name, mine / name)
    # any name: identity from the header (report 40; a copy of 38 would be refused as the same report twice)
    shutil.copyfile(archive_folder / "FORGE-16A-78-32_Drilling_040_2020-11-28.pdf", mine / "today.pdf")
    out = tmp_path / "m.csv"
    assert main(["manifest", str(mine), "--out", str(out)]) == 0
    monkeypatch.setenv("DDRSEARCH_MANIFEST", str(out))
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", str(mine))
    entries = load_manifest()
    assert [(e.file_name, e.report_number) for e in entries] == [
        (REPORT_38, 38), ("FORGE-16A-78-32_Drilling_039_2020-11-27.pdf", 39), ("today.pdf", 40)]
    assert entries[0].sha256 == sha256_of(archive_folder / REPORT_38)
    capsys.readouterr()
    assert main(["search", "became stuck", "--method", "keyword", "--corpus", "archive"]) == 0
    assert "1 report(s) from the archive (3 reports)" in capsys.readouterr().out


@pytest.mark.parametrize("change, message", [
    (lambda row: row.replace(",false", ",yes", 1), "in_sample must be true or false"),
    (lambda row: row.replace("FORGE-16A-78-32_Drilling_002", "../../FORGE-16A-78-32_Drilling_002", 1), "plain file name"),
    (lambda row: row.replace(",Drilling,", ",Drillingg,", 1), "phase must be"),
    (lambda row: row.replace(",2,2020-10-21,", ",2,2020-10-22,", 1), "the file name says Drilling 2 of 2020-10-21"),
])
def test_manifest_rows_are_validated(tmp_path, monkeypatch, change, message):
    from ddrsearch.data.manifest import manifest_path
    from ddrsearch.errors import ManifestError

    lines = manifest_path().read_text().splitlines()
    lines[1] = change(lines[1])
    bad = tmp_path / "m.csv"
    bad.write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("DDRSEARCH_MANIFEST", str(bad))
    with pytest.raises(ManifestError, match="line 2") as exc:
        load_manifest()
    assert message in str(exc.value)


def test_manifest_with_a_byte_order_mark_reads(tmp_path, monkeypatch):
    from ddrsearch.data.manifest import manifest_path

    bom = tmp_path / "m.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + manifest_path().read_bytes())
    monkeypatch.setenv("DDRSEARCH_MANIFEST", str(bom))
    assert len(load_manifest()) == 76


def test_offline_fetch_says_how_to_copy_from_a_mirror(tmp_path, monkeypatch):
    # a new reader without internet got ten "FAILED ... <urlopen error ...>" lines and no way forward
    import urllib.request

    def no_network(*args, **kwargs):
        raise urllib.error.URLError("[Errno -2] Name or service not known")

    monkeypatch.delenv("DDRSEARCH_MIRROR", raising=False)
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    with pytest.raises(FetchError, match=r"Every download failed.*--mirror FOLDER") as info:
        fetch_archive(tmp_path, progress=False, only=["FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"])
    assert "Name or service not known" in str(info.value)
