"""The web app "Ask the reports": a Streamlit page over the sample, the archive or a folder of reports.

Start it with ``ddrsearch app`` (:mod:`ddrsearch.cli.command` runs ``streamlit run``
on a two-line script that calls :func:`main`, bound to 127.0.0.1, headless,
without usage statistics). The page has a question box, the method (the
default pipeline, BM25 or dense) and ``k``; for each hit the report number
and date, the FROM-TO row quoted with the matching words highlighted, the
three signals (BM25 score, dense cosine, fused score: each labelled as what
it is), the PDF crop of the row, a button downloading the PDF and the
citation in a copyable box. Above the hits, the answer card (or "not found
in these reports"); with ``DDRSEARCH_LLM_URL`` set, a button writes a
generated answer, shown only with its citations checked. A panel "How this
ranking was made" shows the question's terms before and after shorthand
expansion, each leg's top 10 and the fusion.

The reports are read and indexed once per process (``st.cache_resource``
around :func:`ddrsearch.app.session.load_search`). Bad input (an empty
question, punctuation only, an unreadable folder, reports changed since
they were indexed) gives a message on the page, never a traceback.

Text from the reports, the model, file names and the question is data: it
is shown through :func:`ddrsearch.app.session.inert` (every character that
could start Markdown, HTML or Streamlit markup as a character reference) or
with ``st.text``/``st.code``, so an image, link or ``<img>`` in a row or an
answer is shown as text and makes the browser fetch nothing. The matching
words of a row are highlighted on its inert pieces.
"""

from __future__ import annotations

import time

import pandas as pd
import streamlit as st

from ddrsearch.app.session import METHODS, SIGNALS, SearchSession, inert
from ddrsearch.app.session import load_search as _load_search
from ddrsearch.errors import DDRSearchError, QueryError
from ddrsearch.text.spelling import spelling_notes

__all__ = ["main"]

#: Shown when the question box is submitted empty or with nothing searchable.
EMPTY_MESSAGE = "Type a question first, for example: packers failed to set."

#: Shown when the PDFs changed since they were indexed.
REBUILD_HINT = ("The index is stale: the reports changed on disk since they were indexed. "
                "Rebuild it with the button below (or restart `ddrsearch app`).")


@st.cache_resource(show_spinner="Reading and indexing the reports (once per process; a minute or two)...")
def load_search(corpus: str = "sample", folder: str | None = None, archive: str | None = None) -> SearchSession:
    """:func:`ddrsearch.app.session.load_search`, cached for the life of the process."""
    return _load_search(corpus, folder, archive=archive)


@st.cache_data(max_entries=256, show_spinner=False)
def _crop(_session: SearchSession, session_id: int, report: str, row: int, words: tuple[str, ...]) -> bytes:
    return _session.crop_row(report, row, words)


def _fmt(x: float | None, digits: int = 3) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _quote_html(hit) -> str:
    """The row quoted, its matching words in ``<mark>``: every piece of the row made inert first, on one line."""
    parts = [f"<mark>{inert(p, in_html=True)}</mark>" if m else inert(p, in_html=True) for p, m in hit.segments()]
    return f"<blockquote>{''.join(parts)}</blockquote>".replace("\n", " ")


def _lines(text: str) -> str:
    """Several lines of data, each inert, kept as lines in Markdown (hard breaks)."""
    return "  \n".join(inert(line) for line in text.splitlines())


def _show_card(session: SearchSession, question: str, k: int) -> None:
    st.subheader("Answer")
    try:
        card = session.ask(question, k=k)
    except QueryError as exc:
        st.info(f"No answer card: {inert(str(exc))} The ranked rows below are the search's results.")
        return
    if card.note:
        st.caption(inert(card.note))
    if not card.found and (card.typed or card.order == "time"):  # the note answers from the typed fields, or a
        st.info(inert(card.refusal))  # day's rows were chosen by what they print: no "not enough evidence"
        return
    if not card.found:
        st.info(f"**Not found in these reports.** No row has enough evidence (best {card.evidence:.2f}, "
                f"threshold {card.threshold:.3f}); the rows below are the closest, not an answer.")
        return
    from ddrsearch.answers.answerer import ORDER_WORDS

    how = ORDER_WORDS[card.order]
    st.markdown(f"{len(card.rows)} {card.kind_of_rows} in {len(card.groups())} report(s), {how}:")
    for label, rows in card.groups():
        r0 = rows[0]
        lines = [f"**{inert(label)}**, report {r0.report_number} dated {r0.date.isoformat()}, page {r0.page}"]
        lines += [f"- `{r.row_id}` {inert(r.when)}: “{inert(' '.join(r.text.split()))}” "
                  f"(evidence {r.evidence:.2f})" for r in rows]
        st.markdown("\n".join(lines))
    _generated(question, card)


def _generated(question: str, card) -> None:
    from ddrsearch.answers.generation import build_prompt, chat, check_citations, evidence_lines, llm_config

    try:
        config = llm_config()
    except DDRSearchError as exc:
        st.caption(f"Generated answer unavailable: {inert(str(exc))}")
        return
    if config is None:
        return
    if not st.button(f"Write an answer with {inert(config.model)} (citations checked)", key="generate"):
        return
    try:
        with st.spinner(f"Asking {inert(config.url)} ..."):
            text = chat(build_prompt(question, card.rows), config)
    except DDRSearchError as exc:
        st.warning(f"Generated answer unavailable: {inert(str(exc))} The card above is the answer.")
        return
    check = check_citations(text, [r.row_id for r in card.rows], evidence_lines(card.rows))
    st.markdown(f"**Generated by {inert(config.model)}** (check every citation against the rows above):")
    st.text(text)  # the model's text is data: shown as plain text, never as Markdown or HTML
    if check.ok:
        st.success(_lines(check.report()))
    else:  # the flags quote the model's sentences: inert, one per line
        st.warning(_lines(check.report()))


def _show_hit(session: SearchSession, hit) -> None:
    with st.container(border=True, key=f"hit-{hit.rank}"):
        st.markdown(f"**{hit.rank}. {inert(hit.label)}** · report {hit.report_number} dated {hit.date.isoformat()} · "
                    f"{inert(hit.where)}" + (f" · page {hit.page}" if hit.page else ""))
        st.markdown(_quote_html(hit), unsafe_allow_html=True)
        st.markdown(f"this row: BM25 score **{_fmt(hit.bm25, 2)}** · dense cosine **{_fmt(hit.dense)}** · "
                    f"fused score **{_fmt(hit.fused)}** · report ranked by **{_fmt(hit.rank_score)}** "
                    "(its best passage)", help="\n\n".join(SIGNALS.values()))
        if hit.row is not None:
            try:
                png = _crop(session, id(session), hit.report, hit.row, hit.marked_words)
                st.image(png, caption=f"{hit.row_id} as printed in the PDF (matching words highlighted)",
                         output_format="PNG")
            except (DDRSearchError, OSError, IndexError) as exc:
                st.warning(f"No crop of {hit.row_id}: {inert(str(exc))}")
        left, right = st.columns([3, 1], vertical_alignment="center")
        left.code(hit.citation, language=None, wrap_lines=True)
        page = hit.page or 1
        with right:  # the bytes go through Streamlit's media route: no static route, no CORS header
            try:
                data = hit.path.read_bytes()
            except OSError as exc:
                st.warning(f"The PDF cannot be read: {inert(str(exc))}")
            else:
                st.download_button(f"Download the PDF (the row is on page {page})", data, file_name=hit.report,
                                   mime="application/pdf", key=f"pdf-{hit.rank}", on_click="ignore",
                                   help=inert(hit.report))


def _legs_frame(rows) -> pd.DataFrame:
    return pd.DataFrame([{"rank": r.rank, "report": r.label, "row": r.where, "score": round(r.score, 3),
                          "text": r.text[:90]} for r in rows])


def _show_explanation(session: SearchSession, question: str) -> None:
    with st.expander("How this ranking was made", expanded=False):
        ex = session.explain(question)
        st.markdown(f"**Question terms** (lowercased, stop words removed): {inert(' '.join(ex.terms))}")
        if ex.rewritten.strip() != question.strip():
            st.markdown(f"**Rewritten** (the asker's shorthand spelled out): {inert(ex.rewritten)}")
        st.markdown(f"**What BM25 searched** (shorthand expanded, words as BM25 indexes them): "
                    f"{inert(' '.join(ex.expanded_terms))}")
        if ex.expansions:
            st.markdown("Shorthand found: " + "; ".join(f"**{inert(a)}** = {inert(e)}" for a, e in ex.expansions))
        else:
            st.caption("No shorthand from the glossary in the question.")
        what = ex.feedback or "score = sum of term weights."
        st.markdown(f"**BM25 leg**, top {len(ex.bm25)} of {ex.n_passages} passages. {inert(what)}")
        st.dataframe(_legs_frame(ex.bm25), hide_index=True)
        st.markdown(f"**Dense leg**, top {len(ex.dense)} (score = cosine similarity):")
        st.dataframe(_legs_frame(ex.dense), hide_index=True)
        w = ex.weight
        pool = "every passage" if ex.candidates is None else f"the {ex.candidates} best passages of each leg"
        st.markdown(f"**Fusion**: fused = {1 - w:g} x BM25 scaled + {w:g} x dense scaled, where scaled = "
                    f"(score - min) / (max - min) over {pool} (a passage a leg did not retrieve gets 0 from it)"
                    + (", plus the structured path's bonus." if ex.structured else ".") + " Top 10:")
        if ex.structured:
            st.caption(inert(ex.structured))
        rows = []
        for r in ex.fused:
            row = {"rank": r.rank, "report": r.label, "row": r.where, "BM25": _fmt(r.bm25, 2),
                   "BM25 scaled": _fmt(r.bm25_norm), "dense": _fmt(r.dense), "dense scaled": _fmt(r.dense_norm)}
            if ex.structured:
                row["structured bonus"] = _fmt(r.bonus)
            rows.append({**row, "fused": _fmt(r.score)})
        st.dataframe(pd.DataFrame(rows), hide_index=True)
        rule = getattr(session.retriever, "row", "")
        words = "question words rarest among its own rows" if rule == "local" else "rarest question words"
        note = (f"; the row shown for a report is the one holding the {words}, which may not be its "
                "best fused passage") if rule in ("terms", "answer", "local") else ""
        st.caption(f"Reports are ranked by their best passage's fused score (ties by file name){note}.")


def main(corpus: str = "sample", folder: str | None = None, archive: str | None = None) -> None:
    """Render the page.

    Args:
        corpus: ``"sample"`` or ``"archive"`` (ignored when ``folder`` is given).
        folder: a folder of the user's own report PDFs.
        archive: the folder of the book's PDFs (default ``DDRSEARCH_ARCHIVE_DIR``).
    """
    st.set_page_config(page_title="Ask the reports", layout="wide")
    st.title("Ask the reports")
    try:
        session = load_search(corpus, folder, archive)
    except (DDRSearchError, OSError, ValueError) as exc:
        st.error(f"The reports could not be loaded: {inert(str(exc))}")
        st.info("Give a folder that exists and holds report PDFs you may read (ddrsearch app --dir FOLDER), "
                "or fetch the book's reports with: ddrsearch fetch")
        return
    st.caption(f"Searching {inert(session.source)}: {len(session.retriever.passages)} passages, read and indexed in "
               f"{session.load_seconds:.1f} s, once for this process.")
    if session.index_note:
        st.warning(inert(session.index_note))
    for line in session.skipped:  # a PDF of the folder that could not be read: named, with why
        st.warning(inert(line))
    stale = session.stale_reasons()
    if stale:
        st.warning(REBUILD_HINT + " " + inert("; ".join(stale)) + ".")
        if st.button("Rebuild the index", key="rebuild"):
            load_search.clear()
            st.rerun()

    with st.form("ask", border=False):
        question = st.text_input("Question", key="question", placeholder="e.g. when did we last get stuck?")
        c1, c2, c3 = st.columns([3, 1, 1], vertical_alignment="bottom")
        method = c1.selectbox("Method", list(METHODS), format_func=METHODS.get, key="method")
        k = c2.number_input("k (reports)", min_value=1, max_value=20, value=5, step=1, key="k")
        submitted = c3.form_submit_button("Search", type="primary", key="search")
    if submitted:
        st.session_state["asked"] = (question, method, int(k))
    asked = st.session_state.get("asked")
    if asked is None:
        st.caption("Type a question and press Enter. Results show the report rows as printed, with their sources.")
        return
    question, method, k = asked
    if not question.strip():
        st.warning(EMPTY_MESSAGE)
        return
    start = time.perf_counter()
    try:
        hits = session.search(question, method=method, k=k)
    except QueryError as exc:
        st.warning(inert(str(exc)))
        return
    _show_card(session, question, k)
    st.subheader(f"{len(hits)} report(s) by {METHODS[method]}")
    for line in spelling_notes(session.retriever.unknown_words(question)):  # misspelt, or never printed
        st.caption(inert(line[0].upper() + line[1:]))
    if not hits:
        st.info("No report matches (BM25 retrieves only rows sharing a word with the question).")
    for hit in hits:
        _show_hit(session, hit)
    _show_explanation(session, question)
    took = time.perf_counter() - start
    times = st.session_state.setdefault("search_seconds", [])
    if submitted:
        times.append(took)
    first = f"; the first of this session took {times[0]:.2f} s" if len(times) > 1 else ""
    st.caption(f"Search, answer card and explanation took {took:.2f} s (search {len(times)}{first}).")
