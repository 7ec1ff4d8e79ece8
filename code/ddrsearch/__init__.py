"""ddrsearch: search daily drilling reports (DDRs) and measure how well the search works.

The package behind the book *Searching daily drilling reports*. It reads the
Utah FORGE well 16A(78)-32 reports (PDF, WellEz layout) with PyMuPDF, builds
keyword, BM25, dense and hybrid retrievers over them, and scores retrieval with
recall@k, precision@k, MRR and NDCG@k.
"""

__version__ = "0.1.0"
