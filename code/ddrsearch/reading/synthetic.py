"""Small synthetic daily reports in other templates, written with PyMuPDF, to try the reader on.

Field archives hold reports from other operators' templates. The book and the
tests cannot ship such reports, so :func:`write_report` writes small ones on
demand: a header of ``LABEL: value`` fields and a TIME BREAKDOWN table whose
headings can be printed in another letter case, and which can continue onto
a second page with or without its heading repeated. The columns are
left-aligned and there are no ruled lines (unlike the WellEz PDFs), so the
reader's fallback for unruled tables is exercised too.

:func:`write_form_drawn`, :func:`write_nested_forms` and :func:`write_type3_in_type3` write hostile pages
(small files whose drawn text, or the work of reading them, is huge), for the
reader's limits.

:func:`write_scanned_copy` makes an image-only copy of a real report, as a
scanner or fax would: rendered at a chosen dpi, optionally skewed and with
noise, and saved as a PDF without a text layer.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pymupdf

__all__ = ["COLUMN_X", "NEST_PLACES", "STUCK_PIPE_DAY", "SyntheticRow", "scan_page", "write_form_drawn",
           "write_nested_forms", "write_report", "write_scanned_copy", "write_type3_in_type3"]

#: Left edge of each column (FROM, TO, HRS, PHASE, CODE, NPT, OPERATIONS), points.
COLUMN_X = (40.0, 78.0, 116.0, 150.0, 240.0, 300.0, 330.0)


class SyntheticRow(NamedTuple):
    """One TIME BREAKDOWN row: times ``"HH:MM"``, hours, and the cells as printed."""

    start: str
    end: str
    hours: float
    phase: str
    code: str
    npt: str
    operations: str


#: A 24-hour day of four rows; the stuck pipe and jarring are in the last two.
STUCK_PIPE_DAY = (
    SyntheticRow("06:00", "10:00", 4.0, "Intermediate", "Drilling", "", "Drill ahead from 5,210' to 5,330'."),
    SyntheticRow("10:00", "14:00", 4.0, "Intermediate", "Trips", "", "Trip out of hole to change the bit."),
    SyntheticRow("14:00", "22:00", 8.0, "Intermediate", "Stuck Pipe", "Y",
                 "Pipe became stuck at 4,980' while tripping out."),
    SyntheticRow("22:00", "06:00", 8.0, "Intermediate", "Fishing", "Y",
                 "Jarring stuck pipe, jarred free at 4,975'."),
)


def _heading(text: str, case: str) -> str:
    return {"upper": text.upper(), "title": text.title(), "lower": text.lower()}[case]


def write_report(path: str | os.PathLike, rows: Sequence[SyntheticRow] = STUCK_PIPE_DAY, *,
                 number: int = 39, date: str = "11/27/2020", case: str = "upper", spacing: str = " ",
                 split_after: int | None = None, repeat: str = "none", total: float | str | None = "sum",
                 subtotals: bool = False, title: str = "TIME BREAKDOWN",
                 columns: Sequence[str] = ("FROM", "TO", "HRS", "PHASE", "CODE", "NPT", "OPERATIONS")) -> Path:
    """Write a one- or two-page daily report PDF in a template unlike the FORGE one.

    Args:
        path: the PDF to write.
        rows: the TIME BREAKDOWN rows, in order.
        number, date: RPT NUM and RPT DATE (month/day/year) printed in the header.
        case: letter case of headings and labels: ``"upper"``, ``"title"``
            (``Time Breakdown``, ``Rpt Date``) or ``"lower"``.
        spacing: what separates the words of a label or heading (``"  "``
            for doubled spaces); a space is also put before each colon when
            it is longer than one space.
        split_after: rows on page 1; the rest go on page 2 (``None``: one page).
        repeat: on page 2, ``"none"`` (rows only), ``"columns"`` (the column
            headings again) or ``"title"`` (title and column headings again).
        total: TOTAL HRS printed after the last row: ``"sum"`` (the rows'
            hours), a number, or ``None`` (no TOTAL HRS line).
        subtotals: print a TOTAL HRS line of that page's hours on each page.
        title: the table title (``""``: none; the title of another template).
        columns: the seven column headings, in order.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.
    """
    path = Path(path)
    doc = pymupdf.open()
    colon = " :" if len(spacing) > 1 else ":"

    def label(text: str) -> str:
        return spacing.join(_heading(text, case).split()) + colon

    def table_head(page, y: float, with_title: bool) -> float:
        if with_title and title:
            page.insert_text((40, y), spacing.join(_heading(title, case).split()), fontsize=11)
            y += 16
        for x, name in zip(COLUMN_X, columns, strict=True):
            page.insert_text((x, y), _heading(name, case), fontsize=8)
        return y + 14

    def put_rows(page, y: float, part: Sequence[SyntheticRow]) -> float:
        for r in part:
            cells = (r.start, r.end, f"{r.hours:.1f}", r.phase, r.code, r.npt, r.operations)
            for x, cell in zip(COLUMN_X, cells, strict=True):
                page.insert_text((x, y), cell, fontsize=8)
            y += 14
        return y

    def put_total(page, y: float, hours: float) -> None:
        page.insert_text((40, y + 4), f"{_heading('TOTAL', case)}{spacing}{_heading('HRS', case)}", fontsize=8)
        page.insert_text((COLUMN_X[2], y + 4), f"{hours:.1f}", fontsize=8)

    pages = [list(rows)] if split_after is None else [list(rows[:split_after]), list(rows[split_after:])]
    for i, part in enumerate(pages):
        page = doc.new_page(width=612, height=792)
        y = 50.0
        if i == 0:
            page.insert_text((40, y), _heading("DAILY DRILLING REPORT", case), fontsize=12)
            fields = ((f"{label('RPT DATE')} {date}", f"{label('RPT NUM')} {number}"),
                      (f"{label('WELL NAME')} Example 1-23", f"{label('MD')} 5,330"),
                      (f"{label('PRESENT OPERATIONS')} Trip out of hole", ""))
            for left_text, right_text in fields:
                y += 14
                page.insert_text((40, y), left_text, fontsize=9)
                page.insert_text((330, y), right_text, fontsize=9)
            y = table_head(page, y + 30, with_title=True)
        elif repeat != "none":
            y = table_head(page, y, with_title=repeat == "title")
        y = put_rows(page, y, part)
        last = i == len(pages) - 1
        if subtotals:
            put_total(page, y, sum(r.hours for r in part))
        elif last and total is not None:
            put_total(page, y, sum(r.hours for r in rows) if total == "sum" else float(total))
        if last:
            page.insert_text((40, y + 40), _heading("MUD", case), fontsize=11)
            page.insert_text((40, y + 56), f"{label('WEIGHT')} 9.1 ppg", fontsize=8)
    doc.save(path)
    doc.close()
    return path


def scan_page(page: pymupdf.Page, dpi: int, *, skew: float = 0.0, noise: float = 0.0, seed: int = 0) -> np.ndarray:
    """A grey image of ``page`` as a scanner would give it.

    Args:
        page: a PDF page with a text layer.
        dpi: scan resolution, dots per inch.
        skew: rotation, degrees counter-clockwise (a page fed crooked).
        noise: standard deviation of Gaussian noise added to each pixel
            (0-255 scale), plus the same share in per mille of black and
            white specks; 0 for a clean scan.
        seed: seed of the noise (fixed: the same copy every run).

    Returns:
        ``uint8`` array of shape ``(height, width)``.
    """
    import cv2

    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    img = np.frombuffer(pix.samples, np.uint8).reshape(pix.h, pix.stride)[:, : pix.w].astype(np.float32)
    if skew:
        h, w = img.shape
        m = cv2.getRotationMatrix2D((w / 2, h / 2), skew, 1.0)
        img = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=255)
    if noise:
        rng = np.random.default_rng(seed)
        img = img + rng.normal(0.0, noise, img.shape)
        specks = rng.random(img.shape)
        img[specks < noise / 2000] = 0
        img[specks > 1 - noise / 2000] = 255
    return np.clip(img, 0, 255).astype(np.uint8)


def write_scanned_copy(source: str | os.PathLike, path: str | os.PathLike, dpi: int, **scan) -> Path:
    """Write an image-only copy of the PDF ``source`` (every page through :func:`scan_page`).

    Args:
        source: a PDF with a text layer (for example a FORGE report).
        path: where to write the copy (same page size, no text layer).
        dpi: scan resolution, dots per inch.
        **scan: ``skew``, ``noise``, ``seed`` of :func:`scan_page`.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.
    """
    import cv2

    path = Path(path)
    src, out = pymupdf.open(source), pymupdf.open()
    for page in src:
        _, png = cv2.imencode(".png", scan_page(page, dpi, **scan))
        new = out.new_page(width=page.rect.width, height=page.rect.height)
        new.insert_image(new.rect, stream=png.tobytes())
    out.save(path, deflate=True)
    src.close()
    out.close()
    return path


def write_form_drawn(path: str | os.PathLike, words: int, times: int, nested: int = 0, itself: bool = False) -> Path:
    """Write a hostile one-page PDF: a form XObject of ``words`` tiny words drawn ``times`` times.

    The file stays a few kilobytes while its text, as drawn, is ``words x times``
    words: the case the reader's count of drawn bytes refuses
    (``DDRSEARCH_MAX_PAGE_BYTES``, :mod:`ddrsearch.reading.pdf`).

    Args:
        path: the PDF to write.
        words: words in the form (at least 40: one line of 40 words per 40).
        times: how many times the page draws its form.
        nested: when above 0, the page draws an outer form (named ``In er`` in the file, ``In#20er``) that
            draws the word form ``nested`` times, so each drawing of the page's form draws ``nested`` of it.
        itself: the word form also draws itself (a loop a reader must refuse).

    Returns:
        ``Path(path)``.
    """
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 72), "DAILY DRILLING REPORT", fontsize=10)
    font = page.get_fonts()[0][0]
    vocab = b"stuck pipe jar circulate condition mud lost circulation".split()
    lines = [b"BT /helv 2 Tf 20 %.1f Td (%s) Tj ET" % (40 + 1.5 * i, b" ".join(vocab[(i + j) % 8] for j in range(40)))
             for i in range(max(1, words // 40))]
    form = doc.get_new_xref()
    doc.update_object(form, f"<</Type/XObject/Subtype/Form/BBox[0 0 612 792]/Resources<</Font<</helv {font} 0 R>>"
                            f"/XObject<</Me {form} 0 R>>>>>>" if itself else
                      f"<</Type/XObject/Subtype/Form/BBox[0 0 612 792]/Resources<</Font<</helv {font} 0 R>>>>>>")
    doc.update_stream(form, b"\n".join(lines) + (b"\n/Me Do" if itself else b""), compress=True)
    drawn = form
    if nested:
        drawn = doc.get_new_xref()
        doc.update_object(drawn, f"<</Type/XObject/Subtype/Form/BBox[0 0 612 792]/Resources<</XObject<</In#20er {form} 0 R>>>>>>")
        doc.update_stream(drawn, b"q /In#20er Do Q\n" * nested, compress=True)
    resources = int(doc.xref_get_key(page.xref, "Resources")[1].split()[0])
    doc.xref_set_key(resources, "XObject", f"<</Fm0 {drawn} 0 R>>")
    xref = page.get_contents()[0]
    doc.update_stream(xref, doc.xref_stream(xref) + b"\nq /Fm0 Do Q" * times, compress=True)
    doc.save(path, garbage=4, deflate=True)
    doc.close()
    return Path(path)


#: Where :func:`write_nested_forms` puts its nest of forms: streams a page draws besides its contents.
NEST_PLACES = ("annotation", "soft mask", "type3 glyph", "tiling pattern")


def write_nested_forms(path: str | os.PathLike, where: str, depth: int = 7, fan: int = 10) -> Path:
    """Write a hostile one-page PDF of a few kilobytes: forms nested ``depth`` deep, each drawing the next ``fan``
    times (``fan ** (depth - 1)`` drawings of three words), drawn by a stream other than the page's contents.

    Args:
        path: the PDF to write.
        where: one of :data:`NEST_PLACES`: a stamp annotation's appearance, the soft-mask group of an
            ``/ExtGState`` the page sets, the glyph procedure of a Type3 font the page shows, or the cell
            of a tiling pattern the page fills a rectangle with.
        depth, fan: the nest's depth (at least 1) and how many times each form draws the next.

    Returns:
        ``Path(path)``.

    Raises:
        ValueError: ``where`` is not one of :data:`NEST_PLACES`, or ``depth`` < 1.
    """
    if where not in NEST_PLACES or depth < 1:
        raise ValueError(f"where must be one of {NEST_PLACES} and depth at least 1, got {where!r}, {depth}")
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 72), "DAILY DRILLING REPORT", fontsize=10)
    font = page.get_fonts()[0][0]
    forms = [doc.get_new_xref() for _ in range(depth)]
    for i, xref in enumerate(forms):
        last = i == depth - 1
        resources = f"/Font<</helv {font} 0 R>>" if last else f"/XObject<</X{i + 1} {forms[i + 1]} 0 R>>"
        doc.update_object(xref, f"<</Type/XObject/Subtype/Form/BBox[0 0 612 792]/Resources<<{resources}>>>>")
        doc.update_stream(xref, b"BT /helv 1 Tf 10 10 Td (stuck pipe jar) Tj ET" if last
                          else b"/X%d Do\n" % (i + 1) * fan, compress=True)
    resources = int(doc.xref_get_key(page.xref, "Resources")[1].split()[0])
    if where == "annotation":
        annot = doc.get_new_xref()
        doc.update_object(annot, f"<</Type/Annot/Subtype/Stamp/Rect[0 0 612 792]/AP<</N {forms[0]} 0 R>>/F 4>>")
        doc.xref_set_key(page.xref, "Annots", f"[{annot} 0 R]")
    elif where == "soft mask":
        state = doc.get_new_xref()
        doc.update_object(state, f"<</Type/ExtGState/SMask<</Type/Mask/S/Luminosity/G {forms[0]} 0 R>>>>")
        doc.xref_set_key(forms[0], "Group", "<</S/Transparency>>")
        doc.xref_set_key(resources, "ExtGState", f"<</GS1 {state} 0 R>>")
        xref = page.get_contents()[0]
        doc.update_stream(xref, doc.xref_stream(xref) + b"\n/GS1 gs 0 0 100 100 re f", compress=True)
    elif where == "tiling pattern":
        cell = doc.get_new_xref()
        doc.update_object(cell, f"<</Type/Pattern/PatternType 1/PaintType 1/TilingType 1/BBox[0 0 612 792]"
                                f"/XStep 612/YStep 792/Resources<</XObject<</X0 {forms[0]} 0 R>>>>>>")
        doc.update_stream(cell, b"/X0 Do", compress=True)
        doc.xref_set_key(resources, "Pattern", f"<</P0 {cell} 0 R>>")
        xref = page.get_contents()[0]
        doc.update_stream(xref, doc.xref_stream(xref) + b"\n/Pattern cs /P0 scn 0 0 612 792 re f", compress=True)
    else:
        type3 = _type3_font(doc, [b"1000 0 d0\n/X0 Do"], f"/XObject<</X0 {forms[0]} 0 R>>", first_code=97)
        return _save_showing_type3(doc, page, resources, f"/helv {font} 0 R", type3, b"aaaa", path)
    doc.save(path, garbage=0, deflate=True)
    doc.close()
    return Path(path)


def write_type3_in_type3(path: str | os.PathLike, glyphs: int, form_bytes: int) -> Path:
    """Write a hostile one-page PDF of a few kilobytes: a Type3 font whose glyph shows a second Type3 font of
    ``glyphs`` glyphs, each of which draws one form of ``form_bytes`` bytes of drawing instructions.

    Each stream is under ``DDRSEARCH_MAX_PAGE_BYTES`` when counted once, but loading the second font (when the
    first one's glyph is shown) runs every one of its glyph procedures: ``glyphs x form_bytes`` bytes of work
    inside one PyMuPDF call, which the reader's checks between calls cannot stop
    (:mod:`ddrsearch.reading.isolation` does).

    Args:
        path: the PDF to write.
        glyphs: glyphs of the second font (1 to 256).
        form_bytes: bytes of the form each of them draws.

    Returns:
        ``Path(path)``.

    Raises:
        ValueError: ``glyphs`` is not 1 to 256.
    """
    if not 1 <= glyphs <= 256:
        raise ValueError(f"glyphs must be 1 to 256, got {glyphs}")
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((50, 72), "DAILY DRILLING REPORT", fontsize=10)
    helv = page.get_fonts()[0][0]
    form = doc.get_new_xref()
    doc.update_object(form, f"<</Type/XObject/Subtype/Form/BBox[0 0 612 792]/Resources<</Font<</helv {helv} 0 R>>>>>>")
    line = b"BT /helv 1 Tf 10 10 Td (stuck pipe jar) Tj ET\n"
    doc.update_stream(form, line * max(1, form_bytes // len(line)), compress=True)
    inner = _type3_font(doc, [b"1000 0 d0\n/X0 Do"] * glyphs, f"/XObject<</X0 {form} 0 R>>")
    outer = _type3_font(doc, [b"1000 0 d0\nBT /B 1 Tf (\\000) Tj ET"], f"/Font<</B {inner} 0 R>>")
    resources = int(doc.xref_get_key(page.xref, "Resources")[1].split()[0])
    return _save_showing_type3(doc, page, resources, f"/helv {helv} 0 R", outer, b"\\000", path)


def _type3_font(doc, procs: list[bytes], resources: str, first_code: int = 0) -> int:
    """Add a Type3 font to ``doc`` whose glyph ``first_code + i`` runs ``procs[i]`` with ``resources``
    (the inside of a /Resources dictionary); return the font's xref."""
    xrefs = []
    for proc in procs:
        xrefs.append(doc.get_new_xref())
        doc.update_object(xrefs[-1], "<<>>")
        doc.update_stream(xrefs[-1], proc, compress=True)
    font = doc.get_new_xref()
    last = first_code + len(xrefs) - 1
    doc.update_object(font, "<</Type/Font/Subtype/Type3/FontBBox[0 0 1000 1000]/FontMatrix[0.001 0 0 0.001 0 0]"
                            "/CharProcs<<" + "".join(f"/g{i} {x} 0 R" for i, x in enumerate(xrefs)) + ">>"
                            f"/Encoding<</Type/Encoding/Differences[{first_code} "
                            + " ".join(f"/g{i}" for i in range(len(xrefs)))
                            + f"]>>/FirstChar {first_code}/LastChar {last}/Widths[{' '.join(['1000'] * len(xrefs))}]"
                            f"/Resources<<{resources}>>>>")
    return font


def _save_showing_type3(doc, page, resources: int, fonts: str, type3: int, shown: bytes,
                        path: str | os.PathLike) -> Path:
    """Put the Type3 font ``type3`` beside ``fonts`` in the page's /Resources (xref ``resources``) as /T3, show
    ``shown`` (a PDF string's inside) in it at the end of the page's content, save ``doc`` to ``path`` and close it."""
    doc.xref_set_key(resources, "Font", f"<<{fonts}/T3 {type3} 0 R>>")
    xref = page.get_contents()[0]
    doc.update_stream(xref, doc.xref_stream(xref) + b"\nBT /T3 12 Tf 72 600 Td (" + shown + b") Tj ET", compress=True)
    doc.save(path, garbage=0, deflate=True)
    doc.close()
    return Path(path)
