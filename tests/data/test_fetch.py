"""ddrsearch.data.fetch: fetching from a local mirror, verification, idempotence, and reporting by name."""

from __future__ import annotations

import shutil

import pytest

from conftest import REPORT_38
from ddrsearch.data.fetch import fetch_archive, sha256_of, verify_archive
from ddrsearch.data.manifest import load_manifest
from ddrsearch.errors import FetchError


@pytest.fixture
def mirror(tmp_path, archive_folder):
    """A writable copy of the verified archive, to be tampered with."""
    m = tmp_path / "mirror"
    shutil.copytree(archive_folder, m)
    return m


@pytest.mark.data
def test_fetch_from_mirror_then_idempotent(tmp_path, mirror):
    dest = tmp_path / "dest"
    first = fetch_archive(dest, mirror=mirror, progress=False)
    assert len(first.fetched) == 76 and not first.present and first.ok
    for e in load_manifest():
        assert sha256_of(dest / e.file_name) == e.sha256
    second = fetch_archive(dest, mirror=mirror, progress=False)
    assert len(second.present) == 76 and not second.fetched
    assert not list(dest.glob("*.partial"))
    # the summary says where the files came from (before, a copy from a mirror read like a download)
    assert first.summary().splitlines()[0].endswith(f"Fetched from mirror {mirror}.")
    assert "Fetched from" not in second.summary()  # nothing was fetched from anywhere


@pytest.mark.data
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


@pytest.mark.data
def test_missing_file_in_mirror_is_named(tmp_path, mirror):
    (mirror / REPORT_38).unlink()
    with pytest.raises(FetchError, match=REPORT_38):
        fetch_archive(tmp_path / "dest", mirror=mirror, progress=False)


@pytest.mark.data
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


@pytest.mark.data
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


def test_mirror_without_any_pdf_says_so(tmp_path):
    """A mirror that holds none of the report PDFs is named as such, with the folder expected."""
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    with pytest.raises(FetchError, match="holds none of the report PDFs .*forge_archive"):
        fetch_archive(tmp_path / "dest", mirror=tmp_path / "empty", progress=False)


@pytest.mark.data
def test_fetch_offline_hint_not_given_when_some_downloads_worked(tmp_path, archive_folder, monkeypatch):
    """When some downloads worked, fetch still said every download failed and to copy from a mirror; the hint is given
    only when all failed.
    """
    # With a base URL that serves 3 of the 10 sample files, fetch says "3 fetched, 7 failed" and then
    # "Every download failed: without internet, copy the reports ... --mirror FOLDER": false, and wrong advice.
    from ddrsearch.data.fetch import fetch_archive
    from ddrsearch.data.manifest import load_manifest
    from ddrsearch.errors import FetchError

    monkeypatch.delenv("DDRSEARCH_MIRROR", raising=False)  # CI sets one; this test is about downloads
    served = tmp_path / "served"
    served.mkdir()
    sample = [e.file_name for e in load_manifest() if e.in_sample]
    for name in sample[:3]:
        shutil.copy(archive_folder / name, served / name)
    with pytest.raises(FetchError) as exc:
        fetch_archive(tmp_path / "dest", base_url=served.as_uri() + "/", only=sample, progress=False)
    assert "3 fetched" in str(exc.value)
    assert "Every download failed" not in str(exc.value)


def test_offline_fetch_gives_the_hint_first_and_the_shared_failure_once(tmp_path, monkeypatch):
    """Offline, ``make data`` printed 76 FAILED lines and then the hint; the hint comes first, the failure once."""
    import urllib.request

    def no_network(*args, **kwargs):
        raise urllib.error.URLError("[Errno -2] Name or service not known")

    monkeypatch.delenv("DDRSEARCH_MIRROR", raising=False)
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    with pytest.raises(FetchError) as info:
        fetch_archive(tmp_path, progress=False)
    text = str(info.value)
    assert text.startswith("Every download failed: without internet")
    assert text.count("Name or service not known") == 1 and "FAILED     76 files, each: download from" in text
    assert all(name[len("FORGE-16A-78-32_"):] in text for name in info.value.report.failed)  # every file still named
    assert len(info.value.report.failed) == 76


@pytest.mark.data
def test_the_summary_prints_a_hostile_mirror_path_on_its_one_line(tmp_path, mirror):
    # adversarial: a mirror path with a line break and escapes forged a line ("FAKE: all verified") in the summary
    odd = tmp_path / "mir\nFAKE: all verified\x1b[2K"
    mirror.rename(odd)
    report = fetch_archive(tmp_path / "dest", mirror=odd, progress=False, only=[REPORT_38])
    first, *rest = report.summary().splitlines()
    assert first.endswith("Fetched from mirror " + str(tmp_path) + "/mir?FAKE: all verified?[2K.") and not rest


@pytest.mark.parametrize("address", ["http://127.0.0.1:9/x\n/", "http://127.0.0.1:9/a b/"])
def test_a_download_address_with_a_control_character_is_named_not_a_traceback(tmp_path, monkeypatch, address):
    # adversarial: DDRSEARCH_BASE_URL holding a line break (then, second pass, a space) ended fetch with
    # http.client.InvalidURL
    monkeypatch.setenv("DDRSEARCH_BASE_URL", address)
    monkeypatch.delenv("DDRSEARCH_MIRROR", raising=False)
    with pytest.raises(FetchError, match="a space or a control character"):
        fetch_archive(tmp_path / "dest", progress=False, only=[REPORT_38])


@pytest.mark.data
def test_the_summary_prints_a_hostile_destination_on_its_one_line(tmp_path, mirror):
    # second adversarial pass: the destination folder was printed raw ("FAKE: all verified" on its own line)
    dest = tmp_path / "dest\x1b[31mRED\nFAKE: all verified"
    report = fetch_archive(dest, mirror=mirror, progress=False, only=[REPORT_38])
    assert len(report.summary().splitlines()) == 1 and "\x1b" not in report.summary()
    with pytest.raises(FetchError) as caught:
        fetch_archive(tmp_path / "d2", mirror=tmp_path / "nope\nFAKE", progress=False, only=[REPORT_38])
    assert "\n" not in str(caught.value)


def test_the_summary_says_tried_when_nothing_came(tmp_path, monkeypatch):
    # adversarial: "0 fetched, 10 failed ... Fetched from http://127.0.0.1:9/x/."
    monkeypatch.delenv("DDRSEARCH_MIRROR", raising=False)  # CI sets one: it would be used instead
    with pytest.raises(FetchError) as caught:
        fetch_archive(tmp_path / "dest", base_url="http://127.0.0.1:9/x/", progress=False, only=[REPORT_38],
                      timeout=2)
    first = caught.value.report.summary().splitlines()[0]
    assert first.endswith("Tried http://127.0.0.1:9/x/.") and "Fetched from" not in first
