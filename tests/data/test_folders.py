"""ddrsearch.data.folders: the sample is a view of the archive; a missing archive names the fetch command."""

from __future__ import annotations

import pytest

from ddrsearch.data.folders import sample_paths
from ddrsearch.errors import DataNotFoundError


@pytest.mark.data
def test_sample_is_a_view_of_the_archive(archive_folder):
    paths = sample_paths(archive_folder)
    assert len(paths) == 10 and all(p.parent == archive_folder for p in paths)
    assert sorted(p.name for p in paths)[0] == "FORGE-16A-78-32_Completion_003_2021-01-06.pdf"


def test_missing_data_error_names_the_fetch_command(tmp_path):
    with pytest.raises(DataNotFoundError, match="ddrsearch fetch"):
        sample_paths(tmp_path)
