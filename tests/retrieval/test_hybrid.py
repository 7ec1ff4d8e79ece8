"""ddrsearch.retrieval.hybrid: the hybrid retriever fuses exactly as the fusion formulas do."""

from __future__ import annotations

import pytest

from ddrsearch.evaluation.metrics import rank_by_score
from ddrsearch.retrieval.fusion import convex_scores, rrf_scores
from ddrsearch.retrieval.hybrid import HybridRetriever

pytestmark = pytest.mark.data


def test_hybrid_on_the_sample_at_weight_0_and_1_equals_its_legs(tmp_path, archive_folder):
    from ddrsearch.data.folders import sample_paths
    from ddrsearch.reading.report import read_reports

    sample = read_reports(sample_paths(archive_folder))
    hybrid = HybridRetriever(weight=0.0, candidates=None, dense_options={"cache_dir": tmp_path}).index(sample)
    q = "pipe became stuck during the slide"
    assert [h.report for h in hybrid.search(q, 10)] == [h.report for h in hybrid.bm25.search(q, 10)]
    assert [h.report for h in hybrid.with_weight(1.0).search(q, 10)] == [h.report for h in hybrid.dense.search(q, 10)]
    rrf = hybrid.with_weight(0.5, "rrf")
    expected = rank_by_score(rrf_scores([[h.report for h in hybrid.bm25.search(q, 10)],
                                         [h.report for h in hybrid.dense.search(q, 10)]]))
    assert [h.report for h in rrf.search(q, 10)] == expected
    with pytest.raises(ValueError, match="fusion"):
        HybridRetriever(fusion="borda")


def test_array_fusion_equals_the_dictionary_formulas(tmp_path, archive_folder):
    """HybridRetriever fuses arrays; it must give exactly what rrf_scores / convex_scores give."""
    from ddrsearch.data.folders import sample_paths
    from ddrsearch.reading.report import read_reports
    from ddrsearch.retrieval.chunking import chunk_reports

    sample = read_reports(sample_paths(archive_folder))
    chunks = chunk_reports(sample)
    hybrid = HybridRetriever(candidates=20, dense_options={"cache_dir": tmp_path}).index(chunks)
    key = {i: f"{p.report}\x00{p.passage_id}" for i, p in enumerate(hybrid.passages)}
    for q in ["pipe became stuck during the slide", "packers would not set", "seepage losses", "rig up"]:
        b, v = hybrid.leg_scores(q)
        bm = {key[i]: s for i, s in enumerate(b) if s == s}
        dn = {key[i]: s for i, s in enumerate(v) if s == s}
        for w in (0.0, 0.3, 0.5, 1.0):
            got = hybrid.with_weight(w).passage_scores(q)
            want = convex_scores(bm, dn, w, candidates=20)
            assert {key[i]: s for i, s in enumerate(got) if s == s} == pytest.approx(want, abs=1e-12)
        got = hybrid.with_weight(0.5, "rrf").passage_scores(q)
        ranked = lambda d: [x for x, _ in sorted(d.items(), key=lambda t: (-t[1], t[0]))][:20]
        want = rrf_scores([ranked(bm), ranked(dn)])
        assert {key[i]: s for i, s in enumerate(got) if s == s} == pytest.approx(want, abs=1e-12)
