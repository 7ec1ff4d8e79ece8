"""In headless Chromium at 1280 px, the preview shows the pipeline diagram, an answer card and the story timeline whole.

The preview (``ddrsearch preview``, :func:`ddrsearch.book.preview.build_preview`)
of chapters 9, 10 and 13 is opened at a window 1280 px wide. Each picture must
have loaded (``naturalWidth > 0``) and sit inside the page; the answer card's
table must not be wider than its column (``scrollWidth <= clientWidth``: a card
cut at the right edge, "WOB 2...", is what the issue saw). A screenshot of each
is written to ``$DDRSEARCH_SCREENSHOTS`` when that is set (else a temporary folder)
for a person to look at.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import PROJECT

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
WIDTH = 1280
CHAPTERS = ["09-hybrid-retrieval", "10-traceable-answers", "13-patterns-across-days"]

pytestmark = [
    pytest.mark.browser, pytest.mark.notebook, pytest.mark.data, pytest.mark.model,
    pytest.mark.skipif(not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
                       reason="headless Chromium not installed (apt-get install chromium chromium-driver)"),
]

#: The image of a labelled figure: the preview writes its caption (holding the label's anchor) in the
#: cell after the figure's cell.
FIGURE_JS = """
const anchor = document.getElementById(arguments[0]);
if (!anchor) return null;
const cell = anchor.closest('.jp-Cell');
const before = cell && cell.previousElementSibling;
return before ? before.querySelector('.jp-OutputArea img') : null;
"""

#: The rendered output that holds the card for a question, and its table.
CARD_JS = """
const outs = [...document.querySelectorAll('.jp-RenderedMarkdown')];
return outs.find(o => o.textContent.includes('Q: ' + arguments[0]) && o.querySelector('table')) || null;
"""


@pytest.fixture(scope="module")
def preview(tmp_path_factory):
    from ddrsearch.book.preview import build_preview

    out = tmp_path_factory.mktemp("preview")
    build_preview(PROJECT, out, only=CHAPTERS)
    return out


@pytest.fixture(scope="module")
def driver():
    webdriver = pytest.importorskip("selenium.webdriver")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={WIDTH},1000", "--hide-scrollbars"):
        options.add_argument(arg)
    d = webdriver.Chrome(service=webdriver.ChromeService(str(CHROMEDRIVER)), options=options)
    yield d
    d.quit()


@pytest.fixture(scope="module")
def screens(tmp_path_factory):
    folder = Path(os.environ.get("DDRSEARCH_SCREENSHOTS") or tmp_path_factory.mktemp("screens"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _open(driver, preview, stem):
    driver.get((preview / f"{stem}.html").as_uri())
    driver.execute_script("return document.fonts ? document.fonts.ready : null")


def _inside_the_page(driver, element) -> tuple[float, float]:
    """(right edge of the element, width of the page's viewport), in CSS pixels."""
    return tuple(driver.execute_script(
        "return [arguments[0].getBoundingClientRect().right, document.documentElement.clientWidth];", element))


def _figure(driver, preview, stem, label, screens, name):
    _open(driver, preview, stem)
    img = driver.execute_script(FIGURE_JS, label)
    assert img is not None, f"{stem}: no image before the caption of {label}"
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", img)
    loaded = driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth;", img)
    assert loaded and loaded > 0, f"{stem}: the image of {label} did not load"
    right, page = _inside_the_page(driver, img)
    assert right <= page, f"{stem}: {label} runs past the page ({right:.0f} px > {page} px)"
    img.screenshot(str(screens / name))
    return img


def test_the_pipeline_diagram_loads_and_fits_the_page(driver, preview, screens):
    img = _figure(driver, preview, "09-hybrid-retrieval", "fig-pipeline", screens, "09-pipeline-diagram.png")
    # drawn wide enough to read: at least half the page's width
    assert img.size["width"] >= WIDTH / 2


def test_an_answer_card_is_a_table_no_wider_than_its_column_with_its_crop(driver, preview, screens):
    _open(driver, preview, "10-traceable-answers")
    card = driver.execute_script(CARD_JS, "when did we first run casing?")
    assert card is not None, "chapter 10: no card table for 'when did we first run casing?'"
    table = card.find_element("css selector", "table")
    driver.execute_script("arguments[0].scrollIntoView({block: 'start'});", card)
    scroll, client = driver.execute_script(
        "return [arguments[0].scrollWidth, arguments[0].parentElement.clientWidth];", table)
    assert scroll <= client, f"the card's table is {scroll} px wide in a {client} px column"
    right, page = _inside_the_page(driver, table)
    assert right <= page, f"the card's table runs past the page ({right:.0f} px > {page} px)"
    text = table.text
    assert "D012-r08" in text and "giving notice of Surface casing run" in text  # quoted whole, not cut
    card.screenshot(str(screens / "10-answer-card.png"))
    _figure(driver, preview, "10-traceable-answers", "fig-crop-card", screens, "10-answer-card-crop.png")


def test_the_story_timeline_loads_and_fits_the_page(driver, preview, screens):
    _figure(driver, preview, "13-patterns-across-days", "fig-patterns-story", screens, "13-story-timeline.png")
