"""ddrsearch.evaluation.significance: the bootstrap is seeded and brackets the mean."""

from __future__ import annotations

import pytest

from ddrsearch.evaluation.significance import bootstrap_ci, paired_bootstrap

pytestmark = pytest.mark.data


def test_bootstrap_is_seeded_and_brackets_the_mean():
    """The bootstrap is seeded (the same interval twice) and its interval brackets the mean."""
    mean, lo, hi = bootstrap_ci([0, 1, 1, 1, 0, 1, 1, 1])
    assert lo <= mean <= hi and (mean, lo, hi) == bootstrap_ci([0, 1, 1, 1, 0, 1, 1, 1])
    assert paired_bootstrap([1, 1, 1], [1, 1, 1]) == (0.0, 0.0, 0.0)
