"""OCR of scanned report pages, and a quality gate that keeps bad OCR out of the index.

Two engines:

* ``"rapidocr"``: RapidOCR (PaddleOCR's PP-OCRv4 models run by ONNX Runtime,
  package ``rapidocr-onnxruntime``). Its wheel carries its models, so it
  installs with ddrsearch and needs no download at run time.
* ``"tesseract"``: the Tesseract program (Debian/Ubuntu ``apt install
  tesseract-ocr``, conda-forge ``tesseract``, Homebrew ``tesseract``), called
  on the page image with TSV output for its word boxes and confidences;
  used only where it is installed.

:func:`ocr_page` renders a page to a grey image at a given dpi, estimates the
skew (projection profile: the angle at which the row sums of ink vary most),
deskews by up to :data:`MAX_DESKEW` degrees and flags more, runs the engine
and returns the words with their boxes in PDF points (so the layout parser
reads them like a text layer) and the engine's confidences. Results are
cached on disk (:func:`cache_dir`), keyed by the image's SHA-256, engine and
settings.

:class:`QualityGate` turns measured signals of a page (mean engine
confidence, share of words found in the reports' vocabulary, and, where a
text layer exists, the character error rate against it) into pass or a list
of reasons; :func:`error_rates` gives CER and WER with jiwer.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pymupdf

from ddrsearch import settings
from ddrsearch.data.resources import resource_path
from ddrsearch.errors import OCRUnavailableError
from ddrsearch.imports import require_extra
from ddrsearch.reading.pdf import Word, group_lines, join_words
from ddrsearch.text.glossary import default_glossary

__all__ = [
    "ENGINES", "GATE_THRESHOLDS", "INSTALL_HINT", "MAX_DESKEW", "OcrPage", "PageQuality", "QualityGate", "available_engines",
    "cache_dir", "error_rates", "estimate_skew", "known_share", "layer_text", "load_vocabulary", "ocr_image",
    "ocr_page", "page_image", "pick_engine", "rotate",
]

ENGINES = ("rapidocr", "tesseract")

#: How to get an engine, for error messages.
INSTALL_HINT = ("install an OCR engine: `pip install rapidocr-onnxruntime` (models included), or Tesseract "
                "(`apt install tesseract-ocr`, `conda install -c conda-forge tesseract` or `brew install tesseract`)")

#: Largest skew, degrees, that is corrected; a page skewed more is flagged for review.
MAX_DESKEW = 5.0

_CACHE_VERSION = 3  # 2: Tesseract with --psm 11; 3: RapidOCR at the image's own size, no line classifier; clip

#: Largest image side, pixels, RapidOCR reads unshrunk. Its default (``max_side_len=2000``) shrinks a letter
#: page above 181 dpi, so "300 dpi" would be read at 181; this keeps every resolution up to 600 dpi.
RAPIDOCR_MAX_SIDE = 7000


@dataclass(frozen=True)
class OcrPage:
    """The OCR of one page.

    Attributes:
        engine: ``"rapidocr"`` or ``"tesseract"``.
        dpi: resolution the page was rendered (or scanned) at, dots per inch.
        words: words with boxes in PDF points (origin top left), as
            :func:`ddrsearch.reading.pdf.page_words` gives for a text layer.
        confidences: the engine's confidence of each word, 0 to 1.
        skew: skew estimated on the image, degrees (positive: counter-clockwise).
        deskewed: the image was rotated by ``-skew`` before OCR.
        flags: what could not be corrected (for example a skew above
            :data:`MAX_DESKEW` or a page turned by 90 degrees).
        seconds: time the engine took (0 when read from the cache).
    """

    engine: str
    dpi: int
    words: tuple[Word, ...]
    confidences: tuple[float, ...]
    skew: float = 0.0
    deskewed: bool = False
    flags: tuple[str, ...] = ()
    seconds: float = 0.0

    @property
    def text(self) -> str:
        """The words as lines (grouped by position), joined by newlines."""
        return "\n".join(join_words(line) for line in group_lines(self.words, tol=4.0))

    @property
    def confidence(self) -> float | None:
        """Mean word confidence, 0 to 1 (``None`` without words)."""
        return float(np.mean(self.confidences)) if self.confidences else None


# --- engines ----------------------------------------------------------------------

def available_engines() -> list[str]:
    """The engines that can run here, in :data:`ENGINES` order."""
    out = []
    try:
        import rapidocr_onnxruntime  # noqa: F401

        out.append("rapidocr")
    except ImportError:
        pass
    if shutil.which("tesseract"):
        out.append("tesseract")
    return out


def pick_engine(engine: str = "auto", *, file_name: str = "") -> str:
    """Resolve ``"auto"`` to the first available engine, or check a named one.

    Raises:
        OCRUnavailableError: no engine (or not the named one) is installed; the
            message names ``file_name`` and says how to install one.
        ValueError: an engine name not in :data:`ENGINES`.
    """
    if engine not in ("auto", *ENGINES):
        raise ValueError(f"unknown OCR engine {engine!r}; choose from auto, {', '.join(ENGINES)}")
    have = available_engines()
    if engine == "auto" and have:
        return have[0]
    if engine in have:
        return engine
    what = "no OCR engine is installed" if engine == "auto" else f"the OCR engine {engine!r} is not installed"
    raise OCRUnavailableError(f"{file_name or 'this PDF'} has pages without a text layer and {what}: {INSTALL_HINT}.",
                              file_name or None)


@functools.lru_cache(maxsize=1)
def _rapidocr():
    from rapidocr_onnxruntime import RapidOCR

    # use_cls=False: the line classifier only tells 0 from 180 degrees; pages are deskewed, turned ones flagged.
    return RapidOCR(print_verbose=False, max_side_len=RAPIDOCR_MAX_SIDE, use_cls=False)


def _run_rapidocr(img: np.ndarray) -> list[tuple[float, float, float, float, str, float]]:
    """Words ``(x0, y0, x1, y1, text, confidence)`` in pixels; a text line's box is shared out by characters."""
    result, _ = _rapidocr()(img)
    out = []
    for box, text, score in result or []:
        xs, ys = [p[0] for p in box], [p[1] for p in box]
        x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
        per_char = (x1 - x0) / max(len(text), 1)
        for m in re.finditer(r"\S+", text):
            out.append((x0 + m.start() * per_char, y0, x0 + m.end() * per_char, y1, m.group(), float(score)))
    return out


def _run_tesseract(img: np.ndarray, dpi: int) -> list[tuple[float, float, float, float, str, float]]:
    """Words in pixels from ``tesseract IMAGE stdout tsv`` (confidence 0-100 scaled to 0-1)."""
    import cv2

    with tempfile.TemporaryDirectory() as tmp:
        png = Path(tmp) / "page.png"
        cv2.imwrite(str(png), img)
        # --psm 11 (sparse text) suits forms: on report 38 at 150 dpi the default (3) kept 252 of 710 words
        # OMP_THREAD_LIMIT=1: Tesseract's OpenMP threads spin; on a shared 2-core machine one thread was 2-3 times
        # faster (report 38: 150 dpi 3.9 s against 10.1 s, 300 dpi 5.3 s against 18.6 s wall).
        env = {**os.environ, "OMP_THREAD_LIMIT": os.environ.get("OMP_THREAD_LIMIT", "1")}
        done = subprocess.run(["tesseract", str(png), "stdout", "--dpi", str(dpi), "--psm", "11", "-l", "eng", "tsv"],
                              capture_output=True, text=True, check=True, env=env)
    out = []
    for line in done.stdout.splitlines()[1:]:
        cells = line.split("\t")
        if len(cells) < 12 or cells[0] != "5" or not cells[11].strip():
            continue
        left, top, width, height, conf = (float(c) for c in cells[6:11])
        out.append((left, top, left + width, top + height, cells[11].strip(), max(conf, 0.0) / 100.0))
    return out


# --- images -----------------------------------------------------------------------

def page_image(page: pymupdf.Page, dpi: int) -> np.ndarray:
    """The page rendered to a grey image (``uint8``, shape ``(height, width)``) at ``dpi``."""
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    return np.frombuffer(pix.samples, np.uint8).reshape(pix.h, pix.stride)[:, : pix.w].copy()


def rotate(img: np.ndarray, degrees: float) -> np.ndarray:
    """``img`` rotated by ``degrees`` counter-clockwise about its centre, white fill, same size."""
    import cv2

    h, w = img.shape
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    return cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderValue=255)


def estimate_skew(img: np.ndarray, limit: float = 10.0, step: float = 0.25) -> tuple[float, bool]:
    """Skew of a text page, degrees, by the projection-profile method; and whether it looks turned 90 degrees.

    The page (reduced to about 800 px high) is rotated by each angle in
    ``[-limit, limit]``; at the text's own angle the lines of text line up
    with the pixel rows and the variance of the row sums of ink is largest.
    A page whose column sums vary more than its row sums at every angle is
    reported as turned by 90 degrees.

    Returns:
        ``(skew, turned)``: rotating by ``-skew`` straightens the page.
    """
    import cv2

    scale = 800.0 / img.shape[0]
    small = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else img
    ink = (255 - small.astype(np.float32)) / 255.0
    best, best_var = 0.0, -1.0
    for a in np.arange(-limit, limit + step / 2, step):
        var = float(np.var(rotate((255 - ink * 255).astype(np.uint8), -a).astype(np.float32).sum(axis=1)))
        if var > best_var:
            best, best_var = float(a), var
    straight = 255 - (rotate((255 - ink * 255).astype(np.uint8), -best).astype(np.float32))
    turned = float(np.var(straight.sum(axis=0))) > 1.5 * float(np.var(straight.sum(axis=1)))
    return round(best, 2), turned


# --- OCR with a cache ---------------------------------------------------------------

def cache_dir() -> Path:
    """``$DDRSEARCH_OCR_CACHE_DIR``; else ``<project>/.cache/ocr`` in a checkout; else ``~/.cache/ddrsearch/ocr``."""
    env = settings.get_path("DDRSEARCH_OCR_CACHE_DIR")
    if env is not None:
        return env
    root = settings.project_root()
    return root / ".cache" / "ocr" if root is not None else Path.home() / ".cache" / "ddrsearch" / "ocr"


def ocr_image(img: np.ndarray, engine: str, dpi: int, *, page_size: tuple[float, float] | None = None,
              deskew: bool = True, cache: bool = True,
              clip: tuple[float, float, float, float] | None = None) -> OcrPage:
    """OCR a grey page image.

    Args:
        img: ``uint8`` grey image, shape ``(height, width)``.
        engine: ``"rapidocr"`` or ``"tesseract"`` (see :func:`pick_engine`).
        dpi: the image's resolution, dots per inch (turns pixels into points).
        page_size: ``(width, height)`` of the page in points; default from ``dpi``.
        deskew: estimate the skew and straighten up to :data:`MAX_DESKEW` degrees.
        cache: read and write the result in :func:`cache_dir`.
        clip: ``(x0, y0, x1, y1)`` in points: OCR only this part of the page (after
            deskewing the whole page), e.g. one table; time grows with the text read.

    Returns:
        An :class:`OcrPage` with word boxes in points (page coordinates, also with ``clip``).
    """
    key = hashlib.sha256(img.tobytes() + repr((img.shape, engine, dpi, deskew, _CACHE_VERSION, clip)).encode()).hexdigest()
    path = cache_dir() / f"{key}.json"
    if cache and path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        return OcrPage(**{**data, "words": tuple(Word(*w) for w in data["words"]),
                          "confidences": tuple(data["confidences"]), "flags": tuple(data["flags"]), "seconds": 0.0})
    skew, turned = estimate_skew(img) if deskew else (0.0, False)
    flags = []
    if turned:
        flags.append("the page looks turned by 90 degrees: turn it upright and OCR it again")
    straighten = deskew and 0.2 <= abs(skew) <= MAX_DESKEW
    if abs(skew) > MAX_DESKEW:
        flags.append(f"skewed by {skew:g} degrees, more than the {MAX_DESKEW:g} corrected: rescan it straight")
    work = rotate(img, skew) if straighten else img
    sx = (page_size[0] / img.shape[1]) if page_size else 72.0 / dpi
    sy = (page_size[1] / img.shape[0]) if page_size else 72.0 / dpi
    left = top = 0
    if clip is not None:
        left, top = max(0, int(clip[0] / sx)), max(0, int(clip[1] / sy))
        work = np.ascontiguousarray(work[top:math.ceil(clip[3] / sy), left:math.ceil(clip[2] / sx)])
        if work.size == 0:
            raise ValueError(f"clip {clip} lies outside the page")
    t0 = time.perf_counter()
    raw = _run_rapidocr(work) if engine == "rapidocr" else _run_tesseract(work, dpi)
    seconds = time.perf_counter() - t0
    words = tuple(Word(round((x0 + left) * sx, 2), round((y0 + top) * sy, 2), round((x1 + left) * sx, 2),
                       round((y1 + top) * sy, 2), text) for x0, y0, x1, y1, text, _ in raw)
    out = OcrPage(engine, dpi, words, tuple(round(c, 4) for *_, c in raw), skew, straighten, tuple(flags), seconds)
    if cache:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(asdict(out)), encoding="utf-8")
        except OSError:
            pass  # a read-only cache only costs time
    return out


def ocr_page(page: pymupdf.Page, engine: str = "auto", dpi: int = 200, *, deskew: bool = True,
             cache: bool = True, clip: tuple[float, float, float, float] | None = None) -> OcrPage:
    """Render ``page`` at ``dpi`` and OCR it, or only its part ``clip`` (see :func:`ocr_image`).

    For a scanned page (one image filling the page) rendering at the scan's
    own resolution loses nothing; ``dpi`` above it only costs time.

    Raises:
        OCRUnavailableError: the engine is not installed.
    """
    engine = pick_engine(engine)
    return ocr_image(page_image(page, dpi), engine, dpi, page_size=(page.rect.width, page.rect.height),
                     deskew=deskew, cache=cache, clip=None if clip is None else tuple(clip))


# --- measuring OCR ---------------------------------------------------------------------

def layer_text(page: pymupdf.Page, clip: tuple[float, float, float, float] | None = None) -> str:
    """A page's text layer as lines grouped by position (as :attr:`OcrPage.text`); with ``clip`` (points) only
    the words whose centre lies inside it, to compare with :func:`ocr_page` of the same part."""
    from ddrsearch.reading.pdf import page_words

    words = page_words(page)
    if clip is not None:
        x0, y0, x1, y1 = clip
        words = [w for w in words if x0 <= (w.x0 + w.x1) / 2 <= x1 and y0 <= (w.y0 + w.y1) / 2 <= y1]
    return "\n".join(join_words(line) for line in group_lines(words, tol=4.0))


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def error_rates(reference: str, hypothesis: str, order: str = "free") -> tuple[float, float]:
    """Character and word error rates of ``hypothesis`` against ``reference`` (jiwer).

    Both texts are lower-cased and their whitespace collapsed first (search
    is case-insensitive). CER and WER are (substitutions + deletions +
    insertions) / reference length, in characters and in words (Morris et
    al. 2004, as jiwer computes them); they can exceed 1.

    Args:
        order: ``"free"`` (default) sorts the words of both texts first, so
            that only recognition errors count, not a different reading order
            of a form's cells (engines and text layers order table cells
            differently); ``"reading"`` compares the texts as they are.

    Raises:
        ValueError: ``reference`` is blank, or an unknown ``order``.
    """
    jiwer = require_extra("jiwer", "OCR error rates")

    if order not in ("free", "reading"):
        raise ValueError(f"order must be 'free' or 'reading', not {order!r}")
    ref, hyp = _norm(reference), _norm(hypothesis)
    if order == "free":
        ref, hyp = " ".join(sorted(ref.split())), " ".join(sorted(hyp.split()))
    if not ref:
        raise ValueError("the reference text is blank: nothing to measure against")
    return float(jiwer.cer(ref, hyp)), float(jiwer.wer(ref, hyp))


@functools.lru_cache(maxsize=1)
def load_vocabulary() -> frozenset[str]:
    """Words the gate counts as known: ``resources/ocr_vocabulary.txt`` plus the glossary's abbreviations.

    The word list holds the lower-case words (letters only) found in at least
    two of the 66 FORGE reports outside the ten-report sample.
    """
    words = {w.strip() for w in resource_path("ocr_vocabulary.txt").read_text(encoding="utf-8").splitlines()
             if w.strip() and not w.startswith("#")}
    words |= {t.lower() for t in default_glossary().tokens}
    return frozenset(words)


def known_share(text: str, vocabulary: frozenset[str] | None = None) -> float | None:
    """Share of the words of ``text`` (letters only, 3 or more) found in ``vocabulary``; ``None`` without words."""
    vocabulary = load_vocabulary() if vocabulary is None else vocabulary
    words = re.findall(r"[a-z]{3,}", text.lower())
    return sum(w in vocabulary for w in words) / len(words) if words else None


@dataclass(frozen=True)
class PageQuality:
    """The gate's verdict on one OCR'd page: its signals and, when it fails, why."""

    confidence: float | None
    known_share: float | None
    cer: float | None = None
    reasons: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return not self.reasons


#: Per-engine defaults of :meth:`QualityGate.for_engine`: lowest mean confidence and known-word share on good
#: pages (CER <= 10% against the text layer), rounded down, measured by chapter 06 (tbl-scanned-gate): report 38's
#: TIME BREAKDOWN at 150/200/300 dpi and noisy, plus the ten sample pages whole at the engine's best resolution.
#: Lows: RapidOCR (pages at 150 dpi) 0.968, 0.822; Tesseract (pages at 300 dpi) 0.836, 0.844.
GATE_THRESHOLDS: dict[str, dict[str, float]] = {
    "rapidocr": {"min_confidence": 0.96, "min_known_share": 0.82},
    "tesseract": {"min_confidence": 0.83, "min_known_share": 0.84},
}


@dataclass(frozen=True)
class QualityGate:
    """Thresholds an OCR'd page must meet to be indexed.

    :meth:`for_engine` gives the thresholds measured per engine in chapter 06
    (:data:`GATE_THRESHOLDS`): the lowest confidence and known-word share seen
    on pages with a CER of at most ``max_cer``; the class defaults are generic.

    Attributes:
        min_confidence: mean engine confidence, 0 to 1.
        min_known_share: share of words found in :func:`load_vocabulary`.
        max_cer: highest CER against a text layer, when there is one.
        min_words: fewest words a page must have.
    """

    min_confidence: float = 0.90
    min_known_share: float = 0.80
    max_cer: float = 0.10
    min_words: int = 20
    vocabulary: frozenset[str] | None = field(default=None, repr=False)

    @classmethod
    def for_engine(cls, engine: str, **overrides) -> QualityGate:
        """The gate with ``engine``'s measured thresholds (:data:`GATE_THRESHOLDS`, else the defaults); ``overrides`` win."""
        return cls(**{**GATE_THRESHOLDS.get(engine, {}), **overrides})

    def check(self, page: OcrPage, reference: str | None = None) -> PageQuality:
        """Measure ``page`` and give the reasons it fails (none when it passes).

        Args:
            page: the OCR of a page.
            reference: the page's text layer, when it has one (the CER is then a signal).
        """
        conf, share = page.confidence, known_share(page.text, self.vocabulary)
        cer = error_rates(reference, page.text)[0] if reference and reference.strip() else None
        reasons = list(page.flags)
        if len(page.words) < self.min_words:
            reasons.append(f"{len(page.words)} words, fewer than {self.min_words}")
        if conf is not None and conf < self.min_confidence:
            reasons.append(f"mean confidence {conf:.2f} below {self.min_confidence:.2f}")
        if share is not None and share < self.min_known_share:
            reasons.append(f"{share:.0%} known words, below {self.min_known_share:.0%}")
        if cer is not None and not math.isnan(cer) and cer > self.max_cer:
            reasons.append(f"CER {cer:.1%} against the text layer, above {self.max_cer:.0%}")
        return PageQuality(conf, share, cer, tuple(reasons))
