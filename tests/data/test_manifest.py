"""ddrsearch.data.manifest: the manifest's rows are validated; a byte order mark is read."""

from __future__ import annotations

import pytest

from ddrsearch.data.manifest import load_manifest


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
