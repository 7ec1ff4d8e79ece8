import traceback, sys
from ddrsearch.data import corpus_paths
from ddrsearch.report import read_reports
from ddrsearch.pipeline import build_retriever
reports = read_reports(corpus_paths("sample"))
Q = ["", "   ", "?!.,;:", "the and of to", "-LCM", "x"*10000, "stuck 🛢️ pipe \x00\x07\x1b[31m", "stuck \udcff pipe",
     "'; DROP TABLE reports; --", "42", "2020-11-26", "11/26/2020", "stuck pipe OR 1=1", "\t\n", "NOT stuck", "\"stuck pipe\"",
     "a" , "pipe "*3000, "ÄÖÜ straße", "%s %d {0}", "stuck*", "(((", "\\"]
for m in ["keyword", "bm25", "dense", "hybrid"]:
    r = build_retriever(m, reports)
    for q in Q:
        for k in [5]:
            try:
                h = r.search(q, k=k)
                res = f"{len(h)} hits " + (h[0].report[:30] if h else "")
            except Exception as e:
                res = f"{type(e).__module__}.{type(e).__name__}: {str(e)[:150]}"
            print(m, repr(q[:30]), "->", res)
    for k in [0, -1, 10**9, 2.5, "3", None, True]:
        try:
            h = r.search("stuck pipe", k=k); res = f"{len(h)} hits"
        except Exception as e:
            res = f"{type(e).__name__}: {str(e)[:150]}"
        print(m, "k=", repr(k), "->", res)
    for q in [None, 5, b"stuck"]:
        try:
            h = r.search(q); res = f"{len(h)} hits"
        except Exception as e:
            res = f"{type(e).__name__}: {str(e)[:150]}"
        print(m, "q=", repr(q), "->", res)
